"""The multilingual question set (issue 43): twelve short notes a language about the same
Obsidian features (export to PDF, sync, plugins, templates, daily notes, backlinks, the graph,
tags, search, attachments, hotkeys, themes), in Chinese, Japanese, Korean, German and English,
and twelve questions a language asked in other words than the note's. Written for this project
in its own words (multilingual_notes.jsonl, multilingual_questions.jsonl), not copied from
Obsidian's help.

Vaults: one a language, and the mixed ones the model choice is measured on ("zh+en": half
and half; "zh": the Chinese notes, which carry English terms such as Settings, Sync, CSS).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGUAGES = ("zh", "ja", "ko", "de", "en")
VAULTS: dict[str, tuple[str, ...]] = {
    **{lang: (lang,) for lang in LANGUAGES},
    "zh+en": ("zh", "en"),  # half and half
    "de+en": ("de", "en"),
    "en+zh3": ("en", "zh:3"),  # English with three Chinese notes (20%)
}


@dataclass(frozen=True)
class Question:
    lang: str
    text: str
    path: str  # the note that answers it, vault-relative


def _rows(name: str) -> list[dict[str, str]]:
    lines = (HERE / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def note_path(lang: str, title: str) -> str:
    return f"{lang}/{title.replace('/', '-')}.md"


def notes(lang: str) -> dict[str, str]:
    """{vault path: text} of one language's notes."""
    return {
        note_path(r["lang"], r["title"]): f"# {r['title']}\n\n{r['text']}\n"
        for r in _rows("multilingual_notes.jsonl")
        if r["lang"] == lang
    }


def questions(langs: tuple[str, ...]) -> list[Question]:
    return [
        Question(r["lang"], r["question"], note_path(r["lang"], r["note"]))
        for r in _rows("multilingual_questions.jsonl")
        if r["lang"] in langs
    ]


def write_vault(name: str, root: Path) -> tuple[Path, list[Question]]:
    """Vault `name` (a key of VAULTS) written afresh under `root`, with its questions (those
    whose note is in it)."""
    vault = root / name
    shutil.rmtree(vault, ignore_errors=True)
    written: set[str] = set()
    for part in VAULTS[name]:
        lang, _, count = part.partition(":")
        chosen = sorted(notes(lang).items())[: int(count) if count else None]
        for path, text in chosen:
            (vault / path).parent.mkdir(parents=True, exist_ok=True)
            (vault / path).write_text(text, encoding="utf-8")
            written.add(path)
    langs = tuple(part.partition(":")[0] for part in VAULTS[name])
    return vault, [q for q in questions(langs) if q.path in written]
