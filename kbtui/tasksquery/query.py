"""A Tasks query block read and run as the plugin's Query class does: line continuations,
`{{query.file.*}}` placeholders, presets, the global query (unless `ignore global query`),
then each line in the plugin's order: preset, short/full, explain, ignore global query,
limit, sort by, group by, view, hide/show, comment, filter. A line kbtui cannot read is a
QueryError naming it, as the plugin's "do not understand query" (JavaScript `... by function`
lines name themselves as unsupported)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from kbtui.tasksquery.boolean import line_filter
from kbtui.tasksquery.filters import NOTES, Context, Predicate, QueryError, note_tail
from kbtui.tasksquery.model import QTask
from kbtui.tasksquery.order import Grouper, Sorter, group_tasks, read_grouper, read_sorter
from kbtui.tasksquery.order import sort_tasks as sort_by
from kbtui.vault.obsidian.task_settings import DONE_TYPES, TYPES, TasksSettings

DEFAULT_PRESETS = {
    "this_file": "path includes {{query.file.path}}",
    "this_folder": "folder includes {{query.file.folder}}",
    "this_folder_only": "filter by function task.file.folder === query.file.folder",
    "this_root": "root includes {{query.file.root}}",
    "hide_date_fields": "# Hide any values for all date fields\nhide due date\nhide scheduled date"
    "\nhide start date\nhide created date\nhide done date\nhide cancelled date",
    "hide_non_date_fields": "# Hide all the non-date fields, but not tags\nhide id\n"
    "hide depends on\nhide recurrence rule\nhide on completion\nhide priority",
    "hide_query_elements": "# Hide toolbar, postpone, edit, backlinks and task count\n"
    "hide toolbar\nhide postpone button\nhide edit button\nhide backlinks\nhide task count",
    "hide_everything": "# Hide everything except description and any tags\n"
    "preset hide_date_fields\npreset hide_non_date_fields\npreset hide_query_elements",
}
TASK_PARTS = (
    "cancelled date",
    "created date",
    "depends on",
    "done date",
    "due date",
    "id",
    "on completion",
    "priority",
    "recurrence rule",
    "scheduled date",
    "start date",
)
QUERY_PARTS = {  # option: shown by default
    "backlink": True,
    "edit button": True,
    "nested backlink": True,
    "postpone button": True,
    "task count": True,
    "group count": False,
    "toolbar": True,
    "tree": False,
    "urgency": False,
}


@dataclass
class Layout:
    """What hide/show, short/full and explain ask of the rendered results."""

    short: bool = False
    explain: bool = False
    hidden: set[str] = field(default_factory=set)  # task parts (and "tags") not shown
    shown: dict[str, bool] = field(default_factory=lambda: dict(QUERY_PARTS))

    def answer(self) -> dict[str, Any]:
        return {
            "short": self.short,
            "hidden": sorted(self.hidden),
            "shown": sorted(k for k, v in self.shown.items() if v),
        }


@dataclass
class Query:
    filters: list[tuple[str, Predicate]] = field(default_factory=list)
    sorters: list[Sorter] = field(default_factory=list)
    groupers: list[Grouper] = field(default_factory=list)
    limit: int | None = None
    group_limit: int | None = None
    layout: Layout = field(default_factory=Layout)
    ignore_global_query: bool = False
    # the status types the query's status lines allow (None: any): read from the index alone
    types: frozenset[str] | None = None
    notes: list[str] = field(default_factory=list)  # how lines with unread words were read


def continue_lines(source: str) -> list[str]:
    """Scanner.continueLines: a line ending in `\\` goes on with the next (`\\\\` is one)."""
    out: list[str] = []
    current, going_on = "", False
    for raw in (source + "\n").split("\n"):
        line = raw.lstrip(" \t") if going_on else raw
        if line.endswith("\\\\"):
            line = line[:-1]
        elif raw.endswith("\\"):
            line = re.sub(r"[ \t]*\\$", "", line)
        current = current + " " + line if going_on else line
        going_on = raw.endswith("\\") and not raw.endswith("\\\\")
        if not going_on:
            if current.strip():
                out.append(current.strip())
            current = ""
    return out


def _file_values(path: str) -> dict[str, str]:
    name = path.rpartition("/")[2]
    head = path[: len(path) - len(name)]
    root = path.lstrip("/").partition("/")
    return {
        "path": path,
        "pathWithoutExtension": path.rsplit(".", 1)[0] if "." in name else path,
        "filename": name,
        "filenameWithoutExtension": name.rsplit(".", 1)[0] if "." in name else name,
        "folder": head or "/",
        "root": root[0] + "/" if root[1] else "/",
    }


def expand(
    line: str, file: str | None, properties: dict[str, Any], presets: dict[str, str] | None = None
) -> str:
    """The placeholders of `line`: `{{query.file.*}}` from the note holding the query (its
    path parts, `property('x')`, `frontmatter.x`) and `{{preset.name}}`, expanded until none
    is left (at most 10 rounds, as the plugin). JavaScript inside `{{...}}` is an error."""
    if "{{" not in line or "}}" not in line or line.startswith("#"):
        return line
    if file is None and "query.file" in line:
        raise QueryError(
            'The query looks like it contains a placeholder, with "{{" and "}}"\n'
            "but no file path has been supplied, so cannot expand placeholder values "
            "(kbtui tasks:query --this NOTE)."
        )
    values = _file_values(file) if file else {}
    known = presets if presets is not None else DEFAULT_PRESETS

    def fill(m: re.Match[str]) -> str:
        inner = m.group(1).strip()
        prop = re.fullmatch(r"query\.file\.(?:property\(['\"](.+)['\"]\)|frontmatter\.(.+))", inner)
        if prop is not None:
            value = properties.get(prop.group(1) or prop.group(2))
            if isinstance(value, list):
                return "\n".join(str(v) for v in value)
            return "" if value is None else str(value)
        preset = re.fullmatch(r"preset\.([\w-]+)", inner)
        if preset is not None:
            if preset.group(1) not in known:
                raise QueryError(f'Cannot find preset "{preset.group(1)}" in the Tasks settings')
            return known[preset.group(1)]
        key = inner.removeprefix("query.file.")
        if inner.startswith("query.file.") and key in values:
            return values[key]
        if re.fullmatch(r"[\w.]+", inner):
            raise QueryError(f"Unknown property: {inner}")
        raise QueryError(
            f"placeholder {{{{{inner}}}}}: JavaScript expressions in placeholders are not "
            "supported by kbtui"
        )

    for _ in range(10):
        expanded = re.sub(r"{{(.*?)}}", fill, line)
        if expanded == line:
            break
        line = expanded
    return line


def _hide_show(query: Query, hide: bool, option: str, line: str) -> None:
    option = option.lower()
    for key in (*QUERY_PARTS, *TASK_PARTS, "tags"):
        if option.startswith(key):
            if key in QUERY_PARTS:
                query.layout.shown[key] = not hide
            else:
                (query.layout.hidden.add if hide else query.layout.hidden.discard)(key)
            end = len(line) - len(option) + len(key) + option[len(key) :].startswith("s")
            note_tail(line, end, line[:end])  # `hide backlinks` is the plugin's plural
            return
    raise QueryError(f'do not understand hide/show option\nProblem line: "{line}"')


class Reader:
    """Reads a query's lines into a Query."""

    def __init__(
        self, settings: TasksSettings, today: dt.date, file: str | None, props: dict[str, Any]
    ) -> None:
        self.settings, self.today, self.file, self.props = settings, today, file, props
        self.query = Query()

    def read(self, source: str) -> Query:
        token = NOTES.set(self.query.notes)
        try:
            for statement in continue_lines(source):
                expanded = expand(statement, self.file, self.props, self.settings.presets or None)
                for line in expanded.split("\n"):
                    if line.strip():
                        self.line(line.strip(), statement)
        finally:
            NOTES.reset(token)
        return self.query

    def line(self, line: str, raw: str) -> None:
        q = self.query
        try:
            self._line(line, q)
        except QueryError as exc:
            if "Problem line" in str(exc):
                raise
            raise QueryError(f'{exc}\nProblem line: "{raw}"') from exc

    def _line(self, line: str, q: Query) -> None:
        preset = re.match(r"^preset +(.*)", line, re.I)
        limit = re.match(r"^limit (groups )?(to )?(\d+)( tasks?)?", line, re.I)
        if preset:
            presets = self.settings.presets or DEFAULT_PRESETS
            name = preset.group(1).strip()
            if name not in presets:
                raise QueryError(f'Cannot find preset "{name}" in the Tasks settings')
            for instruction in continue_lines(presets[name]):
                for part in expand(instruction, self.file, self.props, presets).split("\n"):
                    if part.strip():
                        self.line(part.strip(), instruction)
        elif re.match(r"^short", line, re.I):
            q.layout.short = True
        elif re.match(r"^full", line, re.I):
            q.layout.short = False
        elif re.match(r"^explain", line, re.I):
            q.layout.explain = True
        elif re.match(r"^ignore global query", line, re.I):
            q.ignore_global_query = True
        elif limit:
            note_tail(line, limit.end(), limit.group(0).strip())
            if limit.group(1):
                q.group_limit = int(limit.group(3))
            else:
                q.limit = int(limit.group(3))
        elif (sorter := read_sorter(line, self.today)) is not None:
            q.sorters.append(sorter)
        elif (grouper := read_grouper(line)) is not None:
            q.groupers.append(grouper)
        elif view := re.match(r"^view +(.*)", line, re.I):
            self._view(view.group(1).strip(), line)
        elif hide := re.match(r"^(hide|show) +(.*)", line, re.I):
            _hide_show(q, hide.group(1).lower() == "hide", hide.group(2), line)
        elif line.startswith("#"):
            pass
        elif (found := line_filter(line, self.today)) is not None:
            q.filters.append((line, found))
            self._types(line.lower())
        else:
            raise QueryError("do not understand query")

    def _types(self, line: str) -> None:
        """Narrow `types` by a `done`, `not done` or `status.type is (not) X` line."""
        allowed: frozenset[str] | None = None
        if line == "done":
            allowed = DONE_TYPES
        elif line == "not done":
            allowed = frozenset(TYPES) - DONE_TYPES
        elif m := re.fullmatch(r"status\.type (is|is not) (\w+)", line):
            kind = m.group(2).upper()
            allowed = frozenset({kind}) if m.group(1) == "is" else frozenset(TYPES) - {kind}
        if allowed is not None:
            q = self.query
            q.types = allowed if q.types is None else q.types & allowed

    def _view(self, mode: str, line: str) -> None:
        word, _, rest = mode.partition(" ")
        if word.lower() == "list" and not rest:
            return
        if word.lower() == "columns":  # the plugin's messages (ViewLayoutOptions.ts)
            if not rest.strip():
                raise QueryError("columns view requires a grouping expression")
            grouper = read_grouper("group " + rest.strip())
            if grouper is None:
                raise QueryError(f'do not understand columns grouping "{rest.strip()}"')
            self.query.groupers.insert(0, grouper)
            return
        raise QueryError(f'do not understand view mode "{mode}"')


