"""Conformance sets (issue 41's goal): DQL and Tasks queries over a vault of our own
(tests/data/conformance/vault), each with the rows an independent reading of the plugins' docs
gives, written by hand. Split into a train half (kbtui fixed where it failed them) and a
held-out half (run once, never fixed against). Shared by tests/test_conformance_*.py and
bench/conformance.py."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from kbtui.config import Settings
from kbtui.dataview.service import DataviewService
from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime

DATA = Path(__file__).resolve().parent / "data" / "conformance"
TODAY = dt.date(2024, 5, 15)  # a Wednesday: every relative date in the sets is read from it
TOKEN = re.compile(r"\b(?:tk|w)\d\d\b")
HIDDEN = re.compile(r"%%.*?%%")  # the plugin's hidden sort marks: Obsidian does not draw them


@dataclass
class Case:
    id: str
    query: str
    rows: list[str] | None
    groups: list[tuple[str, list[str]]] | None
    ordered: bool
    headers: list[str] | None
    values: list[list[str]] | None
    vault: str = "vault"  # vault2: a global filter, bullets, quotes, hidden and odd tasks
    this: str | None = None  # the note holding the query (its path)


def cases(language: str, half: str) -> list[Case]:
    """`language`: dataview | tasks; `half`: train | heldout."""
    raw = yaml.safe_load((DATA / f"{language}_{half}.yaml").read_text(encoding="utf-8"))
    return [
        Case(
            id=c["id"],
            query=c["query"],
            rows=[str(r) for r in c["rows"]] if "rows" in c else None,
            groups=[(str(k), [str(r) for r in rs]) for k, rs in c["groups"]]
            if "groups" in c
            else None,
            ordered=c.get("ordered", True),
            headers=c.get("headers"),
            values=[[str(v) for v in row] for row in c["values"]] if "values" in c else None,
            vault=c.get("vault", "vault"),
            this=c.get("this"),
        )
        for c in raw
    ]


def params(language: str, known: dict[str, str]) -> list[Any]:
    """Both halves as pytest params (`train-dv-t01`); `known`: held-out failures, xfail strict."""
    import pytest

    out: list[Any] = []
    for half in ("train", "heldout"):
        for case in cases(language, half):
            marks = []
            if case.id in known:
                marks.append(pytest.mark.xfail(reason=known[case.id], strict=True))
            out.append(pytest.param(case, id=f"{half}-{case.id}", marks=marks))
    return out


class Vaults:
    """The sets' vaults, each copied under `dest` and indexed as the TUI and MCP server index
    (hash embedder: no model) when a case first asks for it."""

    def __init__(self, dest: Path) -> None:
        self.dest = dest
        self.runtimes: dict[str, VaultRuntime] = {}
        self.held: dict[str, DataviewService] = {}

    def runtime(self, name: str) -> VaultRuntime:
        if name not in self.runtimes:
            vault = self.dest / name
            shutil.copytree(DATA / name, vault)
            runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=False)
            runtime.start()
            assert runtime.worker.wait_idle(120)
            self.runtimes[name] = runtime
        return self.runtimes[name]

    def services(self, name: str) -> tuple[DataviewService, DataviewService]:
        """A new service (a fresh `kbtui dataview` process: pages built with only what the
        query reads) and the vault's long-lived one (the TUI's, the MCP server's: from its
        third query it holds whole pages)."""
        runtime = self.runtime(name)
        if name not in self.held:
            self.held[name] = DataviewService(runtime.kb.store, runtime.settings.vault)
        return DataviewService(runtime.kb.store, runtime.settings.vault), self.held[name]

    def close(self) -> None:
        for runtime in self.runtimes.values():
            runtime.close()


def _name(path: str) -> str:
    return Path(path).stem


def _shown(v: Any) -> str:
    from kbtui.dataview.text import to_string
    from kbtui.dataview.values import Link

    if isinstance(v, Link):
        return v.display or v.file_title()
    return to_string(v)


def _task_tokens(items: list[Any]) -> list[str]:
    """The tkNN token of each top-level task (its sub-items left under it)."""
    out = []
    for item in items:
        found = TOKEN.search(item.get("text", ""))
        out.append(found.group(0) if found else item.get("text", "?"))
    return out


def run_dataview(vaults: Vaults, case: Case) -> dict[str, Any]:
    """What kbtui answers, in the case's shape: rows, groups, headers, values; asked in a
    fresh service and in a long-lived one, which must agree."""
    fresh, held = vaults.services(case.vault)
    got = _dataview(fresh, case)
    again = _dataview(held, case)
    if again != got:
        return {"differs": f"a fresh process answers {got}, a long-lived one {again}"}
    return got


def _dataview(service: DataviewService, case: Case) -> dict[str, Any]:
    now = dt.datetime(TODAY.year, TODAY.month, TODAY.day, 9, 0)
    _q, result, _raw = service.query(case.query, case.this, now=now)
    if result.kind == "task":
        items = result.tasks
        if items and "key" in items[0] and "rows" in items[0] and "path" not in items[0]:
            return {"groups": [(_shown(g["key"]), _task_tokens(g["rows"])) for g in items]}
        return {"rows": _task_tokens(items)}
    if result.meaning.group is not None and result.show_id:  # WITHOUT ID: rows by column
        groups = [
            (_shown(r.id), [_name(p) for p in dict.fromkeys(p for p, _ in r.sources)])
            for r in result.rows
        ]
        return {"groups": groups}
    rows = []
    values = []
    for r, vals in zip(result.rows, result.values, strict=True):
        shown = [_shown(v) for v in vals]
        if result.show_id:
            rows.append(_shown(r.id))
            values.append(shown)
        else:
            rows.append(shown[0] if shown else "")
            values.append(shown[1:])
    return {"rows": rows, "values": values, "headers": list(result.headers)}


def run_tasks(vaults: Vaults, case: Case) -> dict[str, Any]:
    """The tasks kbtui answers, in the case's shape; asked as a fresh process's first query
    (only the rows of the statuses the query keeps are read) and again from the running
    process's tasks, which must agree."""
    from kbtui.tools.obsidian import tasks_query

    runtime = vaults.runtime(case.vault)
    key = str(runtime.settings.vault)
    tasks_query._CACHE.pop(key, None)  # as a new process starts: nothing read yet
    tasks_query._SEEN.discard(key)
    got = _tasks(runtime, case)
    for _ in range(2):  # read whole, then numbered in the default order (kept tasks)
        again = _tasks(runtime, case)
        if again != got:
            return {"differs": f"a fresh process answers {got}, a running one {again}"}
    return got


