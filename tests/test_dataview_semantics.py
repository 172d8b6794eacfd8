"""How a DQL query behaves beyond the docs' examples: `this`, links read through, implicit
fields, sorting and grouping of mixed values, errors that name what failed, and the examples of
the reference pages (docs/reference/expressions.md, literals.md) that need a vault."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from kbtui.dataview.query import DqlError
from kbtui.dataview.values import Link
from tests.dataview_kit import Runner, indexed

NOW = datetime(2022, 9, 15, 10, 0)
VAULT = {
    "Classes/Math.md": "timetable:: Monday\nduedate:: 2022-09-20\n",
    "Classes/Assignment Math.md": "duedate:: 2022-09-30\nClass:: [[Math]]\nstatus:: open\n",
    "Study MOC.md": "[[Assignment Math]] and [[Math]] ![[pic.png]] [[Nowhere]]\n",
    "Daily/2022-09-14.md": "- [ ] from yesterday\n- [x] done yesterday\n",
    "Daily/2022-09-15.md": "- [ ] today's\n",
    "Week/2022-W37.md": "---\nfile-for: week\n---\n",
    "Work/Shift.md": "#work\nstart:: 2022-09-14T08:00\nend:: 2022-09-14T18:30\n",
    "Work/Long.md": "#work\nstart:: 2022-09-01T08:00\nend:: 2022-09-05T08:00\n",
    "30 Projects/P.md": "hrs:: 48\n",
    "Keywords.md": "---\nwhere: here\naliases: [ABC, Alpha]\ncurrent_episode: S01E03\n"
    "episode_metadata:\n  previous: S01E02\n  next: S01E04\n---\n",
    "Mixed/a.md": "v:: 3\n",
    "Mixed/b.md": "v:: text\n",
    "Mixed/c.md": "v:: 2022-01-01\n",
    "Mixed/d.md": "x:: 1\n",
    "Mixed/e.md": "v:: [[Math]]\n",
    "Mixed/f.md": "v:: true\n",
}


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Runner]:
    store, service = indexed(tmp_path / "vault", VAULT)
    yield Runner(service, NOW)
    store.close()


def test_links_are_read_through(run: Runner) -> None:
    """expressions.md: `[[Assignment Math]].duedate` reads that page; a field holding a link
    (`Class:: [[Math]]`) reads the page it links to (`Class.timetable`)."""
    assert run.list("LIST [[Assignment Math]].duedate WHERE file.name = \"Study MOC\"") == [
        ("Study MOC", "September 30, 2022")]  # fmt: skip
    assert run.list("LIST Class.timetable WHERE Class") == [("Assignment Math", "Monday")]
    assert run.list("LIST WHERE Class = [[Math]]") == ["Assignment Math"]
    assert run.list("LIST WHERE contains(file.inlinks, [[Study MOC]])") == [
        "Assignment Math", "Math"]  # fmt: skip


def test_file_fields(run: Runner) -> None:
    (row,) = run.table(
        "TABLE WITHOUT ID file.name, file.folder, file.path, file.ext, file.link, "
        'file.aliases, file.starred, file.frontmatter.where WHERE file.name = "Keywords"'
    )[1]
    assert row == ["Keywords", "", "Keywords.md", "md", "Keywords", ["ABC", "Alpha"], "false",
                   "here"]  # fmt: skip
    (moc,) = run.table(
        'TABLE WITHOUT ID file.outlinks, file.inlinks WHERE file.name = "Study MOC"'
    )[1]
    assert moc == [["Assignment Math", "Math", "pic.png", "Nowhere"], []]
    assert run.list("LIST file.inlinks WHERE file.name = \"Math\"") == [
        ("Math", ["Assignment Math", "e", "Study MOC"])]  # fmt: skip  # e: `v:: [[Math]]`
    assert run.list("LIST WHERE file.day = date(2022-09-14)") == ["2022-09-14"]
    _q, result, _b = run.raw('TABLE file.size, file.mtime, file.cday WHERE file.name = "P"')
    size, mtime, cday = result.values[0]
    assert size == len(VAULT["30 Projects/P.md"].encode())
    assert isinstance(mtime, datetime) and cday.hour == 0
    assert run.list("LIST length(file.lists) WHERE file.name = \"2022-09-14\"") == [
        ("2022-09-14", "2")]  # fmt: skip


def test_this(run: Runner) -> None:
    """`this` is the note holding the query: its fields, its file, `[[]]`."""
    assert run.list('LIST WHERE string(file.day.year) = split(this.file.name, "-W")[0]',
                    this="Week/2022-W37.md") == ["2022-09-14", "2022-09-15"]  # fmt: skip
    assert run.list("LIST WHERE file = this.file", this="Math") == ["Math"]
    assert run.list("LIST this.file-for WHERE file = this.file", this="2022-W37") == [
        ("2022-W37", "week")]  # fmt: skip
    with pytest.raises(DqlError, match="no note 'Nope'"):
        run.raw("LIST", this="Nope")


def test_reference_examples(run: Runner) -> None:
    assert run.table('TABLE start, end, (end - start) - dur(8 h) AS "Overtime"\nFROM #work')[1] == [
        ["Long", "8:00 AM - September 01, 2022", "8:00 AM - September 05, 2022",
         "3 days, 16 hours"],
        ["Shift", "8:00 AM - September 14, 2022", "6:30 PM - September 14, 2022",
         "2 hours, 30 minutes"],
    ]  # fmt: skip
    assert run.table('TABLE hrs / 24 AS "days"\nFROM "30 Projects"')[1] == [["P", "2"]]
    assert run.list("LIST\nWHERE file.day.year = 2022") == ["2022-09-14", "2022-09-15"]
    assert run.list('LIST\nWHERE contains(file.name, "Math")') == ["Assignment Math", "Math"]
    assert run.list("LIST\nFROM [[Study MOC]]") == []
    assert run.list("LIST FROM outgoing([[Study MOC]])") == ["Assignment Math", "Math"]
    assert run.tasks("TASK\nWHERE !completed AND file.day = date(yesterday)") == [
        "[ ] from yesterday"]  # fmt: skip
    assert run.list("LIST\nWHERE end - start > dur(2 days)") == ["Long"]
    assert run.list("LIST\nWHERE duedate AND duedate < date(today) + dur(10 days)") == ["Math"]
    assert run.table("TABLE id, episode_metadata.next, aliases[0] WHERE aliases")[1] == [
        ["Keywords", "\\-", "S01E04", "ABC"]]  # fmt: skip
    assert run.list('LIST row["where"] WHERE row["where"]') == [("Keywords", "here")]


def test_mixed_values_sort_and_group_by_type(run: Runner) -> None:
    """One order for every value (value.ts compareValue): null first, then by type name:
    boolean, date, link, number, string."""
    got = run.list('LIST v FROM "Mixed" SORT v')
    assert [name for name, _ in got] == ["d", "f", "c", "e", "a", "b"]
    assert [name for name, _ in run.list('LIST v FROM "Mixed" SORT v DESC')] == [
        "b", "a", "e", "c", "f", "d"]  # fmt: skip
    assert run.list('LIST length(rows) FROM "Mixed" GROUP BY typeof(v)') == [
        ("boolean", "1"), ("date", "1"), ("link", "1"), ("null", "1"), ("number", "1"),
        ("string", "1")]  # fmt: skip
    got = run.list('LIST WITHOUT ID key FROM "Mixed" GROUP BY v FLATTEN rows AS r')
    assert len(got) == 6  # the group's key survives a FLATTEN of another name


def test_flatten_of_the_group_name_ends_the_grouping(run: Runner) -> None:
    """engine.ts: a FLATTEN of the group's own name names the id column `File` again."""
    headers, rows = run.table('TABLE length(rows) FROM "Mixed" WHERE v GROUP BY v')
    assert headers == ["v", "length(rows)"] and len(rows) == 5
    headers, rows = run.table('TABLE v FROM "Mixed" WHERE v GROUP BY v AS v FLATTEN rows AS v')
    assert headers == ["File", "v"] and len(rows) == 5


