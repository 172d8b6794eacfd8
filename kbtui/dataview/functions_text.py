"""Dataview's text, regular-expression, date and utility functions (its Functions reference;
the rest are in kbtui.dataview.functions). Regular expressions are JavaScript's read by
Python's `re` (ASCII `\\w`, `\\d`, `\\b` as in JavaScript; `$1`, `$&` in replacements).

After blacksmithgu/obsidian-dataview (MIT), src/expression/functions.ts and its tests; `hash`
is cyrb53 (bryc, public domain) as Dataview's src/util/hash.ts has it.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from kbtui.dataview.builder import Builder, _null, _same, one
from kbtui.dataview.evaluate import Context
from kbtui.dataview.text import MONTHS, format_date, format_duration, to_string
from kbtui.dataview.values import Duration, EvalError, ExternalLink, Link, date_of, truthy
from kbtui.vault.obsidian import dv_values

_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_CURRENCY = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "CNY": "CN¥",
             "KRW": "₩", "CAD": "CA$", "AUD": "A$"}  # fmt: skip


def js_regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    source = re.sub(r"\(\?<([A-Za-z_]\w*)>", r"(?P<\1>", pattern)
    try:
        return re.compile(source, re.ASCII | flags)
    except re.error as exc:
        raise EvalError(f"Invalid regexp '{pattern}': {exc}") from None


def js_replacement(rep: str) -> Any:
    def fill(m: re.Match[str]) -> str:
        out, i = [], 0
        while i < len(rep):
            ch = rep[i]
            nxt = rep[i + 1] if i + 1 < len(rep) else ""
            if ch == "$" and nxt == "$":
                out.append("$")
                i += 2
            elif ch == "$" and nxt == "&":
                out.append(m.group(0))
                i += 2
            elif ch == "$" and nxt.isdigit():
                digits = nxt + (rep[i + 2] if i + 2 < len(rep) and rep[i + 2].isdigit() else "")
                if len(digits) == 2 and int(digits) > (m.re.groups or 0):
                    digits = digits[0]
                n = int(digits)
                out.append(m.group(n) or "" if 0 < n <= (m.re.groups or 0) else "$" + digits)
                i += 1 + len(digits)
            else:
                out.append(ch)
                i += 1
        return "".join(out)

    return fill


def cyrb53(text: str, seed: int = 0) -> int:
    def imul(a: int, b: int) -> int:
        return ((a & 0xFFFFFFFF) * (b & 0xFFFFFFFF)) & 0xFFFFFFFF

    h1, h2 = 0xDEADBEEF ^ seed, 0x41C6CE57 ^ seed
    data = text.encode("utf-16-le")
    for i in range(0, len(data), 2):  # JavaScript's UTF-16 code units
        ch = data[i] | data[i + 1] << 8
        h1 = imul(h1 ^ ch, 2654435761)
        h2 = imul(h2 ^ ch, 1597334677)
    h1 = imul(h1 ^ (h1 >> 16), 2246822507) ^ imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = imul(h2 ^ (h2 >> 16), 2246822507) ^ imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + (h1 & 0xFFFFFFFF)


def remove_markdown(text: str) -> str:
    """Markdown's marks dropped, links' text kept (Dataview's `normalizeMarkdown`)."""
    text = re.sub(r"\[\[([^|]*?)\]\]", r"\1", text)
    text = re.sub(r"\[\[.*?\|(.*?)\]\]", r"\1", text, count=1)
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]*>", "", text)
    text = re.sub(r"^\s{0,3}#{1,6}\s+", "", text, flags=re.M)
    text = re.sub(r"^\s{0,3}>\s?", "", text, flags=re.M)
    text = re.sub(r"(\*\*|__)(.*?)\1", r"\2", text)
    text = re.sub(r"(\*|_)(.*?)\1", r"\2", text)
    text = re.sub(r"~~(.*?)~~", r"\1", text)
    return re.sub(r"`{1,3}([^`]*)`{1,3}", r"\1", text)


