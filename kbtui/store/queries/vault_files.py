"""The vault's files and the facts a base reads (kbtui/bases): file.* for every file, and each
note's properties, tags and links in one read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import duckdb
import numpy as np

from kbtui.store.queries.base_rows import BaseRowQueries
from kbtui.store.queries.dv_rows import DataviewQueries


class VaultFileQueries(BaseRowQueries, DataviewQueries):
    """Mixed into Store."""

    con: duckdb.DuckDBPyConnection
    generation: int
    transaction: Callable[..., AbstractContextManager[None]]  # StoreAccess'

    def replace_vault_files(
        self, rows: Sequence[tuple[str, int, int, int, str | None]], paths: Sequence[str] = ()
    ) -> None:
        """Write (path, size, mtime_ns, ctime_ns, problem) rows: all of them when `paths` is
        empty (a whole-vault scan), else only those paths (a watcher batch; a path without a
        row is gone). One transaction, beside readers (file/access.py)."""
        try:
            with self.transaction(beside_readers=True):
                self._write_vault_files(rows, paths)
        finally:  # under the read lock again
            self.generation += 1

    def _write_vault_files(
        self, rows: Sequence[tuple[str, int, int, int, str | None]], paths: Sequence[str]
    ) -> None:
        if paths:
            self.con.execute("DELETE FROM vault_files WHERE list_contains($p, path)",
                             {"p": list(paths)})  # fmt: skip
        else:
            self.con.execute("DELETE FROM vault_files")
        if rows:
            cols = list(zip(*rows, strict=True))
            table = {
                "path": np.asarray(cols[0], dtype=np.str_),
                "size": np.asarray(cols[1], dtype=np.int64),
                "mtime_ns": np.asarray(cols[2], dtype=np.int64),
                "ctime_ns": np.asarray(cols[3], dtype=np.int64),
                "problem": np.asarray([p or "" for p in cols[4]], dtype=np.str_),
            }
            self.con.register("_vf", table)
            try:
                self.con.execute(
                    "INSERT INTO vault_files SELECT path::VARCHAR, size, mtime_ns, ctime_ns, "
                    "nullif(problem::VARCHAR, '') FROM _vf"
                )
            finally:
                self.con.unregister("_vf")

    def vault_file_rows(self) -> list[tuple[str, int, int, int]]:
        """(path, size, mtime_ns, ctime_ns) of every file the last scan found."""
        rows = self.con.execute(
            "SELECT path, size, mtime_ns, ctime_ns FROM vault_files ORDER BY path"
        ).fetchall()
        return [(r[0], int(r[1]), int(r[2]), int(r[3])) for r in rows]

    def vault_file_problems(self) -> list[tuple[str, str]]:
        """(path, why) of every vault file that cannot be read as what it is (a broken .base)."""
        rows = self.con.execute(
            "SELECT path, problem FROM vault_files WHERE problem IS NOT NULL ORDER BY path"
        ).fetchall()
        return [(r[0], r[1]) for r in rows]

    def base_note_rows(self, paths: Sequence[str] | None = None) -> list[tuple[Any, ...]]:
        """(path, frontmatter JSON text, size, mtime_ns, created_at epoch ms, title, aliases,
        tags as written, [(target, rel, heading)], entity id) of every note (or of the notes at
        `paths`), links in the order they were written. Three plain scans grouped here: ~3x
        faster than list() aggregates in one query."""
        where, params = ("", {}) if paths is None else (
            "WHERE list_contains($p, path)", {"p": list(paths)})  # fmt: skip
        notes = self.con.execute(
            f"""SELECT entity_id, path, frontmatter::VARCHAR, size, mtime_ns,
                      epoch_ms(created_at::TIMESTAMP), title, aliases FROM notes {where}
                ORDER BY path""",
            params,
        ).fetchall()
        ids = {"e": [n[0] for n in notes]}
        only = "" if paths is None else "WHERE list_contains($e, entity_id)"
        tags: dict[str, list[str]] = {}  # as written: Bases' file.tags
        for eid, tag in self.con.execute(
            f"SELECT entity_id, tag FROM file_tags {only} ORDER BY entity_id, pos",
            ids if only else {},
        ).fetchall():
            tags.setdefault(eid, []).append(tag)
        links: dict[str, list[tuple[str, str, str]]] = {}
        for eid, *link in self.con.execute(
            f"SELECT entity_id, target, rel, heading FROM links {only} ORDER BY rowid",
            ids if only else {},
        ).fetchall():
            links.setdefault(eid, []).append(tuple(link))
        return [(*n[1:], tags.get(n[0], []), links.get(n[0], []), n[0]) for n in notes]

    def base_note_states(self) -> dict[str, tuple[str, int]]:
        """path -> (content hash, when indexed) of every note: what changed since a read."""
        rows = self.con.execute(
            "SELECT path, file_hash, epoch_us(indexed_at::TIMESTAMP) FROM notes"
        ).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def paths_with_base_blocks(self) -> list[str]:
        """Vault paths of the notes holding a ```base code block."""
        return self.paths_with_code_blocks(("base",))

    def paths_with_code_blocks(self, languages: Sequence[str]) -> list[str]:
        """Vault paths of the notes whose text holds a code fence (```x or ~~~x) of one of
        `languages`: the candidates; the caller parses each note to be sure."""
        fences = [f"%{fence}{language}%" for language in languages for fence in ("```", "~~~")]
        if not fences:
            return []
        rows = self.con.execute(
            "SELECT DISTINCT n.path FROM chunks c JOIN notes n USING (entity_id) WHERE "
            + " OR ".join("c.content LIKE ?" for _ in fences)
            + " ORDER BY 1",
            fences,
        ).fetchall()
        return [r[0] for r in rows]
