"""Tasks queries (issue 41, item 3) read and run as the Tasks plugin documents them: every
filter of its Filters page, boolean lines, sort, group, limit, hide/show, the global filter and
query, with examples and results taken from the plugin's docs (MIT). Pure: task rows in,
results out; tests/test_tasks_trial.py runs the same through the index and the CLI."""

from __future__ import annotations

import datetime as dt

import pytest

from kbtui.tasksquery.dates import parse_range
from kbtui.tasksquery.filters import QueryError
from kbtui.tasksquery.model import Row, make_task
from kbtui.tasksquery.query import read_query, run_query
from kbtui.tasksquery.render import markdown, rows
from kbtui.vault.obsidian.task_line import pack, parse_line
from kbtui.vault.obsidian.task_settings import TasksSettings, settings_from

FRIDAY = dt.date(2023, 2, 10)  # the day the docs' date tables are computed on
PLAIN = TasksSettings(installed=True)


def tasks(lines: list[str], file: str = "a.md", heading: str = "") -> list[Row]:
    """Index rows: path, line, status, text, heading, no packed reading (the line is read)."""
    return [(file, i + 1, t.split("[", 1)[1][0], t, heading, "") for i, t in enumerate(lines)]


def run(
    query: str,
    found: list[Row],
    today: dt.date = FRIDAY,
    settings: TasksSettings = PLAIN,
    file: str | None = None,
    props: dict[str, object] | None = None,
) -> list[str]:
    """The descriptions of the tasks the query returns, in order."""
    q = read_query(query, settings, today, file, props)
    parsed = [t for t in (make_task(r, settings, today) for r in found) if t is not None]
    result = run_query(q, parsed, today)
    return [t.line.description for _, members in result.groups for t in members]


VALID_DUE = ["d0131", "d0206", "d0209", "d0210", "d0211", "d0212", "d0213", "d0220"]
DUE = tasks(
    [
        "- [ ] d0131 📅 2023-01-31",
        "- [ ] d0206 📅 2023-02-06",
        "- [ ] d0209 📅 2023-02-09",
        "- [ ] d0210 📅 2023-02-10",
        "- [ ] d0211 📅 2023-02-11",
        "- [ ] d0212 📅 2023-02-12",
        "- [ ] d0213 📅 2023-02-13",
        "- [ ] d0220 📅 2023-02-20",
        "- [ ] nodue",
        "- [ ] bad 📅 2023-02-30",
    ]
)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # Filters page, "Date search options" table, on the date 2023-02-10
        ("due before 2023-02-10", ["d0131", "d0206", "d0209"]),
        ("due on or before 2023-02-10", ["d0131", "d0206", "d0209", "d0210"]),
        ("due 2023-02-10", ["d0210"]),
        ("due on 2023-02-10", ["d0210"]),
        ("due on or after 2023-02-12", ["d0212", "d0213", "d0220"]),
        ("due after 2023-02-12", ["d0213", "d0220"]),
        # "Date range options" table
        ("due 2023-02-09 2023-02-11", ["d0209", "d0210", "d0211"]),
        ("due in 2023-02-09 2023-02-11", ["d0209", "d0210", "d0211"]),
        ("due before 2023-02-09 2023-02-11", ["d0131", "d0206"]),
        ("due after 2023-02-09 2023-02-11", ["d0212", "d0213", "d0220"]),
        ("due in or before 2023-02-09 2023-02-11", ["d0131", "d0206", "d0209", "d0210", "d0211"]),
        ("due in or after 2023-02-12 2023-02-13", ["d0212", "d0213", "d0220"]),
        # the Appendix tables, run on Friday 2023-02-10: weeks are Monday to Sunday
        ("due before last week", []),
        ("due last week", ["d0131"]),
        ("due after last week", ["d0206", "d0209", "d0210", "d0211", "d0212", "d0213", "d0220"]),
        ("due this week", ["d0206", "d0209", "d0210", "d0211", "d0212"]),
        ("due before this week", ["d0131"]),
        ("due after this week", ["d0213", "d0220"]),
        ("due next week", ["d0213"]),
        ("due after next week", ["d0220"]),
        # relative dates
        ("due today", ["d0210"]),
        ("due before tomorrow", ["d0131", "d0206", "d0209", "d0210"]),
        ("due yesterday", ["d0209"]),
        ("due in two weeks", []),
        ("due 10 days later", ["d0220"]),
        ("due next monday", ["d0213"]),
        ("due last tuesday", ["d0131"]),  # chrono: `last` is the week before this one
        ("due 2023-W07", ["d0213"]),
        ("due 2023-01", ["d0131"]),
        ("due 10 February 2023", ["d0210"]),
        # has/no/invalid: 2023-02-30 is written but no day: not due, not in any range
        (
            "has due date",
            [*VALID_DUE, "bad"],
        ),
        ("no due date", ["nodue"]),
        ("due date is invalid", ["bad"]),
    ],
)
def test_due_filters(query: str, expected: list[str]) -> None:
    assert run(query + "\nsort by description", DUE) == sorted(expected)


