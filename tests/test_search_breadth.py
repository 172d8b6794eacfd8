"""A broad note's one section yields rank 1 to the page about the question (issue 42 item 10).

On real questions the note kbtui put first, above the page that answers, was often a long
reference page whose one section reads like the question (Tasks' `Filters.md` above
`Limiting.md`, 216 chunks against 4). The vault here has that shape, in text written for
this test: a 30-section query reference with a one-line "Limiting" section, and a short
page about limiting results. Before search.breadth, hybrid ranked the reference first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase

SECTIONS = [
    (
        "Due dates",
        "`due before tomorrow` keeps the tasks whose due date is earlier than "
        "tomorrow; `due on 2024-05-01` one day.",
    ),
    (
        "Scheduled dates",
        "`scheduled after last week` keeps tasks planned for a later day than a week ago.",
    ),
    ("Start dates", "`starts in this month` keeps tasks that may be begun this month."),
    (
        "Missing dates",
        "`no due date` and `has scheduled date` look at whether the date is there at all.",
    ),
    ("Description", "`description includes meeting` matches words anywhere in the task's text."),
    ("Paths", "`path includes projects/` keeps tasks from notes inside that folder."),
    ("Headings", "`heading includes Today` keeps tasks written under a heading with that word."),
    ("Tags", "`tags include #work` keeps tasks carrying the tag; nested tags match their parent."),
    (
        "Priority",
        "`priority is high` and `priority above low` read the priority emoji on the line.",
    ),
    ("Recurrence", "`is recurring` keeps tasks with a repeat rule such as every week."),
    (
        "Status",
        "`done` and `not done` look at the checkbox; `status.type is IN_PROGRESS` at its type.",
    ),
    ("Sorting", "`sort by due` orders results by due date; `reverse` flips the order."),
    (
        "Grouping",
        "`group by folder` and `group by filename` put results under one "
        "heading per folder or note.",
    ),
    ("Limiting", "`limit 10` shows at most ten tasks."),
    ("Layout", "`hide edit button` and `hide backlink` remove parts of each result line."),
    ("Short mode", "`short mode` replaces the emoji text of dates with icons."),
    ("Explaining", "`explain` prints how the query was understood, with its dates spelled out."),
    ("Comments", "a line starting with `#` in a query is a comment and does nothing."),
    (
        "Boolean combinations",
        "`(due today) OR (priority is high)` joins two filters; AND and NOT work the same way.",
    ),
    ("Regular expressions", "`description regex matches /^Call/` tests the text with a pattern."),
    (
        "Placeholders",
        "`{{query.file.folder}}` is replaced by the folder of the note holding the query.",
    ),
    (
        "Custom filters",
        "`filter by function task.due.moment?.isBefore(...)` runs a JavaScript expression.",
    ),
    ("Urgency", "`sort by urgency` ranks tasks by a score made of their dates and priority."),
    ("Dependencies", "`is blocked` keeps tasks waiting on another one; `is blocking` the others."),
    ("Created dates", "`created before last month` looks at the date the task was written."),
    ("Done dates", "`done yesterday` keeps tasks completed on that day."),
    ("Cancelled tasks", "`cancelled after 2024-01-01` looks at the cancellation date."),
    ("Happens", "`happens this week` matches any of the start, scheduled or due dates."),
    ("Backlinks", "each result ends with a link to the note it comes from."),
    ("Presets", "`preset this_file` inserts a named piece of query kept in the settings."),
]
LIMITING = """# Limiting results

A query over a big vault can list hundreds of tasks. `limit 10` cuts the list after the first
ten, counted after sorting, so put it after your `sort by` lines: `limit to 10 tasks` reads the
same.

When results are grouped, `limit groups 5` keeps at most five tasks under each heading; both
limits can be used together. The number of tasks left out is shown at the end of the results,
so you know how many more match.
"""


@pytest.fixture(scope="module")
def kb(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedder
) -> Iterator[KnowledgeBase]:
    vault = tmp_path_factory.mktemp("breadth") / "vault"
    vault.mkdir()
    reference = (
        "# Query reference\n\nEvery instruction a tasks query understands, one section each.\n\n"
    )
    for heading, text in SECTIONS:
        reference += (
            f"## {heading}\n\n{text} This instruction can be combined with any other in the same"
            " query block, one per line, and it is case-insensitive.\n\n"
        )
    (vault / "Query reference.md").write_text(reference, encoding="utf-8")
    (vault / "Limiting results.md").write_text(LIMITING, encoding="utf-8")
    for name in ("Recurring", "Sorting", "Grouping", "Dates"):
        (vault / f"{name}.md").write_text(
            f"# {name} tasks\n\nNotes about {name} in the task plugin: how tasks repeat, move"
            " and are shown in lists.\n",
            encoding="utf-8",
        )
    knowledge = KnowledgeBase.open(Settings.for_vault(vault), real_embedder)
    knowledge.indexer.run()
    yield knowledge
    knowledge.close()


def first_notes(kb: KnowledgeBase, query: str) -> list[str]:
    answer = kb.call("kb_search", {"query": query, "top_k": 3})
    return [Path(str(r["metadata"]["file_path"])).stem for r in answer["results"]]


def test_the_page_about_the_question_comes_before_a_reference_section(kb: KnowledgeBase) -> None:
    assert first_notes(kb, "show at most 10 tasks in a query")[:2] == [
        "Limiting results",
        "Query reference",
    ]


def test_a_question_only_the_reference_answers_still_finds_it_first(kb: KnowledgeBase) -> None:
    question = "which filter matches any of the start, scheduled or due dates"
    assert first_notes(kb, question)[0] == "Query reference"
