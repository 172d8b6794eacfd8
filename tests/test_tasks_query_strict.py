"""Tasks query lines the plugin rejects are errors naming the line, everywhere (issue 41,
polish): the reader, `kbtui tasks:query` (exit 1), `vault_query` (a ValidationError on
`query`) and the note view's block. Lines the plugin accepts run, and a date line whose words
the plugin silently drops (`due befor tomorrow` is read as `due on` tomorrow, chrono finding
"tomorrow" in the text) answers as the plugin does and says how it was read, never a silent
surprise (so for `sort by`, `limit`, `hide`/`show` lines, which it reads by their start). The
accepted lines are from the plugin's tests/Query/Query.test.ts and the rejected
ones from its Query, BooleanField and PriorityField tests and source (obsidian-tasks-group/
obsidian-tasks, MIT), plus typos of the kind users make, checked against its code
(src/Query/Query.ts parseLine, src/Query/Filter/*Field.ts, src/DateTime/DateParser.ts)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtui.cli import main
from kbtui.embed import HashEmbedder
from kbtui.tasksquery.filters import QueryError
from kbtui.tasksquery.query import read_query
from kbtui.vault.obsidian.task_settings import TasksSettings
from tests.conftest import open_runtime
from tests.dataview_kit import indexed_vault
from tests.test_tasks_query import run, tasks

TODAY = dt.date(2025, 6, 18)  # a Wednesday
PLAIN = TasksSettings(installed=True)

# (line, the plugin's message): each a QueryError ending `Problem line: "<line>"`
REJECTED = [
    ("due before 2021-13-45", "do not understand due date"),
    ("due on 2025-02-30", "do not understand due date"),
    ("happens in the next weak", "do not understand happens date"),
    ("happens before blahblahblah", "do not understand happens date"),
    ("scheduled before tomorow", "do not understand scheduled date"),
    ("due in 2 weks", "do not understand due date"),
    ("done on blah", "do not understand done date"),
    ("priority is hihg", "do not understand query"),
    ("sort by dew", "do not understand query"),
    ("sort by nonsense", "do not understand query"),
    ("group by nonsense", "do not understand query"),
    ("spaghetti", "do not understand query"),
    ("not don", "do not understand query"),
    ("has due dat", "do not understand query"),
    ("descripton includes x", "do not understand query"),
    ("filename includesx Example", "do not understand query"),
    ("limit abc", "do not understand query"),
    ("hide nonsense", "do not understand hide/show option"),
    ("view nonsense", 'do not understand view mode "nonsense"'),
    ("view columns by nonsense", 'do not understand columns grouping "by nonsense"'),
    ("view columns by starts", 'do not understand columns grouping "by starts"'),  # `start`
    ("view columns", "columns view requires a grouping expression"),
    ("status.type is DONEE", "Invalid status.type instruction"),
    ("description regex matches apple sauce", "Invalid instruction"),
]
# lines the plugin's Query.test.ts lists as recognised (a sample of every family)
ACCEPTED = [
    "(due this week) AND (description includes Hello World)",
    "cancelled in 2021-12-27 2021-12-29",
    "created date is invalid",
    "description includes AND",
    "done this week",
    "due before 2021-12-27",
    "due in two weeks",
    "exclude sub-items",
    "happens on 2021-12-27",
    "has tags",
    "is not blocked",
    "no happens date",
    "priority is above none",
    "recurrence does not include wednesday",
    "starts after 2021-12-27",
    "status.type is IN_PROGRESS",
    "tags do not include #sometag",
    "sort by tag reverse 3",
    "sort by status.name reverse",
    "group by urgency reverse",
    "group by backlink",
    "limit groups to 31 tasks",
    "hide nested backlinks",
    "show  tree",
    "view columns by priority",
    "# Comment lines are ignored",
    "due 13/01/2025",  # chrono reads a month past 12 as DD/MM
]


def read(line: str) -> list[str]:
    """The notes of how the query's lines were read (raises QueryError as the plugin errs)."""
    return read_query(line, PLAIN, TODAY).notes


@pytest.mark.parametrize(("line", "message"), REJECTED)
def test_lines_the_plugin_rejects_are_errors_naming_them(line: str, message: str) -> None:
    for written in (line, line.upper()):
        with pytest.raises(QueryError) as caught:
            read(written)
        said = str(caught.value)
        assert said.lower().startswith(message.lower()), said
        assert said.endswith(f'Problem line: "{written}"')


@pytest.mark.parametrize("line", ACCEPTED)
def test_lines_the_plugin_accepts_run_without_a_note(line: str) -> None:
    assert read(line) == []
    if not line.startswith(("view", "#")):  # the plugin's tests take these capitalised too
        assert read(line.upper()) == []