def test_unreadable_dates_are_errors_naming_the_line() -> None:
    with pytest.raises(QueryError, match=r"do not understand due date.*\n.*due before 2021-13-45"):
        read_query("due before 2021-13-45", PLAIN, FRIDAY)


def test_start_date_filters_keep_tasks_without_one() -> None:
    found = tasks(["- [ ] s 🛫 2023-02-09", "- [ ] later 🛫 2023-02-20", "- [ ] none"])
    assert run("starts before tomorrow\nsort by description", found) == ["none", "s"]
    both = "( (starts before tomorrow) AND (has start date) )"
    assert run(both, found) == ["s"]


def test_happens_matches_any_of_start_scheduled_due() -> None:
    """Filters page: a task starting today and due in a week happens before tomorrow;
    invalid dates are ignored by happens."""
    found = tasks(
        [
            "- [ ] starts today 🛫 2023-02-10 📅 2023-02-17",
            "- [ ] due later 📅 2023-02-17",
            "- [ ] scheduled 2023-02-01 ⏳ 2023-02-01",
            "- [ ] invalid 🛫 2023-02-30",
            "- [ ] none",
        ]
    )
    assert run("happens before tomorrow\nsort by description", found) == [
        "scheduled 2023-02-01",
        "starts today",
    ]
    assert run("no happens date", found) == ["none"]
    assert sorted(run("has happens date", found)) == sorted(
        ["starts today", "due later", "scheduled 2023-02-01", "invalid"]
    )


PRIORITIES = tasks(
    [
        "- [ ] highest 🔺",
        "- [ ] high ⏫",
        "- [ ] medium 🔼",
        "- [ ] none",
        "- [ ] low 🔽",
        "- [ ] lowest ⏬",
    ]
)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("priority is high", ["high"]),
        ("priority is above none", ["highest", "high", "medium"]),
        ("priority is below none", ["low", "lowest"]),
        ("priority is not none", ["highest", "high", "medium", "low", "lowest"]),
        ("priority is none", ["none"]),
        ("priority is below medium", ["none", "low", "lowest"]),
    ],
)
def test_priority(query: str, expected: list[str]) -> None:
    assert run(query + "\nsort by priority", PRIORITIES) == expected


def test_text_filters_case_and_quotes_and_regex() -> None:
    """Filters page, Text filters: substring, case-insensitive, quotes are searched for."""
    found = [
        *tasks(["- [ ] a"], "Work/x.md", "Monday Day Planner"),
        *tasks(["- [ ] b"], "y.md", "DAY PLANNER"),
        *tasks(["- [ ] c"], "y.md", '"Day Planner"'),
        *tasks(["- [ ] d"], "Work/Projects 2023/z.md", ""),
    ]
    assert run("heading includes Day Planner", found) == ["a", "b", "c"]
    assert run('heading includes "Day Planner"', found) == ["c"]
    assert run("heading does not include Day Planner", found) == ["d"]  # no heading: matches
    assert run("heading regex matches /^DAY/", found) == ["b"]
    assert run("heading regex matches /^day/i", found) == ["b"]
    assert run("path includes work/", found) == ["d", "a"]  # by path: Projects before x.md
    assert run("folder includes Work/Projects", found) == ["d"]
    assert run("root includes work", found) == ["d", "a"]
    assert run(r"root regex matches /^\/$/", found) == ["b", "c"]  # at the root: root is `/`
    assert run("filename includes z.md", found) == ["d"]
    assert run("path regex does not match /Work/", found) == ["b", "c"]


