"""After a save, a base reads only what changed (Rows.update), and still answers exactly what a
fresh read of the whole index answers: a changed property, a new note a link now resolves to,
a deleted note, a row whose filter reads another note, a new attachment."""

from __future__ import annotations

from pathlib import Path

from kbtui.bases.service import BaseService
from kbtui.config import Settings
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from tests.bases_kit import indexed

BASE = """\
filters:
  and:
    - categories.contains(link("Books"))
views:
  - type: table
    name: Good
    filters: 'rating >= 5'
    order: [file.name, rating]
    sort: [{property: file.name, direction: ASC}]
  - type: table
    name: By good authors
    filters: 'author.asFile().properties.rating >= 5'
    order: [file.name]
  - type: table
    name: Linked
    filters: 'file.backlinks.length > 0'
    order: [file.name]
"""
EVERYTHING = "views:\n  - type: table\n    name: All\n    order: [file.name]\n"


def book(rating: int, author: str = "Ann") -> str:
    return (f'---\ncategories: ["[[Books]]"]\nrating: {rating}\nauthor: "[[{author}]]"\n---\n'
            "A book.\n")  # fmt: skip


def names(service: BaseService, view: str, base: str = "Books") -> list[str]:
    return [r["values"]["file.name"] for r in service.query(base, view=view)[1].rows]


def save(vault: Path, store: Store, rel: str, body: str | None) -> None:
    """What the watcher does for one file: write (or delete) it and index that path."""
    path = vault / rel
    if body is None:
        path.unlink()
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    Indexer(Settings.for_vault(vault), store, None).run(embed=False, paths=[rel])


def same_as_fresh(store: Store, service: BaseService, vault: Path) -> None:
    fresh = BaseService(store, vault)
    for view in ("Good", "By good authors", "Linked"):
        assert names(service, view) == names(fresh, view), view
    assert names(service, "All", "Everything") == names(fresh, "All", "Everything")


def test_each_kind_of_change_answers_as_a_fresh_read(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    store, service = indexed(vault, {
        "Books.base": BASE, "Everything.base": EVERYTHING,
        "Dune.md": book(8), "Emma.md": book(3, "Bob"), "Ann.md": "---\nrating: 9\n---\n",
        "Bob.md": "---\nrating: 2\n---\n", "Other.md": "---\nrating: 9\n---\nSee [[Dune]].\n",
    })  # fmt: skip
    # No note is called Books yet: the global filter's link("Books") resolves to nothing,
    # and so do the notes' [[Books]]; they still compare equal by their text.
    assert names(service, "Good") == ["Dune.md"]
    assert names(service, "By good authors") == ["Dune.md"]
    assert names(service, "Linked") == ["Dune.md"]
    rows = service.rows()

    save(vault, store, "Emma.md", book(6, "Bob"))  # a property changes: Emma now passes
    assert names(service, "Good") == ["Dune.md", "Emma.md"]
    assert service.rows() is rows  # the same rows, updated, not read again
    same_as_fresh(store, service, vault)

    save(vault, store, "Bob.md", "---\nrating: 7\n---\n")  # another note a filter reads
    assert names(service, "By good authors") == ["Dune.md", "Emma.md"]
    same_as_fresh(store, service, vault)

    save(vault, store, "Other.md", "---\nrating: 9\n---\nSee [[Emma]].\n")  # backlinks move
    assert names(service, "Linked") == ["Emma.md"]
    same_as_fresh(store, service, vault)

    save(vault, store, "Lists/Books.md", "The books.\n")  # a name links now resolve to
    assert names(service, "Good") == ["Dune.md", "Emma.md"]
    same_as_fresh(store, service, vault)

    save(vault, store, "Dune.md", None)  # a deleted note leaves every view
    assert names(service, "Good") == ["Emma.md"]
    assert "Dune.md" not in names(service, "All", "Everything")
    same_as_fresh(store, service, vault)

    (vault / "cover.png").write_bytes(b"\x89PNG\r\n\x1a\n")  # an attachment arrives
    save(vault, store, "New.md", book(5))
    Indexer(Settings.for_vault(vault), store, None).run(embed=False)
    assert "cover.png" in names(service, "All", "Everything")
    assert names(service, "Good") == ["Emma.md", "New.md"]
    same_as_fresh(store, service, vault)
    assert service.rows() is rows
    store.close()


def test_a_renamed_target_changes_what_links_resolve_to(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    store, service = indexed(vault, {
        "Books.base": BASE, "Everything.base": EVERYTHING, "Ann.md": "---\nrating: 9\n---\n",
        "Dune.md": book(8), "Books.md": "The books.\n",
    })  # fmt: skip
    assert names(service, "By good authors") == ["Dune.md"]
    save(vault, store, "Ann.md", None)  # the author goes: author.asFile() is nothing now
    assert names(service, "By good authors") == []
    save(vault, store, "People/Ann.md", "---\nrating: 6\n---\n")  # and comes back elsewhere
    assert names(service, "By good authors") == ["Dune.md"]
    same_as_fresh(store, service, vault)
    store.close()
