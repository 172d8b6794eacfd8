"""A real vault's questions answered by each model and search mode (issue 43: "meaning alone
>= 6/10 in the top 5, hybrid >= 8/10" on Obsidian's Chinese help vault).

bench/zh_help_questions.jsonl holds 30 Chinese questions over the help vault's `zh/` folder
(github obsidianmd/obsidian-help; not in this repository), written from its list of notes
before any search, each with the note(s) that answer it. For each model, a copy of the vault
under --work is indexed by that model (the index keeps one model), then every question goes
through kb_search in vector, hybrid and keyword mode (top_k 10), and through plain BM25 over
whole notes (bench/real_questions.py's) for a baseline. Prints top 1 / top 5 counts.

    .venv/bin/python bench/questions_by_model.py --queries bench/zh_help_questions.jsonl \
        --vault zhhelp=DIR [--models minilm e5] [-v]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

from bench_common import cpu_times, machine_note
from real_questions import WholeNoteBM25, first_hit

from kbtui.config import Settings
from kbtui.indexing.model_choice import E5, MINILM, build
from kbtui.runtime.knowledge_base import KnowledgeBase

MODES = ("vector", "hybrid", "keyword")


def cell(ranks: list[int | None]) -> str:
    top1 = sum(r == 0 for r in ranks)
    top5 = sum(r is not None and r < 5 for r in ranks)
    return f"{top1:>2}/{top5:>2}"


def ranked(kb: KnowledgeBase, query: str, mode: str) -> list[str]:
    found = kb.call("kb_search", {"query": query, "mode": mode, "top_k": 10})
    return [str(r["metadata"]["file_path"]) for r in found.get("results", [])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--vault", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--models", nargs="*", default=[MINILM, E5])
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kbtui-qbm-"))
    sets: dict[str, list[tuple[str, set[str]]]] = defaultdict(list)
    for line in args.queries.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        sets[row["vault"]].append((row["query"], set(row["relevant"])))
    dirs = {k: Path(v) for k, _, v in (a.partition("=") for a in args.vault)}
    before = cpu_times()
    print("top 1 / top 5; columns: " + ", ".join(MODES))
    for name, questions in sets.items():
        if name not in dirs:
            continue
        bm25 = WholeNoteBM25(dirs[name])
        base = [first_hit(bm25.rank(q), rel) for q, rel in questions]
        print(f"\n{name}: {len(questions)} questions; plain BM25 over whole notes {cell(base)}")
        for model in args.models:
            copy = work / f"{name}-{model}"
            if not copy.exists():
                shutil.copytree(dirs[name], copy, ignore=shutil.ignore_patterns(".kbtui"))
            settings = Settings.for_vault(copy)
            kb = KnowledgeBase.open(settings, build(model, settings), approximate=False)
            ranks: dict[str, list[int | None]] = defaultdict(list)
            try:
                kb.indexer.run()
                for query, relevant in questions:
                    for mode in MODES:
                        paths = ranked(kb, query, mode)
                        ranks[mode].append(first_hit(paths, relevant))
                        if args.verbose and mode == "hybrid" and ranks[mode][-1] != 0:
                            print(f"    {model} {ranks[mode][-1]!s:>4}  {query}  -> {paths[:2]}")
            finally:
                kb.close()
            print(f"  {model:<7} " + "  ".join(cell(ranks[m]) for m in MODES))
    print(machine_note(before))


if __name__ == "__main__":
    main()
