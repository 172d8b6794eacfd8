"""Ctrl-C during `kbtui index`: a clear message, exit status 130, no traceback; the vectors
committed so far are kept and the next pass embeds only the rest (issue 18, point 5)."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
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


def test_ctrl_c_keeps_what_was_embedded_and_the_next_pass_goes_on(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    first = subprocess.Popen(
        kbtui(vault, "index"), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # asked of the indexing process over its socket
        if stats(vault).get("embedded", 0) > 0 or first.poll() is not None:
            break
        time.sleep(0.1)
    assert first.poll() is None, "the pass ended before it could be interrupted"
    first.send_signal(signal.SIGINT)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130, err.decode()
    assert b"interrupted" in err and b"Traceback" not in err, err.decode()
    after = stats(vault)
    done, total = after["embedded"], after["chunks"]
    assert 0 < done < total
    again = subprocess.run(kbtui(vault, "index", "--json"), cwd=REPO, capture_output=True)
    assert again.returncode == 0, again.stderr.decode()
    report = json.loads(again.stdout)
    assert report["new"] == [] and report["changed"] == []
    assert report["chunks_embedded"] == total - done - after["not_embedded"]
    assert stats(vault)["embedded"] == total - after["not_embedded"]
