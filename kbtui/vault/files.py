"""Every file of the vault, notes or not (images, PDFs, canvases, .base files), with the facts
Obsidian Bases calls file.*; and whether a .base file can be read at all.

Kept apart from scan.py: the note scan decides what is parsed and embedded, this one only
what exists."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import yaml

from kbtui.vault.scan import IGNORED_DIRS

FileFacts = tuple[str, int, int, int, str | None]  # path, size, mtime_ns, ctime_ns, problem
VIEW_TYPES = ("table", "cards", "list", "map")
MAX_BASE_BYTES = 1024 * 1024
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def is_vault_file(rel_path: str) -> bool:
    """A file Obsidian lists: not in a hidden or tool folder, not hidden itself."""
    parts = rel_path.split("/")
    return not any(p.startswith(".") or p in IGNORED_DIRS for p in parts)


def scan_files(vault: Path, index_dir: Path | None = None) -> list[FileFacts]:
    """Facts of every vault file; folder symlinks are not followed (as the note scan)."""
    out: list[FileFacts] = []
    skip_dir = index_dir.resolve() if index_dir else None
    stack = [(str(vault), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # the note scan reports it
        for entry in entries:
            if entry.name.startswith(".") or entry.name in IGNORED_DIRS:
                continue
            rel = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if skip_dir is None or Path(entry.path).resolve() != skip_dir:
                        stack.append((entry.path, rel + "/"))
                    continue
                st = entry.stat(follow_symlinks=True)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                out.append(_facts(vault, rel, st))
    out.sort()
    return out


def stat_files(vault: Path, paths: list[str]) -> list[FileFacts]:
    """Facts of these vault paths that exist and are regular files."""
    out = []
    for rel in paths:
        try:
            st = (vault / rel).stat()
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and is_vault_file(rel):
            out.append(_facts(vault, rel, st))
    return out


def _facts(vault: Path, rel: str, st: os.stat_result) -> FileFacts:
    birth = getattr(st, "st_birthtime", None)
    ctime_ns = int(birth * 1e9) if birth else min(st.st_ctime_ns, st.st_mtime_ns)
    problem = base_problem(vault / rel) if rel.lower().endswith(".base") else None
    return (rel, st.st_size, st.st_mtime_ns, ctime_ns, problem)


def base_problem(path: Path) -> str | None:
    """Why a .base file cannot be shown (not YAML, not a mapping, an unknown view type), or
    None. The expressions inside are checked when a view runs (kbtui.bases)."""
    try:
        with path.open("rb") as fh:
            data = yaml.load(fh.read(MAX_BASE_BYTES), Loader=LOADER)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return f"not valid YAML{where}: {getattr(exc, 'problem', None) or exc}"
    if data is None:
        return None
    if not isinstance(data, dict):
        return "not a base: the YAML is not a mapping"
    views = data.get("views") or []
    if not isinstance(views, list):
        return "`views` is not a list"
    for view in views:
        kind = view.get("type", "table") if isinstance(view, dict) else None
        if kind not in VIEW_TYPES:
            return f"unknown view type {kind!r} (known: {', '.join(VIEW_TYPES)})"
    return None
