"""kg_find_path and kg_get_neighbors at scale, through the query layer as every front end calls it.

    python bench/kg_graph.py                                   # 100k entities, 1M relationships
    python bench/kg_graph.py --entities 20000 --relationships 200000

The graph is loaded straight into a real DuckDB index (rows shaped as the indexer writes them:
notes, relationships with their hashed keys), not parsed from 100k markdown files, which would
take most of an hour and measure the indexer instead. Half the relationships are uniform
(the worst case for a BFS: every hop multiplies the frontier by ~20), half attach to hubs.
Prints p50/p95 of kg_find_path (maxHops 5 and 3, connected and unreachable pairs) and of
kg_get_neighbors (both directions, limit 20), plus the load time. kg_find_path runs twice on
the same calls: "sql" is the product (kbtui/store/graph/paths.py); "numpy" is the in-memory
BFS it replaced, kept as the test oracle (tests/graph_oracle.py), for a before/after in one
run. Then one note is deleted (its relationships go; the store updates the path tables in
that transaction) and the first path search after it is timed. --explain prints EXPLAIN
ANALYZE of the path query for the slowest pair.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench_common import REPO, cpu_times, machine_note, percentiles, timed_calls

sys.path.insert(0, str(REPO))  # tests.graph_oracle

from kbtui.config import Settings
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.store.graph.paths import PATH_SQL
from tests import graph_oracle

TYPES = ["person", "project", "organization", "technology", "concept"]
REL_TYPES = ["WORKS_ON", "MEMBER_OF", "USES", "DEPENDS_ON", "REFERENCES", "RELATED_TO"]


def load(store: Store, entities: int, relationships: int) -> None:
    """Bench-only bulk load: SQL shaped like the indexer's rows (kbtui/store/graph/entities.py)."""
    con = store.con
    con.execute(
        f"""INSERT INTO notes
            SELECT 'e:n' || i, 'n/' || i || '.md', $types[1 + i % {len(TYPES)}], 'n' || i,
                   'Entity ' || i, 'n', '{{}}'::JSON, [], 0, 0, '', 500, 50,
                   now()::TIMESTAMP, now()::TIMESTAMP
            FROM range({entities}) t(i)""",
        {"types": TYPES},
    )
    hubs = max(1, entities // 1000)
    con.execute(
        f"""INSERT INTO relationships
            SELECT 'rel_' || i, src, dst, $rels[1 + i % {len(REL_TYPES)}], NULL, 1.0, 'n.md',
                   hash(src), hash(dst)
            FROM (SELECT i, 'e:n' || (hash(i) % {entities}) AS src,
                         'e:n' || CASE WHEN i % 2 = 0 THEN hash(i * 7 + 3) % {entities}
                                       ELSE hash(i * 13 + 5) % {hubs} END AS dst
                  FROM range({relationships}) t(i))
            WHERE src <> dst""",
        {"rels": REL_TYPES},
    )
    con.execute("CHECKPOINT")


def timed(kb: KnowledgeBase, calls: Sequence[tuple[str, Mapping[str, object]]]) -> list[float]:
    return timed_calls(kb.call, calls)


def numpy_engine(store: Store) -> Callable[[str, str, int], Any]:
    """Route this store's path searches through the old numpy BFS (adjacency loaded once);
    returns the search the store had."""
    before = store.shortest_path
    t0 = time.perf_counter()
    adjacency = graph_oracle.Adjacency(store.con)
    print(f"numpy adjacency loaded in {time.perf_counter() - t0:.2f} s")

    def search(start: str, goal: str, max_hops: int) -> tuple[list[str], list[str]] | None:
        if start == goal:
            return [start], []
        keys = store._keys([start, goal])
        return graph_oracle.shortest_path(store.con, adjacency, start, (keys[0], keys[1]), max_hops)

    store.shortest_path = search  # type: ignore[method-assign]
    return before


def interleaved(kb: KnowledgeBase, store: Store, pairs: list[tuple[str, str]]) -> None:
    """The same call through each engine back to back, pair by pair, so both see the same
    load; CPU time (all threads of this process) is steadier than wall time on a busy host."""
    sql_search = numpy_engine(store)
    engines: dict[str, Callable[[str, str, int], Any]] = {
        "sql": sql_search,
        "numpy": store.shortest_path,
    }
    wall: dict[str, list[float]] = {name: [] for name in engines}
    cpu: dict[str, list[float]] = {name: [] for name in engines}
    for a, b in pairs:
        for name, search in engines.items():
            store.shortest_path = search  # type: ignore[method-assign,assignment]
            c0, t0 = time.process_time(), time.perf_counter()
            assert kb.call("kg_find_path", {"fromEntityId": a, "toEntityId": b})["ok"]
            wall[name].append((time.perf_counter() - t0) * 1000)
            cpu[name].append((time.process_time() - c0) * 1000)
    store.shortest_path = sql_search  # type: ignore[method-assign,assignment]
    for name in engines:
        print(f"[{name}] interleaved maxHops 5 wall {percentiles(wall[name])}")
        print(f"[{name}] interleaved maxHops 5 CPU  {percentiles(cpu[name])}")


def explain(store: Store, params: dict[str, object], out: Path) -> None:
    """EXPLAIN ANALYZE's timings, one line per operator (the boxed plan is 200 columns)."""
    store.con.execute("SET enable_profiling = 'json'")
    store.con.execute(f"SET profiling_output = '{out}'")
    store.con.execute(PATH_SQL, params).fetchall()
    store.con.execute("SET enable_profiling = 'no_output'")
    profile = json.loads(out.read_text())
    print(f"total {profile['latency'] * 1000:.1f} ms (operators with >= 0.1 ms; rows summed")
    print("over the recursion's iterations)")

    def walk(node: dict[str, Any], depth: int) -> None:
        ms = node.get("operator_timing", 0) * 1000
        name = node.get("operator_name") or node.get("operator_type", "")
        if ms >= 0.1:
            info = node.get("extra_info") or {}
            detail = info.get("Table") or info.get("Conditions") or ""
            print(
                f"{'  ' * depth}{name.strip()} {ms:.1f} ms, "
                f"{node.get('operator_cardinality', 0)} rows {str(detail)[:60]}"
            )
        for child in node.get("children", []):
            walk(child, depth + (1 if ms >= 0.1 else 0))

    for child in profile["children"]:
        walk(child, 0)


def path_lines(kb: KnowledgeBase, engine: str, pairs: list[tuple[str, str]], lonely: str) -> None:
    path = [("kg_find_path", {"fromEntityId": a, "toEntityId": b}) for a, b in pairs]
    timed(kb, path[:5])  # warm
    found = [kb.call(*c)["hopCount"] for c in path]
    print(f"[{engine}] hops found (maxHops 5): {sorted(found)}")
    print(f"[{engine}] kg_find_path maxHops 5     {percentiles(timed(kb, path))}")
    short = [(n, {**a, "maxHops": 3}) for n, a in path]
    print(f"[{engine}] kg_find_path maxHops 3     {percentiles(timed(kb, short))}")
    none = [("kg_find_path", {"fromEntityId": a, "toEntityId": lonely}) for a, _ in pairs]
    print(f"[{engine}] kg_find_path unreachable   {percentiles(timed(kb, none))}")
    far = [(n, {**a, "maxHops": 1}) for n, a in path]
    print(f"[{engine}] kg_find_path not in 1 hop  {percentiles(timed(kb, far))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--relationships", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--explain", action="store_true", help="EXPLAIN ANALYZE one slow case")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kbtui-kg-"))
    try:
        vault = work / "vault"
        vault.mkdir()
        settings = Settings.for_vault(vault)
        t0 = time.perf_counter()
        store = Store(settings.db_path)
        load(store, args.entities, args.relationships)
        entities, rels = store.graph_counts()
        print(
            f"loaded {entities} entities, {rels} relationships in {time.perf_counter() - t0:.1f} s"
        )
        t0 = time.perf_counter()
        store.relationships_changed()  # the bulk load bypassed the store: derive path tables
        print(f"path tables rebuilt from every relationship in {time.perf_counter() - t0:.1f} s")
        kb = KnowledgeBase(settings, store, None)
        rng = random.Random(1)
        ids = [f"e:n{rng.randrange(args.entities)}" for _ in range(2 * args.rounds)]
        pairs = list(zip(ids[::2], ids[1::2], strict=True))
        lonely = f"e:n{args.entities + 1}"  # an entity with no relationships at all
        store.con.execute(
            "INSERT INTO notes SELECT * REPLACE (? AS entity_id, 'lonely.md' AS path)"
            " FROM notes LIMIT 1",
            [lonely],
        )
        started_cpu = cpu_times()
        path_lines(kb, "sql", pairs, lonely)
        slowest = max(
            pairs,
            key=lambda p: timed(
                kb, [("kg_find_path", dict(zip(("fromEntityId", "toEntityId"), p, strict=True)))]
            )[0],
        )
        t0 = time.perf_counter()
        gone = next(f"e:n{i}" for i in range(1, 100) if f"e:n{i}" not in ids)
        store.delete_notes([gone])  # thousands of relationships go; path tables follow
        changed = (time.perf_counter() - t0) * 1000
        first = timed(
            kb, [("kg_find_path", {"fromEntityId": a, "toEntityId": b}) for a, b in pairs[:3]]
        )
        print(
            f"[sql] a note deleted in {changed:.0f} ms; the next 3 kg_find_path calls "
            f"{', '.join(f'{t:.1f}' for t in first)} ms"
        )
        print(f"while measuring sql: {machine_note(started_cpu)}")
        started_cpu = cpu_times()
        sql_search = numpy_engine(store)
        path_lines(kb, "numpy", pairs, lonely)
        print(f"while measuring numpy: {machine_note(started_cpu)}")
        store.shortest_path = sql_search  # type: ignore[method-assign,assignment]
        started_cpu = cpu_times()
        interleaved(kb, store, pairs)
        print(f"while measuring both: {machine_note(started_cpu)}")
        started_cpu = cpu_times()
        near = [("kg_get_neighbors", {"entityId": a}) for a in ids]
        print(f"kg_get_neighbors both      {percentiles(timed(kb, near))}")
        hub = [("kg_get_neighbors", {"entityId": "e:n0", "direction": "incoming"})] * 20
        print(f"kg_get_neighbors hub in    {percentiles(timed(kb, hub))}")
        print(f"while measuring: {machine_note(started_cpu)}")
        if args.explain:
            params = {"start": slowest[0], "goal": slowest[1], "max_hops": 5}
            print(f"EXPLAIN ANALYZE of the path query, {slowest[0]} -> {slowest[1]}:")
            explain(store, params, work / "profile.json")
        kb.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
