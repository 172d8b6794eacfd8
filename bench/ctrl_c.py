"""Ctrl-C `kbtui index` at random moments of a first pass, many times: each must exit 130
with the "interrupted" message, no traceback and no abort ("terminate called without an
active exception" came ~1 in 5 tries with a pool of model sessions).

    python bench/ctrl_c.py                      # 30 tries, SIGINT 2-8 s in, Node.js API docs
    python bench/ctrl_c.py --tries 50 --vault ~/notes --early 1 --late 20

Works on fresh copies (the source is never touched); prints one line a try and the count.
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_common import copy_vault, cpu_times, machine_note

DOCS = Path("/usr/share/doc/nodejs/api")
BAD = ("terminate", "Traceback", "Abort", "abort")


def one_try(source: Path, delay: float) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="kbtui-ctrl-c-") as tmp:
        vault = Path(tmp) / "vault"
        copy_vault(source, vault)
        cmd = [sys.executable, "-m", "kbtui.cli", "--vault", str(vault), "index"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        asked = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        text = err.decode(errors="replace")
        ok = proc.returncode == 130 and "interrupted" in text and not any(w in text for w in BAD)
        took = time.monotonic() - asked
        line = f"SIGINT after {delay:.1f} s: exit {proc.returncode} in {took:.2f} s"
        return ok, line if ok else f"{line}\n{text[-2000:]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--vault", type=Path, default=DOCS, help="a folder of notes to copy")
    parser.add_argument("--tries", type=int, default=30)
    parser.add_argument("--early", type=float, default=2.0, help="earliest SIGINT, seconds")
    parser.add_argument("--late", type=float, default=8.0, help="latest SIGINT, seconds")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    before = cpu_times()
    clean = 0
    for n in range(args.tries):
        ok, line = one_try(args.vault, rng.uniform(args.early, args.late))
        clean += ok
        print(f"try {n + 1}: {line}" + ("" if ok else "  <- BAD"), flush=True)
    print(f"clean exits: {clean} of {args.tries}; {machine_note(before)}")


if __name__ == "__main__":
    main()
