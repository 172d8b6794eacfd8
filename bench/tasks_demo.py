"""Run every ```tasks block of a vault (the Tasks plugin's demo vault: 284 blocks) through
kbtui's Tasks query evaluator, in the note that holds it: how many run, how many name an
instruction kbtui does not run (and which), and crashes (must be 0).

    python bench/tasks_demo.py VAULT [--today 2025-06-18] [--show-errors]

The vault is indexed first (keyword-only, a copy's own index under VAULT/.kbtui)."""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.vault.obsidian.query_blocks import query_blocks


def reason(message: str) -> str:
    """A short name for why a block did not run."""
    first = message.split("\n", 1)[0]
    for pattern, name in (
        (r"(filter|sort|group) by function", r"\1 by function (JavaScript)"),
        (r"JavaScript expressions in placeholders", "JavaScript in a {{placeholder}}"),
        (r"no file path has been supplied", "placeholder without a note"),
        (r"Unknown property: (\S+)", r"unknown placeholder \1"),
        (r"do not understand (\w+) date", r"date text not read (\1)"),
        (r"Cannot find preset", "unknown preset"),
        (r"Boolean combination", "boolean line"),
        (r"do not understand query", "instruction not read"),
    ):
        m = re.search(pattern, message)
        if m:
            return m.expand(name)
    return first[:80]


def grep_blocks(text: str) -> list[tuple[int, str]]:
    """Every line holding ```tasks (also inside ````text examples, comments and quotes, as
    `grep` counts the demo vault's 284) with the lines up to its closing fence."""
    lines = text.split("\n")
    found = []
    for i, line in enumerate(lines):
        if "```tasks" not in line:
            continue
        body = []
        for nxt in lines[i + 1 :]:
            bare = re.sub(r"^(\s*>)+\s?", "", nxt)
            if bare.strip().startswith("```"):
                break
            body.append(bare)
        found.append((i + 1, "\n".join(body)))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("vault", type=Path)
    ap.add_argument("--today", default="2025-06-18")
    ap.add_argument("--show-errors", action="store_true")
    ap.add_argument("--grep", action="store_true", help="every ```tasks line, as grep counts")
    args = ap.parse_args()
    rt = VaultRuntime(Settings.for_vault(args.vault), HashEmbedder(), watch=False)
    rt.start()
    assert rt.worker.wait_idle(600)
    ran = failed = crashed = 0
    reasons: collections.Counter[str] = collections.Counter()
    try:
        for path in sorted(args.vault.rglob("*.md")):
            rel = path.relative_to(args.vault).as_posix()
            if rel.startswith(".") or "/." in rel:
                continue
            text = path.read_text("utf-8")
            if args.grep:
                blocks = grep_blocks(text)
            else:
                blocks = [(b.line, b.source) for b in query_blocks(text, ("tasks",))]
            for line, source in blocks:
                call = {"query": source, "today": args.today, "this": rel}
                try:
                    answer = rt.call("app_tasks_query", call)
                except Exception as exc:  # counted: must never happen
                    crashed += 1
                    print(f"CRASH {rel}:{line}: {exc!r}")
                    continue
                if answer.get("ok"):
                    ran += 1
                elif answer.get("error_type") == "ValidationError":
                    failed += 1
                    reasons[reason(answer.get("message", ""))] += 1
                    if args.show_errors:
                        print(f"--- {rel}:{line}\n{answer.get('message')}")
                else:
                    crashed += 1
                    print(f"CRASH {rel}:{line}: {answer}")
    finally:
        rt.close()
    total = ran + failed + crashed
    print(f"blocks {total}: ran {ran}, named what kbtui does not run {failed}, crashed {crashed}")
    for name, n in reasons.most_common():
        print(f"  {n:4d}  {name}")


if __name__ == "__main__":
    main()
