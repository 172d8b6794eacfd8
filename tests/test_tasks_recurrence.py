"""Recurring tasks and status changes as the Tasks plugin writes them (issue 41, item 4): the
examples of its Recurring Tasks page and its Recurrence tests (MIT), the rule read by the
rrule.js grammar port and spelled back as the plugin spells it, and what a toggle writes with
each setting. Pure: lines in, lines out."""

from __future__ import annotations

import datetime as dt

import pytest

from kbtui.vault.obsidian.recurrence import next_dates, read_rule
from kbtui.vault.obsidian.task_line import parse_line, render
from kbtui.vault.obsidian.task_settings import TasksSettings
from kbtui.vault.obsidian.toggle import NotATaskError, status_change, toggled_lines

D = dt.date.fromisoformat
PLUGIN = TasksSettings(installed=True)


@pytest.mark.parametrize(
    ("rule", "due", "spelled", "expected"),
    [
        # Recurring Tasks page
        ("every Sunday", "2021-04-25", "every week on Sunday", "2021-05-02"),
        ("every week on Monday", "2024-03-04", "every week on Monday", "2024-03-11"),
        ("every month on the last", "2022-01-31", "every month on the last", "2022-02-28"),
        ("every month on the last", "2022-02-28", "every month on the last", "2022-03-31"),
        ("every month", "2021-10-31", "every month", "2021-11-30"),
        ("every month", "2022-01-30", "every month", "2022-02-28"),
        ("every month on the 31st", "2022-01-31", "every month on the 31st", "2022-03-31"),
        ("every month on the 31st", "2022-05-31", "every month on the 31st", "2022-07-31"),
        ("every 3 months", "2022-01-31", "every 3 months", "2022-04-30"),
        ("every weekday", "2022-01-28", "every weekday", "2022-01-31"),
        (
            "every week on Tuesday, Friday",
            "2022-01-25",
            "every week on Tuesday, Friday",
            "2022-01-28",
        ),
        (
            "every month on the 2nd last Friday",
            "2022-01-21",
            "every month on the 2nd last Friday",
            "2022-02-18",
        ),
        ("every January on the 15th", "2022-01-15", "every January on the 15th", "2023-01-15"),
        (
            "every April and December on the 1st and 24th",
            "2022-04-24",
            "every April and December on the 1st and 24th",
            "2022-12-01",
        ),
        # the plugin's tests/Task/Recurrence.test.ts
        ("every 2 months", "2023-12-31", "every 2 months", "2024-02-29"),
        ("every 2 years", "2024-02-29", "every 2 years", "2026-02-28"),
        ("every 11 months", "2020-03-31", "every 11 months", "2021-02-28"),
        ("every 13 months", "2020-01-31", "every 13 months", "2021-02-28"),
    ],
)
def test_next_due_date(rule: str, due: str, spelled: str, expected: str) -> None:
    found = read_rule(rule)
    assert found is not None and found.text() == spelled
    got = next_dates(found, {"due": D(due)}, D("2022-06-01"))
    assert got is not None and got["due"] == D(expected)


def test_rules_the_plugin_cannot_read() -> None:
    for text in ("every two weeks", "each week", "every", "every week until 2024"):
        assert read_rule(text) is None


def test_dates_keep_their_distance_and_when_done_counts_from_today() -> None:
    """Mow the lawn: scheduled 2 days before due, every 2 weeks; sweep the floors when done."""
    lawn = "- [ ] Mow the lawn 🔁 every 2 weeks ⏳ 2021-10-28 📅 2021-10-30"
    assert toggled_lines(lawn, D("2021-10-30"), PLUGIN)[0] == (
        "- [ ] Mow the lawn 🔁 every 2 weeks ⏳ 2021-11-11 📅 2021-11-13"
    )
    floors = "- [ ] sweep the floors 🔁 every week when done ⏳ 2021-02-06"
    assert toggled_lines(floors, D("2022-02-13"), PLUGIN) == [
        "- [ ] sweep the floors 🔁 every week when done ⏳ 2022-02-20",
        "- [x] sweep the floors 🔁 every week when done ⏳ 2021-02-06 ✅ 2022-02-13",
    ]
    plain = "- [ ] sweep the floors 🔁 every week ⏳ 2021-02-06"
    assert toggled_lines(plain, D("2022-02-13"), PLUGIN)[0].endswith("⏳ 2021-02-13")