def _tasks(runtime: VaultRuntime, case: Case) -> dict[str, Any]:
    args = {"query": case.query, "today": TODAY.isoformat(), "this": case.this}
    answer = runtime.call("app_tasks_query", args)
    if not answer.get("ok", True) or "results" not in answer:
        raise RuntimeError(str(answer.get("message") or answer))
    found = answer["results"]
    tokens = _task_tokens(found)
    if not any("group" in t for t in found):
        return {"rows": tokens}
    groups: list[tuple[str, list[str]]] = []
    for t, token in zip(found, tokens, strict=True):
        key = " / ".join(HIDDEN.sub("", n).strip() for n in t.get("group", []))
        if not groups or groups[-1][0] != key:
            groups.append((key, []))
        groups[-1][1].append(token)
    return {"groups": groups}


def mismatch(case: Case, got: dict[str, Any]) -> str | None:
    """Why kbtui's answer differs from the expected one, or None when it matches."""
    if "differs" in got:
        return str(got["differs"])

    def same(want: list[str], have: list[str]) -> bool:
        return want == have if case.ordered else sorted(want) == sorted(have)

    if case.groups is not None:
        have = got.get("groups")
        if have is None:
            return f"expected groups, got rows {got.get('rows')}"
        if [k for k, _ in have] != [k for k, _ in case.groups]:
            return f"group keys {[k for k, _ in have]} != {[k for k, _ in case.groups]}"
        for (k, want), (_, rows) in zip(case.groups, have, strict=True):
            if not same(want, rows):
                return f"group {k}: {rows} != {want}"
        return None
    have_rows = got.get("rows")
    if have_rows is None:
        return f"expected rows, got groups {got.get('groups')}"
    if case.rows is not None and not same(case.rows, have_rows):
        return f"rows {have_rows} != {case.rows}"
    if case.headers is not None and got.get("headers") != case.headers:
        return f"headers {got.get('headers')} != {case.headers}"
    if case.values is not None and got.get("values") != case.values:
        return f"values {got.get('values')} != {case.values}"
    return None
