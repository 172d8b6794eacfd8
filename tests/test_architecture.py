"""The layout's rules, checked on kbtui's imports (an AST walk, as basic-memory does).

Every import counts: module level, inside functions, and type-only (`if TYPE_CHECKING:`).
- A package imports only its own modules and packages of lower layers (README, "How the code
  is laid out"): front ends -> runtime -> tools -> search | indexing -> store | vault | graph |
  embed -> tokenize | embed_opt | cells | memory -> models | config. Packages of one layer
  do not import each other.
- Only kbtui.store imports duckdb; only kbtui.tui imports textual.
- Inside store, tools and vault, the rooms (sub-packages) keep an order too (ROOMS): a room
  imports only lower rooms, never one beside it nor the modules that compose it (store.db's
  Store, tools' table). Strict ranks leave no cycle between rooms. Every room has a place.
- No import cycles among kbtui's modules outside the TUI.
- No package directory holds more than MAX_MODULES modules: a bigger room is split by job.
The checker runs on kbtui and, to show it can fail, on small trees with a wrong import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "kbtui"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("models", "config", "model_files"),
    ("tokenize", "embed_opt", "e5_convert", "cells", "memory", "interpreter", "textdiff"),
    ("embed", "embed_e5", "vault", "graph", "graphmap", "store"),
    ("search", "indexing", "bases", "tasksquery", "dataview"),
    ("tools",),
    ("runtime",),
    ("mcp", "tui"),
    ("cli",),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
ONLY = {"duckdb": "store", "textual": "tui"}  # third-party package -> the one package that may
# Inside a package: its rooms (sub-packages) and named modules, lowest first. "*" is every other
# module at the package's top: in store and tools they compose the rooms (the Store, the tool
# table); in vault they read notes, and the edit room builds on them.
ROOMS: dict[str, tuple[tuple[str, ...], ...]] = {
    "store": (("file",), ("side",), ("vectors", "graph", "queries", "history"), ("*",)),
    "tools": (
        ("envelope",),
        ("params", "parts"),
        ("contracts",),
        ("write",),
        ("graph", "obsidian"),
        ("notes", "review"),
        ("*",),
    ),
    "vault": (("obsidian", "attachments"), ("*",), ("edit",)),
}
FREE = ("tui",)  # Textual's screens and widgets message each other both ways
MAX_MODULES = 15


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every import in a file, relative ones resolved."""
    package = module_name(path, root)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:  # `from pkg import module` imports the module
                candidate = f"{base}.{alias.name}"
                found.append((node.lineno, candidate if _is_module(candidate, root) else base))
    return found


def _is_module(name: str, root: Path) -> bool:
    if not name.startswith(root.name + "."):
        return False
    rel = Path(*name.split(".")[1:])
    return (root / rel).with_suffix(".py").exists() or (root / rel / "__init__.py").exists()


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _room(module: str) -> str:
    """The room of a module inside its package: a named room or module, else "*"."""
    parts = module.split(".")
    named = {n for layer in ROOMS.get(_package(module), ()) for n in layer}
    return parts[2] if len(parts) > 2 and parts[2] in named else "*"


def _room_rank(package: str, room: str) -> int:
    return next(r for r, names in enumerate(ROOMS[package]) if room in names)


def _unplaced(root: Path) -> list[str]:
    """Rooms (sub-packages) that ROOMS does not place."""
    problems = []
    for folder in sorted(d for d in root.glob("*/*") if d.is_dir() and any(d.rglob("*.py"))):
        package, room = folder.parent.name, folder.name  # with or without an __init__.py
        if package in FREE:
            continue
        if room not in {n for layer in ROOMS.get(package, ()) for n in layer}:
            problems.append(f"kbtui.{package}.{room} has no place in ROOMS")
    return problems