def test_description_drops_fields_and_global_filter() -> None:
    """Filters page, Description table: the same text searched with or without a global filter."""
    lines = {
        "": "- [ ] Do stuff  ⏫  #tag1 ✅ 2022-08-12 #tag2/sub-tag ",
        "#task": "- [ ] #task Do stuff  ⏫  #tag1 ✅ 2022-08-12 #tag2/sub-tag ",
        "global-filter": "- [ ] global-filter Do stuff  ⏫  #tag1 ✅ 2022-08-12 #tag2/sub-tag ",
    }
    for gf, line in lines.items():
        settings = TasksSettings(installed=True, global_filter=gf)
        task = make_task(tasks([line])[0], settings, FRIDAY)
        assert task is not None and task.description == "Do stuff #tag1 #tag2/sub-tag"
        assert run("description includes STUFF #TAG1", tasks([line]), settings=settings) != []


def test_global_filter_leaves_other_lines_out() -> None:
    settings = TasksSettings(installed=True, global_filter="#task")
    found = tasks(["- [ ] #task counted", "- [ ] not a task for the plugin"])
    assert run("not done", found, settings=settings) == ["#task counted"]


def test_tags() -> None:
    """Filters page, Tags: `#` optional, partial match, and the regex examples."""
    found = tasks(
        [
            "- [ ] t1 #todo",
            "- [ ] t2 #location/home",
            "- [ ] t3 #home",
            "- [ ] t4 #t",
            "- [ ] t5 #Book",
            "- [ ] t6 #books #foo/bar",
            "- [ ] t7",
        ]
    )
    assert run("tags include #todo", found) == ["t1 #todo"]
    assert run("tags include home", found) == ["t2 #location/home", "t3 #home"]
    assert run("tags include #home", found) == ["t3 #home"]
    assert run("tags include foo", found) == ["t6 #books #foo/bar"]
    assert run("tag regex matches /#t$/", found) == ["t4 #t"]
    assert run("tag regex matches /#book$/i", found) == ["t5 #Book"]
    assert run("no tags", found) == ["t7"]
    assert len(run("tags do not include #todo", found)) == 6


def test_status_filters_from_settings() -> None:
    settings = settings_from(
        {
            "statusSettings": {
                "coreStatuses": [
                    {"symbol": " ", "name": "Todo", "nextStatusSymbol": "x", "type": "TODO"},
                    {"symbol": "x", "name": "Done", "nextStatusSymbol": " ", "type": "DONE"},
                ],
                "customStatuses": [
                    {"symbol": "!", "name": "Important", "nextStatusSymbol": "x", "type": "TODO"},
                    {"symbol": "/", "name": "In Progress", "type": "IN_PROGRESS"},
                    {"symbol": "-", "name": "Cancelled", "type": "CANCELLED"},
                    {"symbol": "Q", "name": "Quote", "type": "NON_TASK"},
                ],
            }
        }
    )
    found = tasks(["- [ ] a", "- [x] b", "- [!] c", "- [/] d", "- [-] e", "- [Q] f", "- [?] g"])
    assert run("not done", found, settings=settings) == ["d", "a", "c", "g"]
    assert run("done", found, settings=settings) == ["b", "e", "f"]
    assert run("status.type is IN_PROGRESS", found, settings=settings) == ["d"]
    assert run("status.type is not todo\nsort by description", found, settings=settings) == [
        "b",
        "d",
        "e",
        "f",
    ]
    assert run("status.name includes important", found, settings=settings) == ["c"]
    assert run("status.name includes unknown", found, settings=settings) == ["g"]
    with pytest.raises(QueryError, match=r"status\.type"):
        read_query("status.type is SOMETIMES", settings, FRIDAY)


