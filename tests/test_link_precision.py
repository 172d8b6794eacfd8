"""Issue 28 item 9: link suggestions leave out what is not a mention (graph/mention_rules.py):
headings, comments, labels, phrases equal to a title in other capitals, a plain word
capitalised by a sentence's start or inside a longer name, one-word names in lower case."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbtui.config import Settings
from kbtui.graph.mention_rules import NoteText, is_mention, same_spelling
from kbtui.runtime.knowledge_base import KnowledgeBase

NOTES = {
    "Categories/Books.md": "Books I read.\n",
    "Plugins/links.md": "---\naliases: [Links]\n---\nA plugin.\n",
    "Plugins/github.md": "A plugin for GitHub issues.\n",
    "Plugins/Quickly.md": "A quick capture plugin.\n",
    "Plugins/repeat-plugin.md": "---\naliases: [repeat]\n---\nSpaced review.\n",
    "Plugins/badges.md": "---\naliases: [Badges]\n---\nShields.\n",
    "Plugins/Icons.md": "An icon pack.\n",
    "Guides/for Theme Designers.md": "How to design a theme.\n",
    "Plugins/previous-daily-note.md": "---\naliases: [Previous Daily Note]\n---\nOpens it.\n",
    "Plugins/Dataview.md": "Queries over notes.\n",
    "People/Steph Ango.md": "Makes Obsidian.\n",
    "Notes/Evergreen notes.md": "Notes that grow.\n",
    "Notes/source.md": (
        "## Books\n\n![[Books.base#Author]]\n\n"
        "%% ----- Badges ----- %%\n\n"
        "Links: [GitHub repository](https://github.com/a/b)\n"
        "- GitHub: [someone](https://github.com/someone/)\n\n"
        "These are notes for theme designers and the previous daily note.\n"
        "Quickly hide your sidebars. You can also Enable Folder Icons.\n"
        "Then repeat the step, and repeat it again.\n\n"
        "I query my vault with Dataview every day, as Steph Ango suggested.\n"
        "Evergreen notes grow over time.\n"
    ),
}


def suggestions(tmp_path: Path, args: dict[str, Any]) -> list[tuple[str, str]]:
    vault = tmp_path / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    kb = KnowledgeBase.open(Settings.for_vault(vault), None)
    try:
        kb.indexer.run(embed=False)
        answer = kb.call("kg_suggest_links", args)
    finally:
        kb.close()
    return [(s["text"], s["targetEntityId"]) for s in answer["suggestions"]]


def test_only_real_mentions_are_suggested(tmp_path: Path) -> None:
    found = suggestions(tmp_path, {"limit": 100})
    texts = sorted(t for t, _ in found)
    assert texts == ["Dataview", "Evergreen notes", "Steph Ango"], found


def test_one_entitys_mentions_leave_out_the_verb(tmp_path: Path) -> None:
    found = suggestions(tmp_path, {"entityId": "plugin:repeat_plugin", "limit": 100})
    assert found == [], found


def test_the_rules_one_by_one() -> None:
    text = "## Books\nSee Books here. The Books list.\n- Links: x\nA Links: b\n"
    note = NoteText(text)
    at = text.index("Books")
    assert not is_mention(note, at, at + 5, {"Books"})  # a heading
    at = text.index("Books", at + 5)
    assert is_mention(note, at, at + 5, {"Books"})  # mid-sentence, as the note writes it
    at = text.index("Links")
    assert not is_mention(note, at, at + 5, {"Links"})  # a label
    assert same_spelling("Evergreen notes", "evergreen notes")  # a sentence's start
    assert not same_spelling("local images", "Local images")  # a phrase, not the note
    assert not same_spelling("for theme designers", "for Theme Designers")


def test_no_mention_inside_a_links_text_and_no_verb_for_a_first_name() -> None:
    """A name inside a link's shown text cannot take a link (the two would nest: both break);
    a first name that starts a sentence and takes an object is a verb ("Mark your note")."""
    text = (
        "- [[languagetool-plugin|LanguageTool Integration]]: checks with the LanguageTool API\n"
        "* [OZ Calendar](https://github.com/ozntel/oz-calendar) shows a Calendar view.\n"
        "- [[favorite-note|Favorite Note]]: Mark your note as favorite.\n"
        "- Mark argued for it. We asked Mark the question.\n"
    )
    note = NoteText(text)

    def mention(word: str, nth: int, first: bool = False) -> bool:
        at = -1
        for _ in range(nth):
            at = text.index(word, at + 1)
        return is_mention(note, at, at + len(word), {word}, lambda w: first and w == "Mark")

    assert not mention("LanguageTool", 1)  # in the wikilink's label
    assert mention("LanguageTool", 2)  # in the prose after it
    assert not mention("Calendar", 1)  # in the markdown link's text
    assert mention("Calendar", 2)
    assert not mention("Mark", 1, first=True)  # "Mark your note": the verb
    assert mention("Mark", 2, first=True)  # "- Mark argued": the person
    assert mention("Mark", 3, first=True)  # mid-sentence


KINDS = {
    "Plugins/background-image.md": "---\naliases: [Background Image]\n---\nA wallpaper.\n",
    "Plugins/mdfriday.md": "---\naliases: [Friday]\n---\nNotes to websites.\n",
    "Themes/Border.md": "A theme with borders.\n",
    "Plugins/fantasy-calendar.md": "---\naliases: [Fantasy Calendar]\n---\nCalendars.\n",
    "Themes/Blue Topaz.md": (
        "## Features\n\n"
        "- Consistent with Workplace Background Image\n"
        "- Disable Border, Red\n"
        "- Select Background Image: Select Custom to use your own links.\n\n"
        "Send your questions by Friday.\n"
    ),
    "Notes/roundup.md": (
        "- Fantasy Calendar got some quality of life updates!\n"
        "- Background Image\n\n"
        "The Border theme and the Friday plugin are new this week.\n"
    ),
}


def test_labels_feature_lists_and_days_are_not_mentions(tmp_path: Path) -> None:
    """A fresh sample of obsidian-hub's suggestions (bench/link_labels.jsonl, `fresh-before`)
    showed three kinds of non-mentions: an option's label before a colon, a part of a longer
    name in a title-case feature list, a day of the week. A whole list entry, a sentence in a
    list and a mid-sentence name are still mentions."""
    vault = tmp_path / "vault"
    for rel, text in KINDS.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    kb = KnowledgeBase.open(Settings.for_vault(vault), None)
    try:
        kb.indexer.run(embed=False)
        answer = kb.call("kg_suggest_links", {"limit": 100})
    finally:
        kb.close()
    found = sorted((s["filePath"], s["text"], s["line"]) for s in answer["suggestions"])
    assert found == [
        ("Notes/roundup.md", "Background Image", 2),
        ("Notes/roundup.md", "Border", 4),
        ("Notes/roundup.md", "Fantasy Calendar", 1),
    ], found


def test_the_new_kinds_one_by_one() -> None:
    def kept(line: str, word: str, nth: int = 0) -> bool:
        note = NoteText(f"Intro.\n{line}\n")
        at = note.text.find(word, 7)
        for _ in range(nth):
            at = note.text.find(word, at + 1)
        return is_mention(note, at, at + len(word), {word})

    assert not kept("- Disable Border, Red", "Border")
    assert not kept("- Folder Color Palette", "Folder Color")
    assert not kept("**Work Wide, not Deep:** Work to understand", "Deep")
    assert not kept("Submit questions by Friday.", "Friday")
    assert kept(
        "- Disable Excalidraw Integration: Encore changes Excalidraw a bit", "Excalidraw", 1
    )
    assert not kept("- Disable Excalidraw Integration: Encore changes Excalidraw", "Excalidraw")
    assert kept("- Red, Folder Color", "Folder Color")  # a whole comma-separated part
    note = NoteText("Submit questions by Friday.\n")
    assert is_mention(note, 20, 26, {"Friday"}, one_entity=True)  # the note's own mentions


def test_a_longer_name_and_what_a_note_is_named_after(tmp_path: Path) -> None:
    """ "Ben Hamilton" is another Ben, "IA Writer Mono V" a font; a plugin note named after a
    service it works with ("Interact with your Google Calendar") is no link for prose naming
    the service, unless the prose calls it a plugin; a plugin named after what it makes
    ("Create Buttons in your notes") and a mid-sentence name still are."""
    notes = {
        "People/ben.md": "---\naliases: [Ben]\n---\nBen Straub writes plugins.\n",
        "Themes/iA Writer.md": "A theme.\n",
        "Plugins/google-calendar.md": (
            "---\naliases: [Google Calendar]\n---\nInteract with your Google Calendar from "
            "Inside Obsidian.\n"
        ),
        "Plugins/buttons.md": "---\naliases: [Buttons]\n---\nCreate Buttons in your notes.\n",
        "Notes/week.md": (
            "Ben Hamilton asked for patterns, and thanks to Ben for the release.\n\n"
            "The theme ships IA Writer Mono V; we prefer IA Writer as it is.\n\n"
            "Sync it with your Google Calendar every day.\n\n"
            "A video about Buttons is up.\n"
        ),
        "Notes/setup.md": "I use the Google Calendar plugin for my agenda.\n",
    }
    vault = tmp_path / "vault"
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    kb = KnowledgeBase.open(Settings.for_vault(vault), None)
    try:
        kb.indexer.run(embed=False)
        found = kb.call("kg_suggest_links", {"limit": 100})["suggestions"]
        calendar = kb.call("kg_suggest_links", {"entityId": "plugin:google_calendar", "limit": 9})
    finally:
        kb.close()
    got = sorted((s["filePath"], s["text"], s["column"]) for s in found)
    assert got == [
        ("Notes/setup.md", "Google Calendar", 11),
        ("Notes/week.md", "Ben", 48),
        ("Notes/week.md", "Buttons", 15),
        ("Notes/week.md", "IA Writer", 45),
    ], got
    # asked for one note's mentions, every place its name is written is listed
    assert {s["filePath"] for s in calendar["suggestions"]} == {"Notes/setup.md", "Notes/week.md"}
