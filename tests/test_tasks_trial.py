"""Issue 41's trial items, each failing on the code before it, and the Tasks demo vault: a few
of its files (tests/data/tasks_demo, MIT, unchanged) indexed for real (DuckDB, files), its
```tasks blocks run in place and its tasks toggled through the CLI and the task_update tool
(the TUI's space calls the same tool). Today is fixed where a date is written."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime
from kbtui.vault.obsidian.query_blocks import query_blocks
from tests.conftest import open_runtime

DEMO = Path(__file__).parent / "data" / "tasks_demo"


def kbtui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbtui.cli", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    vault = tmp_path / "demo"
    shutil.copytree(DEMO, vault)
    return vault


@pytest.fixture
def demo_rt(demo: Path) -> Iterator[VaultRuntime]:
    rt = open_runtime(demo, HashEmbedder())
    try:
        yield rt
    finally:
        rt.close()


def test_fenced_line_is_neither_listed_nor_toggled(demo: Path) -> None:
    """`kbtui task "Test Data/non_tasks.md:8" --toggle` toggled a line inside a code fence."""
    note = demo / "Test Data" / "non_tasks.md"
    before = note.read_bytes()
    assert kbtui("index", "--no-embed", "--vault", str(demo)).returncode == 0
    toggled = kbtui("task", "Test Data/non_tasks.md:8", "--toggle", "--vault", str(demo))
    assert toggled.returncode != 0
    assert "inside code or a comment" in toggled.stderr + toggled.stdout
    assert note.read_bytes() == before
    for line in (14, 20):  # in an HTML comment, in a %% comment
        refused = kbtui("task", f"Test Data/non_tasks.md:{line}", "--done", "--vault", str(demo))
        assert refused.returncode != 0 and note.read_bytes() == before
    listed = kbtui("tasks", "--file", "Test Data/non_tasks.md", "--vault", str(demo))
    assert listed.returncode == 0 and listed.stdout.strip() == ""


def test_recurring_task_toggled_writes_next_occurrence_and_done_date(demo: Path) -> None:
    """ACME.md's chore `🔁 every week on Monday ... 📅 2024-03-04`: marked done, it dropped
    off the todo list with no next occurrence and no ✅ date, although the vault's Tasks
    settings ask for one (setDoneDate) and put the next occurrence above (the default)."""
    acme = demo / "ACME.md"
    lines = acme.read_text().split("\n")
    assert lines[4].endswith("🔁 every week on Monday ➕ 2024-02-19 📅 2024-03-04")
    assert kbtui("index", "--no-embed", "--vault", str(demo)).returncode == 0
    done = kbtui("task", "ACME.md:5", "--toggle", "--vault", str(demo))
    assert done.returncode == 0, done.stderr
    today = dt.date.today().isoformat()
    next_one = "- [ ] #task Take out the trash 🔁 every week on Monday 📅 2024-03-11"
    done_one = (
        "- [x] #task Take out the trash 🔁 every week on Monday ➕ 2024-02-19 📅 2024-03-04 "
        f"✅ {today}"
    )
    assert done.stdout.splitlines() == [next_one, done_one]
    assert acme.read_text().split("\n") == [*lines[:4], next_one, done_one, *lines[5:]]
    todo = kbtui("tasks", "--todo", "--file", "ACME.md", "--vault", str(demo))
    assert next_one in todo.stdout.splitlines()


def test_recurring_toggle_through_the_tool_below_when_the_settings_say(demo: Path) -> None:
    settings = demo / ".obsidian/plugins/obsidian-tasks-plugin/data.json"
    data = json.loads(settings.read_text())
    data.update(recurrenceOnNextLine=True, setDoneDate=False)
    settings.write_text(json.dumps(data))
    rt = open_runtime(demo, HashEmbedder())
    try:
        answer = rt.call("task_update", {"file": "ACME.md", "line": 5, "status": "done"})
        assert answer["ok"], answer
        lines = (demo / "ACME.md").read_text().split("\n")
        assert lines[4] == (
            "- [x] #task Take out the trash 🔁 every week on Monday ➕ 2024-02-19 📅 2024-03-04"
        )
        assert lines[5] == "- [ ] #task Take out the trash 🔁 every week on Monday 📅 2024-03-11"
        assert answer["task"]["line"] == 5 and answer["task"]["next"]["line"] == 6
        listed = rt.call("tasks_list", {"note": "ACME.md", "status": "todo"})["results"]
        assert 6 in [t["line"] for t in listed] and 5 not in [t["line"] for t in listed]
    finally:
        rt.close()


STATUSES = (
    "- [ ] todo 📅 2020-01-01\n"
    "- [/] in progress\n"
    "- [x] done\n"
    "- [-] cancelled\n"
    "- [ ] not a day 📅 1999-02-32\n"
)


def test_statuses_and_dates_as_the_tasks_plugin_reads_them(tmp_path: Path) -> None:
    """`[/]` and `[-]` counted as done in --todo/--done; `--due-before 2021-13-45` was compared
    as text; `📅 1999-02-32` counted as due."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "t.md").write_text(STATUSES)
    assert kbtui("index", "--no-embed", "--vault", str(vault)).returncode == 0
    todo = kbtui("tasks", "--todo", "--vault", str(vault)).stdout.splitlines()
    assert todo == [
        "- [ ] todo 📅 2020-01-01",
        "- [/] in progress",
        "- [ ] not a day 📅 1999-02-32",
    ]
    done = kbtui("tasks", "--done", "--vault", str(vault)).stdout.splitlines()
    assert done == ["- [x] done", "- [-] cancelled"]
    typed = kbtui("tasks", "--status-type", "IN_PROGRESS,CANCELLED", "--vault", str(vault))
    assert typed.stdout.splitlines() == ["- [/] in progress", "- [-] cancelled"]
    bad = kbtui("tasks", "--due-before", "2021-13-45", "--vault", str(vault))
    assert bad.returncode == 2 and "2021-13-45" in bad.stderr and bad.stdout == ""
    due = kbtui("tasks", "--due-before", "2021-01-01", "--vault", str(vault))
    assert due.stdout.splitlines() == ["- [ ] todo 📅 2020-01-01"]
    assert "t.md:5: due 1999-02-32 is not a date: not counted" in due.stderr
    listed = kbtui("tasks", "--vault", str(vault))
    assert (
        listed.stdout.count("\n") == 5 and "t.md:5: due 1999-02-32 is not a date" in listed.stderr
    )