def check(root: Path = ROOT) -> list[str]:
    """Every broken rule, as 'file:line: what'."""
    problems: list[str] = _unplaced(root)
    seen: set[tuple[int, str]] = set()
    graph: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        seen.clear()
        here = module_name(path, root)
        mine = _package(here)
        graph.setdefault(here, set())
        for line, target in imports_of(path, root):
            if (line, target) in seen:
                continue
            seen.add((line, target))
            where = f"{path.relative_to(root.parent)}:{line}"
            top = target.split(".")[0]
            if top in ONLY and ONLY[top] != mine:
                problems.append(f"{where}: {here} imports {top} (only kbtui.{ONLY[top]} may)")
            if top != root.name:
                continue
            theirs = _package(target)
            graph[here].add(target)
            if theirs == mine and mine in ROOMS:
                a, b = _room(here), _room(target)
                if a != b and _room_rank(mine, b) >= _room_rank(mine, a):
                    problems.append(
                        f"{where}: {here} (room {a}) imports {target} (room {b}): "
                        f"inside kbtui.{mine} imports go down the rooms only"
                    )
            if theirs == mine or not theirs:
                continue
            if mine not in RANK or theirs not in RANK:
                problems.append(f"{where}: kbtui.{mine or theirs} has no layer in LAYERS")
            elif RANK[theirs] >= RANK[mine]:
                problems.append(
                    f"{where}: {here} (layer {RANK[mine]}) imports {target} "
                    f"(layer {RANK[theirs]}): imports go down the layers only"
                )
    problems += [
        f"import cycle among: {', '.join(c)}" for c in cycles(graph, skip=f"{root.name}.tui")
    ]
    return problems


def cycles(graph: dict[str, set[str]], skip: str) -> list[list[str]]:
    """One cycle per strongly connected group of modules (Tarjan), modules under `skip` left out."""
    nodes = [n for n in graph if not n.startswith(skip)]
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt.startswith(skip) or nxt not in graph:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                found.append(sorted(group))

    for node in nodes:
        if node not in index:
            visit(node)
    return found


def test_kbtui_keeps_its_layers_and_has_no_cycles() -> None:
    assert check() == []


def test_every_package_has_a_layer() -> None:
    packages = {p.stem for p in ROOT.glob("*.py")} | {
        p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()
    }
    assert packages - {"__init__"} <= set(RANK)


def test_no_module_is_longer_than_400_lines() -> None:
    long = {
        str(p.relative_to(ROOT.parent)): n
        for p in ROOT.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}


def crowded(root: Path = ROOT) -> dict[str, int]:
    """Package directories holding more than MAX_MODULES modules (__init__ not counted)."""
    counts = {
        str(d.relative_to(root.parent)): len([p for p in d.glob("*.py") if p.name != "__init__.py"])
        for d in {p.parent for p in root.rglob("*.py")}
    }
    return {d: n for d, n in counts.items() if n > MAX_MODULES}


def test_no_package_holds_more_than_15_modules() -> None:
    assert crowded() == {}