_PARSE_TOKENS = {
    "yyyy": r"(?P<y>\d{4})", "yy": r"(?P<yy>\d{2})", "y": r"(?P<y>\d{1,6})",
    "MM": r"(?P<M>\d{2})", "M": r"(?P<M>\d{1,2})", "LL": r"(?P<M>\d{2})", "L": r"(?P<M>\d{1,2})",
    "dd": r"(?P<d>\d{2})", "d": r"(?P<d>\d{1,2})", "HH": r"(?P<H>\d{2})", "H": r"(?P<H>\d{1,2})",
    "hh": r"(?P<h>\d{2})", "h": r"(?P<h>\d{1,2})", "mm": r"(?P<m>\d{2})", "m": r"(?P<m>\d{1,2})",
    "ss": r"(?P<s>\d{2})", "s": r"(?P<s>\d{1,2})", "SSS": r"(?P<S>\d{3})", "a": r"(?P<a>AM|PM)",
    "MMMM": r"(?P<MN>[A-Za-z]+)", "LLLL": r"(?P<MN>[A-Za-z]+)", "MMM": r"(?P<MA>[A-Za-z]{3})",
    "LLL": r"(?P<MA>[A-Za-z]{3})", "EEEE": r"[A-Za-z]+", "EEE": r"[A-Za-z]{3}",
    "cccc": r"[A-Za-z]+", "ccc": r"[A-Za-z]{3}",
}  # fmt: skip
_MONTHS = [m.lower() for m in MONTHS]


def parse_with_format(text: str, fmt: str) -> datetime:
    """luxon's `DateTime.fromFormat` for the common tokens; `x`/`X` epoch milli/seconds."""
    from kbtui.dataview.text import tokens

    if fmt in ("x", "X"):
        m = _NUMBER.search(text)
        if not m:
            raise EvalError(f"Not a number for format ({fmt}): {text}")
        return datetime.fromtimestamp(int(float(m.group(0))) / (1000 if fmt == "x" else 1))
    pattern = ""
    for is_token, t in tokens(fmt):
        if is_token and t not in _PARSE_TOKENS:
            raise EvalError(f"unsupported date format token {t!r} in date()")
        pattern += _PARSE_TOKENS[t] if is_token else re.escape(t)
    try:
        m = re.fullmatch(pattern, text)
    except re.error:
        m = None
    if m is None:
        raise EvalError(f"Can't handle format ({fmt}) on date string ({text})")
    g = m.groupdict()
    year = int(g["y"]) if g.get("y") else 0
    if g.get("yy"):
        two = int(g["yy"])
        year = 1900 + two if two > 60 else 2000 + two
    month = int(g.get("M") or 1)
    if g.get("MN") or g.get("MA"):
        name = (g.get("MN") or g.get("MA") or "").lower()
        month = next((i + 1 for i, n in enumerate(_MONTHS) if n.startswith(name)), 0)
    hour = int(g.get("H") or g.get("h") or 0)
    if g.get("a"):
        hour = hour % 12 + (12 if g["a"] == "PM" else 0)
    try:
        return datetime(
            year or datetime.now().year,
            month,
            int(g.get("d") or 1),
            hour,
            int(g.get("m") or 0),
            int(g.get("s") or 0),
            int(g.get("S") or 0) * 1000,
        )
    except ValueError:
        raise EvalError(f"Can't handle format ({fmt}) on date string ({text})") from None


