"""Daily notes as Obsidian's Daily notes plugin makes them: `.obsidian/daily-notes.json`
(`folder`, a Moment.js `format` that may hold folders, `template`) or its defaults (the vault's
root, YYYY-MM-DD, no template); a template's `{{date}}`, `{{time}}`, `{{date:FORMAT}}`,
`{{time:FORMAT}}` and `{{title}}` filled in as the Templates plugin does. Templater's
commands (`<% ... %>`) are not run: `template_warnings` says so."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_FORMAT = "YYYY-MM-DD"
# Moment.js tokens, longest first; `[...]` is literal text.
_TOKEN = re.compile(
    r"\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|DDDD|DDD|Do|DD|D|dddd|ddd|dd|d|E|e|WW|W|ww|w|GGGG|gggg"
    r"|Q|HH|H|hh|h|mm|m|ss|s|A|a|X|x"
)


def moment_format(when: dt.datetime, fmt: str) -> str:
    """`when` written with a Moment.js format string (the tokens Obsidian users write)."""

    def one(m: re.Match[str]) -> str:
        t = m.group(0)
        if t.startswith("["):
            return t[1:-1]
        iso = when.isocalendar()
        hour12 = when.hour % 12 or 12
        table = {
            "YYYY": f"{when.year:04d}",
            "YY": f"{when.year % 100:02d}",
            "MMMM": when.strftime("%B"),
            "MMM": when.strftime("%b"),
            "MM": f"{when.month:02d}",
            "M": str(when.month),
            "DDDD": f"{when.timetuple().tm_yday:03d}",
            "DDD": str(when.timetuple().tm_yday),
            "Do": _ordinal(when.day),
            "DD": f"{when.day:02d}",
            "D": str(when.day),
            "dddd": when.strftime("%A"),
            "ddd": when.strftime("%a"),
            "dd": when.strftime("%a")[:2],
            "d": str((when.weekday() + 1) % 7),
            "e": str((when.weekday() + 1) % 7),
            "E": str(iso.weekday),
            "WW": f"{iso.week:02d}",
            "W": str(iso.week),
            "ww": f"{_locale_week(when):02d}",
            "w": str(_locale_week(when)),
            "GGGG": f"{iso.year:04d}",
            "gggg": f"{when.year:04d}",
            "Q": str((when.month - 1) // 3 + 1),
            "HH": f"{when.hour:02d}",
            "H": str(when.hour),
            "hh": f"{hour12:02d}",
            "h": str(hour12),
            "mm": f"{when.minute:02d}",
            "m": str(when.minute),
            "ss": f"{when.second:02d}",
            "s": str(when.second),
            "A": "AM" if when.hour < 12 else "PM",
            "a": "am" if when.hour < 12 else "pm",
            "X": str(int(when.timestamp())),
            "x": str(int(when.timestamp() * 1000)),
        }
        return table[t]

    return _TOKEN.sub(one, fmt)


def _locale_week(when: dt.datetime) -> int:
    """Moment's English week: weeks start on Sunday, week 1 holds January 1st."""
    jan1 = (dt.date(when.year, 1, 1).weekday() + 1) % 7  # 0 = Sunday
    return (when.timetuple().tm_yday - 1 + jan1) // 7 + 1


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


@dataclass(frozen=True)
class DailySettings:
    folder: str = ""
    format: str = DEFAULT_FORMAT
    template: str = ""


def daily_settings(vault: Path) -> DailySettings:
    """The vault's Daily notes settings; defaults where unset or unreadable."""
    try:
        raw = json.loads((vault / ".obsidian" / "daily-notes.json").read_text("utf-8"))
    except (OSError, ValueError):
        return DailySettings()
    if not isinstance(raw, dict):
        return DailySettings()

    def text(key: str) -> str:
        value = raw.get(key)
        return value.strip() if isinstance(value, str) else ""

    return DailySettings(
        folder=text("folder").strip("/"),
        format=text("format") or DEFAULT_FORMAT,
        template=text("template").strip("/"),
    )


def daily_path(vault: Path, day: dt.date) -> str:
    """Vault path of the daily note of `day` (whether or not it exists)."""
    s = daily_settings(vault)
    when = dt.datetime.combine(day, dt.time())
    name = moment_format(when, s.format)
    return "/".join(p for p in (s.folder, name) if p) + ".md"


def _template(vault: Path) -> tuple[str, str] | None:
    """(vault path, text) of the daily notes' template; None when unset or unreadable."""
    s = daily_settings(vault)
    if not s.template:
        return None
    rel = s.template if s.template.endswith(".md") else s.template + ".md"
    try:
        return rel, (vault / rel).read_text("utf-8")
    except OSError:
        return None


# Templater (a community plugin) commands: `<% tp.file.title %>`, `<%* code %>`, `<%+ %>`,
# with `_`/`-` trimming whitespace on either side. Only Templater, inside Obsidian, runs them.
_TEMPLATER = re.compile(r"<%[*+_-]?.*?[_-]?%>", re.S)


def template_warnings(vault: Path) -> list[str]:
    """What a new daily note copies as written from its template: Templater's commands
    (kbtui fills in the Templates core plugin's variables only)."""
    found = _template(vault)
    commands = _TEMPLATER.findall(found[1]) if found else []
    if not found or not commands:
        return []
    first = " ".join(commands[0].split())
    first = first if len(first) <= 60 else first[:57] + "..."
    many = f"{len(commands)} Templater commands" if len(commands) > 1 else "a Templater command"
    return [
        f"the template {found[0]} holds {many} ({first}): copied as written, since only the "
        "Templater plugin inside Obsidian runs them; kbtui fills in {{date}}, {{time}} and "
        "{{title}} (the Templates core plugin's variables)"
    ]


def new_daily_text(vault: Path, day: dt.date, now: dt.datetime) -> str:
    """The text a new daily note starts with: its template filled in, else nothing."""
    found = _template(vault)
    if found is None:
        return ""
    text = found[1]
    title = daily_path(vault, day).rsplit("/", 1)[-1][:-3]
    when = dt.datetime.combine(day, now.time())

    def fill(m: re.Match[str]) -> str:
        kind, fmt = m.group(1).lower(), m.group(2)
        if kind == "title":
            return title
        default = DEFAULT_FORMAT if kind == "date" else "HH:mm"
        return moment_format(when, fmt.strip() if fmt else default)

    return re.sub(r"\{\{\s*(date|time|title)\s*(?::([^}]*))?\}\}", fill, text, flags=re.I)
