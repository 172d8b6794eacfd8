"""The long runs of the property-based tests: thousands of examples instead of a few.

    python bench/fuzz_long.py                 # 300 MCP calls per tool, 20,000 notes of bytes
    python bench/fuzz_long.py --mcp 1000 --notes 100000

Runs tests/test_mcp_fuzz.py (every tool through `kbtui mcp` and the SDK client) and the
any-bytes test of tests/test_bad_input.py with KBTUI_FUZZ_EXAMPLES raised; the MCP run
prints its tally of answers (ok / VALIDATION / PERMANENT / TRANSIENT) at the end.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from bench_common import REPO, cpu_times, machine_note


def run(examples: int, *targets: str) -> int:
    env = {**os.environ, "KBTUI_FUZZ_EXAMPLES": str(examples)}
    command = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", *targets]
    return subprocess.run(command, cwd=REPO, env=env).returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--mcp", type=int, default=300, help="examples per MCP tool")
    ap.add_argument("--notes", type=int, default=20_000, help="random notes to parse")
    opts = ap.parse_args()
    before = cpu_times()
    codes = [
        run(opts.notes, "tests/test_bad_input.py::test_any_bytes_are_a_note_or_a_reason"),
        run(opts.mcp, "tests/test_mcp_fuzz.py"),
    ]
    print(f"exit codes {codes}; {machine_note(before)}")
    return max(codes)


if __name__ == "__main__":
    sys.exit(main())