def test_recurrence_filters_read_the_rule_as_the_plugin_spells_it() -> None:
    found = tasks(
        [
            "- [ ] trash 🔁 every Sunday 📅 2023-02-12",
            "- [ ] floors 🔁 every week when done ⏳ 2023-02-06",
            "- [ ] broken 🔁 every two weeks 📅 2023-02-12",
            "- [ ] once",
        ]
    )
    assert run("is recurring", found) == ["trash", "floors"]  # by urgency: due soon first
    assert run("recurrence includes every week on sunday", found) == ["trash"]
    assert run("recurrence includes when done", found) == ["floors"]
    assert run("is not recurring\nsort by description", found) == ["broken", "once"]


def test_sub_items_and_dependencies() -> None:
    found = tasks(
        [
            "- [ ] I am blocking 🆔 12345",
            "- [ ] I am blocked ⛔ 12345",
            "    - [ ] indented",
            "> - [ ] in a quote",
            "- [x] done blocker 🆔 abc",
            "- [ ] waits on done ⛔ abc",
        ]
    )
    assert run("is blocking", found) == ["I am blocking"]
    assert run("is blocked", found) == ["I am blocked"]
    assert "indented" not in run("exclude sub-items", found)
    assert "in a quote" in run("exclude sub-items", found)
    assert run("has id\nnot done", found) == ["I am blocking"]
    assert run("has depends on\nsort by description", found) == ["I am blocked", "waits on done"]
    assert run("id includes 123", found) == ["I am blocking"]


BOOL = tasks(
    [
        "- [ ] xx #XX",
        "- [ ] yy #YY",
        "- [ ] zz #ZZ",
        "- [ ] xy #XX #YY",
        "- [ ] yz #YY #ZZ",
        "- [ ] none",
    ]
)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("(tag includes #XX) OR (tag includes #YY)", ["xx", "xy", "yy", "yz"]),
        ("(tag includes #XX) AND (tag includes #YY)", ["xy"]),
        ("NOT (tag includes #XX)", ["none", "yy", "yz", "zz"]),
        ("(tag includes #YY) AND NOT (tag includes #XX)", ["yy", "yz"]),
        ("(tag includes #XX) OR NOT (tag includes #YY)", ["none", "xx", "xy", "zz"]),
        ("(tag includes #XX) XOR (tag includes #YY)", ["xx", "yy", "yz"]),
        # Combining Filters, Execution Priority: AND before OR, both spellings equal
        ("(tag includes #XX) OR (tag includes #YY) AND (tag includes #ZZ)", ["xx", "xy", "yz"]),
        ("(tag includes #XX) OR ( (tag includes #YY) AND (tag includes #ZZ) )", ["xx", "xy", "yz"]),
        ("(tag includes #XX) AND (tag includes #YY) OR (tag includes #ZZ)", ["xy", "yz", "zz"]),
        ("[tag includes #XX] OR [tag includes #ZZ]", ["xx", "xy", "yz", "zz"]),
        ("{tag includes #XX}AND{tag includes #YY}", ["xy"]),
        ('"tag includes #ZZ" AND NOT "tag includes #YY"', ["zz"]),
        ("NOT ( (tag includes #XX) OR (tag includes #YY) )", ["none", "zz"]),
    ],
)
def test_boolean(query: str, expected: list[str]) -> None:
    got = run(query + "\nsort by description", BOOL)
    assert [d.split(" ")[0] for d in got] == expected


def test_boolean_errors_name_the_line() -> None:
    for bad in ("(not done) AND {is recurring}", "(description includes (maybe)) OR (done)"):
        with pytest.raises(QueryError, match="Boolean combination"):
            read_query(bad, PLAIN, FRIDAY)


