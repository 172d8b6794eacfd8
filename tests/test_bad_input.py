"""A corpus of hostile notes beside vault_example: each gets a clear reason (or is indexed
right), nothing crashes or hangs, and every other note still indexes. Real files, a real
DuckDB index; the CLI run proves the user sees reasons, not a traceback."""

from __future__ import annotations

import codecs
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.models import IndexReport
from kbtui.runtime.knowledge_base import KnowledgeBase
from kbtui.store import Store
from kbtui.vault.decode import DecodeError, decode_note
from kbtui.vault.parse import ID_RE, NoteError, parse_note
from tests.conftest import REPO, copy_vault

KEPANO = Path("/work/shared/data/vaults/kepano/Templates")
KEPANO_BAD = ("Book Template.md", "Journal Template.md", "Movie Template.md")
NOBODY = 65534


def hostile_vault(root: Path) -> Path:
    """vault_example plus the hostile notes under hostile/."""
    vault = copy_vault(root / "vault")
    h = vault / "hostile"
    h.mkdir()
    (h / "cp1252.md").write_bytes(
        "---\ntitle: Café\n---\nNaïve café – “quotes”.\n".encode("cp1252")
    )
    (h / "utf16.md").write_bytes("# Ünïcode sixteen\n\nWritten by Notepad.\n".encode("utf-16"))
    (h / "bom_crlf.md").write_bytes(b"\xef\xbb\xbf---\r\ntitle: Bom Crlf\r\n---\r\nLine one.\r\n")
    (h / "cut.md").write_bytes("# Cut\n\nThe write stopped in the middle of é".encode()[:-1])
    for name in KEPANO_BAD:
        if (KEPANO / name).is_file():
            shutil.copyfile(KEPANO / name, h / name)
    with (h / "huge.md").open("wb") as fh:  # 50 MB of text
        fh.write(b"# Huge\n\n" + b"many words of text\n" * (50 * 2**20 // 19))
    (h / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)
    os.symlink("loop_b.md", h / "loop_a.md")
    os.symlink("loop_a.md", h / "loop_b.md")
    os.symlink("..", h / "folder_loop")  # a folder symlink back up: must not be walked
    os.symlink("/nonexistent/gone.md", h / "dangling.md")
    os.mkfifo(h / "fifo.md")  # reading it would block forever
    (h / "unreadable.md").write_text("# Secret\n")
    (h / "unreadable.md").chmod(0)
    (h / "vanishing.md").write_text("# Here at scan time\n")
    (h / "nested.md").write_text("# Nested\n\n" + "- " * 10_000 + "deep item\n\n" + ">" * 10_000)
    links = " ".join(f"[[target {i}]]" for i in range(100_000))
    (h / "links.md").write_text(f"# Many links\n\n{links}\n")
    return vault


@contextmanager
def file_access_as(uid: int) -> Iterator[None]:
    """Make this thread's file access checks those of `uid`: root reads a chmod 000 file,
    so as root the test drops CAP_DAC_OVERRIDE for file access (Linux setfsuid)."""
    if os.geteuid() != 0:
        yield
        return
    for encoding in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "cp1252"):
        codecs.lookup(encoding)  # Python's own modules (under /root) stay importable
    libc = ctypes.CDLL(None, use_errno=True)
    libc.setfsuid(uid)
    try:
        yield
    finally:
        libc.setfsuid(0)


def index(vault: Path) -> IndexReport:
    settings = Settings.for_vault(vault)
    settings.index_dir.mkdir(exist_ok=True)
    settings.index_dir.chmod(0o777)  # DuckDB's WAL is created and removed as nobody too
    store = Store(settings.db_path)

    def vanish(phase: str, done: int, total: int) -> None:
        # Called before each read: the file is deleted after the scan, before its read.
        if phase == "read" and (vault / "hostile" / "vanishing.md").exists():
            (vault / "hostile" / "vanishing.md").unlink()

    try:
        with file_access_as(NOBODY):
            return Indexer(settings, store, HashEmbedder(), progress=vanish).run()
    finally:
        store.close()


@pytest.fixture(scope="module")
def hostile() -> Iterator[tuple[Path, IndexReport]]:
    # Not under pytest's tmp folder: that is 0700 root, which the fsuid of nobody cannot enter.
    root = Path(tempfile.mkdtemp(prefix="kbtui-hostile-"))
    root.chmod(0o755)
    vault = hostile_vault(root)
    for folder in (vault, *[p for p in vault.rglob("*") if p.is_dir() and not p.is_symlink()]):
        folder.chmod(0o777)
    for path in vault.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.name != "unreadable.md":
            path.chmod(0o644)
    yield vault, index(vault)
    shutil.rmtree(root, ignore_errors=True)


def test_each_hostile_note_gets_a_clear_reason(hostile: tuple[Path, IndexReport]) -> None:
    _, report = hostile
    skipped = {s.path.removeprefix("hostile/"): s.reason for s in report.skipped}
    expected = {
        "huge.md": "too large (52.4 MB; the limit is 10 MB)",
        "binary.md": "binary file (contains NUL bytes)",
        "loop_a.md": "cannot stat: Too many levels of symbolic links",
        "loop_b.md": "cannot stat: Too many levels of symbolic links",
        "dangling.md": "cannot stat: No such file or directory",
        "fifo.md": "not a regular file (a FIFO)",
        "unreadable.md": "cannot read: Permission denied",
        "vanishing.md": "cannot read: No such file or directory",
    }
    for name, reason in expected.items():
        assert skipped.get(name) == reason, (name, skipped.get(name))
    for name in KEPANO_BAD:  # `created: {{date}}` is a template placeholder, not bad YAML
        assert name not in skipped, skipped.get(name)
    assert not any(p.startswith("hostile/folder_loop") for p in skipped)
    warnings = {w.path.removeprefix("hostile/"): w.reason for w in report.warnings}
    assert warnings["cp1252.md"] == "not UTF-8; decoded as Windows-1252"
    assert warnings["cut.md"] == "file ends mid-character (truncated UTF-8)"


def test_the_rest_of_the_vault_indexes_and_reads_right(hostile: tuple[Path, IndexReport]) -> None:
    vault, _ = hostile
    kb = KnowledgeBase.open(Settings.for_vault(vault), HashEmbedder())
    try:
        kepano = sum((KEPANO / name).is_file() for name in KEPANO_BAD)
        # vault_example (its invalid_yaml.md indexed by its body since issue 19, Dashboards/ since
        # issue 41), six hostile
        assert kb.store.note_count() == 64 + 6 + kepano
        assert "Links like" in kb.call("kb_get", {"id": "broken:invalid_yaml"})["content"]
        if kepano:
            book = kb.call("kb_get", {"id": "hostile:book_template"})
            assert book["ok"] and book["metadata"]["created"] == "{{date}}", book
        assert kb.call("kb_get", {"id": "person:andrei_clodius"})["ok"]
        cafe = kb.call("kb_get", {"id": "hostile:cp1252"})
        assert cafe["title"] == "Café" and "Naïve café – “quotes”." in cafe["content"]
        assert "Ünïcode sixteen" in kb.call("kb_get", {"id": "hostile:utf16"})["content"]
        crlf = kb.call("kb_get", {"id": "hostile:bom_crlf"})
        assert crlf["title"] == "Bom Crlf" and crlf["content"] == "Line one."
        cut = kb.call("kb_get", {"id": "hostile:cut"})["content"]
        assert cut.endswith("in the middle of")
        assert "deep item" in kb.call("kb_get", {"id": "hostile:nested"})["content"]
        many = kb.call("kg_get_entity", {"entityId": "hostile:links"})
        assert many["ok"], many
        assert kb.call("kb_search", {"query": "target 99999", "mode": "keyword"})["ok"]
    finally:
        kb.close()
    assert (vault / "hostile" / "huge.md").stat().st_size > 50 * 10**6  # never modified


def test_the_cli_reports_reasons_not_a_traceback(hostile: tuple[Path, IndexReport]) -> None:
    vault, _ = hostile  # indexed already: the broken notes are read and reported again
    proc = subprocess.run(
        [sys.executable, "-m", "kbtui.cli", "index", "--no-embed", "--json", "--vault", str(vault)],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    reasons = {s["path"]: s["reason"] for s in report["skipped"]}
    assert reasons["hostile/fifo.md"] == "not a regular file (a FIFO)"
    assert reasons["hostile/binary.md"] == "binary file (contains NUL bytes)"
    assert reasons["hostile/huge.md"].startswith("too large")
    assert set(report["new"]) <= {"hostile/unreadable.md"}  # root reads it outside the test
    assert report["deleted"] == [] and report["changed"] == []


# -- any bytes at all: decoded and parsed, or refused with a reason; never another error ----
EXAMPLES = int(os.environ.get("KBTUI_FUZZ_EXAMPLES", "300"))
FRAGMENTS = (
    "---\n", "id: person:x\n", "title: [unclosed\n", "tags: {a: [b\n", "aliases:\n  - ",
    "[[", "]]", "![[", "|", "#", "#tag ", "`", "```\n", "> ", "- ", "1. ", "\n", "\r\n",
    "*", "_", "<div>", "&amp;", "\\", ": ", "{{date}}", "é", "\ufeff", "\x00", "\ud7ff",
)  # fmt: skip
note_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=12), max_size=60).map("".join)
note_bytes = st.binary(max_size=2048) | note_text.flatmap(
    lambda t: st.sampled_from(("utf-8", "utf-16", "cp1252", "latin-1")).map(
        lambda enc: t.encode(enc, errors="replace")
    )
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=note_bytes)
def test_any_bytes_are_a_note_or_a_reason(data: bytes) -> None:
    try:
        text, _ = decode_note(data)
        note = parse_note("folder/any note.md", text)
    except (DecodeError, NoteError) as exc:
        assert str(exc)  # a reason the user can read
        return
    assert ID_RE.match(note.entity_id) and "\r" not in note.body


# -- a refused write changes nothing --------------------------------------------------------
@pytest.mark.parametrize("label", ["a]]b", "[[z", "line\nbreak", "x]"])
def test_a_relationship_label_that_would_break_the_link_is_refused(
    tmp_path: Path, label: str
) -> None:
    """It used to be written into the note as a broken [[link]] and then reported as an
    error, leaving the user's note damaged."""
    vault = copy_vault(tmp_path / "vault")
    note = vault / "people" / "sofia_marquez.md"
    before = note.read_bytes()
    kb = KnowledgeBase.open(Settings.for_vault(vault), HashEmbedder())
    try:
        kb.indexer.run()
        answer = kb.call("kg_create_relationship", {
            "fromEntityId": "person:sofia_marquez", "toEntityId": "project:vector_watch_project",
            "type": "WORKS_ON", "label": label,
        })  # fmt: skip
    finally:
        kb.close()
    assert answer["error_type"] == "ValidationError" and answer["error"]["field"] == "label"
    assert note.read_bytes() == before
