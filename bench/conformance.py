"""Issue 41's conformance figure: the share of DQL and of Tasks queries whose rows (and order,
where the query sorts) match an independent reading of the plugins' docs, per half (train:
fixed against; heldout: run once, never fixed against), over tests/data/conformance.

    python bench/conformance.py [--half train|heldout|both] [--language dataview|tasks|both]
                                [--show]

`--show` prints each failing query with what differs. The sets, the vault and the comparison
are tests/conformance_kit.py's (tests/test_conformance_*.py assert the same)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conformance_kit import Vaults, cases, mismatch, run_dataview, run_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=["train", "heldout", "both"], default="both")
    parser.add_argument("--language", choices=["dataview", "tasks", "both"], default="both")
    parser.add_argument("--show", action="store_true", help="print each failing query")
    args = parser.parse_args()
    halves = ["train", "heldout"] if args.half == "both" else [args.half]
    languages = ["dataview", "tasks"] if args.language == "both" else [args.language]
    with tempfile.TemporaryDirectory() as tmp:
        vaults = Vaults(Path(tmp))
        try:
            for language in languages:
                for half in halves:
                    passed, failed = 0, []
                    for case in cases(language, half):
                        try:
                            if language == "dataview":
                                got = run_dataview(vaults, case)
                            else:
                                got = run_tasks(vaults, case)
                            why = mismatch(case, got)
                        except Exception as exc:  # an error is a failed query, named
                            why = f"{type(exc).__name__}: {exc}"
                        if why is None:
                            passed += 1
                        else:
                            failed.append((case.id, case.query, why))
                    total = passed + len(failed)
                    print(f"{language:9} {half:8} {passed}/{total} = {100 * passed / total:.1f}%")
                    for cid, query, why in failed if args.show else []:
                        print(f"  FAIL {cid}: {query!r}\n       {why}")
        finally:
            vaults.close()


if __name__ == "__main__":
    main()
