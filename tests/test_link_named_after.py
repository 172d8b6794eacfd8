"""Issue 28 item 9, second pass: kinds of wrong link suggestion found in a fresh obsidian-hub
sample (bench/link_labels.jsonl, `lp2-before`): a note named after a service or an ordinary
phrase, written other ways in its first sentence than the first pass knew ("the GitHub Gist",
"to Ereader/Kindle", "using Ketcher", "Loom in Obsidian", "Create tabs in your notes"), an
option label with a parenthesis, and a title-case feature list with "h1" in it."""

from __future__ import annotations

from pathlib import Path

from kbtui.config import Settings
from kbtui.graph.mention_rules import NoteText, is_mention
from kbtui.graph.named_after import named_after_other
from kbtui.runtime.knowledge_base import KnowledgeBase

NOTES = {
    "Plugins/gist.md": "---\naliases: [Gist]\n---\nThis is a plugin to display the GitHub Gist.\n",
    "Plugins/kindle.md": "---\naliases: [Kindle]\n---\nSend .md as .epub to Ereader/Kindle.\n",
    "Plugins/Ketcher.md": "View or draw chemical structures using Ketcher.\n",
    "Plugins/Loom.md": "Loom in Obsidian\n",
    "Plugins/tabs.md": "---\naliases: [Tabs]\n---\nCreate tabs in your notes.\n",
    "Plugins/typography.md": (
        "---\naliases: [Contextual Typography]\n---\nAdds a tag name to every div, allowing "
        "contextual typography styling.\n"
    ),
    "Plugins/buttons.md": "---\naliases: [Buttons]\n---\nCreate Buttons in your notes.\n",
    "Plugins/Underline.md": "Add an underline with a shortcut.\n",
    "Themes/Primary.md": "A theme.\n",
    "Notes/week.md": (
        "Store the calendar on Gist every night.\n\n"
        "Push your notes to the Kindle for reading.\n\n"
        "Draw the molecule with Ketcher first.\n\n"
        "She shared a Loom video about it.\n\n"
        "Switch between Tabs with the mouse wheel.\n\n"
        "It uses Minimal, Contextual Typography, and Buttons.\n"
    ),
    "Notes/setup.md": "I keep my snippets with the Gist plugin.\n",
    "Themes/Blue.md": (
        "A blue theme.\n\n- Background Primary (alt): a colour\n- Toggle h1 Underline\n"
    ),
}


def test_notes_named_after_a_service_or_a_phrase_and_option_lists(tmp_path: Path) -> None:
    """Prose naming the service (Gist, Kindle, Ketcher, Loom) or the phrase (tabs) is no link
    to the plugin note named after it; nor are a theme's option label and feature entry. A
    plugin called a plugin, one named after what it makes (Buttons) and a name used as a
    modifier in its note ("contextual typography styling") are still suggested."""
    vault = tmp_path / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    kb = KnowledgeBase.open(Settings.for_vault(vault), None)
    try:
        kb.indexer.run(embed=False)
        found = kb.call("kg_suggest_links", {"limit": 100})["suggestions"]
        gist = kb.call("kg_suggest_links", {"entityId": "plugin:gist", "limit": 9})
    finally:
        kb.close()
    got = sorted((s["filePath"], s["text"]) for s in found)
    assert got == [
        ("Notes/setup.md", "Gist"),
        ("Notes/week.md", "Buttons"),
        ("Notes/week.md", "Contextual Typography"),
    ], got
    # asked for one note's mentions, every place its name is written is still listed
    assert {s["filePath"] for s in gist["suggestions"]} == {"Notes/setup.md", "Notes/week.md"}


def test_what_a_first_sentence_tells_one_by_one() -> None:
    assert named_after_other("This is a plugin to display the GitHub Gist.\n", "Gist")
    assert named_after_other("Send .md as .epub to Ereader/Kindle/Pocketbook\n", "Kindle")
    assert named_after_other("Plugin for using Marp on Obsidian.\n", "Marp")
    assert named_after_other("Lilypond support in Obsidian\n", "Lilypond")
    assert named_after_other("Protect your vault with a lock screen.\n", "Lock Screen")
    assert named_after_other("Google Photos integration for Obsidian\n", "Google Photos")
    # not named after something else
    assert not named_after_other("Create Buttons in your Obsidian notes.\n", "Buttons")
    assert not named_after_other("An Obsidian plugin to view Excalidraw drawings\n", "Excalidraw")
    styling = "Allowing contextual typography styling.\n"
    assert not named_after_other(styling, "Contextual Typography")
    assert not named_after_other("TTRPG Initiative Tracker for Obsidian.md\n", "Initiative Tracker")
    assert not named_after_other("Task management for Obsidian\n", "Tasks")
    assert not named_after_other("Markdown tables in the editor.\n", "YAML")


def test_a_label_with_a_parenthesis_and_a_list_entry_with_h1() -> None:
    def kept(line: str, word: str) -> bool:
        note = NoteText(f"Intro.\n{line}\n")
        at = note.text.find(word, 7)
        return is_mention(note, at, at + len(word), {word})

    assert not kept("- Background Primary (alt): background-primary-alt", "Primary")
    assert not kept("- Folder Icons w/o arrows (Collapse Indicator): after the toggle", "Icons")
    assert not kept("- Toggle h1 Underline", "Underline")
    assert kept("- Heading colours (h1 to h6) follow the Primary scheme.", "Primary")
    assert kept("- Works with Underline, h1 headings", "Underline")
