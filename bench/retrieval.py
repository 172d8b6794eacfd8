"""Retrieval quality on SciFact: nDCG@10, Recall@100 and MRR@10 for each search mode.

Three tables in one run: the SciFact training claims, the short lay-query set over the same
SciFact vault (bench/short_set.py, graded judgments) and the vault query set (bench/vault_set.py).

The corpus becomes a vault of one note per abstract (frontmatter title, abstract as body) in a
temporary folder, kbtui indexes it with the real model, and the training queries go through
`KnowledgeBase.call("kb_search", ...)` exactly as a user or an assistant sends them (top_k 10,
mode keyword / vector / hybrid). kb_search caps top_k at 10, so Recall@100 asks the same
service function behind it (`SearchService.search`) for 100 notes.

Embedding 5k abstracts takes minutes, so vectors are cached by (model id, text hash) in a
user cache folder: a re-run after a BM25 or fusion change embeds nothing, a chunking change
only the new texts. The cache holds exactly what the model returned for that text.

    .venv/bin/python bench/retrieval.py [--data DIR] [--queries N] [--docs N] [--no-cache]
        [--embedder e5]

--via-mcp then closes the index and sends the same questions (SciFact training and the short
set, top_k 10, each mode) to a real `kbtui mcp` server on that vault (bench/mcp_ranking.py),
reports the tables again as the assistant got them, counts the answers whose notes differ
from the in-process ranking and shows the first answers after start-up. R@100 has no MCP
column: kb_search caps top_k at 10.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_ranking
import numpy as np
import short_set
import vault_set
from bench_common import (
    MODES,
    SCIFACT,
    Qrels,
    commit,
    cpu_times,
    doc_of,
    load_scifact,
    machine_note,
    metrics,
    subset,
    write_vault,
)

from kbtui.config import Settings
from kbtui.embed import Embedder, FastEmbedder
from kbtui.embed_e5 import E5Embedder
from kbtui.indexing.indexer import INDEX_VERSION_KEY
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.search.service import Mode
from kbtui.store import Store


class CachedEmbedder:
    """Wraps an embedder with a disk cache of its vectors, keyed by text hash."""

    def __init__(self, inner: Embedder, folder: Path | None) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.path = None if folder is None else folder / f"{_safe(inner.model_id)}.npz"
        self.vectors: dict[str, np.ndarray] = {}
        self.misses = 0
        if self.path is not None and self.path.is_file():
            data = np.load(self.path)
            self.vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        self._saved = len(self.vectors)

    def __getattr__(self, name: str) -> Any:
        """The model's other attributes (e5's cosine scale) as search asks for them."""
        return getattr(self.inner, name)

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._cached(texts, "", self.inner.embed)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        """Keyed apart from passages: e5 embeds a query with another prefix."""
        return self._cached(texts, "query\0", self.inner.embed_query)

    def _cached(
        self, texts: list[str], tag: str, embed: Callable[[list[str]], np.ndarray]
    ) -> np.ndarray:
        keys = [hashlib.blake2b((tag + t).encode(), digest_size=16).hexdigest() for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in self.vectors]
        if todo:
            fresh = embed([texts[i] for i in todo])
            for i, vec in zip(todo, fresh, strict=True):
                self.vectors[keys[i]] = vec
            self.misses += len(todo)
            if len(self.vectors) - self._saved >= 2048:
                self.save()
        return np.stack([self.vectors[k] for k in keys]).astype(np.float32)

    def save(self) -> None:
        if self.path is None or len(self.vectors) == self._saved:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".tmp{os.getpid()}.npz")
        keys = np.array(list(self.vectors), dtype="U32")
        np.savez(tmp, keys=keys, vectors=np.stack(list(self.vectors.values())))
        os.replace(tmp, self.path)
        self._saved = len(self.vectors)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_.@" else "_" for c in name)


def evaluate(
    kb: KnowledgeBase,
    queries: dict[str, str],
    qrels: Qrels,
    modes: tuple[Mode, ...],
    rankings: dict[Mode, dict[str, list[str]]] | None = None,
) -> dict[Mode, tuple[float, float, float]]:
    """{mode: mean (nDCG@10, Recall@100, MRR@10)}; `rankings` collects each query's top 10."""
    table: dict[Mode, tuple[float, float, float]] = {}
    docs = {eid: Path(path).stem for path, (eid, *_rest) in kb.store.note_states().items()}
    for mode in modes:
        sums = np.zeros(3)
        for qid, text in queries.items():
            answer = kb.call("kb_search", {"query": text, "top_k": 10, "mode": mode})
            if not answer.get("success", True) or "results" not in answer:
                raise SystemExit(f"kb_search failed on query {qid}: {answer}")
            ranked = [doc_of(r) for r in answer["results"]]
            if rankings is not None:
                rankings.setdefault(mode, {})[qid] = ranked
            top100 = deep_ranking(kb, text, mode, docs)
            sums += metrics(ranked, top100, qrels[qid])
        ndcg, recall, mrr = (sums / len(queries)).tolist()
        table[mode] = (ndcg, recall, mrr)
    return table


