"""Dataview's inline fields and their types as kbtui reads them (kbtui/vault/obsidian), checked
against the plugin's own tests (blacksmithgu/obsidian-dataview, MIT: src/test/parse/
parse.inline.test.ts, src/test/util/normalize.test.ts) and the examples of its docs
(docs/annotation/*.md), with the answers they give."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kbtui.vault.obsidian.dv_values import inline_value, property_value
from kbtui.vault.obsidian.inline_fields import bracket_fields, canonical, full_line_field
from kbtui.vault.parse import parse_note


def fields_of(text: str, path: str = "Note.md") -> dict[str, Any]:
    note = parse_note(path, text)
    assert note.dataview is not None
    return dict(json.loads(note.dataview.fields))


def link(path: str, display: str | None = None, subpath: str | None = None,
         kind: str = "file", embed: bool = False) -> dict[str, Any]:  # fmt: skip
    return {"$link": {"path": path, "display": display, "subpath": subpath, "type": kind,
                      "embed": embed}}  # fmt: skip


# -- the plugin's tests: src/test/parse/parse.inline.test.ts --------------------------------
def test_inline_values_are_typed() -> None:
    assert inline_value("[[yes, no, and maybe]]") == link("yes, no, and maybe")
    assert inline_value("14") == 14
    assert inline_value('"yes,"') == "yes,"
    assert inline_value("[[test]]") == link("test")
    assert inline_value("[[test]],") == [link("test")]
    assert inline_value("[[test]], [[test2]]") == [link("test"), link("test2")]
    assert inline_value('1, 2, 3, "hello"') == [1, 2, 3, "hello"]
    assert inline_value("true") is True
    assert inline_value("False") is False


@pytest.mark.parametrize("line", ["", "[]", "()", "[key:value]", "(key:value)"])
def test_no_field(line: str) -> None:
    assert bracket_fields(line) == []


def test_bracketed_fields_and_their_columns() -> None:
    (f,) = bracket_fields("[key::value]")
    assert (f.key, f.value, f.start, f.end, f.wrapping) == ("key", "value", 0, 12, "[")
    (f,) = bracket_fields("(key::value)")
    assert (f.key, f.value, f.start, f.end, f.wrapping) == ("key", "value", 0, 12, "(")
    first, second = bracket_fields("[key:: value] and so thus, [key2:: value2]")
    assert (first.key, first.value, first.start, first.end) == ("key", "value", 0, 13)
    assert (second.key, second.value, second.start, second.end) == ("key2", "value2", 27, 42)


def test_bracket_edge_cases() -> None:
    assert [(f.key, f.value) for f in bracket_fields("[[[[hello:: 16]]")] == [("hello", "16")]
    found = bracket_fields("This is some text. [key:: [value]]")
    assert [(f.key, f.value) for f in found] == [("key", "[value]")]
    found = bracket_fields("Hello? [key! :: \\[value]")
    assert [(f.key, f.value) for f in found] == [("key!", "\\[value")]
    assert [(f.key, f.value) for f in bracket_fields("      - [ ] Huh! [p:: 1]")] == [("p", "1")]
    found = bracket_fields('[link:: <a href="Page">Value</a>]')
    assert [(f.key, f.value) for f in found] == [("link", '<a href="Page">Value</a>')]


@pytest.mark.parametrize(
    ("line", "key", "value"),
    [
        ("- [ ] testTask 🗓️2022-07-14", "due", "2022-07-14"),
        ("- [ ] testTask 🗓2022-07-14", "due", "2022-07-14"),
        (" - [ ] testTask \u27952022-07-25", "created", "2022-07-25"),
        (" - [ ] testTask 🛫2022-07-21", "start", "2022-07-21"),
        (" - [ ] testTask ⏳2022-07-24", "scheduled", "2022-07-24"),
        ("- [x] a completed task ✅ 2022-07-26", "completion", "2022-07-26"),
    ],
)
def test_task_emoji_are_fields(line: str, key: str, value: str) -> None:
    (f,) = bracket_fields(line, task_fields=True)
    assert (f.key, f.value) == (key, value)


# -- src/test/util/normalize.test.ts --------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "simple"),
    [
        ("test", "test"),
        ("property", "property"),
        ("test thing", "test-thing"),
        ("This     is test", "this-is-test"),
        ("test thing 3", "test-thing-3"),
        ("This is a Test.", "this-is-a-test"),
        ("Yes-sir", "yes-sir"),
        ("📷", "📷"),
        ("Статус", "статус"),
        ("Bold Field", "bold-field"),
    ],
)
def test_simplified_names(name: str, simple: str) -> None:
    assert canonical(name) == simple


# -- docs/annotation/add-metadata.md and metadata-pages.md -----------------------------------
def test_the_add_metadata_table() -> None:
    """Every field of the page's examples, under its name and its simplified name."""
    fields = fields_of(
        "# Markdown Page\n\nBasic Field:: Some random Value\n**Bold Field**:: Nice!\n\n"
        "I would rate this a [rating:: 9]! It was [mood:: acceptable].\n\n"
        "- [ ] Send an mail to David about the deadline [due:: 2022-04-05].\n\n"
        "This will not show the (longKeyIDontNeedWhenReading:: key).\n"
    )
    assert fields["Basic Field"] == fields["basic-field"] == "Some random Value"
    assert fields["Bold Field"] == fields["bold-field"] == "Nice!"
    assert fields["rating"] == 9
    assert fields["mood"] == "acceptable"
    assert fields["longKeyIDontNeedWhenReading"] == "key"
    assert fields["longkeyidontneedwhenreading"] == "key"
    assert "due" not in fields  # a task's fields are the task's own


