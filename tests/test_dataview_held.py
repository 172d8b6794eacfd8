"""A process that keeps asking holds every page built (kbtui/dataview/held.py): its answers are
those of a fresh read, before and after saves that change a field, a task, a link (and so
another page's backlinks), add a note, remove one."""

from __future__ import annotations

from pathlib import Path

from kbtui.config import Settings
from kbtui.dataview.service import KEEP_AFTER, DataviewService
from kbtui.indexing.indexer import Indexer
from tests.dataview_kit import Runner, indexed, write

NOTES = {
    "A.md": "rating:: 3\n[[B]]\n- [ ] a task [due:: 2024-01-02]\n",
    "B.md": "---\nrating: 5\n---\n- [x] b done\n- [ ] b open\n",
    "C/C.md": "rating:: 9\nsee [[A]]\n",
}
QUERIES = [
    "TABLE rating, file.inlinks SORT file.name",
    "LIST WHERE rating > 4",
    "TASK WHERE !completed",
    "TABLE length(file.tasks) AS tasks, file.outlinks",
    "LIST rows.file.name GROUP BY rating > 4",
]


def answers(service: DataviewService) -> list[object]:
    run = Runner(service)
    out: list[object] = []
    for q in QUERIES:
        _q, result, _raw = run.raw(q)
        if result.kind == "task":
            out.append(run.tasks(q))
        else:
            out.append([(str(r.id), repr(v)) for r, v in zip(result.rows, result.values,
                                                            strict=True)])  # fmt: skip
    return out


def test_held_pages_answer_as_a_fresh_read(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    store, service = indexed(vault, NOTES)
    for _ in range(KEEP_AFTER):
        answers(service)
    assert service._held is not None  # it holds the pages now
    assert answers(service) == answers(DataviewService(store, vault))
    settings = Settings.for_vault(vault)

    def save(rel: str, body: str | None) -> None:
        if body is None:
            (vault / rel).unlink()
        else:
            write(vault, {rel: body})
        Indexer(settings, store, None).run(embed=False, paths=[rel])
        held = answers(service)
        assert held == answers(DataviewService(store, vault)), rel

    save("A.md", "rating:: 6\n- [x] a task [due:: 2024-01-02]\n")  # field, task, link gone
    assert service._held is not None and service._held.built <= 2  # A, and B's backlinks
    save("B.md", "---\nrating: 1\n---\n[[C]]\n- [ ] b open\n")
    save("D.md", "rating:: 7\n[[A]]\n- [ ] new\n")  # a new note: everything again
    save("C/C.md", None)
    store.close()


def test_the_first_queries_read_only_what_they_need(tmp_path: Path) -> None:
    store, service = indexed(tmp_path / "vault", NOTES)
    Runner(service).list("LIST")
    assert service._held is None
    store.close()


def test_a_big_vault_is_not_held(tmp_path: Path) -> None:
    import kbtui.dataview.service as module

    store, service = indexed(tmp_path / "vault", NOTES)
    before = module.KEEP_UP_TO
    module.KEEP_UP_TO = 2
    try:
        for _ in range(KEEP_AFTER + 2):
            Runner(service).list("LIST")
        assert service._held is None
    finally:
        module.KEEP_UP_TO = before
    store.close()


def test_after_a_save_only_the_written_notes_states_are_read(tmp_path: Path) -> None:
    """The store logs which notes each write touched (store/queries/note_changes.py): a held
    process re-reads their states alone, not every note's (~20 ms at 10k notes a query); a
    note added or removed, or a write the log has not seen, reads them all, as before."""
    vault = tmp_path / "vault"
    store, service = indexed(vault, NOTES)
    for _ in range(KEEP_AFTER):
        answers(service)
    every = store.note_states
    settings = Settings.for_vault(vault)

    def save(rel: str, body: str) -> int:
        """Index the save, then ask: how many times the held pages read every state."""
        write(vault, {rel: body})
        Indexer(settings, store, None).run(embed=False, paths=[rel])  # reads them: not counted
        full_reads: list[int] = []

        def counted() -> dict[str, tuple[str, int, int, str]]:
            full_reads.append(1)
            return every()

        store.note_states = counted  # type: ignore[method-assign]
        try:
            held = answers(service)
        finally:
            store.note_states = every  # type: ignore[method-assign]
        assert held == answers(DataviewService(store, vault)), rel
        return len(full_reads)

    assert save("A.md", "rating:: 8\n[[B]]\n- [ ] a task [due:: 2024-01-02]\n") == 0  # A's alone
    assert save("D.md", "rating:: 2\n") > 0  # a new note: every state read
    store.close()
