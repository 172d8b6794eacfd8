"""What a new note starts with: a template of the Templates core plugin
(`.obsidian/templates.json` `folder`, `dateFormat`, `timeFormat`), its `{{title}}`, `{{date}}`,
`{{time}}`, `{{date:FORMAT}}` and `{{time:FORMAT}}` filled in with Moment.js formats
(kbtui.vault.obsidian.daily.moment_format). Where it goes: kbtui.vault.obsidian.new_file."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtui.vault.obsidian.daily import DEFAULT_FORMAT, moment_format

DEFAULT_TIME_FORMAT = "HH:mm"
_VARIABLE = re.compile(r"\{\{\s*(date|time|title)\s*(?::([^}]*))?\}\}", re.I)


def _settings(vault: Path, name: str) -> dict[str, Any]:
    try:
        raw = json.loads((vault / ".obsidian" / name).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def _text(raw: dict[str, Any], key: str) -> str:
    value = raw.get(key)
    return value.strip() if isinstance(value, str) else ""


@dataclass(frozen=True)
class TemplateSettings:
    folder: str = ""  # "" : the plugin has no folder set
    date_format: str = DEFAULT_FORMAT
    time_format: str = DEFAULT_TIME_FORMAT


def template_settings(vault: Path) -> TemplateSettings:
    raw = _settings(vault, "templates.json")
    return TemplateSettings(
        _text(raw, "folder").strip("/"),
        _text(raw, "dateFormat") or DEFAULT_FORMAT,
        _text(raw, "timeFormat") or DEFAULT_TIME_FORMAT,
    )


def template_names(vault: Path, settings: TemplateSettings) -> list[str]:
    """The templates of the plugin's folder, as names (path inside the folder, no `.md`)."""
    if not settings.folder:
        return []
    folder = vault / settings.folder
    found = sorted(p.relative_to(folder).as_posix()[:-3] for p in folder.rglob("*.md"))
    return [name for name in found if not name.startswith(".")]


def fill_template(text: str, title: str, when: dt.datetime, settings: TemplateSettings) -> str:
    """`text` with the Templates plugin's variables filled in."""

    def one(m: re.Match[str]) -> str:
        kind, fmt = m.group(1).lower(), m.group(2)
        if kind == "title":
            return title
        if fmt and fmt.strip():
            return moment_format(when, fmt.strip())
        return moment_format(when, settings.date_format if kind == "date" else settings.time_format)

    return _VARIABLE.sub(one, text)