def test_non_latin_and_emoji_keys() -> None:
    fields = fields_of(
        "Noël:: Un jeu de console\nクリスマス:: 家庭用ゲーム機\n[🎅:: a console game]\n"
        "[xmas🎄:: a console game]\n"
    )
    assert fields["Noël"] == "Un jeu de console"
    assert fields["noël"] == "Un jeu de console"
    assert fields["クリスマス"] == "家庭用ゲーム機"
    assert fields["🎅"] == fields["xmas🎄"] == "a console game"


def test_the_example_page() -> None:
    fields = fields_of(
        '---\ngenre: "action"\nreviewed: false\n---\n# Movie X\n#movies\n\n'
        "**Thoughts**:: It was decent.\n**Rating**:: 6\n\n[mood:: okay] | [length:: 2 hours]\n"
    )
    assert fields["genre"] == "action" and fields["reviewed"] is False
    assert fields["thoughts"] == "It was decent." and fields["rating"] == 6
    assert fields["mood"] == "okay" and fields["length"] == {"$dur": {"hours": 2}}


# -- docs/annotation/types-of-metadata.md ------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("This is some normal text.", "This is some normal text."),
        ("6", 6),
        ("2.4", 2.4),
        ("-80", -80),
        ("true", True),
        ("false", False),
        ("2021-04", {"$date": "2021-04-01T00:00:00.000"}),
        ("2021-04-18", {"$date": "2021-04-18T00:00:00.000"}),
        ("2021-04-18T04:19:35.000", {"$date": "2021-04-18T04:19:35.000"}),
        ("2021-04-18T04:19:35.000+06:30", {"$date": "2021-04-18T04:19:35.000+06:30"}),
        ("2021-02-26T15:15", {"$date": "2021-02-26T15:15:00.000"}),
        ("2021-04-17 18:00", "2021-04-17 18:00"),  # Text: the space is not ISO
        ("7 hours", {"$dur": {"hours": 7}}),
        ("16days", {"$dur": {"weeks": 2, "days": 2}}),
        ("4min", {"$dur": {"minutes": 4}}),
        ("6hr7min", {"$dur": {"hours": 6, "minutes": 7}}),
        ("9 years, 8 months, 4 days, 16 hours, 2 minutes",
         {"$dur": {"years": 9, "months": 8, "days": 4, "hours": 16, "minutes": 2}}),
        ("9 yrs 8 min", {"$dur": {"years": 9, "minutes": 8}}),
        ("[[A Page]]", link("A Page")),
        ("[[Some Other Page|Render Text]]", link("Some Other Page", "Render Text")),
        ("1, 2, 3", [1, 2, 3]),
        ('"yes", "or", "no"', ["yes", "or", "no"]),
        ("yes, or, no", "yes, or, no"),  # a list of text needs quotes
        ("", None),
        ("#tag", "#tag"),
        ("[[Page#Heading|x]]", link("Page", "x", "Heading", "header")),
        ("![[image.png]]", link("image.png", embed=True)),
    ],
)  # fmt: skip
def test_types_of_metadata(raw: str, value: Any) -> None:
    assert inline_value(raw) == value


