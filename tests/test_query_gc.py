"""A dashboard query runs with no garbage-collector pass (kbtui.memory.gc_paused): a pass scans
everything the process holds, and a warm Dataview answer of 7.5k tasks took 3x its median at
p95 from them (bench/dataview_query.py). The collector is back on after every answer, an
error included, so a long-running TUI or MCP server never runs without one."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from tests.conftest import open_runtime

TASKS = "\n".join(f"- [ ] chore {i} #home 📅 2024-03-{1 + i % 28:02d}" for i in range(300))


@pytest.fixture(scope="module")
def rt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VaultRuntime]:
    vault = tmp_path_factory.mktemp("gc") / "v"
    vault.mkdir()
    for n in range(20):
        (vault / f"Note {n}.md").write_text(f"effort:: {n}\n\n{TASKS}\n", encoding="utf-8")
    runtime = open_runtime(vault, HashEmbedder())
    yield runtime
    runtime.close()


@pytest.fixture
def passes() -> Iterator[list[int]]:
    """Generations of the collector's passes started while the test runs."""
    seen: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(count)
    threshold = gc.get_threshold()
    gc.set_threshold(10)  # without the pause, a pass every ten new container objects
    try:
        yield seen
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(count)


QUERIES = [
    ("app_dataview", {"query": "TASK WHERE !completed GROUP BY file.link"}),
    ("app_dataview", {"query": "TABLE effort SORT effort DESC"}),
    ("app_tasks_query", {"query": "not done\ngroup by filename\nsort by due"}),
]


@pytest.mark.parametrize(("tool", "args"), QUERIES)
def test_a_query_answers_without_a_collector_pass(
    rt: VaultRuntime, passes: list[int], tool: str, args: dict[str, Any]
) -> None:
    rt.call(tool, args)  # first: the pages are built and held
    passes.clear()
    answer = rt.call(tool, args)
    assert answer["ok"] is True, answer
    assert answer.get("count", len(answer.get("rows", []))) > 0
    assert gc.isenabled()  # on again after the answer
    # unpaused, at this threshold the TASK query's 6,000 rows start ~15,000 passes and the
    # table's 20 pages ~70; paused, only the call's envelope around the evaluation makes some
    assert len(passes) < 50, len(passes)


REFUSED = [
    ("app_dataview", "TABLE FROM WHERE ("),
    ("app_tasks_query", "filter by function task.urgency > 1"),
]


@pytest.mark.parametrize(("tool", "query"), REFUSED)
def test_the_collector_is_back_on_after_a_refused_query(
    rt: VaultRuntime, tool: str, query: str
) -> None:
    answer = rt.call(tool, {"query": query})
    assert answer["ok"] is False
    assert gc.isenabled()
