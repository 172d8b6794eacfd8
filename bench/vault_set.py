"""The short-query labelled set (bench/vault_queries.jsonl): MRR@10 and nDCG@10 per mode.

85 queries of 1-3 words, as people type them in the TUI, over vault_example and kepano's vault,
each with the notes (paths relative to the vault) that answer it; written from the notes before
any search result was seen. Each vault is indexed into a temporary folder (the vault itself is
only read) and every query goes through kb_search top_k 10, as the TUI and assistants send it.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections import defaultdict
from pathlib import Path

from kbtui.config import Settings
from kbtui.embed import Embedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.search.service import Mode

HERE = Path(__file__).resolve().parent
QUERIES = HERE / "vault_queries.jsonl"
VAULTS = {
    "vault_example": HERE.parent / "vault_example",
    "kepano": Path("/work/shared/data/vaults/kepano"),
}


def load(path: Path = QUERIES) -> dict[str, list[tuple[str, set[str]]]]:
    """{vault name: [(query, relevant paths)]}."""
    out: dict[str, list[tuple[str, set[str]]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[row["vault"]].append((row["query"], set(row["relevant"])))
    return out


def ndcg_mrr(ranked: list[str], relevant: set[str]) -> tuple[float, float]:
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    mrr = next((1 / (i + 1) for i, d in enumerate(ranked[:10]) if d in relevant), 0.0)
    return dcg / ideal, mrr


def evaluate(
    embedder: Embedder | None, modes: tuple[Mode, ...], verbose: bool = False
) -> tuple[dict[Mode, tuple[float, float]], int]:
    """({mode: (nDCG@10, MRR@10)}, number of queries) over every vault of the set."""
    sets = load()
    sums: dict[Mode, list[float]] = {m: [0.0, 0.0] for m in modes}
    n = 0
    for name, queries in sets.items():
        with tempfile.TemporaryDirectory(prefix="kbtui-vaultset-") as tmp:
            settings = Settings.for_vault(VAULTS[name], index_dir=Path(tmp) / "index")
            kb = KnowledgeBase.open(settings, embedder)
            try:
                kb.indexer.run()
                for query, relevant in queries:
                    for mode in modes:
                        answer = kb.call("kb_search", {"query": query, "top_k": 10, "mode": mode})
                        ranked = [str(r["metadata"]["file_path"]) for r in answer["results"]]
                        ndcg, mrr = ndcg_mrr(ranked, relevant)
                        sums[mode][0] += ndcg
                        sums[mode][1] += mrr
                        if verbose and mode == "hybrid" and mrr < 1:
                            print(f"  {name}: {query!r} mrr {mrr:.2f} top {ranked[:3]}")
                    n += 1
            finally:
                kb.close()
    return {m: (s[0] / max(n, 1), s[1] / max(n, 1)) for m, s in sums.items()}, n