def test_repeated_keys_make_a_list_and_properties_join_them() -> None:
    fields = fields_of("---\nGrocery: eggs\n---\ngrocery:: flour\n\ntext\n\ngrocery:: soap\n")
    assert fields["grocery"] == ["flour", "soap"]
    assert fields["Grocery"] == "eggs"  # its simplified name is already a key of its own
    fields = fields_of("---\nrating: 3\n---\nrating:: 5\n")
    assert fields["rating"] == [3, 5]


def test_properties_become_dates_durations_and_links() -> None:
    assert property_value("2021-08-17") == {"$date": "2021-08-17T00:00:00.000"}
    assert property_value("1 day, 3 hours") == {"$dur": {"days": 1, "hours": 3}}
    assert property_value("[[parentPage]]") == link("parentPage")
    assert property_value({"rating": 8}) == {"$obj": {"rating": 8}}
    fields = fields_of("---\nlast-reviewed: 2021-08-17\nthoughts:\n  rating: 8\n---\nx\n")
    assert fields["last-reviewed"] == {"$date": "2021-08-17T00:00:00.000"}
    assert fields["thoughts"] == {"$obj": {"rating": 8}}


def test_full_line_keys_lose_their_markdown() -> None:
    assert full_line_field("**Bold Field**:: Nice!").key == "Bold Field"  # type: ignore[union-attr]
    assert full_line_field("## Rating:: 5").key == "Rating"  # type: ignore[union-attr]
    assert full_line_field("see http://x.org:: y") is None  # punctuation: no field


def test_fields_in_code_blocks_are_not_read() -> None:
    """Dataview reads them (its open issue #2561 calls that a bug); kbtui does not."""
    fields = fields_of("a:: 1\n\n```\nb:: 2\n[c:: 3]\n```\n\n    d:: 4\n")
    assert fields == {"a": 1}


def test_list_items_tasks_and_their_fields() -> None:
    note = parse_note(
        "Tasks.md",
        "# Plan\n\n- [ ] clean up the house\n\t- [ ] kitchen\n\t- [x] living room\n"
        "\t- [ ] Bedroom [urgent:: true]\n- plain item [who:: [[Bob]]] #home\n"
        "- key:: value\n- [x] done ✅ 2021-08-22 ^blk\n",
    )
    assert note.dataview is not None
    items = note.dataview.items
    assert [(i.line, i.parent, i.status) for i in items] == [
        (3, 0, " "), (4, 3, " "), (5, 3, "x"), (6, 3, " "), (7, 0, None), (8, 0, None),
        (9, 0, "x"),
    ]  # fmt: skip
    assert items[3].text == "Bedroom [urgent:: true]"
    assert json.loads(items[3].fields) == {"urgent": [True]}
    assert items[4].tags == ("#home",) and items[0].section == "Plan"
    assert items[6].block_id == "blk"
    assert json.loads(items[6].fields) == {"completion": [{"$date": "2021-08-22T00:00:00.000"}]}
    fields = json.loads(note.dataview.fields)
    assert fields["who"] == link("Bob") and fields["key"] == "value"  # plain items: the page's
    assert "urgent" not in fields


def test_file_day_and_tags() -> None:
    note = parse_note("Daily/2021-05-13.md", "---\ntags: [Journal/Work]\n---\n#Mood/good text\n")
    assert note.dataview is not None
    assert note.dataview.day == "2021-05-13T00:00:00.000"
    assert note.dataview.tags == ("#Mood/good", "#Journal/Work")
    dated = parse_note("x.md", "date:: 2020-01-02\n")
    assert dated.dataview is not None and dated.dataview.day == "2020-01-02T00:00:00.000"
    assert parse_note("x.canvas", '{"nodes": []}').dataview is None  # markdown notes only
