"""Keyword search in languages without spaces (issue 43 item 3): each language's vault of the
multilingual set (multilingual_set.py) indexed without the model, its twelve questions through
kb_search in keyword mode (BM25 over kbtui.tokenize's terms); prints, per language, how many
questions find their note first, in the top 5, and not at all (no keyword hit in the top 10).

    .venv/bin/python bench/multilingual_keywords.py [-v] [--work DIR]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench_common import cpu_times, machine_note
from multilingual_set import LANGUAGES, Question, write_vault

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase


def keyword_ranks(vault: Path, asked: list[Question], verbose: bool) -> list[int | None]:
    """The rank (0-based) of each question's note in keyword search, None if not in the top 10."""
    kb = KnowledgeBase.open(Settings.for_vault(vault), HashEmbedder(), approximate=False)
    try:
        kb.indexer.run(embed=False)
        ranks: list[int | None] = []
        for q in asked:
            found = kb.call("kb_search", {"query": q.text, "mode": "keyword", "top_k": 10})
            paths = [r["metadata"]["file_path"] for r in found.get("results", [])]
            rank = paths.index(q.path) if q.path in paths else None
            ranks.append(rank)
            if verbose:
                print(f"  {q.lang} {rank!s:>4}  {q.text}  -> {paths[:3]}")
        return ranks
    finally:
        kb.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    root = args.work or Path(tempfile.mkdtemp(prefix="kbtui-ml-"))
    before = cpu_times()
    print(f"{'lang':>5} {'top1':>5} {'top5':>5} {'none':>5}  (of 12 questions)")
    for lang in LANGUAGES:
        vault, asked = write_vault(lang, root)
        ranks = keyword_ranks(vault, asked, args.verbose)
        top1 = sum(r == 0 for r in ranks)
        top5 = sum(r is not None and r < 5 for r in ranks)
        print(f"{lang:>5} {top1:>5} {top5:>5} {sum(r is None for r in ranks):>5}")
    print(machine_note(before))


if __name__ == "__main__":
    main()
