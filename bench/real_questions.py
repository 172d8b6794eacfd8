"""Long questions over real vaults: kbtui's kb_search against plain BM25 over whole notes.

bench/real_questions.jsonl holds 66 questions (22 each over kepano's vault, obsidian-hub and a
subset of the redis docs), written from the notes before any search, each with the note that
answers it (for redis: the page and its copies in the version folders). Every question goes
through kb_search (hybrid, top_k 10) and through a plain BM25 (k1 1.2, b 0.75) over each
note's whole file text, tokenised as kbtui tokenises (same stemming and stop words); one run
prints top-1 and top-3 counts of both per vault. `--queries bench/real_questions_heldout.jsonl`
runs 39 more questions written the same way later, kept out of ranking work (a check that
a change fixes a kind of miss, not the 66 questions it was studied on).

    .venv/bin/python bench/real_questions.py --kepano DIR --hub DIR --redis DIR [-v]
    .venv/bin/python bench/real_questions.py --queries bench/obsidian_questions.jsonl \
        --vault kepano=DIR --vault help=DIR --vault tasks=DIR

bench/obsidian_questions.jsonl (52) and obsidian_questions_heldout.jsonl (52) are issue 42's
sets: over kepano's vault, the Obsidian help vault (obsidianmd/obsidian-help, folder en/, its
.md files) and the Tasks plugin's docs (obsidian-tasks-group/obsidian-tasks, folder docs/),
written before any search and split alternately; ranking was tuned on the first only.
obsidian_questions_fresh.jsonl (30) was written later the same way (docs/search.md says
which rules each set has judged). obsidian_questions_fresh2_train.jsonl and
obsidian_questions_fresh2_heldout.jsonl (27 each) add the Dataview plugin's docs
(blacksmithgu/obsidian-dataview, folder docs/docs/: `--vault dataview=DIR`); both halves were
committed before any search ran on them. `--note-weight 0` ranks as before search.breadth
(issue 42 item 10), for a before/after in one checkout.

Each DIR is a copy of the vault (indexed in DIR/.kbtui, brought up to date first):
kepano = /work/shared/data/vaults/kepano copied; hub = obsidian-community/obsidian-hub;
redis = redis/docs with only content/operate/rs/{,7.4/,7.8/,7.22/,8.0/}{clusters,databases,
installing-upgrading,networking,security,monitoring,flex} and content/operate/rs/_index.md.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.search import breadth
from kbtui.tokenize import tokenize

HERE = Path(__file__).resolve().parent
QUERIES = HERE / "real_questions.jsonl"
K1, B = 1.2, 0.75


class WholeNoteBM25:
    """Plain BM25 over every .md file's whole text (front matter included)."""

    def __init__(self, vault: Path) -> None:
        self.paths: list[str] = []
        counts: list[Counter[str]] = []
        for path in sorted(vault.rglob("*.md")):
            rel = path.relative_to(vault)
            if any(part.startswith(".") for part in rel.parts):
                continue
            self.paths.append(rel.as_posix())
            counts.append(Counter(tokenize(path.read_text(encoding="utf-8", errors="replace"))))
        self.counts = counts
        self.lengths = np.array([sum(c.values()) for c in counts], dtype=np.float64)
        self.avg = float(self.lengths.mean()) if len(counts) else 1.0
        self.df: Counter[str] = Counter()
        for c in counts:
            self.df.update(c.keys())

    def rank(self, query: str, k: int = 10) -> list[str]:
        n = len(self.paths)
        scores = np.zeros(n)
        norm = K1 * (1 - B + B * self.lengths / self.avg)
        for term in set(tokenize(query)):
            df = self.df.get(term, 0)
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            tf = np.array([c.get(term, 0) for c in self.counts], dtype=np.float64)
            scores += idf * tf * (K1 + 1) / (tf + norm)
        hit = np.flatnonzero(scores > 0)
        order = hit[np.lexsort((hit, -scores[hit]))][:k]
        return [self.paths[i] for i in order]


def kbtui_rank(kb: KnowledgeBase, query: str) -> list[str]:
    answer = kb.call("kb_search", {"query": query, "top_k": 10})
    return [str(r["metadata"]["file_path"]) for r in answer["results"]]


def first_hit(ranked: list[str], relevant: set[str]) -> int | None:
    return next((i for i, p in enumerate(ranked) if p in relevant), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name in ("kepano", "hub", "redis"):
        parser.add_argument(f"--{name}", type=Path, help=f"a copy of the {name} vault")
    parser.add_argument(
        "--vault",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="a copy of the vault the question set calls NAME (repeatable)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print every miss")
    parser.add_argument(
        "--queries",
        type=Path,
        default=QUERIES,
        help="a question set (real_questions_heldout.jsonl: 39 more)",
    )
    parser.add_argument(
        "--note-weight",
        type=float,
        default=breadth.NOTE_WEIGHT,
        help="search.breadth's weight (0: the ranking before it)",
    )
    args = parser.parse_args()
    breadth.NOTE_WEIGHT = args.note_weight
    sets: dict[str, list[tuple[str, set[str]]]] = defaultdict(list)
    for line in args.queries.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        sets[row["vault"]].append((row["query"], set(row["relevant"])))
    embedder = FastEmbedder()
    totals = Counter[str]()
    print(f"{'vault':8} {'n':>3} {'kbtui@1':>8} {'bm25@1':>7} {'kbtui@3':>8} {'bm25@3':>7}")
    dirs = {k: Path(v) for k, _, v in (a.partition("=") for a in args.vault)}
    for name, questions in sets.items():
        vault: Path | None = dirs.get(name) or getattr(args, name, None)
        if vault is None:
            continue
        bm25 = WholeNoteBM25(vault)
        kb = KnowledgeBase.open(Settings.for_vault(vault), embedder)
        row = Counter[str]()
        try:
            kb.indexer.run()
            for query, relevant in questions:
                ours, theirs = kbtui_rank(kb, query), bm25.rank(query)
                a, b = first_hit(ours, relevant), first_hit(theirs, relevant)
                row["n"] += 1
                row["k1"] += a == 0
                row["b1"] += b == 0
                row["k3"] += a is not None and a < 3
                row["b3"] += b is not None and b < 3
                if args.verbose and (a is None or a > 0):
                    print(f"  {name}: {query!r} kbtui {a} bm25 {b} top {ours[:2]}")
        finally:
            kb.close()
        totals.update(row)
        print(f"{name:8} {row['n']:3} {row['k1']:8} {row['b1']:7} {row['k3']:8} {row['b3']:7}")
    t = totals
    print(f"{'all':8} {t['n']:3} {t['k1']:8} {t['b1']:7} {t['k3']:8} {t['b3']:7}")
    if t["b1"] and t["b3"]:
        ratios = f"top-1 kbtui / bm25 = {t['k1'] / t['b1']:.2f}, top-3 {t['k3'] / t['b3']:.2f}"
        print(f"{ratios}  (goal: top-1 >= 1.1, top-3 >= 1.15)")


if __name__ == "__main__":
    main()