def deep_ranking(kb: KnowledgeBase, text: str, mode: Mode, docs: dict[str, str]) -> list[str]:
    """The first 100 notes `SearchService.search(text, 100)` would return, in order.

    search() is search_chunks() for 10x as many chunks, one per note; calling that directly
    skips building 100 snippets per query, which made this step most of the bench's time.
    """
    notes = dict.fromkeys(
        h.entity_id for h in kb.search_service.search_chunks(text, 1000, mode=mode)
    )
    return [docs[e] for e in list(notes)[:100]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=SCIFACT, help="BEIR SciFact folder")
    parser.add_argument("--queries", type=int, help="only the first N training queries")
    parser.add_argument(
        "--docs",
        type=int,
        help="a smaller corpus: every abstract judged for the queries plus the first N others "
        "by id (the full corpus takes ~20k chunk embeddings)",
    )
    parser.add_argument("--no-cache", action="store_true", help="embed everything afresh")
    parser.add_argument(
        "--embedder",
        choices=["minilm", "e5"],
        default="minilm",
        help="the model: MiniLM (default) or multilingual-e5-small (kbtui.embed_e5)",
    )
    parser.add_argument("--no-vault-set", action="store_true", help="skip the vault query set")
    parser.add_argument("--no-scifact", action="store_true", help="only the vault query set")
    parser.add_argument(
        "--no-short-set", action="store_true", help="skip the short lay queries over SciFact"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list vault-set misses")
    parser.add_argument(
        "--via-mcp",
        action="store_true",
        help="also send the SciFact questions through a real `kbtui mcp` server on the vault "
        "and compare its answers with the in-process ones",
    )
    parser.add_argument(
        "--modes",
        default=",".join(MODES),
        help="comma-separated modes; keyword alone skips the model entirely (fast BM25 tuning)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        / "kbtui"
        / "bench-vectors",
        help="where embedded vectors are cached",
    )
    args = parser.parse_args()
    corpus, queries, qrels = load_scifact(args.data, args.queries)
    if args.docs is not None:
        corpus = subset(corpus, queries, qrels, args.docs)
    before = cpu_times()
    modes = tuple(m for m in MODES if m in args.modes.split(","))
    embedder = None
    if modes != ("keyword",):
        model: Embedder = E5Embedder() if args.embedder == "e5" else FastEmbedder()
        embedder = CachedEmbedder(model, None if args.no_cache else args.cache)
    print(f"commit {commit()}", flush=True)
    table: dict[Mode, tuple[float, float, float]] = {}
    short_table: dict[Mode, tuple[float, float, float]] = {}
    short_rankings: dict[Mode, dict[str, list[str]]] = {}
    short_queries, short_qrels, short_judged = short_set.load()
    run_short = not args.no_short_set and args.docs is None
    search_s = 0.0
    calls = 0
    rankings: dict[Mode, dict[str, list[str]]] = {}
    served: mcp_ranking.ServerRun | None = None
    if not args.no_scifact:
        with tempfile.TemporaryDirectory(prefix="kbtui-scifact-") as tmp:
            vault = Path(tmp) / "vault"
            write_vault(corpus, vault)
            settings = Settings.for_vault(vault)
            kb = KnowledgeBase.open(settings, embedder)
            try:
                started = time.perf_counter()
                report = kb.indexer.run()
                if embedder is not None:
                    embedder.save()
                index_s = time.perf_counter() - started
                chunks = kb.store.stats().get("chunks", "?")
                print(
                    f"corpus {len(corpus)} notes -> {chunks} chunks, indexed in {index_s:.1f} s "
                    f"({embedder.misses if embedder else 0} texts embedded, the rest cached; "
                    f"{len(report.skipped)} skipped); {len(queries)} queries; "
                    f"chunk {settings.chunk_size}/{settings.chunk_overlap}",
                    flush=True,
                )
                started = time.perf_counter()
                table = evaluate(kb, queries, qrels, modes, rankings)
                calls += len(queries) * len(modes) * 2
                if run_short:  # the same vault: the short set indexes nothing of its own
                    short_table = evaluate(kb, short_queries, short_qrels, modes, short_rankings)
                    calls += len(short_queries) * len(modes) * 2
                search_s = time.perf_counter() - started
                identity = index_identity(kb.store)
            finally:
                kb.close()
            if args.via_mcp:  # the index is closed: the server opens the file on its own
                plan = [(m, queries) for m in sorted(modes, key="hybrid".__ne__)]
                if run_short:
                    plan += [(m, short_queries) for m in sorted(modes, key="hybrid".__ne__)]
                served = mcp_ranking.run_server(vault, plan, 20, Path(tmp) / "server.log")
                store = Store(settings.db_path)
                after = index_identity(store)
                store.close()
                if after != identity:
                    raise SystemExit(f"the server changed the index: {identity} -> {after}")
        print(f"\nSciFact training\n{'mode':<9} {'nDCG@10':>8} {'R@100':>8} {'MRR@10':>8}")
        for mode, (ndcg, recall, mrr) in table.items():
            print(f"{mode:<9} {ndcg:8.3f} {recall:8.3f} {mrr:8.3f}")
        if run_short:
            print(
                f"\nshort lay queries over SciFact: {len(short_queries)} queries, graded "
                f"(bench/short_queries.jsonl; J@10 = share of the top 10 that was judged)\n"
                f"{'mode':<9} {'nDCG@10':>8} {'R@100':>8} {'MRR@10':>8} {'J@10':>8}"
            )
            for mode, (ndcg, recall, mrr) in short_table.items():
                judged = short_set.judged_at_10(short_rankings[mode], short_judged)
                print(f"{mode:<9} {ndcg:8.3f} {recall:8.3f} {mrr:8.3f} {judged:8.2f}")
        elif not args.no_short_set:
            print("\nshort lay queries skipped: --docs leaves out abstracts they judged")
        if served is not None:
            report_mcp(
                served, rankings, short_rankings, (queries, qrels), (short_queries, short_qrels)
            )
    if not args.no_vault_set:
        vtable, n = vault_set.evaluate(embedder, modes, args.verbose)
        print(f"\nvault set: {n} short queries (bench/vault_queries.jsonl)")
        print(f"{'mode':<9} {'nDCG@10':>8} {'MRR@10':>8}")
        for mode, (vndcg, vmrr) in vtable.items():
            print(f"{mode:<9} {vndcg:8.3f} {vmrr:8.3f}")
    print(
        f"\nsearch: {search_s:.1f} s for {calls} calls; "
        f"model {embedder.model_id if embedder else None}; {machine_note(before)}"
    )


def index_identity(store: Store) -> tuple[str | None, str | None, int]:
    """(model id, index text version, embedded chunks): a server that re-embedded or re-read
    the vault would change one of them."""
    return store.meta("embed_model"), store.meta(INDEX_VERSION_KEY), store.count_embedded()


def report_mcp(
    run: mcp_ranking.ServerRun,
    train: dict[Mode, dict[str, list[str]]],
    short: dict[Mode, dict[str, list[str]]],
    *sets: tuple[dict[str, str], Qrels],
) -> None:
    """The tables again as the server answered, and how its answers differ from in-process."""
    for title, (queries, qrels), inproc in zip(
        ("SciFact training", "short lay queries"), sets, (train, short), strict=False
    ):
        got = run.rankings(set(queries))
        if not got:
            continue
        print(f"\n{title} through kbtui mcp (R@100: n/a, top_k is capped at 10)")
        print(f"{'mode':<9} {'nDCG@10':>8} {'R@100':>8} {'MRR@10':>8}  differ from in-process")
        diffs = mcp_ranking.differing(inproc, got)
        for mode, ranked in sorted(got.items(), key=lambda kv: MODES.index(kv[0])):
            ndcg, _, mrr = np.mean([metrics(r, r, qrels[q]) for q, r in ranked.items()], axis=0)
            n, diff, reordered = diffs[mode]
            print(
                f"{mode:<9} {ndcg:8.3f} {'-':>8} {mrr:8.3f}  {diff} of {n} "
                f"({reordered} only reordered)"
            )
    print("\n" + mcp_ranking.index_fields(run))
    print(mcp_ranking.server_pass(run))
    print("cold start:\n" + "\n".join(mcp_ranking.cold_start(train, run)))


if __name__ == "__main__":
    main()
