"""Dataview's values as text, the way the Dataview plugin types an inline field or a property:
dates (`2021-04-18`, `2021-04-18T04:19:35.000+06:30`), durations (`7 hours`, `6hr7min`,
`9 yrs 8 min`), links (`[[Page|Shown]]`), booleans, numbers, quoted text, tags, `null`, and
comma-separated lists of them; anything else is text.

Grammar after blacksmithgu/obsidian-dataview (MIT), src/expression/parse.ts (`date`, `duration`,
`inlineField`, `embedLink`) and src/data-import/markdown-file.ts (`parseFrontmatter`).

Values are kept as JSON: null, booleans, numbers and text as themselves; a date as
{"$date": "YYYY-MM-DDTHH:MM:SS.mmm" + zone ("", "Z", "+06:30", "[Europe/Paris]")}; a duration as
{"$dur": {unit: amount}} (luxon's unit names); a link as {"$link": {path, display, subpath, type,
embed}}; lists as lists; an object (a property's mapping) as {"$obj": {...}}.
"""

from __future__ import annotations

import calendar
import math
import re
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from kbtui.vault.obsidian.inline_fields import is_emoji, is_letter

UNITS = ("years", "months", "weeks", "days", "hours", "minutes", "seconds", "milliseconds")
DURATION_NAMES: dict[str, str] = {
    **dict.fromkeys(("year", "years", "yr", "yrs"), "years"),
    **dict.fromkeys(("month", "months", "mo", "mos"), "months"),
    **dict.fromkeys(("week", "weeks", "wk", "wks", "w"), "weeks"),
    **dict.fromkeys(("day", "days", "d"), "days"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "h"), "hours"),
    **dict.fromkeys(("minute", "minutes", "min", "mins", "m"), "minutes"),
    **dict.fromkeys(("second", "seconds", "sec", "secs", "s"), "seconds"),
}
_UNIT_WORDS = sorted(DURATION_NAMES, key=len, reverse=True)
# luxon's casual conversion matrix (a year of 365 days, a month of 30) for normalising
MATRIX: dict[str, dict[str, float]] = {
    "years": {"months": 12, "weeks": 52, "days": 365, "hours": 365 * 24},
    "months": {"weeks": 4, "days": 30, "hours": 30 * 24},
    "weeks": {"days": 7, "hours": 7 * 24},
    "days": {"hours": 24},
    "hours": {"minutes": 60},
    "minutes": {"seconds": 60},
    "seconds": {"milliseconds": 1000},
}
UNIT_MS = {
    "years": 365 * 86_400_000, "months": 30 * 86_400_000, "weeks": 7 * 86_400_000,
    "days": 86_400_000, "hours": 3_600_000, "minutes": 60_000, "seconds": 1000,
    "milliseconds": 1,
}  # fmt: skip
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_YM = re.compile(r"(\d{4})-(\d{2})")
_TWO = re.compile(r"\d{2}")
_ZONE = re.compile(r"([+-])(\d{1,2})(?::(\d{2}))?")
_NAMED_ZONE = re.compile(r"\[([0-9A-Za-z+\-/_]+)\]")
_LINK = re.compile(r"\[\[([^\[\]]*?)\]\]")
_BOOL = re.compile(r"true|false|True|False")
_TAG_CHAR = re.compile(r"""[^\u2000-\u206F\u2E00-\u2E7F'!"#$%&()*+,.:;<=>?@^`{|}~\[\]\\\s]""")
_WS = re.compile(r"\s*")

Parsed = tuple[Any, int] | None


def number(text: str, pos: int = 0) -> tuple[float | int, int] | None:
    m = _NUMBER.match(text, pos)
    if not m:
        return None
    raw = m.group(0)
    return (float(raw) if "." in raw else int(raw)), m.end()


