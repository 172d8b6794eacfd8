"""Chunks with no meaning for the model (long code, tables of numbers) are keyword-searched and
read but never embedded; pending chunks go recent notes first; an interrupted pass resumes."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import kbtui.indexing.embedding as embedding_module
from kbtui.config import Settings
from kbtui.embed import FastEmbedder, HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.runtime.index_state import index_state
from kbtui.search.service import SearchService
from kbtui.store import Store
from kbtui.store.db import SCHEMA_VERSION
from kbtui.vault.hidden import HiddenText
from kbtui.vault.meaning import Meaning

CODE = "\n".join(f"    frobnicate_{i}(cache, ttl={i * 3})  # warm" for i in range(200))
TABLE = "| year | rate | count |\n|---:|---:|---:|\n" + "\n".join(
    f"| {1990 + i} | {i * 0.37:.2f} | {i * 91} |" for i in range(40)
)
NOTE = f"""# Cache tuning

Eviction policies decide which entries a cache drops when memory runs out. Least recently
used eviction keeps hot keys resident and suits read-heavy workloads with a skewed access
pattern, while time-to-live expiry bounds staleness for data that changes upstream.

## Benchmark script

```python
{CODE}
```

## Measurements

{TABLE}
"""


def _vault(tmp_path: Path) -> Settings:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "cache.md").write_text(NOTE)
    (vault / "other.md").write_text("# Gardening\n\nTomatoes like sun and regular watering.\n")
    return Settings.for_vault(vault)


def test_meaning_marks_long_code_and_number_tables_not_prose() -> None:
    body = NOTE
    meaning = Meaning(body)
    prose = body.index("Eviction")
    assert meaning.reason(0, body.index("## Benchmark")) is None
    middle = body.index("frobnicate_100")  # a piece cut from inside the block: no fence
    assert meaning.reason(middle, middle + 400) == "code"
    rows = body.index("| 2000 |")
    assert meaning.reason(rows, rows + 300) == "data"
    words = "| name | role |\n|---|---|\n| Ada Lovelace | wrote the first program |\n"
    assert Meaning(words).reason(0, len(words)) is None  # a table of words is prose
    short = "Run it:\n\n```\nmake test\n```\n"
    assert Meaning(short).reason(0, len(short)) is None  # a short example keeps its vector
    hugo = '{{< tabs >}}{{< tab name="redis-cli" >}}{{< /tab >}}{{< /tabs >}}\n'
    assert Meaning(hugo).reason(0, len(hugo)) == "markup"
    assert meaning.reason(prose, prose) is None  # an empty span (properties chunk)


def test_the_blocks_parse_note_found_judge_as_a_parse_of_its_own() -> None:
    """The indexer passes parse_note's code blocks and tables to Meaning and HiddenText (one
    markdown-it parse a note, not three): the spans are those they find parsing themselves."""
    from kbtui.vault.parse import parse_note
    from tests.conftest import VAULT_EXAMPLE

    notes = [("cache.md", NOTE), ("odd.md", "| a |\n|---|\n| 1 |\n```\n" + CODE + "\n")]
    notes.append(("html.md", "Text <b>x</b> %%hidden%%\n\n```\n<i>code</i> %%kept%%\n```\n"))
    notes += [(p.name, p.read_text(errors="replace")) for p in sorted(VAULT_EXAMPLE.rglob("*.md"))]
    for name, text in notes:
        note = parse_note(name, text)
        assert note.blocks is not None
        assert Meaning(note.body, note.blocks).spans == Meaning(note.body).spans, name
        hidden = HiddenText(note.body, note.blocks).spans
        assert hidden == HiddenText(note.body).spans, name
    assert Meaning(NOTE, parse_note("cache.md", NOTE).blocks).spans  # it did find some


def test_code_and_tables_are_found_by_keywords_not_embedded(
    tmp_path: Path, real_embedder: FastEmbedder
) -> None:
    settings = _vault(tmp_path)
    store = Store(settings.db_path)
    try:
        report = Indexer(settings, store, real_embedder).run()
        rows = store.con.execute(
            "SELECT chunk_id, heading, not_embedded, embedding IS NOT NULL FROM chunks "
            "WHERE entity_id LIKE '%cache%' ORDER BY chunk_index"
        ).fetchall()
        by_kind = {r[2] for r in rows}
        assert {"code", "data", None} <= by_kind
        prose = [r for r in rows if r[2] is None]
        assert prose and all(r[3] for r in prose)  # the prose chunk has its vector
        assert all(not r[3] for r in rows if r[2] is not None)  # code/data: none
        skipped = sum(1 for r in rows if r[2] is not None)
        assert skipped >= 10  # the 200-line block alone is many chunks
        assert report.chunks_embedded == store.stats()["chunks"] - skipped

        # The index is complete: nothing waits for a vector, everywhere it is reported.
        stats = store.stats()
        assert stats["not_embedded"] == skipped
        assert store.count_pending() == 0
        index = index_state({"state": "idle", "notes_known": 2}, stats)
        assert index["chunks_embedded"] + index["chunks_not_embedded"] == index["chunks_total"]
        assert Indexer(settings, store, real_embedder).run().chunks_embedded == 0

        search = SearchService(store, real_embedder)
        code_id = next(r[0] for r in rows if r[2] == "code")
        for mode in ("keyword", "hybrid"):
            hits = search.search_chunks("frobnicate_150", 5, mode=mode)  # type: ignore[arg-type]
            assert hits and hits[0].chunk_id != prose[0][0], mode
            assert store.chunk_details([hits[0].cid])[hits[0].cid]["heading"].endswith(
                "Benchmark script"
            )
        data_hits = search.search_chunks("1999", 5, mode="keyword")
        assert any(
            store.chunk_details([h.cid])[h.cid]["heading"].endswith("Measurements")
            for h in data_hits
        )
        # Vector search never returns them: only embedded chunks are in the matrix.
        vec = search.search_chunks("cache frobnicate ttl warm benchmark", 50, mode="vector")
        found = {h.chunk_id for h in vec}
        assert found and not found & {r[0] for r in rows if r[2] is not None}
        assert code_id not in found
        # ... and they stay readable.
        details = store.chunk_details([hits[0].cid])[hits[0].cid]
        assert "frobnicate_" in details["content"]
    finally:
        store.close()


class _Counting(HashEmbedder):
    """The hash embedder, recording what it was asked to embed (the real store is used)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed(texts)


