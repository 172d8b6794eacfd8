"""A task line as the Tasks plugin reads and writes it (its emoji format): the indentation,
list marker and status, then fields taken off the END of the text one by one (priority,
dates, recurrence, on-completion, id, depends-on; tags there go back to the description), the
rest being the description. `render` writes the fields back in the plugin's order.

Dates are kept as written: `valid_date` says whether one is a real day (the plugin reads
`📅 2022-02-30` as an invalid date; kbtui writes it back as it was, where the plugin writes
`Invalid date`)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace

# indentation (with > of quotes and callouts), marker, status, the rest
TASK_RE = re.compile(r"^([\s\t>]*)([-*+]|[0-9]+[.)]) +\[(.)\] *(.*)$", re.S)
BLOCK_LINK = re.compile(r" \^[a-zA-Z0-9-]+$")
HASHTAGS = re.compile(r"(^|\s)#[^ !@#$%^&*(),.?\":{}|<>]+")
DATE_KEYS = ("created", "start", "scheduled", "due", "cancelled", "done")
PRIORITY_OF = {"🔺": "highest", "⏫": "high", "🔼": "medium", "🔽": "low", "⏬": "lowest"}
PRIORITY_SYMBOL = {v: k for k, v in PRIORITY_OF.items()}
# Priority numbers as the plugin sorts them: highest 0 ... none 3 ... lowest 5.
PRIORITY_NUMBER = {"highest": 0, "high": 1, "medium": 2, "": 3, "low": 4, "lowest": 5}
_DATE = r"\uFE0F? *(\d{4}-\d{2}-\d{2})$"
# (name, pattern, first characters that must be in the text for the pattern to match)
_FIELDS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("priority", re.compile("(🔺|⏫|🔼|🔽|⏬)\ufe0f?$"), "🔺⏫🔼🔽⏬"),
    ("done", re.compile("✅" + _DATE), "✅"),
    ("cancelled", re.compile("❌" + _DATE), "❌"),
    ("due", re.compile("(?:📅|📆|🗓)" + _DATE), "📅📆🗓"),
    ("scheduled", re.compile("(?:⏳|⌛)" + _DATE), "⏳⌛"),
    ("start", re.compile("🛫" + _DATE), "🛫"),
    ("created", re.compile("➕" + _DATE), "➕"),
    ("recurrence", re.compile("🔁\ufe0f? *([a-zA-Z0-9, !]+)$"), "🔁"),
    ("on_completion", re.compile("🏁\ufe0f? *([a-zA-Z]+)$"), "🏁"),
    ("tag", re.compile(HASHTAGS.pattern + "$"), "#"),
    ("id", re.compile("🆔\ufe0f? *([a-zA-Z0-9-_]+)$"), "🆔"),
    (
        "depends_on",
        re.compile("⛔\ufe0f? *([a-zA-Z0-9-_]+( *, *[a-zA-Z0-9-_]+ *)*)$"),
        "⛔",
    ),
)
_SIGNS = frozenset("".join(f[2] for f in _FIELDS))
SYMBOLS = {
    "created": "➕",
    "start": "🛫",
    "scheduled": "⏳",
    "due": "📅",
    "cancelled": "❌",
    "done": "✅",
}


@dataclass(frozen=True)
class TaskLine:
    indentation: str
    marker: str
    status: str
    description: str
    priority: str = ""  # highest, high, medium, low, lowest or ""
    created: str = ""
    start: str = ""
    scheduled: str = ""
    due: str = ""
    cancelled: str = ""
    done: str = ""
    recurrence: str = ""  # the rule as written after 🔁
    on_completion: str = ""  # keep, delete or ""
    id: str = ""
    depends_on: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    block_link: str = ""
    hard_break: str = ""  # two or more trailing spaces, kept

    def date(self, key: str) -> str:
        return str(getattr(self, key))

    def with_fields(self, **changes: object) -> TaskLine:
        return replace(self, **changes)  # type: ignore[arg-type]


def valid_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        return None


def parse_line(line: str, global_filter: str = "") -> TaskLine | None:
    """The task on `line` as the plugin reads it, or None when the line is not a task (or,
    with a global filter, does not hold it)."""
    text = line.rstrip("\r\n")
    m = TASK_RE.match(text)
    if m is None:
        return None
    body = m.group(4).strip()
    if global_filter and global_filter not in body:
        return None
    block = BLOCK_LINK.search(body)
    block_link = ""
    if block is not None:
        block_link = block.group(0)
        body = body[: block.start()].strip()
    fields = parse_body(body)
    tags = tuple(
        t.strip() for t in (h.group(0) for h in HASHTAGS.finditer(str(fields["description"])))
    )
    if global_filter:
        tags = tuple(t for t in tags if t != global_filter)
    trail = len(text) - len(text.rstrip(" "))
    return TaskLine(
        indentation=m.group(1),
        marker=m.group(2),
        status=m.group(3),
        tags=tags,
        block_link=block_link,
        hard_break=" " * trail if trail >= 2 else "",
        **fields,  # type: ignore[arg-type]
    )


UNIT, _ITEM = "\x1f", "\x1e"
FIELD_INDEX = {name: i for i, name in enumerate(TaskLine.__dataclass_fields__)}


def pack(task: TaskLine) -> str:
    """The reading in one string, kept in the index (so a query parses no line); "" when a
    value holds a separator character (the line is then read again)."""
    values = [_ITEM.join(v) if isinstance(v, tuple) else str(v) for v in task.__dict__.values()]
    if any(UNIT in v for v in values) or any(_ITEM in t for t in (*task.tags, *task.depends_on)):
        return ""
    return UNIT.join(values)


def unpack(packed: str) -> TaskLine:
    v = packed.split(UNIT)
    depends = tuple(v[14].split(_ITEM)) if v[14] else ()
    tags = tuple(v[15].split(_ITEM)) if v[15] else ()
    return TaskLine(*v[:14], depends, tags, v[16], v[17])  # type: ignore[arg-type, call-arg]


def in_global_filter(task: TaskLine, global_filter: str, line: str) -> TaskLine | None:
    """`task` (read from `line` with no global filter) as the plugin reads it with one: None
    when the text after its checkbox lacks the filter, else without the filter among its
    tags."""
    if not global_filter:
        return task
    if global_filter not in line.partition("]")[2]:
        return None
    return replace(task, tags=tuple(t for t in task.tags if t != global_filter))


def parse_body(body: str) -> dict[str, object]:
    """Fields taken off the end of `body`, as the plugin's DefaultTaskSerializer does."""
    found: dict[str, object] = {}
    trailing_tags = ""
    signs = _SIGNS.intersection(body)
    active = [(name, pattern) for name, pattern, sign in _FIELDS if signs.intersection(sign)]
    runs = 0
    matched = bool(active)
    while matched and runs <= 20:
        matched = False
        for name, pattern in active:
            m = pattern.search(body)
            if m is None:
                continue
            if name == "tag":
                tag = m.group(0).strip()
                trailing_tags = f"{tag} {trailing_tags}" if trailing_tags else tag
            elif name == "priority":
                found["priority"] = PRIORITY_OF[m.group(1)]
            elif name == "depends_on":
                found["depends_on"] = tuple(i for i in m.group(1).replace(" ", "").split(",") if i)
            elif name == "on_completion":
                value = m.group(1).strip().lower()
                found["on_completion"] = value if value in ("keep", "delete") else ""
            else:
                found[name] = m.group(1).strip()
            body = body[: m.start()].strip()
            matched = True
        runs += 1
    if trailing_tags:
        body = f"{body} {trailing_tags}" if body else trailing_tags
    found["description"] = body
    return found


def render(task: TaskLine, recurrence_text: str | None = None) -> str:
    """The line the plugin writes for `task` (`recurrence_text`: the rule as the plugin
    spells it, when it could read it)."""
    out = task.description
    if task.id:
        out += f" 🆔 {task.id}"
    if task.depends_on:
        out += " ⛔ " + ",".join(task.depends_on)
    if task.priority:
        out += " " + PRIORITY_SYMBOL[task.priority]
    rule = recurrence_text if recurrence_text is not None else task.recurrence
    if rule:
        out += f" 🔁 {rule}"
    if task.on_completion:
        out += f" 🏁 {task.on_completion}"
    for key in DATE_KEYS:
        value = task.date(key)
        if value:
            out += f" {SYMBOLS[key]} {value}"
    out += task.block_link
    return f"{task.indentation}{task.marker} [{task.status}] {out}{task.hard_break}"