def test_trash_example_of_the_docs() -> None:
    trash = "- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25"
    assert toggled_lines(trash, D("2021-04-24"), PLUGIN) == [
        "- [ ] take out the trash 🔁 every week on Sunday 📅 2021-05-02",
        "- [x] take out the trash 🔁 every week on Sunday 📅 2021-04-25 ✅ 2021-04-24",
    ]
    created = TasksSettings(installed=True, set_created_date=True, recurrence_on_next_line=True)
    assert toggled_lines(trash, D("2023-03-10"), created) == [
        "- [x] take out the trash 🔁 every week on Sunday 📅 2021-04-25 ✅ 2023-03-10",
        "- [ ] take out the trash 🔁 every week on Sunday ➕ 2023-03-10 📅 2021-05-02",
    ]


def test_settings_change_what_a_toggle_writes() -> None:
    line = "- [ ] a 🔁 every day ⏳ 2024-01-01 📅 2024-01-05 ^block 🆔 x1"
    task = parse_line(line)
    # a block link is one only at the very end; fields before it stay in the description
    assert task is not None and task.id == "x1" and task.block_link == "" and task.due == ""
    assert task.description == "a 🔁 every day ⏳ 2024-01-01 📅 2024-01-05 ^block"
    line = "- [ ] a 🆔 x1 ⛔ y2 🔁 every day ⏳ 2024-01-01 📅 2024-01-05 ^block"
    no_done = TasksSettings(
        installed=True, set_done_date=False, remove_scheduled_date_on_recurrence=True
    )
    assert toggled_lines(line, D("2024-01-02"), no_done) == [
        "- [ ] a 🔁 every day 📅 2024-01-06",  # no id, depends-on, block link, scheduled
        "- [x] a 🆔 x1 ⛔ y2 🔁 every day ⏳ 2024-01-01 📅 2024-01-05 ^block",
    ]
    gone = "- [ ] chore 🔁 every day 🏁 delete 📅 2024-01-05"
    assert status_change(gone, D("2024-01-05"), PLUGIN) == (
        ["- [ ] chore 🔁 every day 🏁 delete 📅 2024-01-06"],
        None,
    )


def test_status_cycle_done_and_cancelled_dates() -> None:
    assert toggled_lines("- [x] a ✅ 2024-01-01", D("2024-02-01"), PLUGIN) == ["- [ ] a"]
    assert toggled_lines("  - [/] b #t", D("2024-02-01"), PLUGIN) == ["  - [x] b #t ✅ 2024-02-01"]
    assert toggled_lines("- [ ] c", D("2024-02-01"), PLUGIN, "-") == ["- [-] c ❌ 2024-02-01"]
    assert toggled_lines("- [-] c ❌ 2024-02-01", D("2024-03-01"), PLUGIN) == ["- [ ] c"]
    same = "- [ ] kept  as written 📅 2024-01-01"
    assert toggled_lines(same, D("2024-02-01"), PLUGIN, " ") == [same]


def test_unreadable_rule_and_invalid_dates_are_written_back_as_they_were() -> None:
    """The plugin drops a rule it cannot read and writes `Invalid date`; kbtui keeps both."""
    line = "- [ ] x 🔁 every two weeks 📅 2022-02-30"
    assert toggled_lines(line, D("2022-03-01"), PLUGIN) == [
        "- [x] x 🔁 every two weeks 📅 2022-02-30 ✅ 2022-03-01"
    ]


def test_without_the_plugin_only_the_character_changes() -> None:
    obsidian = TasksSettings()
    line = "- [ ] a 🔁 every day 📅 2024-01-05"
    assert toggled_lines(line, D("2024-01-05"), obsidian) == ["- [x] a 🔁 every day 📅 2024-01-05"]
    assert toggled_lines("- [/] b", D("2024-01-05"), obsidian) == ["- [ ] b"]
    with pytest.raises(NotATaskError):
        toggled_lines("plain text", D("2024-01-05"), obsidian)
    global_filter = TasksSettings(installed=True, global_filter="#task")
    assert toggled_lines("- [ ] no filter 🔁 every day", D("2024-01-05"), global_filter) == [
        "- [x] no filter 🔁 every day"
    ]


def test_render_writes_fields_in_the_plugins_order() -> None:
    task = parse_line("- [ ] do 📅 2024-01-05 ⏫ ➕ 2024-01-01 🔁 every day #tag  ")
    assert task is not None and task.tags == ("#tag",) and task.hard_break == "  "
    assert render(task) == "- [ ] do #tag ⏫ 🔁 every day ➕ 2024-01-01 📅 2024-01-05  "
