"""The WHERE commands compiled to SQL (kbtui/dataview/prefilter.py, store/queries/dv_where.py)
only narrow what Python evaluates: every query gives the same rows, in the same order, with
the prefilter as without it, over fields of every type (and missing ones), tasks with and
without dates, and file facts; and the prefilter does narrow the rows read."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import datetime

import pytest

from kbtui.dataview.evaluate import Context
from kbtui.dataview.prefilter import conditions
from kbtui.dataview.query import parse_query
from kbtui.dataview.service import DataviewService
from kbtui.store import Store
from tests.dataview_kit import indexed

VALUES = ["3", "7", "0", "-2.5", "text", '"quoted"', "true", "false", "2024-01-15",
          "2024-01-15T10:30", "2024-01-15T10:30:00.000+02:00", "5 days", "[[Target]]", "1, 2",
          "", "Zebra"]  # fmt: skip
NOW = datetime(2024, 2, 1, 9, 0)


def _notes() -> dict[str, str]:
    notes: dict[str, str] = {"Target.md": "#t\n"}
    for i, (a, b) in enumerate(itertools.product(VALUES, ["4", "text", None])):
        extra = "" if b is None else f"\nb:: {b}"
        tasks = (f"- [ ] open {i} [due:: {a}]\n- [x] done {i} 📅 2024-01-{i % 28 + 1:02d}\n"
                 f"- [/] half {i} #tag{i % 3}\n- [ ] plain {i}\n")  # fmt: skip
        folder = ["A", "B/C", ""][i % 3]
        notes[f"{folder}/n{i}.md".lstrip("/")] = f"#x{i % 4}\na:: {a}{extra}\n\n{tasks}"
    notes["props.md"] = "---\na: 4\nb: [1, 2]\nc:\n  d: 1\ndue: 2024-01-20\n---\n- [ ] p task\n"
    return notes


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, DataviewService]]:
    store, service = indexed(tmp_path_factory.mktemp("sql") / "vault", _notes())
    yield store, service
    store.close()


LITERALS = ["5", "0", '"text"', '"Zebra"', "true", "null", "date(2024-01-15)",
            "date(2024-01-15T10:30)", "date(today)", '"4"']  # fmt: skip
PAGE_WHERE = [f"a {op} {lit}" for op in ("=", "!=", "<", "<=", ">", ">=") for lit in LITERALS]
PAGE_WHERE += [
    "a", "!a", "b", "!b", "a AND b", "a OR !b", "!(a = 5 OR b = \"text\")", 'contains(a, "ex")',
    'contains(b, "4")', 'file.name = "n3"', 'file.name != "n3"', 'contains(file.name, "1")',
    'startswith(file.folder, "B")', 'endswith(file.path, "7.md")', 'file.folder = ""',
    'contains(file.tags, "#x1")', "c.d = 1", 'a > 5 AND contains(file.name, "2")',
    "a = [[Target]]", "typeof(a) = \"number\"", "nope", "!nope", 'nope < 3',
]  # fmt: skip
TASK_WHERE = [
    "completed", "!completed", "checked", "!checked", 'status = "/"', 'status != " "',
    "due < date(2024-01-20)", "due >= date(2024-01-15)", "due = date(2024-01-15)",
    "due", "!due", "due > 5", "due < 5", "due = null", "due != null", "due < date(today)",
    'contains(text, "open")', 'contains(tags, "#tag1")', "a > 5", "b", "!completed AND due",
    "!completed OR due < date(2024-01-02)", 'contains(file.name, "1") AND !checked',
    "completion = date(2024-01-03)", "completion > date(2024-01-10)",
]  # fmt: skip


def both(service: DataviewService, text: str) -> tuple[list[str], list[str]]:
    fast = service.query(text, now=NOW)[1]
    slow = service.query(text, now=NOW, prefilter=False)[1]
    return (
        [str(r.id) + repr(v) for r, v in zip(fast.rows, fast.values or [[]] * len(fast.rows),
                                             strict=True)],
        [str(r.id) + repr(v) for r, v in zip(slow.rows, slow.values or [[]] * len(slow.rows),
                                             strict=True)],
    )  # fmt: skip


@pytest.mark.parametrize("where", PAGE_WHERE)
def test_pages_the_same_either_way(vault: tuple[Store, DataviewService], where: str) -> None:
    fast, slow = both(vault[1], f"TABLE a, b WHERE {where} SORT file.path")
    assert fast == slow


@pytest.mark.parametrize("where", TASK_WHERE)
def test_tasks_the_same_either_way(vault: tuple[Store, DataviewService], where: str) -> None:
    fast, slow = both(vault[1], f"TASK WHERE {where}")
    assert fast == slow


def test_only_leading_wheres_are_compiled() -> None:
    ctx = Context(None, lambda t: None, lambda p: None, now=NOW)
    assert conditions(parse_query("LIST WHERE a > 1 LIMIT 5 WHERE b"), ctx) == (
        "cmp", "page", "a", ">", "number", 1.0)  # fmt: skip
    assert conditions(parse_query("LIST SORT a WHERE a > 1"), ctx)[0] == "cmp"
    assert conditions(parse_query("LIST FLATTEN a WHERE a > 1"), ctx) == ("true",)
    assert conditions(parse_query("TASK WHERE text"), ctx) == ("true",)  # a task's own key


def test_the_prefilter_narrows_what_is_read(vault: tuple[Store, DataviewService]) -> None:
    store = vault[0]
    ctx = Context(None, lambda t: None, lambda p: None, now=NOW)
    cond = conditions(parse_query('LIST WHERE a = 7 AND contains(file.name, "4")'), ctx)
    assert 0 < len(store.dv_pages(("all",), cond)) < 10
    cond = conditions(parse_query("TASK WHERE !checked AND due < date(2024-01-16)"), ctx)
    pages, tasks, _items = store.dv_task_pages(("all",), cond)
    assert 0 < len(tasks) < 120 and len(pages) <= len(tasks)  # of 193; a task without due passes