def date(text: str, pos: int = 0) -> tuple[str, int] | None:
    """A date `YYYY-MM[-DD[THH[:mm[:ss[.SSS]]]]]` with an optional zone, as its stored text."""
    m = _YM.match(text, pos)
    if not m:
        return None
    parts = [int(m.group(1)), int(m.group(2)), 1, 0, 0, 0, 0]
    end = m.end()
    for i, lead in ((2, "-"), (3, "T"), (4, ":"), (5, ":")):
        two = _TWO.match(text, end + 1) if text.startswith(lead, end) else None
        if two is None:
            break
        parts[i], end = int(two.group(0)), two.end()
    else:
        ms = re.compile(r"\.(\d{3})").match(text, end)
        if ms:
            parts[6], end = int(ms.group(1)), ms.end()
        zone = ""
        z = _ZONE.match(text, end)
        named = _NAMED_ZONE.match(text, end)
        if z:
            hours, minutes = int(z.group(2)), int(z.group(3) or 0)
            if hours > 23 or minutes > 59:
                return None
            zone, end = f"{z.group(1)}{hours:02d}:{minutes:02d}", z.end()
        elif text.startswith("Z", end):
            zone, end = "Z", end + 1
        elif named:
            try:
                ZoneInfo(named.group(1))
            except (ZoneInfoNotFoundError, ValueError):
                return None
            zone, end = f"[{named.group(1)}]", named.end()
        return (_date_text(parts, zone), end) if _valid(parts) else None
    return (_date_text(parts, ""), end) if _valid(parts) else None


def _valid(p: list[int]) -> bool:
    y, mo, d, h, mi, s, _ = p
    if not (1 <= mo <= 12 and y >= 1):
        return False
    return 1 <= d <= calendar.monthrange(y, mo)[1] and h <= 23 and mi <= 59 and s <= 59


def _date_text(p: list[int], zone: str) -> str:
    y, mo, d, h, mi, s, ms = p
    return f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}.{ms:03d}{zone}"


def duration(text: str, pos: int = 0) -> tuple[dict[str, float], int] | None:
    """`4 hr 15 min`, `4h15m`, `4 hours, 15 minutes`: amounts by luxon unit, not normalised."""
    units: dict[str, float] = {}
    end = pos
    first = True
    while True:
        at = end
        if not first:
            sep = re.compile(r"\s*,\s*").match(text, end) or _WS.match(text, end)
            at = sep.end() if sep else end
        found = number(text, at)
        if found is None:
            break
        amount, after = found
        after = _WS.match(text, after).end()  # type: ignore[union-attr]
        word = next((w for w in _UNIT_WORDS if text.startswith(w, after)), None)
        if word is None:
            break
        unit = DURATION_NAMES[word]
        units[unit] = units.get(unit, 0) + amount
        end, first = after + len(word), False
    return (units, end) if not first else None


def conversion(big: str, small: str) -> float:
    """How many `small` units one `big` unit holds, in luxon's casual matrix."""
    return MATRIX.get(big, {}).get(small) or UNIT_MS[big] / UNIT_MS[small]


def shift_to(units: dict[str, float], targets: list[str]) -> dict[str, float]:
    """luxon's `Duration.shiftTo`: the duration in `targets` (bigger units converted down, each
    target whole but the last, what is left carried to the last), then normalised."""
    built: dict[str, float] = {}
    carried: dict[str, float] = {}
    last = ""
    for unit in UNITS:
        if unit in targets:
            last = unit
            own = sum(conversion(k, unit) * v for k, v in carried.items())
            carried = {}
            own += units.get(unit, 0)
            whole = math.trunc(own)
            built[unit] = whole
            carried[unit] = (own * 1000 - whole * 1000) / 1000
        elif unit in units:
            carried[unit] = units[unit]
    for unit, v in carried.items():
        if v and last:
            built[last] += v if unit == last else v / conversion(last, unit)
    return _rolled(built)


def _rolled(vals: dict[str, float]) -> dict[str, float]:
    """luxon's `normalizeValues`: each unit's overflow rolled into the next bigger one present."""
    present = [u for u in UNITS if u in vals]
    total = sum(vals[u] * UNIT_MS[u] for u in present)
    sign = -1 if total < 0 else 1
    for small, big in zip(reversed(present), reversed(present[:-1]), strict=False):
        conv = conversion(big, small)
        roll = math.floor(vals[small] * sign / conv)
        vals[big] += roll * sign
        vals[small] -= roll * conv * sign
    return vals


def normalise(units: dict[str, float]) -> dict[str, float]:
    """luxon's `shiftToAll().normalize()`, zero units left out."""
    return {u: _tidy(v) for u, v in shift_to(units, list(UNITS)).items() if v}


def _tidy(v: float) -> float | int:
    return int(v) if float(v).is_integer() else v


