"""Run every ```tasks block of a vault (the Tasks plugin's demo vault: 284 blocks) through
kbtui's Tasks query evaluator, in the note that holds it: how many run, how many name an
instruction kbtui does not run (and which), and crashes (must be 0); each line run whose
words the plugin drops (`due befor tomorrow`) is printed with kbtui's warning.

    python bench/tasks_demo.py VAULT [--today 2025-06-18] [--show-errors] [--grep]

By default each block runs as `kbtui blocks` and `kbtui block:run NOTE#N` run it: the tool
vault_query lists the vault's blocks and runs each by its note and number (the other
languages' blocks are counted too). `--grep` runs every line holding ```tasks instead, as
`grep` counts them. A crash is an exception or an InternalError envelope. The vault is indexed
first (keyword-only, a copy's own index under VAULT/.kbtui)."""

from __future__ import annotations

import argparse
import collections
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime


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


Call = tuple[str, str, str, dict[str, Any]]


def calls(rt: VaultRuntime, vault: Path, today: str, grep: bool) -> Iterator[Call]:
    """(language, where, tool, arguments) of every block to run."""
    if not grep:  # as `kbtui blocks` lists them, each run as `kbtui block:run NOTE#N`
        listed = rt.call("vault_query", {"limit": 100_000})
        assert listed["ok"], listed
        for b in listed["blocks"]:
            if "block" not in b:  # a .base file
                continue
            args = {"file": b["file"], "block": b["block"], "today": today}
            yield b["language"], f"{b['file']}:{b['line']}", "vault_query", args
        return
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        if rel.startswith(".") or "/." in rel:
            continue
        for line, source in grep_blocks(path.read_text("utf-8")):
            args = {"query": source, "today": today, "this": rel}
            yield "tasks", f"{rel}:{line}", "app_tasks_query", args


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
    counts: dict[str, collections.Counter[str]] = {}
    reasons: collections.Counter[str] = collections.Counter()
    try:
        for language, where, tool, call in calls(rt, args.vault, args.today, args.grep):
            count = counts.setdefault(language, collections.Counter())
            try:
                answer = rt.call(tool, call)
            except Exception as exc:  # counted: must never happen
                count["crashed"] += 1
                print(f"CRASH {where}: {exc!r}")
                continue
            if answer.get("ok"):
                count["ran"] += 1
                for warning in answer.get("warnings", []):  # words the plugin drops, said
                    count["warned"] += 1
                    print(f"WARNING {where}: {warning}")
            elif answer.get("error_type") in ("ValidationError", "UnsupportedError"):
                count["named"] += 1
                if language == "tasks":
                    reasons[reason(answer.get("message", ""))] += 1
                if args.show_errors:
                    print(f"--- {where}\n{answer.get('message')}")
            else:
                count["crashed"] += 1
                print(f"CRASH {where}: {answer}")
    finally:
        rt.close()
    for language, c in sorted(counts.items(), key=lambda kv: kv[0] != "tasks"):
        print(
            f"{language} blocks {c.total()}: ran {c['ran']}, named what kbtui does not run "
            f"{c['named']}, crashed {c['crashed']}; warnings {c['warned']}"
        )
    for name, n in reasons.most_common():
        print(f"  {n:4d}  {name}")


if __name__ == "__main__":
    main()
