"""Ctrl-C during `kbtui index`: a clear message, exit status 130, no traceback; the vectors
committed so far are kept and the next pass embeds only the rest (issue 18, point 5)."""

from __future__ import annotations

import json
import random
import selectors
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

WORDS = [
    "glacier",
    "harbour",
    "lantern",
    "meadow",
    "orbit",
    "quartz",
    "ribbon",
    "saddle",
    "timber",
    "velvet",
    "willow",
    "anchor",
    "beacon",
    "canyon",
    "dune",
    "ember",
    "falcon",
    "granite",
    "hollow",
    "island",
    "jasmine",
    "kettle",
    "lagoon",
    "marble",
    "nectar",
    "oasis",
    "pepper",
    "quiver",
    "raven",
    "summit",
    "thistle",
    "umbra",
    "valley",
    "walnut",
    "yonder",
    "zephyr",
]


def make_vault(root: Path, notes: int = 120) -> Path:
    rng = random.Random(18)
    for n in range(notes):
        paragraphs = [" ".join(rng.choices(WORDS, k=70)) + "." for _ in range(6)]
        (root / f"note_{n:03d}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / f"note_{n:03d}.md").write_text(f"# Note {n}\n\n" + "\n\n".join(paragraphs))
    return root


def kbtui(vault: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "kbtui.cli", "--vault", str(vault), *args]


def stats(vault: Path) -> dict[str, int]:
    out = subprocess.run(kbtui(vault, "stats", "--json"), cwd=REPO, capture_output=True)
    return json.loads(out.stdout) if out.returncode == 0 else {}


# `kbtui index` with a hold after its first committed batch of vectors: it says how many
# it embedded, then waits until its own Ctrl-C handler has run before going on, so the
# interrupt provably arrives mid-embedding however loaded the machine (no sleep, no race
# with the end of the pass). Everything else is the real command: model, DuckDB, signal.
HELD_INDEX = """
import signal, sys, threading
from kbtui import cli

# Ctrl-C as a terminal delivers it: a suite started in the background (`cmd &` in a script)
# hands its children SIGINT ignored, and kbtui rightly leaves an ignored Ctrl-C alone.
signal.signal(signal.SIGINT, signal.default_int_handler)

handled = threading.Event()
handle, checked = cli._CtrlC._handle, cli._CtrlC.checked

def handle_then_release(self, signum, frame):
    try:
        handle(self, signum, frame)
    finally:
        handled.set()

def held(self, progress):
    inner, first = checked(self, progress), []

    def hold(phase, done, total):
        if phase == "embed" and done > 0 and not first:
            first.append(done)
            print(f"embedded {done}", flush=True)
            handled.wait(timeout=600)
        inner(phase, done, total)

    return hold

cli._CtrlC._handle, cli._CtrlC.checked = handle_then_release, held
cli.main(args=sys.argv[1:], prog_name="kbtui")
"""


def first_line(proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    """The child's first line of output, or b"" if it ends or says nothing in `timeout` s."""
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        return proc.stdout.readline() if sel.select(timeout) else b""


def test_ctrl_c_keeps_what_was_embedded_and_the_next_pass_goes_on(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    first = subprocess.Popen(
        [sys.executable, "-c", HELD_INDEX, "--vault", str(vault), "index"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        line = first_line(first, timeout=300)
        assert line.startswith(b"embedded "), (line, first.poll())
        assert first.poll() is None, "the pass ended before it could be interrupted"
        held = int(line.split()[1])
        assert held > 0
        first.send_signal(signal.SIGINT)
        _, err = first.communicate(timeout=300)  # a loaded machine: the pass winds down
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 130, err.decode()
    assert b"interrupted" in err and b"Traceback" not in err, err.decode()
    after = stats(vault)
    done, total = after["embedded"], after["chunks"]
    assert held <= done < total  # the batch committed before Ctrl-C is kept, the rest waits
    again = subprocess.run(kbtui(vault, "index", "--json"), cwd=REPO, capture_output=True)
    assert again.returncode == 0, again.stderr.decode()
    report = json.loads(again.stdout)
    assert report["new"] == [] and report["changed"] == []
    assert report["chunks_embedded"] == total - done - after["not_embedded"]
    assert stats(vault)["embedded"] == total - after["not_embedded"]