_FILE_DEFAULTS: tuple[tuple[str, str | tuple[str, str]], ...] = (
    ("TQ_show_toolbar", "toolbar"),
    ("TQ_explain", ("explain", "")),
    ("TQ_short_mode", ("short mode", "full mode")),
    *((f"TQ_show_{k.replace(' ', '_')}", k) for k in ("tree", "tags", "id", "depends on")),
    *((f"TQ_show_{k.replace(' ', '_')}", k) for k in ("priority", "recurrence rule")),
    *((f"TQ_show_{k.replace(' ', '_')}", k) for k in ("on completion", "created date")),
    *((f"TQ_show_{k.replace(' ', '_')}", k) for k in ("start date", "scheduled date")),
    *((f"TQ_show_{k.replace(' ', '_')}", k) for k in ("due date", "cancelled date")),
    *((f"TQ_show_{k.replace(' ', '_')}", k) for k in ("done date", "urgency", "backlink")),
    *((f"TQ_show_{k.replace(' ', '_')}", k) for k in ("edit button", "postpone button")),
    ("TQ_show_task_count", "task count"),
)


def file_defaults(properties: dict[str, Any]) -> str:
    """The plugin's Query File Defaults: instructions from the `TQ_*` properties of the note
    holding the query."""
    out: list[str] = []
    for name, what in _FILE_DEFAULTS:  # what: a part to show or hide, or (if true, if false)
        if name not in properties:
            continue
        value = properties[name]
        if isinstance(what, tuple):
            out.append(what[0] if value else what[1])
        else:
            out.append(("show " if value else "hide ") + what)
    extra = properties.get("TQ_extra_instructions")
    if isinstance(extra, str):
        out.append(extra)
    return "\n".join(line for line in out if line)