def test_default_sort_and_sort_by() -> None:
    """Sorting page: the default order appends status.type, urgency, due, priority, path; by
    date: invalid dates first, then earliest to latest, then no date; reverse reverses all."""
    found = tasks(
        [
            "- [x] done 📅 2023-02-01",
            "- [ ] later 📅 2023-03-01",
            "- [/] in progress",
            "- [ ] overdue ⏫ 📅 2023-02-01",
            "- [ ] undated",
            "- [ ] invalid 📅 2023-02-30",
        ]
    )
    assert run("", found) == ["in progress", "overdue", "later", "invalid", "undated", "done"]
    assert run("sort by due", found) == [
        "invalid",
        "overdue",
        "done",
        "later",
        "in progress",
        "undated",
    ]
    # reverse turns round the due order only: no date first, ties by the default sort
    assert run("sort by due reverse", found)[:3] == ["in progress", "undated", "later"]
    assert run("sort by status\nsort by description", found)[-1] == "done"
    assert run("sort by urgency\nlimit 1", found) == ["overdue"]
    links = tasks(
        ["- [ ] **b** bold", "- [ ] [[a note|c]] link", "- [ ] a plain", "- [ ] 10 x", "- [ ] 9 x"]
    )
    assert run("sort by description", links) == [
        "9 x",
        "10 x",
        "a plain",
        "**b** bold",
        "[[a note|c]] link",
    ]
    tagged = tasks(["- [ ] one #b #z", "- [ ] two #a #y", "- [ ] three #c"])
    assert run("sort by tag 2", tagged) == ["two #a #y", "one #b #z", "three #c"]


def grouped(query: str, found: list[Row]) -> list[tuple[list[str], str]]:
    q = read_query(query, PLAIN, FRIDAY)
    parsed = [t for t in (make_task(r, PLAIN, FRIDAY) for r in found) if t is not None]
    return [(r.get("group", []), r["text"]) for r in rows(run_query(q, parsed, FRIDAY))]


def test_group_by_headings_and_order() -> None:
    found = tasks(
        [
            "- [ ] #task 1 invalid due date 📅 1999-02-32",
            "- [ ] #task 2 valid 📅 2023-01-01",
            "- [ ] #task 3 future 📅 2050-01-01",
            "- [ ] #task 4 undated",
        ],
        "Manual Testing/Invalid dates.md",
        "Tasks",
    )
    # the demo vault's "Invalid dates with Sorting and Grouping": Invalid heading first
    assert [g for g, _ in grouped("group by due", found)] == [
        ["Invalid due date"],
        ["2023-01-01 Sunday"],
        ["2050-01-01 Saturday"],
        ["No due date"],
    ]
    assert next(g for g, _ in grouped("group by due reverse", found)) == ["No due date"]
    assert grouped("group by folder\ngroup by filename\ngroup by heading", found)[0][0] == [
        "Manual Testing/",
        "[[Invalid dates]]",
        "Tasks",
    ]
    assert grouped("group by priority", found)[0][0] == ["Normal priority"]
    assert grouped("group by status.type", found)[0][0] == ["TODO"]
    assert grouped("group by backlink", found)[0][0] == [
        "[[Invalid dates#Tasks|Invalid dates > Tasks]]"
    ]


def test_group_by_tags_repeats_a_task_and_limits() -> None:
    found = tasks(["- [ ] a #x #y", "- [ ] b #y", "- [ ] c"])
    got = grouped("group by tags", found)
    assert got == [  # headings by localeCompare: "(" before "#" (TagsField.test.ts)
        (["(No tags)"], "- [ ] c"),
        (["#x"], "- [ ] a #x #y"),
        (["#y"], "- [ ] a #x #y"),
        (["#y"], "- [ ] b #y"),
    ]
    assert len(grouped("group by tags\nlimit groups 1", found)) == 3
    assert grouped("limit 1\nsort by description", found) == [([], "- [ ] a #x #y")]


def test_layout_hide_show_short_and_counts() -> None:
    found = tasks(["- [ ] a ⏫ 🔁 every day 📅 2023-02-10", "- [ ] b 📅 2023-02-11"], "f.md", "H")
    q = read_query("hide due date\nlimit 1\nsort by description", PLAIN, FRIDAY)
    parsed = [t for t in (make_task(r, PLAIN, FRIDAY) for r in found) if t is not None]
    md = markdown(run_query(q, parsed, FRIDAY), q.layout)
    assert md.splitlines() == ["- [ ] a ⏫ 🔁 every day (f > H)", "", "1 of 2 tasks"]
    q = read_query("short mode\nhide backlink\nhide task count\ngroup by filename", PLAIN, FRIDAY)
    md = markdown(run_query(q, parsed, FRIDAY), q.layout)
    assert md.splitlines() == ["#### [[f]]", "- [ ] a ⏫ 🔁 📅", "- [ ] b 📅"]
    with pytest.raises(QueryError, match="hide/show option"):
        read_query("hide everything", PLAIN, FRIDAY)


