"""Bring the index in line with the vault: scan, diff, parse what changed, write, embed.

A pass is incremental: files whose size and mtime match the index are not read; files whose
bytes match are not parsed; chunks whose text matches an indexed chunk keep its vector.
Writing happens before embedding, so keyword search sees a change before its vectors exist.

A DuckDB connection is not safe for concurrent use from threads: a caller that shares the store
with other threads (the MCP server, the TUI) passes the one lock they all take. The indexer holds
it around each store call only, never while reading files or while the model embeds a batch, so
tool calls keep being answered during a long pass.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import Any

from kbtui.config import Settings
from kbtui.embed import Embedder
from kbtui.indexing.embedding import PendingEmbeddings
from kbtui.indexing.files_sync import sync_files
from kbtui.indexing.order import pass_order
from kbtui.indexing.pdf_notes import over_limit_changed, pdf_bytes, pdf_chunks, pdf_note
from kbtui.indexing.recovery import recover_writes
from kbtui.indexing.texts import TITLE_WEIGHT, content_hash, embed_text, keyword_text
from kbtui.models import FileState, IndexReport, NoteWrite, ParsedNote, Skipped
from kbtui.store import Store
from kbtui.store.history import History
from kbtui.tokenize import TOKENIZER_VERSION, term_counts
from kbtui.vault import scan
from kbtui.vault.canvas import is_canvas
from kbtui.vault.chunk import chunk_body, fixed_chunks, properties_chunk, with_properties
from kbtui.vault.decode import DecodeError, decode_note
from kbtui.vault.hidden import MARKUP, HiddenText
from kbtui.vault.meaning import Meaning
from kbtui.vault.names import ID_RULE_VERSION
from kbtui.vault.obsidian.tasks import VERSION as TASKS_VERSION
from kbtui.vault.parse import NoteError, parse_note
from kbtui.vault.scan import NotAFileError, is_note, read_note_bytes

Progress = Callable[[str, int, int], None]  # (phase, done, total)
WRITE_BATCH = 200
MAX_NOTE_BYTES = 10 * 1024 * 1024
CHUNKER_VERSION = "2"  # bump when kbtui.vault.chunk cuts differently (2: canvas cards apart)
# Bump when what a chunk shows, embeds or indexes changes (kbtui.vault.hidden, plain.py):
# 2 = without comments and HTML markup; 3 = code/data chunks not embedded; 4 = properties;
# 5 = field lines not embedded (plain.prose_text); 6 = what Dataview reads (inline fields, list
# items: kbtui.vault.obsidian.dv_facts), kept in dv_pages and dv_items; 7 = how often each tag
# is written (file_tags.uses).
TEXT_VERSION = "7"
INDEX_VERSION_KEY = "index_text_version"
KEYWORD_HIDDEN = frozenset({MARKUP})  # what BM25 leaves out of a chunk


def index_version(settings: Settings) -> str:
    """Everything that decides what a note's chunks and BM25 terms are.

    Recorded in the index after each whole-vault pass; when it differs (a new kbtui, other
    chunk settings, a new id rule), the next pass re-reads every note: ids change once, usage
    follows them (`replaces`) and links are resolved again. Chunks whose text
    did not change keep their vectors (content hash), so only new text is embedded.
    """
    return (
        f"tok{TOKENIZER_VERSION}-title{TITLE_WEIGHT}-chunk{CHUNKER_VERSION}-"
        f"text{TEXT_VERSION}-{settings.chunk_size}/{settings.chunk_overlap}-ids{ID_RULE_VERSION}"
        f"-tasks{TASKS_VERSION}"
    )


@dataclass
class _PlanState:
    """What id decisions carry from one group of notes to the next within a pass."""

    owner: dict[str, str]  # entity id -> the path that holds it
    gone_by_hash: dict[str, str]  # file hash -> indexed path that no longer exists


@dataclass
class _Read:
    path: str
    state: FileState
    file_hash: str
    note: ParsedNote


class Indexer:
    """Owns one indexing pass over a vault; front ends call `run()` and show the report."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        embedder: Embedder | None,
        progress: Progress | None = None,
        lock: AbstractContextManager[Any] | None = None,
        write_batch: int = WRITE_BATCH,
        history: History | None = None,
    ) -> None:
        """`write_batch`: notes read and written per store transaction. The rows do not
        depend on it; a bigger one suits a bulk build with nobody waiting on the lock (a
        million-chunk bench index), since each write scans tables that grow with the index."""
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.progress = progress or (lambda phase, done, total: None)
        # Our own lock when none is shared: a long pass embeds on a second thread.
        self.lock: AbstractContextManager[Any] = lock if lock is not None else threading.RLock()
        self.files_seen: int | None = None  # notes the last whole-vault scan found
        self.write_batch = max(1, write_batch)
        self.text_written = False  # this pass wrote all its text: only vectors are left
        self.history = history  # bytes read go to the notes' history: other programs' edits

    def run(self, embed: bool = True, paths: list[str] | None = None) -> IndexReport:
        """Index the whole vault, or only these vault-relative `paths` (e.g. a note just
        written by a tool): a path that no longer exists is removed from the index."""
        started = time.perf_counter()
        report = IndexReport()
        self.text_written = False
        # A note a killed writer left renamed aside is put back first: not seen as deleted.
        recover_writes(self.settings.vault, self.settings.index_dir, self.history)
        with self.lock:
            known = self.store.note_states()
            version = index_version(self.settings)
            stale_text = bool(known) and self.store.meta(INDEX_VERSION_KEY) != version
            if not known and paths is None:  # a first pass: every note it writes is current,
                self.store.set_meta(INDEX_VERSION_KEY, version)  # so a resumed one reads none
        scope = known
        if paths is None:
            files, problems = scan.scan_vault(
                self.settings.vault, self.settings.index_dir, scan.INDEXED_SUFFIXES
            )
            report.skipped.extend(problems)
            self.files_seen = len(files)
        else:
            files = scan.stat_files(
                self.settings.vault, [p for p in paths if not scan.is_ignored(p)]
            )
            scope = {p: known[p] for p in paths if p in known}
        force = stale_text and paths is None
        todo = self._to_read(files, known, report, force)
        missing = {p: scope[p] for p in scope if p not in files}
        plan = _PlanState(
            owner={v[0]: p for p, v in known.items() if p not in todo and p not in missing},
            gone_by_hash={v[3]: p for p, v in missing.items()},
        )
        # Read, chunk and write a group at a time, the newest notes first: on a fresh vault,
        # keyword search answers from the first group on, and a long pass embeds beside the
        # text pass from then on (kbtui.indexing.embedding) instead of after every note.
        paths_todo, bounds = pass_order(todo, self.write_batch)  # notes, attachments, PDFs
        beside: PendingEmbeddings | None = None
        bytes_left, bytes_done = sum(s.size for s in paths_todo), 0  # the embed bar's total
        try:
            for i, j in bounds:
                group = paths_todo[i:j]
                reads = self._read(group, known, report, force, i, len(paths_todo))
                writes = self._plan(reads, known, missing, report, plan)
                with self.lock:
                    self.store.write_notes(writes)
                self.progress("write", j, len(paths_todo))
                bytes_done += sum(s.size for s in group)
                if beside is None and embed and self.embedder is not None and j < len(paths_todo):
                    beside = self._pending_embeddings()
                    beside.start()
                if beside is not None:
                    beside.check()
                    beside.written(bytes_done, bytes_left - bytes_done)
            broken = {s.path for s in report.skipped}
            gone = {p: scope[p] for p in scope if p not in files or p in broken}
            renamed_from = {old for old, _ in report.renamed}
            stale = [eid for path, (eid, *_rest) in gone.items() if path not in renamed_from]
            report.deleted.extend(p for p in gone if p not in renamed_from)
            if stale:
                with self.lock:
                    self.store.delete_notes(stale)
                if self.history is not None:
                    self.history.observe_deleted(p for p in gone if p not in renamed_from)
            if paths is None:
                with self.lock:
                    self.store.set_meta(INDEX_VERSION_KEY, version)
            sync_files(self.settings, self.store, self.lock, report, paths)
            self.text_written = True
            if beside is not None:
                beside.finish()
        except BaseException:
            if beside is not None:  # no thread may go on embedding (or sit in the model)
                beside.cancel()
            raise
        finally:
            if beside is not None:
                report.chunks_embedded += beside.done
        if beside is None and embed and self.embedder is not None:
            self.embed_pending(report)
        report.seconds = time.perf_counter() - started
        return report

    def _pending_embeddings(self) -> PendingEmbeddings:
        assert self.embedder is not None
        return PendingEmbeddings(self.store, self.embedder, self.lock, self.progress, embed_text)

    def embed_pending(self, report: IndexReport | None = None) -> int:
        """Embed every chunk waiting for a vector, the most recently modified notes first,
        each batch committed on its own (kbtui.indexing.embedding)."""
        run = self._pending_embeddings()
        try:
            return run.run()
        finally:
            if report is not None:
                report.chunks_embedded += run.done

    def _to_read(
        self,
        files: dict[str, FileState],
        known: dict[str, tuple[str, int, int, str]],
        report: IndexReport,
        force: bool,
    ) -> dict[str, FileState]:
        """New and changed files by stat (every file with `force`), in path order."""
        max_mb = self.settings.max_pdf_mb
        todo = {
            p: s
            for p, s in sorted(files.items())
            if force
            or p not in known
            or (known[p][1], known[p][2]) != (s.size, s.mtime_ns)
            or over_limit_changed(p, known[p][3], s.size, max_mb)
        }
        report.unchanged += len(files) - len(todo)
        return todo

    def _read(
        self,
        todo: list[FileState],
        known: dict[str, tuple[str, int, int, str]],
        report: IndexReport,
        force: bool,
        offset: int,
        total: int,
    ) -> list[_Read]:
        """Read and parse these files; unchanged bytes (a touch) only update the stat."""
        reads: list[_Read] = []
        seen: list[tuple[str, bytes]] = []  # notes' bytes for the history
        for n, state in enumerate(todo, offset + 1):
            self.progress("read", n, total)
            try:
                pdf, max_mb = not is_note(state.path), self.settings.max_pdf_mb  # or attachment
                if pdf:
                    data, file_hash = pdf_bytes(self.settings.vault, state, max_mb)
                else:
                    data = read_note_bytes(self.settings.vault / state.path, MAX_NOTE_BYTES)
                    if len(data) > MAX_NOTE_BYTES:  # it grew after the stat
                        raise NoteError(f"too large (over {MAX_NOTE_BYTES / 1e6:.0f} MB)")
                    file_hash = hashlib.blake2b(data, digest_size=16).hexdigest()
                old = known.get(state.path)
                if old is not None and old[3] == file_hash and not force:
                    with self.lock:
                        self.store.touch_note(old[0], state.size, state.mtime_ns)
                    report.unchanged += 1
                    continue
                if pdf:
                    note, warning = pdf_note(state, data, max_mb), None
                else:
                    assert data is not None
                    text, warning = decode_note(data)
                    note = parse_note(state.path, text)
            except (DecodeError, NoteError) as exc:
                report.skipped.append(Skipped(state.path, str(exc)))
                continue
            except NotAFileError as exc:
                report.skipped.append(Skipped(state.path, str(exc)))
                continue
            except OSError as exc:
                report.skipped.append(Skipped(state.path, f"cannot read: {exc.strerror or exc}"))
                continue
            except RecursionError:
                report.skipped.append(Skipped(state.path, "markdown nested too deeply to parse"))
                continue
            for message in ([warning] if warning else []) + list(note.warnings):
                report.warnings.append(Skipped(state.path, message))
            reads.append(_Read(state.path, state, file_hash, note))
            if data is not None and not pdf:
                seen.append((state.path, data))
        if self.history is not None and seen:  # undoable by kbtui: one transaction a group
            self.history.observe(seen)
        return reads

    def _plan(
        self,
        reads: list[_Read],
        known: dict[str, tuple[str, int, int, str]],
        missing: dict[str, tuple[str, int, int, str]],
        report: IndexReport,
        plan: _PlanState,
    ) -> list[NoteWrite]:
        """Decide ids (renames, collisions) and chunk every read note."""
        owner, gone_by_hash = plan.owner, plan.gone_by_hash
        writes: list[NoteWrite] = []
        for r in reads:
            note = r.note
            replaces: list[str] = []
            if r.path in known:
                report.changed.append(r.path)
                if known[r.path][0] != note.entity_id:
                    replaces.append(known[r.path][0])
            elif r.file_hash in gone_by_hash:  # same bytes at a new path: a rename or move
                old_path = gone_by_hash.pop(r.file_hash)
                report.renamed.append((old_path, r.path))
                if missing[old_path][0] != note.entity_id:
                    replaces.append(missing[old_path][0])
            else:
                report.new.append(r.path)
            # An id another note took earlier in this pass (ids shuffled by a new id rule) is
            # theirs now: replacing it would delete that note.
            replaces = [old for old in replaces if owner.get(old, r.path) == r.path]
            if note.entity_id in owner and owner[note.entity_id] != r.path:
                other = owner[note.entity_id]
                new_id = f"{note.entity_id}_{hashlib.sha1(r.path.encode()).hexdigest()[:6]}"
                report.warnings.append(
                    Skipped(
                        r.path,
                        f"id {note.entity_id} is already used by {other}; indexed as {new_id}",
                    )
                )
                note = _with_id(note, new_id)
            owner[note.entity_id] = r.path
            writes.append(self._chunked(r, note, tuple(replaces)))
        return writes

    def _chunked(self, r: _Read, note: ParsedNote, replaces: tuple[str, ...]) -> NoteWrite:
        size, overlap = self.settings.chunk_size, self.settings.chunk_overlap
        fm_size, fm_overlap = (
            note.frontmatter.get("chunk_size"),
            note.frontmatter.get("chunk_overlap"),
        )
        if isinstance(fm_size, int) and isinstance(fm_overlap, int) and 0 <= fm_overlap < fm_size:
            size, overlap = fm_size, fm_overlap  # notes written by knowledge_import keep theirs
        pdf = not is_note(note.path)  # a PDF or an attachment
        if pdf:
            chunks = pdf_chunks(note, size, overlap)
        elif note.frontmatter.get("chunk_mode") == "fixed":
            chunks = fixed_chunks(note.body, size, overlap)
        else:
            chunks = chunk_body(note.body, note.sections, size, overlap, is_canvas(note.path))
        if not chunks and not pdf:
            props = properties_chunk(note.frontmatter)
            chunks = [props] if props is not None else []
        hidden = HiddenText(note.body, note.blocks)
        meaning = Meaning(note.body, note.blocks)
        # A properties chunk (empty span) is not body text: nothing of it is hidden.
        shown = [hidden.shown(c.start, c.end) if c.end > c.start else c.content for c in chunks]
        searched = [
            hidden.shown(c.start, c.end, KEYWORD_HIDDEN) if c.end > c.start else c.content
            for c in chunks
        ]
        searched = searched if pdf else with_properties(searched, chunks, note.frontmatter)
        heads = ["" if pdf else c.heading for c in chunks]  # a PDF's `p. N` is no context
        texts = [embed_text(note.title, h, v) for h, v in zip(heads, shown, strict=True)]
        counted = [
            term_counts(keyword_text(note.title, h, v))
            for h, v in zip(heads, searched, strict=True)
        ]
        return NoteWrite(
            note=note,
            state=r.state,
            file_hash=r.file_hash,
            chunk_size=size,
            chunk_overlap=overlap,
            chunks=tuple(chunks),
            chunk_hashes=tuple(content_hash(t) for t in texts),
            chunk_terms=tuple(dict(c) for c, _ in counted),
            chunk_lengths=tuple(n for _, n in counted),
            replaces=replaces,
            # "" when nothing is hidden; " " when everything is (still not the content).
            chunk_shown=tuple(
                "" if v == c.content else v if v.strip() else " "
                for c, v in zip(chunks, shown, strict=True)
            ),
            chunk_not_embedded=tuple(meaning.reason(c.start, c.end) or "" for c in chunks),
        )


def _with_id(note: ParsedNote, entity_id: str) -> ParsedNote:
    return replace(note, entity_id=entity_id, name=entity_id.split(":", 1)[1])
