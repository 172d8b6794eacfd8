"""Long crash-consistency run: kill -9 the indexer at random moments, many times.

    python bench/crash_index.py                      # 40 rounds on vault_example
    python bench/crash_index.py --rounds 200 --notes 400 --seed 7
    python bench/crash_index.py --rounds 10 --real   # the real model (slow: it embeds)

Each round changes a few notes, then kills 1-3 indexer processes (during a COMMIT, inside a
transaction, during a CHECKPOINT, halfway through embedding a batch, or after a random
delay); after each kill the index must open undamaged, and after a clean run it must equal
a fresh build of the same vault (notes, chunks, vectors, postings, names, relationships).
Prints runs, faults injected by kind, checks and failures; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from bench_common import VAULT_EXAMPLE, copy_vault, cpu_times, machine_note
from crashkit import crash_rounds
from synth_vault import make_vault


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--notes", type=int, default=0, help="a synthetic vault of this many notes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--real", action="store_true", help="embed with the real model")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="kbtui-crash-") as tmp:
        vault = Path(tmp) / "vault"
        if opts.notes:
            make_vault(vault, opts.notes, seed=opts.seed)
            (vault / "Home.md").write_text("# Home\n\nThe start page.\n")
        else:
            copy_vault(VAULT_EXAMPLE, vault)
        started, before = time.perf_counter(), cpu_times()
        counts = crash_rounds(
            vault, Path(tmp) / "fresh" / "vault", opts.rounds, random.Random(opts.seed),
            real=opts.real, pass_seconds=2.0 if opts.notes or opts.real else 0.6,
        )  # fmt: skip
        took = time.perf_counter() - started
        print(counts.line("crash consistency") + f" in {took:.0f}s; {machine_note(before)}")
        for failure in counts.failures:
            print("FAIL", failure)
    return 1 if counts.failures else 0


if __name__ == "__main__":
    sys.exit(main())