def read_query(
    source: str,
    settings: TasksSettings,
    today: dt.date,
    file: str | None = None,
    properties: dict[str, Any] | None = None,
) -> Query:
    """The query of a ```tasks block, after the global query (unless it says `ignore global
    query`) and the note's query file defaults (`TQ_*` properties)."""
    props = properties or {}
    source = "\n".join(part for part in (file_defaults(props), source) if part)
    own = Reader(settings, today, file, props).read(source)
    if own.ignore_global_query or not settings.global_query.strip():
        return own
    return Reader(settings, today, file, props).read(settings.global_query + "\n" + source)


@dataclass
class Result:
    groups: list[tuple[tuple[str, ...], list[QTask]]]
    total: int  # tasks found before any limit
    shown: int


def run_query(query: Query, tasks: list[QTask], today: dt.date, ranked: bool = False) -> Result:
    """Filter, sort, limit and group `tasks` as the plugin's applyQueryToTasks (`ranked`:
    every task is numbered in the default order, kbtui.tasksquery.order.rank_tasks)."""
    ctx = Context(today)
    if any("block" in text.lower() for text, _ in query.filters):  # dependencies: all tasks
        for t in tasks:
            if not t.is_done:
                if t.line.id:
                    ctx.open_ids.add(t.line.id)
                ctx.open_depended.update(t.line.depends_on)
    cheap = ("done", "not done")  # status lines first: they read no field of the line
    for _, keep in sorted(query.filters, key=lambda f: f[0].lower() not in cheap):
        tasks = [t for t in tasks if keep(t, ctx)]
    ordered = sort_by(tasks, query.sorters, ranked)
    limited = ordered[: query.limit] if query.limit is not None else ordered
    groups = group_tasks(limited, query.groupers)
    shown = len(limited)
    if query.group_limit is not None and query.groupers:
        groups = [(names, members[: query.group_limit]) for names, members in groups]
        shown = len({id(t) for _, members in groups for t in members})
    return Result(groups, len(ordered), shown)