def text_functions(ctx: Context) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def parse_date(text: str) -> datetime | None:
        s = text.strip()
        for word in ("start-of-month", "start-of-week", "start-of-year", "end-of-month",
                     "end-of-week", "end-of-year", "yesterday", "tomorrow", "today", "now",
                     "sow", "eow", "som", "eom", "soy", "eoy"):  # fmt: skip
            if s == word:
                return ctx.shorthand(word)
        found = dv_values.date(s)
        return date_of(found[0]) if found and found[1] == len(s) else None

    def date_of_link(link: Link) -> datetime | None:
        for text in (link.display, link.path):
            if text:
                found = dv_values.date(text)
                if found and found[1] == len(text):
                    return date_of(found[0])
        page = ctx.page(link.target)
        day = (page or {}).get("file", {}).get("day")
        return day if isinstance(day, datetime) else None

    date = Builder("date")
    date.add("string")(parse_date)
    date.add("date")(_same)
    date.add("link")(date_of_link)
    date.add("string", "string")(parse_with_format)
    date.add("null", "string")(_null)
    date.add("null")(_null)
    out["date"] = date.vectorise(1, 0)

    def to_duration(text: str) -> Duration | None:
        found = dv_values.duration(text.strip())
        return Duration(found[0]) if found and found[1] == len(text.strip()) else None

    out["dur"] = one("dur", "string", to_duration)
    out["dur"].add("duration")(_same)

    def to_number(text: str) -> float | int | None:
        m = _NUMBER.search(text)
        if not m:
            return None
        return float(m.group(0)) if m.group(1) else int(m.group(0))

    out["number"] = one("number", "string", to_number)
    out["number"].add("number")(_same)

    elink = Builder("elink")
    elink.add("string", "string")(ExternalLink)
    elink.add("string", "null")(lambda s, _n: ExternalLink(s, s))
    elink.add("null", "*")(_null)
    elink.add("string")(lambda s: ExternalLink(s, s))
    elink.add("null")(_null)
    out["elink"] = elink.vectorise(2, 0).vectorise(1, 0)

    def two(name: str, run: Any, null: Any = None, positions: tuple[int, ...] = (0, 1)) -> Builder:
        f = Builder(name)
        f.add("string", "string")(run)
        f.add("null", "*")(lambda *_: null)
        f.add("*", "null")(lambda *_: null)
        return f.vectorise(2, *positions)

    def regex_match(pattern: str, text: str) -> bool:
        if not pattern.startswith("^") and not pattern.endswith("$"):
            pattern = f"^{pattern}$"
        return js_regex(pattern).search(text) is not None

    out["regextest"] = two("regextest", lambda p, t: js_regex(p).search(t) is not None, False)
    out["regexmatch"] = two("regexmatch", regex_match, False)
    out["containsword"] = two(
        "containsword",
        lambda h, n: js_regex(r"\b" + re.escape(n) + r"\b", re.I | re.S).search(h) is not None,
    )
    out["startswith"] = two("startswith", lambda s, p: s.startswith(p))
    out["endswith"] = two("endswith", lambda s, p: s.endswith(p))

    def three(name: str, run: Any) -> Builder:
        f = Builder(name)
        f.add("string", "string", "string")(run)
        for types in (("null", "*", "*"), ("*", "null", "*"), ("*", "*", "null")):
            f.add(*types)(_null)
        return f.vectorise(3, 0, 1, 2)

    out["regexreplace"] = three(
        "regexreplace", lambda s, p, r: js_regex(p).sub(js_replacement(r), s)
    )
    out["replace"] = three("replace", lambda s, p, r: r.join(s.split(p)) if p else s)
    out["lower"] = one("lower", "string", str.lower)
    out["upper"] = one("upper", "string", str.upper)

    def split(text: str, delim: str, limit: float | None = None) -> list[str]:
        parts = [p or "" for p in js_regex(delim).split(text)]
        return parts if limit is None else parts[: max(int(limit), 0)]

    splitter = Builder("split")
    splitter.add("string", "string")(split)
    splitter.add("string", "string", "number")(split)
    for types in (("null", "*"), ("*", "null"), ("*", "*", "null"), ("*", "null", "*"),
                  ("null", "*", "*")):  # fmt: skip
        splitter.add(*types)(_null)
    out["split"] = splitter

    def padded(name: str, run: Any) -> Builder:
        f = Builder(name)
        f.add("string", "number")(lambda s, n: run(s, int(n), " "))
        f.add("string", "number", "string")(lambda s, n, p: run(s, int(n), p))
        for types in (("null", "*"), ("*", "null"), ("null", "*", "*"), ("*", "null", "*"),
                      ("*", "*", "null")):  # fmt: skip
            f.add(*types)(_null)
        return f.vectorise(2, 0, 1).vectorise(3, 0, 1, 2)

    def pad(s: str, n: int, p: str, left: bool) -> str:
        if len(s) >= n or not p:
            return s
        fill = (p * n)[: n - len(s)]
        return fill + s if left else s + fill

    out["padleft"] = padded("padleft", lambda s, n, p: pad(s, n, p, True))
    out["padright"] = padded("padright", lambda s, n, p: pad(s, n, p, False))

    def substring(s: str, start: float, end: float | None = None) -> str:
        a = max(0, min(int(start), len(s)))
        b = len(s) if end is None else max(0, min(int(end), len(s)))
        return s[min(a, b) : max(a, b)]

    out["substring"] = padded("substring", lambda s, n, p: s)
    out["substring"].variants[:2] = [
        (("string", "number"), substring),
        (("string", "number", "number"), substring),
    ]

    def truncate(s: str, n: float, suffix: str = "...") -> str:
        n = int(n)
        return s[: max(0, n - len(suffix))] + suffix if len(s) > n - len(suffix) else s

    out["truncate"] = padded("truncate", lambda s, n, p: s)
    out["truncate"].variants[:2] = [
        (("string", "number", "string"), truncate),
        (("string", "number"), truncate),
    ]
    out.update(_utility(ctx))
    return out


