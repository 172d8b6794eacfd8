"""kg_find_path and kg_get_neighbors at scale, through the query layer as every front end calls it.

    python bench/kg_graph.py                                   # 100k entities, 1M relationships
    python bench/kg_graph.py --entities 20000 --relationships 200000

The graph is loaded straight into a real DuckDB index (rows shaped as the indexer writes them:
notes, relationships with their hashed keys), not parsed from 100k markdown files, which would
take most of an hour and measure the indexer instead. Half the relationships are uniform
(the worst case for a BFS: every hop multiplies the frontier by ~20), half attach to hubs.
Prints p50/p95 of kg_find_path (maxHops 5 and 3, connected and unreachable pairs) and of
kg_get_neighbors (both directions, limit 20), plus the load time.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import cpu_times, machine_note, percentiles

from kbtui.config import Settings
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store

TYPES = ["person", "project", "organization", "technology", "concept"]
REL_TYPES = ["WORKS_ON", "MEMBER_OF", "USES", "DEPENDS_ON", "REFERENCES", "RELATED_TO"]


def load(store: Store, entities: int, relationships: int) -> None:
    """Bench-only bulk load: SQL shaped like the indexer's rows (see kbtui/store/graph.py)."""
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
    samples = []
    for name, args in calls:
        t0 = time.perf_counter()
        answer = kb.call(name, dict(args))
        samples.append((time.perf_counter() - t0) * 1000)
        assert answer["ok"], answer
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--relationships", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=60)
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
        path = [("kg_find_path", {"fromEntityId": a, "toEntityId": b}) for a, b in pairs]
        timed(kb, path[:5])  # warm
        started_cpu = cpu_times()
        found = [kb.call(*c)["hopCount"] for c in path]
        print(f"hops found (maxHops 5): {sorted(found)}")
        print(f"kg_find_path maxHops 5     {percentiles(timed(kb, path))}")
        short = [(n, {**a, "maxHops": 3}) for n, a in path]
        print(f"kg_find_path maxHops 3     {percentiles(timed(kb, short))}")
        none = [("kg_find_path", {"fromEntityId": a, "toEntityId": lonely}) for a, _ in pairs]
        print(f"kg_find_path unreachable   {percentiles(timed(kb, none))}")
        near = [("kg_get_neighbors", {"entityId": a}) for a in ids]
        print(f"kg_get_neighbors both      {percentiles(timed(kb, near))}")
        hub = [("kg_get_neighbors", {"entityId": "e:n0", "direction": "incoming"})] * 20
        print(f"kg_get_neighbors hub in    {percentiles(timed(kb, hub))}")
        print(f"while measuring: {machine_note(started_cpu)}")
        kb.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