def test_errors_name_what_failed(run: Runner) -> None:
    with pytest.raises(DqlError, match="line 2: expected FROM, WHERE, SORT, GROUP BY, FLATTEN or "
                                       "LIMIT at `WHEN y`"):  # fmt: skip
        run.raw("TABLE x\nWHEN y")
    with pytest.raises(DqlError, match="unsupported function `frobnicate\\(\\)`"):
        run.raw("LIST WHERE frobnicate(file.name)")
    with pytest.raises(DqlError, match="unsupported function `nope\\(\\)`"):
        run.raw("TABLE nope(1) WHERE false")  # named even when no row reaches it
    with pytest.raises(DqlError, match="every row failed during 'where': No implementation of "
                                       "'lower' found for arguments: number"):  # fmt: skip
        run.raw('LIST FROM "Mixed" WHERE lower(1)')
    with pytest.raises(DqlError, match="limit should be a number"):
        run.raw('LIST LIMIT "ten"')
    with pytest.raises(DqlError, match="FROM comes once"):
        run.raw('LIST WHERE true FROM "Mixed"')
    # a row that fails is dropped, the others answer (as in Dataview)
    assert run.list('LIST FROM "Mixed" WHERE v - 1 > 0') == ["a"]


def test_list_then_a_command_reads_the_command(run: Runner) -> None:
    """Dataview reads `LIST\\nSORT x` as a LIST of a field called SORT and fails (its issue
    #1569); kbtui reads the SORT."""
    assert run.list('LIST\nSORT file.name DESC\nLIMIT 2\nWHERE file.folder = "Mixed"') == []
    assert run.list('LIST\nFROM "Mixed"\nSORT file.name DESC\nLIMIT 2') == ["f", "e"]


def test_page_links_resolve_to_paths(run: Runner) -> None:
    _q, result, _b = run.raw('LIST v WHERE file.name = "e"')
    assert result.values[0][0] == Link("Classes/Math.md")
    assert run.answer('TABLE v WHERE file.name = "e"')["rows"] == [
        {"File": "[[Mixed/e.md|e]]", "v": "[[Classes/Math.md|Math]]"}]  # fmt: skip


def test_bases_read_properties_only(tmp_path: Path) -> None:
    """Inline fields are Dataview's: a base's rows hold a note's properties only, as in
    Obsidian (docs/bases.md)."""
    from kbtui.bases.service import BaseService

    base = (
        "views:\n  - type: table\n    name: All\n    filters: 'rating > 3'\n    order: [rating]\n"
    )
    store, service = indexed(tmp_path / "v", {
        "Props.md": "---\nrating: 5\n---\n", "Inline.md": "rating:: 5\n", "B.base": base,
    })  # fmt: skip
    rows = BaseService(store, tmp_path / "v").query("B")[1].rows
    assert [r["path"] for r in rows] == ["Props.md"]
    assert Runner(service).list("LIST WHERE rating > 3") == ["Inline", "Props"]
    store.close()