DROPPED = [  # (line, the note): the words the plugin drops are named, with what was read
    ("due befor tomorrow", '"due befor tomorrow": "befor" not understood; '
                           'read as "due on 2025-06-19"'),
    ("due by tomorrow", '"due by tomorrow": "by" not understood; read as "due on 2025-06-19"'),
    ("happens aftr 2025-06-01", '"happens aftr 2025-06-01": "aftr" not understood; '
                                'read as "happens on 2025-06-01"'),
    ("(not done) AND (starts befor next week)", '"starts befor next week": "befor" not '
                                               'understood; read as "starts in 2025-06-23 '
                                               '2025-06-29"'),
    # the plugin reads `sort by`, `limit` and `hide`/`show` by their start, ignoring the rest
    ("sort by duex", '"sort by duex": "x" not understood; read as "sort by due"'),
    ("sort by due reversed", '"sort by due reversed": "d" not understood; read as "sort by '
                             'due reverse"'),
    ("limit to 5 tasks please", '"limit to 5 tasks please": "please" not understood; read as '
                                '"limit to 5 tasks"'),
    ("hide tree please", '"hide tree please": "please" not understood; read as "hide tree"'),
]  # fmt: skip


@pytest.mark.parametrize(("line", "note"), DROPPED)
def test_dropped_words_are_said_and_the_answer_is_the_plugins(line: str, note: str) -> None:
    assert read(line) == [note]


def test_a_typo_in_a_date_line_answers_as_the_plugin_reads_it() -> None:
    found = tasks(["- [ ] today 📅 2025-06-18", "- [ ] tomorrow 📅 2025-06-19",
                   "- [ ] later 📅 2025-06-30"])  # fmt: skip
    assert run("due befor tomorrow", found, TODAY) == ["tomorrow"]  # as `due on tomorrow`
    assert run("due before tomorrow", found, TODAY) == ["today"]


NOTES = {
    "Chores.md": "# Chores\n- [ ] water the plants 📅 2025-06-19\n- [ ] pay rent 📅 2025-06-30\n",
    "Dash.md": "# Dash\n\n```tasks\nnot done\ndue befor tomorrow\n```\n\n"
    "```tasks\nnot done\npriority is hihg\n```\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_vault(tmp_path_factory.mktemp("strict") / "vault", NOTES)


def cli(vault: Path, *args: str) -> tuple[int, str, str]:
    done = CliRunner().invoke(main, [*args, "--vault", str(vault)])
    return done.exit_code, done.stdout, done.stderr


def test_cli_exits_1_naming_the_line_and_warns_of_dropped_words(vault: Path) -> None:
    code, out, said = cli(vault, "tasks:query", "not done\\nsort by dew")
    assert code == 1 and out == ""
    assert 'do not understand query\nProblem line: "sort by dew"' in said
    code, out, said = cli(vault, "tasks:query", "due befor tomorrow", "--today", "2025-06-18")
    assert code == 0
    assert out.startswith("- [ ] water the plants 📅 2025-06-19")
    assert 'warning: "due befor tomorrow": "befor" not understood; read as "due on 2025-06-19"' in (
        said
    )
    code, out, said = cli(vault, "block:run", "Dash#1", "--today", "2025-06-18")
    assert code == 0 and "water the plants" in out and '"befor" not understood' in said
    code, out, _ = cli(vault, "blocks", "--today", "2025-06-18")  # every dashboard, each run
    assert out.splitlines() == [
        'Dash.md#1  line 3  tasks  ok (1 row)  warning: "due befor tomorrow": "befor" not '
        'understood; read as "due on 2025-06-19"',
        "Dash.md#2  line 8  tasks  error: Tasks query: do not understand query",
    ]


def test_vault_query_errors_name_the_line_and_answers_carry_the_warning(vault: Path) -> None:
    rt = open_runtime(vault, HashEmbedder())
    try:
        bad = rt.call("vault_query", {"file": "Dash", "block": 2})
        ran = rt.call("vault_query", {"file": "Dash", "block": 1, "today": "2025-06-18"})
    finally:
        rt.close()
    assert bad["ok"] is False and bad["error_type"] == "ValidationError"
    assert bad["error"]["field"] == "query"
    assert bad["message"].endswith('do not understand query\nProblem line: "priority is hihg"')
    assert (bad["file"], bad["block"], bad["line"]) == ("Dash.md", 2, 8)
    assert ran["ok"] is True and [r["line"] for r in ran["rows"]] == [2]
    assert ran["warnings"] == [
        '"due befor tomorrow": "befor" not understood; read as "due on 2025-06-19"'
    ]


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("COLUMNS", "300")  # messages on one line, whatever the terminal
    yield