def _many_notes(vault: Path, n: int) -> None:
    vault.mkdir()
    for i in range(n):
        path = vault / f"note{i:02d}.md"
        path.write_text(f"# Topic {i}\n\n" + f"Paragraph about subject {i}. " * 60)
        os.utime(path, ns=(1_600_000_000_000_000_000 + i * 10**9,) * 2)


def test_recent_notes_are_embedded_first(tmp_path: Path) -> None:
    _many_notes(tmp_path / "vault", 12)
    settings = Settings.for_vault(tmp_path / "vault")
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, None).run(embed=False)
        embedder = _Counting()
        Indexer(settings, store, embedder).embed_pending()
        titles = [t.split("\n", 1)[0] for t in embedder.texts]
        firsts = list(dict.fromkeys(titles))
        assert firsts == [f"note{i:02d} > Topic {i}" for i in range(11, -1, -1)]  # newest first
    finally:
        store.close()


def test_an_interrupted_pass_resumes_without_redoing_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _many_notes(tmp_path / "vault", 12)
    settings = Settings.for_vault(tmp_path / "vault")
    monkeypatch.setattr(embedding_module, "EMBED_BATCH", 4)
    store = Store(settings.db_path)
    seen: list[int] = []

    def stop_after_three_batches(phase: str, done: int, total: int) -> None:
        if phase == "embed" and done:
            seen.append(done)
            if len(seen) == 3:
                raise KeyboardInterrupt

    try:
        first = _Counting()
        with pytest.raises(KeyboardInterrupt):
            Indexer(settings, store, first, progress=stop_after_three_batches).run()
        total = store.stats()["chunks"]
        assert store.stats()["embedded"] == 12 == len(first.texts)  # 3 batches committed
        second = _Counting()
        report = Indexer(settings, store, second).run()
        assert report.chunks_embedded == total - 12 == len(second.texts)
        assert not set(first.texts) & set(second.texts)
        assert store.count_pending() == 0
    finally:
        store.close()
    reopened = Store(settings.db_path)  # the committed vectors survived a close
    try:
        assert reopened.stats()["embedded"] == total
    finally:
        reopened.close()


def test_an_index_at_schema_6_is_upgraded(tmp_path: Path) -> None:
    settings = _vault(tmp_path)
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run()
    # An index written before schema 7 embedded its code chunks too.
    store.con.execute(
        "UPDATE chunks SET embedding = (SELECT any_value(embedding) FROM chunks "
        "WHERE embedding IS NOT NULL) WHERE embedding IS NULL"
    )
    store.con.execute("ALTER TABLE chunks DROP COLUMN not_embedded")
    store.con.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    store.con.execute("UPDATE meta SET value = 'old' WHERE key = 'index_text_version'")
    store.close()
    store = Store(settings.db_path)
    try:
        assert store.meta("schema_version") == str(SCHEMA_VERSION)
        assert store.stats()["not_embedded"] == 0  # old rows: not judged yet
        Indexer(settings, store, HashEmbedder()).run()  # the text version re-reads every note
        assert store.stats()["not_embedded"] > 10 and store.count_pending() == 0
        vectors_left = store.con.execute(
            "SELECT count(*) FROM chunks WHERE not_embedded IS NOT NULL AND embedding IS NOT NULL"
        ).fetchone()
        assert vectors_left == (0,)  # the old vectors of code chunks are gone with them
    finally:
        store.close()
