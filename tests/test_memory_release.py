"""Freed heap pages go back to the OS after a bulk load (kbtui/memory.py), in a fresh
interpreter so that nothing else moves its RSS."""

from __future__ import annotations

import subprocess
import sys

import pytest

ANON_MB = """
from pathlib import Path

def anon_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
"""

PROBE = (
    ANON_MB
    + """
from kbtui.memory import BULK_ROWS, give_back_freed_memory

base = anon_mb()
loaded = [bytes(2000) + str(i).encode() for i in range(100_000)]  # ~200 MB through malloc
pin = bytes(2000) + b"pin"  # above them on the heap: glibc cannot shrink the heap's top
del loaded
kept = anon_mb() - base
give_back_freed_memory(BULK_ROWS)
print(f"{kept:.0f} {anon_mb() - base:.0f}")
"""
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_memory_freed_after_a_bulk_load_is_returned() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    kept, after = (float(v) for v in done.stdout.split())
    assert kept > 150  # glibc held on to the freed load...
    assert after < 50  # ...until it was handed back


MODEL_PROBE = (
    ANON_MB
    + """
import ctypes
from kbtui.embed import FastEmbedder

model = FastEmbedder()
model.load()
loaded = anon_mb()
ctypes.CDLL("libc.so.6").malloc_trim(0)
print(f"{loaded - anon_mb():.1f}")
"""
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_loading_the_model_leaves_no_freed_heap_behind() -> None:
    """fastembed opens a session that kbtui.embed replaces at once: the first one's memory is
    handed back at load (it stayed in the heap: a trim right after freed ~17 MB)."""
    done = subprocess.run(
        [sys.executable, "-c", MODEL_PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    assert float(done.stdout) < 4, done.stdout