def link(text: str, pos: int = 0, embed_ok: bool = True) -> tuple[dict[str, Any], int] | None:
    """`[[path#sub|display]]` (and `![[...]]` where allowed) as a stored link."""
    embed = embed_ok and text.startswith("!", pos)
    m = _LINK.match(text, pos + (1 if embed else 0))
    if not m:
        return None
    return {"$link": link_parts(m.group(1), embed)}, m.end()


def link_parts(inner: str, embed: bool = False) -> dict[str, Any]:
    """A link's parts from the text between `[[` and `]]` (an escaped `\\|` is a bar)."""
    target, display = inner, None
    at = -1
    while (at := inner.find("|", at + 1)) >= 0:
        if at > 0 and inner[at - 1] == "\\":
            continue
        target, display = inner[:at], inner[at + 1 :]
        break
    target = target.replace("\\|", "|")
    kind, subpath = "file", None
    if "#^" in target:
        target, subpath = target.split("#^", 1)[0], target.split("#^")[1]
        kind = "block"
    elif "#" in target:
        target, subpath = target.split("#")[0], header_text(target.split("#")[1])
        kind = "header"
    return {"path": target, "display": display, "subpath": subpath, "type": kind, "embed": embed}


@lru_cache(maxsize=4096)
def header_text(header: str) -> str:
    """A heading as a link names it: words and emoji kept, anything else a space, spaces
    collapsed (Dataview's normalizeHeaderForLink)."""
    out = "".join(
        ch if (ch.isascii() and (ch.isalnum() or ch in "_-")) or is_letter(ch) or is_emoji(ch)
        else " "
        for ch in header
    )  # fmt: skip
    return " ".join(out.split())


def _string(text: str, pos: int) -> tuple[str, int] | None:
    if not text.startswith('"', pos):
        return None
    out: list[str] = []
    i = pos + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(nxt if nxt in '"\\' else "\\" + nxt)
            i += 2
        elif ch == '"':
            return "".join(out), i + 1
        else:
            out.append(ch)
            i += 1
    return None


def tag(text: str, pos: int) -> tuple[str, int] | None:
    if not text.startswith("#", pos):
        return None
    end = pos + 1
    while end < len(text) and _TAG_CHAR.match(text, end):
        end += 1
    return text[pos:end], end


def _atom(text: str, pos: int) -> Parsed:
    found = date(text, pos)
    if found:
        return {"$date": found[0]}, found[1]
    dur = duration(text, pos)
    if dur:
        return {"$dur": normalise(dur[0])}, dur[1]
    for parse in (_string, tag, link):
        got = parse(text, pos)
        if got:
            return got
    m = _BOOL.match(text, pos)
    if m:
        return m.group(0).lower() == "true", m.end()
    num = number(text, pos)
    if num:
        return num
    if text.startswith("null", pos):
        return None, pos + 4
    return None


def _comma(text: str, pos: int) -> int | None:
    m = re.compile(r"\s*,\s*").match(text, pos)
    return m.end() if m else None


def inline_value(raw: str) -> Any:
    """An inline field's value as Dataview types it (null when empty, text when nothing else)."""
    text = raw
    if not text.strip():
        return None
    first = _atom(text, 0)
    if first is None:
        return raw
    value, pos = first
    after = _comma(text, pos)
    if after is None:
        return value if pos == len(text) else raw
    items, pos = [value], after
    while (nxt := _atom(text, pos)) is not None:
        items.append(nxt[0])
        pos = nxt[1]
        after = _comma(text, pos)
        if after is None or _atom(text, after) is None:
            break
        pos = after
    return items if pos == len(text) else raw


def property_value(value: Any) -> Any:
    """A property (frontmatter) value as Dataview reads it: text that is wholly a date, a
    duration or a link becomes one; mappings and lists element by element."""
    if isinstance(value, dict):
        return {"$obj": {str(k): property_value(v) for k, v in value.items()}}
    if isinstance(value, list):
        return [property_value(v) for v in value]
    if not isinstance(value, str):
        return value
    for parse, wrap in ((date, "$date"), (duration, "$dur")):
        found = parse(value, 0)
        if found and found[1] == len(value):
            return {wrap: found[0]}
    found_link = link(value, 0)
    if found_link and found_link[1] == len(value):
        return found_link[0]
    return value
