"""kg_find_path's recursive SQL on a real DuckDB file, checked against a plain BFS in Python
and against the numpy search it replaced (tests/graph_oracle.py)."""

from __future__ import annotations

import itertools
import random
from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtui.store import Store
from tests import graph_oracle


def relate(store: Store, edges: list[tuple[str, str]]) -> None:
    """Relationships written the way the store writes them (rel ids, hashed keys)."""
    store.con.execute("DELETE FROM relationships")
    if edges:
        store.con.executemany(
            """INSERT INTO relationships VALUES
               (?, ?, ?, 'RELATED_TO', NULL, 1.0, 'test.md', hash(?), hash(?))""",
            [(f"rel_{i}", a, b, a, b) for i, (a, b) in enumerate(edges)],
        )
    store.relationships_changed()


def oracle_path(
    store: Store, start: str, goal: str, max_hops: int
) -> tuple[list[str], list[str]] | None:
    """What the numpy engine kbtui used before the SQL one answers."""
    if start == goal:
        return [start], []
    keys = store._keys([start, goal])
    return graph_oracle.shortest_path(
        store.con, graph_oracle.Adjacency(store.con), start, (keys[0], keys[1]), max_hops
    )


def bfs_hops(edges: list[tuple[str, str]], start: str, goal: str) -> int | None:
    near: dict[str, set[str]] = {}
    for a, b in edges:
        near.setdefault(a, set()).add(b)
        near.setdefault(b, set()).add(a)
    seen, todo = {start: 0}, deque([start])
    while todo:
        node = todo.popleft()
        for nxt in near.get(node, ()):
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                todo.append(nxt)
    return seen.get(goal)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "index.duckdb")


def test_chain_respects_max_hops_and_direction_is_ignored(store: Store) -> None:
    # a -> b <- c -> d -> e : four hops, walked against the arrows where needed
    relate(store, [("a", "b"), ("c", "b"), ("c", "d"), ("d", "e"), ("x", "y")])
    ids, rels = store.shortest_path("a", "e", 4) or ([], [])
    assert ids == ["a", "b", "c", "d", "e"] and rels == ["rel_0", "rel_1", "rel_2", "rel_3"]
    assert store.shortest_path("a", "e", 3) is None
    assert store.shortest_path("e", "a", 4) == (ids[::-1], rels[::-1])
    assert store.shortest_path("a", "y", 10) is None  # another component
    assert store.shortest_path("a", "b", 1) == (["a", "b"], ["rel_0"])


def test_random_graphs_give_shortest_paths(store: Store) -> None:
    rng = random.Random(7)
    for trial in range(6):
        nodes = [f"n{i}" for i in range(60)]
        edges = [(rng.choice(nodes), rng.choice(nodes)) for _ in range(70 + 10 * trial)]
        edges = [(a, b) for a, b in edges if a != b]
        relate(store, edges)
        for _ in range(15):
            start, goal = rng.sample(nodes, 2)
            for max_hops in (1, 2, 3, 5, 10):
                want = bfs_hops(edges, start, goal)
                found = store.shortest_path(start, goal, max_hops)
                if want is None or want > max_hops:
                    assert found is None, (start, goal, max_hops)
                    continue
                assert found is not None, (start, goal, max_hops, want)
                ids, rels = found
                assert len(rels) == want and ids[0] == start and ids[-1] == goal
                pairs = {frozenset(e) for e in edges}
                for step, (a, b) in enumerate(itertools.pairwise(ids)):
                    assert frozenset((a, b)) in pairs
                    index = int(rels[step].removeprefix("rel_"))
                    assert frozenset(edges[index]) == frozenset((a, b))


NODES = [f"n{i}" for i in range(12)]
graphs = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)), max_size=30)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edges=graphs,
    queries=st.lists(
        st.tuples(
            st.sampled_from(NODES),
            st.sampled_from(NODES),
            st.one_of(st.just(1), st.just(10), st.integers(1, 10)),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_sql_paths_equal_a_reference_bfs(
    store: Store, edges: list[tuple[str, str]], queries: list[tuple[str, str, int]]
) -> None:
    """Random graphs with multi-edges, self-links and unreachable pairs: found exactly when
    the reference BFS reaches the goal within maxHops, with its hop count, over real
    relationships (the smallest id between two entities); and the very path the numpy
    engine answered (ties between equal paths go to the smallest key in both)."""
    relate(store, edges)
    for start, goal, max_hops in queries:
        want = bfs_hops(edges, start, goal)
        found = store.shortest_path(start, goal, max_hops)
        old = oracle_path(store, start, goal, max_hops)
        if want is None or want > max_hops:
            assert found is None and old is None, (start, goal, max_hops)
            continue
        assert found is not None and found == old, (start, goal, max_hops, want)
        ids, rels = found
        assert len(rels) == want and ids[0] == start and ids[-1] == goal
        for step, (a, b) in enumerate(itertools.pairwise(ids)):
            between = [i for i, e in enumerate(edges) if e in ((a, b), (b, a))]
            assert between and rels[step] == min(f"rel_{i}" for i in between)


def test_an_index_from_schema_4_gets_its_path_tables(tmp_path: Path) -> None:
    """Opening an index written before the path tables derives them from its relationships."""
    old = Store(tmp_path / "old.duckdb")
    relate(old, [("a", "b"), ("b", "c")])
    old.con.execute("DROP TABLE graph_edges")
    old.con.execute("DROP TABLE graph_nodes")
    old.set_meta("schema_version", "4")
    old.close()
    upgraded = Store(tmp_path / "old.duckdb")
    try:
        assert upgraded.shortest_path("a", "c", 2) == (["a", "b", "c"], ["rel_0", "rel_1"])
    finally:
        upgraded.close()