def test_the_module_count_can_fail(tmp_path: Path) -> None:
    files = {f"store/m{i}.py": "" for i in range(MAX_MODULES)}
    assert crowded(_tree(tmp_path, files)) == {}
    assert crowded(_tree(tmp_path, {**files, "store/one_more.py": ""})) == {"kbtui/store": 16}


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "kbtui"
    for rel, text in {"__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(root).parents:
            (root / parent / "__init__.py").touch()
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (  # a lower layer importing a higher one
            {"store/db.py": "from kbtui.tools.envelope import ok\n", "tools/envelope.py": ""},
            "imports go down the layers only",
        ),
        (  # siblings of one layer
            {"search/a.py": "from kbtui.indexing import indexer\n", "indexing/indexer.py": ""},
            "imports go down the layers only",
        ),
        (  # a type-only import counts
            {
                "vault/parse.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from kbtui.runtime.shared import SharedVault\n",
                "runtime/shared.py": "",
            },
            "imports go down the layers only",
        ),
        ({"search/service.py": "import duckdb\n"}, "only kbtui.store may"),
        ({"tools/kb.py": "def f():\n    from textual.app import App\n"}, "only kbtui.tui may"),
        (  # a ring inside one package, type-only on one side
            {
                "tools/kb.py": "from kbtui.tools.graph import G\n",
                "tools/graph.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from kbtui.tools.kb import KB\n",
            },
            "import cycle among: kbtui.tools.graph, kbtui.tools.kb",
        ),
        ({"tools/a.py": "from . import b\n", "tools/b.py": "from .a import x\n"}, "import cycle"),
        ({"newroom/x.py": "from kbtui.models import M\n", "models.py": ""}, "has no layer"),
        (  # a lower room of store importing a higher one
            {
                "store/file/pool.py": "from kbtui.store.side.arrays import A\n",
                "store/side/arrays.py": "",
            },
            "inside kbtui.store imports go down the rooms only",
        ),
        (  # rooms of one rank, type-only
            {
                "store/graph/paths.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from kbtui.store.vectors import hnsw\n",
                "store/vectors/hnsw.py": "",
            },
            "inside kbtui.store imports go down the rooms only",
        ),
        (  # a room importing the module that composes it
            {"store/vectors/hnsw.py": "from kbtui.store.db import Store\n", "store/db.py": ""},
            "inside kbtui.store imports go down the rooms only",
        ),
        (  # a room importing its package's __init__
            {"store/side/state.py": "from kbtui.store import StoreError\n"},
            "inside kbtui.store imports go down the rooms only",
        ),
        (  # the tools' contracts importing a handler
            {"tools/contracts/kb.py": "from kbtui.tools import kb\n", "tools/kb.py": ""},
            "inside kbtui.tools imports go down the rooms only",
        ),
        (  # reading the vault importing the edit room
            {"vault/parse.py": "from kbtui.vault.edit.write import w\n", "vault/edit/write.py": ""},
            "inside kbtui.vault imports go down the rooms only",
        ),
        ({"store/cache/x.py": ""}, "kbtui.store.cache has no place in ROOMS"),
        ({"search/ranking/x.py": ""}, "kbtui.search.ranking has no place in ROOMS"),
    ],
)
def test_the_checker_catches_a_wrong_import(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    problems = check(_tree(tmp_path, files))
    assert any(expected in p for p in problems), problems


def test_the_checker_accepts_imports_that_go_down(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "models.py": "",
            "store/db.py": "import duckdb\nfrom kbtui.models import M\n"
            "from kbtui.store.vectors.hnsw import H\nfrom kbtui.store.file import pool\n",
            "tools/kb.py": "from kbtui.store.db import Store\nfrom . import envelope\n",
            "tools/envelope.py": "",
            "tui/app.py": "import textual\nfrom kbtui.tui import widgets\n",
            "tui/widgets.py": "from kbtui.tui.app import App\n",  # the TUI may have rings
            "tui/screens/note.py": "from kbtui.tui.app import App\n",  # and rooms of any order
            "store/__init__.py": "from kbtui.store.file.recover import E\n",
            "store/vectors/hnsw.py": "from kbtui.store.side.arrays import A\n"
            "from kbtui.store.file.recover import E\nfrom kbtui.store.vectors import build\n",
            "store/vectors/build.py": "",
            "store/side/arrays.py": "from kbtui.store.file.pool import P\n",
            "store/file/pool.py": "",
            "store/file/recover.py": "",
            "tools/params.py": "from kbtui.tools.envelope import ok\n",
            "tools/contracts/kb.py": "from kbtui.tools.params import P\n",
            "tools/graph/read.py": "from kbtui.tools.contracts import kb\n",
            "tools/registry.py": "from kbtui.tools.graph import read\nfrom kbtui.tools import kb\n",
            "vault/parse.py": "",
            "vault/edit/write.py": "from kbtui.vault.parse import parse\n",
        },
    )
    assert check(root) == []
