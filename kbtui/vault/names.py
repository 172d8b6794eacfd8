"""Names a person can guess: the `type:name` of an entity id, from its path and properties.

- name: the file name, transliterated to ASCII (anyascii, ISC licence: Han as pinyin, one
  syllable a word; Cyrillic, Greek, Arabic, kana and Hangul letter by letter), lower-cased,
  other characters as ``_``. "在团队中使用 Obsidian" -> ``zai_tuan_dui_zhong_shi_yong_obsidian``.
  Hugo's ``_index.md`` is the page of its folder: ``develop/plugins/_index.md`` is named as
  ``develop/plugins.md`` would be.
- type: the frontmatter `type` when it is a word (a ``[[link]]`` there is a relationship, not
  a type); else the top-level folder as written, numbering and underscores dropped
  (``01 - Community`` -> ``community``, ``_broken`` -> ``broken``); a one-word plural folder is
  made singular (people -> person, projects -> project), a folder of several words is kept
  (``Files and folders`` -> ``files_and_folders``); else ``note``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any

from anyascii import anyascii

MAX_ID_LEN = 100
ID_RULE_VERSION = "3"  # bump when ids derive differently: the next pass re-reads every note
_IRREGULAR_SINGULAR = {
    "people": "person",
    "orgs": "organization",
    "organizations": "organization",
    "tech": "technology",
    "daily": "daily",
    "news": "news",
}
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_NUMBERING = re.compile(r"^[\d\s._)\-]+(?=[^\d\s._)\-])")
_WIKILINK = re.compile(r"\[\[[^\[\]\n]+\]\]")
FOLDER_PAGES = frozenset({"_index"})  # Hugo's section page: the page of its folder


def slug(text: str) -> str:
    """ASCII snake case: accents folded, other scripts transliterated, symbols dropped."""
    return re.sub(r"[^a-z0-9]+", "_", ascii_text(text).lower()).strip("_")


def ascii_text(text: str) -> str:
    """`text` in ASCII letters: Han characters one syllable a word, emoji and symbols dropped."""
    parts: list[str] = []
    for ch in unicodedata.normalize("NFKD", text):
        if ch.isascii():
            parts.append(ch)
        elif _HAN.match(ch):
            parts.append(f" {anyascii(ch)} ")
        elif unicodedata.category(ch)[0] in "LN":
            parts.append(anyascii(ch))
        elif not unicodedata.combining(ch):  # accents were split off by NFKD: drop them
            parts.append(" ")
    return "".join(parts)


def singular(word: str) -> str:
    if word in _IRREGULAR_SINGULAR:
        return _IRREGULAR_SINGULAR[word]
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def folder_type(folder: str) -> str:
    """The type a top-level folder gives its notes ('' when it gives none)."""
    words = slug(_NUMBERING.sub("", folder))
    if "_" not in words:
        words = singular(words)
    return re.sub(r"[^a-z_]", "", words).strip("_")


def declared_type(value: Any) -> str:
    """The frontmatter `type` as a type: a word, not a link (`type: [[Parks]]` is a link)."""
    first = value[0] if isinstance(value, list) and value else value
    if not isinstance(first, str) or _WIKILINK.search(first):
        return ""
    return re.sub(r"[^a-z_]", "", slug(first)).strip("_")


def page_path(path: str) -> list[str]:
    """The path's parts, with a folder page (`a/b/_index.md`) standing for `a/b.md`."""
    parts = path.split("/")
    if len(parts) > 1 and parts[-1].rsplit(".", 1)[0].lower() in FOLDER_PAGES:
        parts = [*parts[:-2], parts[-2] + ".md"]
    return parts


def derive_type_and_name(path: str, meta: dict[str, Any]) -> tuple[str, str]:
    parts = page_path(path)
    entity_type = declared_type(meta.get("type"))
    if not entity_type and len(parts) > 1:
        entity_type = folder_type(parts[0])
    entity_type = entity_type or "note"
    stem = parts[-1].rsplit(".", 1)[0]
    name = slug(stem)
    if not name:  # e.g. a file name of emoji only
        name = "n" + hashlib.sha1(stem.encode()).hexdigest()[:10]
    budget = MAX_ID_LEN - len(entity_type) - 1
    if len(name) > budget:
        name = name[: budget - 9] + "_" + hashlib.sha1(name.encode()).hexdigest()[:8]
    return entity_type, name


def name_stem(path: str) -> str:
    """What the derived name of the note at `path` comes from: notes whose ids could be the
    same have the same one (types aside)."""
    return slug(page_path(path)[-1].rsplit(".", 1)[0])


def page_title(path: str) -> str:
    """The title a note without a `title` property shows: its file name, or its folder's."""
    return page_path(path)[-1].rsplit(".", 1)[0]