def test_global_query_presets_placeholders_and_file_defaults() -> None:
    settings = TasksSettings(installed=True, global_query="path does not include _meta")
    found = [*tasks(["- [ ] kept"], "Notes/n.md"), *tasks(["- [ ] template"], "_meta/t.md")]
    assert run("not done", found, settings=settings) == ["kept"]
    assert run("ignore global query", found, settings=settings) == ["template", "kept"]
    assert run("preset this_file", found, file="_meta/t.md") == ["template"]
    assert run("{{preset.this_folder}}", found, file="Notes/other.md") == ["kept"]
    assert run("path includes {{query.file.path}}", found, file="_meta/t.md") == ["template"]
    props = {"TQ_extra_instructions": "path includes Notes"}
    assert run("not done", found, file="x.md", props=props) == ["kept"]
    with pytest.raises(QueryError, match="no file path"):
        read_query("path includes {{query.file.path}}", PLAIN, FRIDAY)


@pytest.mark.parametrize(
    "line",
    [
        "filter by function task.due.moment?.isSame(moment(), 'day')",
        "sort by function task.lineNumber",
        "group by function task.due.format('YYYY')",
    ],
)
def test_javascript_lines_are_named_unsupported(line: str) -> None:
    with pytest.raises(QueryError, match=r"by function: JavaScript .* not supported"):
        read_query(line, PLAIN, FRIDAY)


def test_unknown_instruction_is_an_error_naming_it() -> None:
    with pytest.raises(QueryError, match='do not understand query\nProblem line: "soon due"'):
        read_query("soon due", PLAIN, FRIDAY)
    with pytest.raises(QueryError, match="do not understand due date"):
        read_query("due soonish", PLAIN, FRIDAY)
    with pytest.raises(QueryError, match="sort by nothing"):
        read_query("sort by nothing", PLAIN, FRIDAY)


def test_date_ranges_as_the_plugins_parser_tests() -> None:
    """tests/DateTime/DateParser.test.ts of the plugin, run on 2021-10-06."""
    day = dt.date(2021, 10, 6)
    iso = lambda r: tuple(d.isoformat() for d in r) if r else None  # noqa: E731
    assert iso(parse_range("2013-99-29 2014-08-19", day)) == ("2014-08-19", "2014-08-19")
    assert iso(parse_range("17 August 2013 19 August 2013", day)) == ("2013-08-17", "2013-08-19")
    assert iso(parse_range("last quarter", day)) == ("2021-07-01", "2021-09-30")
    assert iso(parse_range("2020-W53", day)) == ("2020-12-28", "2021-01-03")
    assert iso(parse_range("2018-W53", day)) is None
    assert iso(parse_range("2024-02", day)) == ("2024-02-01", "2024-02-29")


def test_the_index_packed_reading_answers_as_the_line() -> None:
    """The index keeps each task's reading packed (task_line.pack): queries over packed rows
    answer as over the lines themselves, global filter included."""
    settings = TasksSettings(installed=True, global_filter="#task")
    lines = [
        "- [ ] #task due 📅 2023-02-09 ⏫ #x",
        "- [x] #task done ✅ 2023-02-01",
        "- [ ] no filter 📅 2023-02-09",
        "- [ ] #task bad 📅 2023-02-30 🔁 every day",
    ]
    plain = tasks(lines)
    packed = [(*r[:5], pack(p)) for r in plain if (p := parse_line(r[3])) is not None]
    for query in ("not done\nsort by due", "tags include x", "is recurring", "has due date"):
        assert run(query, packed, settings=settings) == run(query, plain, settings=settings)
    assert run("tags include task", packed, settings=settings) == []