def _utility(ctx: Context) -> dict[str, Any]:
    out: dict[str, Any] = {}
    default = Builder("default")
    default.add("*", "*")(lambda v, fallback: fallback if v is None else v)
    out["default"] = default.vectorise(2, 0, 1)
    ldefault = Builder("ldefault")
    ldefault.add("*", "*")(lambda v, fallback: fallback if v is None else v)
    out["ldefault"] = ldefault

    display = Builder("display")
    display.add("null")(lambda _n: "")
    display.add("array")(lambda a: ", ".join(display(v) for v in a))
    display.add("string")(remove_markdown)

    @display.add("link")
    def link_text(link: Link) -> str:
        if link.display:
            return str(display(link.display))
        return re.sub(r"\[\[.*\|(.*)\]\]", r"\1", to_string(link))

    display.add("*")(to_string)
    out["display"] = display

    choice = Builder("choice")
    choice.add("*", "*", "*")(lambda b, yes, no: yes if truthy(b) else no)
    out["choice"] = choice.vectorise(3, 0)
    out["striptime"] = one("striptime", "date", lambda d: datetime(d.year, d.month, d.day))
    out["localtime"] = one(
        "localtime", "date", lambda d: d.astimezone().replace(tzinfo=None) if d.tzinfo else d
    )
    for name, kind, run in (("dateformat", "date", format_date),
                            ("durationformat", "duration", format_duration)):  # fmt: skip
        f = Builder(name)
        f.add(kind, "string")(run)
        f.add("null", "string")(_null)
        out[name] = f.vectorise(2, 0)

    def currency(n: float, code: str = "USD") -> str:
        symbol = _CURRENCY.get(code.upper(), code.upper() + "\u00a0")
        digits = 0 if code.upper() in ("JPY", "KRW") else 2
        text = f"{abs(n):,.{digits}f}"
        return ("-" if n < 0 else "") + symbol + text

    money = Builder("currencyformat")
    money.add("number", "string")(currency)
    money.add("null", "string")(_null)
    money.add("number")(currency)
    money.add("null")(_null)
    out["currencyformat"] = money.vectorise(2, 0)

    hasher = Builder("hash")
    hasher.add("string", "number")(lambda seed, v: cyrb53(seed, int(v)))
    hasher.add("string", "string")(lambda seed, text: cyrb53(seed + text))
    hasher.add("string", "string", "number")(lambda seed, text, v: cyrb53(seed + text, int(v)))
    out["hash"] = hasher

    meta = Builder("meta")
    meta.add("link")(
        lambda link: {
            "display": link.display,
            "embed": link.embed,
            "path": link.path,
            "subpath": link.subpath,
            "type": link.type,
        }
    )
    out["meta"] = meta
    return out