def test_tasks_query_cli(demo: Path) -> None:
    assert kbtui("index", "--no-embed", "--vault", str(demo)).returncode == 0
    query = "not done\ndue before 2021-11-23\nsort by due\ngroup by filename"
    got = kbtui(
        "tasks:query", query, "--today", "2025-06-18", "--format", "json", "--vault", str(demo)
    )
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == [
        {
            "status": " ",
            "text": "- [ ] #task Feed the baby 🔽 📅 2021-11-21",
            "file": "ACME.md",
            "line": "11",
            "group": ["[[ACME]]"],
        },
        {
            "status": " ",
            "text": "- [ ] #task **?** 📅 2021-11-22",
            "file": "ACME.md",
            "line": "7",
            "group": ["[[ACME]]"],
        },
        {
            "status": " ",
            "text": "- [ ] #task ==Profit== 📅 2021-11-22",
            "file": "ACME.md",
            "line": "8",
            "group": ["[[ACME]]"],
        },
        {
            "status": " ",
            "text": "- [ ] #task Something about interwebs 📅 2021-11-22",
            "file": "Important Project.md",
            "line": "3",
            "group": ["[[Important Project]]"],
        },
    ]
    md = kbtui(
        "tasks:query", query + "\nhide backlink", "--today", "2025-06-18", "--vault", str(demo)
    )
    assert md.stdout.splitlines()[:2] == ["#### [[ACME]]", "- [ ] Feed the baby 🔽 📅 2021-11-21"]
    assert md.stdout.splitlines()[-1] == "4 tasks"
    paths = kbtui("tasks:query", "due 2021-11-22", "--format", "paths", "--vault", str(demo))
    assert paths.stdout.splitlines() == ["ACME.md:7", "ACME.md:8", "Important Project.md:3"]
    js = kbtui("tasks:query", "filter by function task.isDone", "--vault", str(demo))
    assert js.returncode == 1 and "filter by function" in js.stderr + js.stdout


def test_demo_blocks_run_or_name_what_they_do_not(demo_rt: VaultRuntime, demo: Path) -> None:
    """Every ```tasks block of the committed demo files, in its own note: 15 run, 11 name the
    instruction kbtui does not run (JavaScript, the demo's deliberate errors), none crashes;
    and the results of the invalid-dates note as its own text says they should be."""
    ran, named = 0, []
    for path in sorted(demo.rglob("*.md")):
        rel = path.relative_to(demo).as_posix()
        for block in query_blocks(path.read_text(), ("tasks",)):
            call = {"query": block.source, "today": "2025-06-18", "this": rel}
            answer = demo_rt.call("app_tasks_query", call)
            if answer["ok"]:
                ran += 1
            else:
                assert answer["error_type"] == "ValidationError", answer
                named.append(answer["message"].split("\n")[0])
    assert ran == 15 and len(named) == 11
    assert sum("by function: JavaScript" in m for m in named) == 7
    note = "Manual Testing/Invalid dates with Sorting and Grouping.md"
    blocks = query_blocks((demo / note).read_text(), ("tasks",))
    grouped = demo_rt.call("app_tasks_query", {"query": blocks[0].source, "this": note})
    assert grouped["groups"] == [
        ["%%0%% Invalid due date"],
        ["2023-01-01 Sunday"],
        ["2050-01-01 Saturday"],
        ["No due date"],
    ]
    for block in (blocks[2], blocks[4]):  # sort by due; sort by description: 1, 2, 3, 4
        answer = demo_rt.call("app_tasks_query", {"query": block.source, "this": note})
        assert [r["line"] for r in answer["results"]] == [7, 8, 9, 10]
