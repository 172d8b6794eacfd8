"""kepano's 30 real bases over a copy of his vault, indexed into a real DuckDB file: every view
answers or names the construct it does not support; the rows of views checked by hand (grep
over the notes' frontmatter) are asserted, order included where the view sorts."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtui.bases.errors import BaseError
from kbtui.bases.service import BaseService
from kbtui.store import Store
from tests.bases_kit import indexed

KEPANO = Path("/work/shared/data/vaults/kepano")
pytestmark = pytest.mark.skipif(not KEPANO.is_dir(), reason="kepano's vault is not here")


@pytest.fixture(scope="module")
def kepano(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BaseService]:
    vault = tmp_path_factory.mktemp("kepano") / "vault"
    shutil.copytree(KEPANO, vault, ignore=shutil.ignore_patterns(".kbtui"))
    store, service = indexed(vault)
    yield service
    store.close()


def names(
    service: BaseService, base: str, view: str | None = None, this: str | None = None
) -> list[str]:
    _, result = service.query(base, view=view, this=this)
    return [r["path"].rsplit("/", 1)[-1].removesuffix(".md") for r in result.rows]


def test_every_view_of_the_30_bases_answers_or_names_what_it_does_not_support(
    kepano: BaseService,
) -> None:
    bases = [b for b in kepano.list_bases() if b["path"].startswith("Templates/Bases/")]
    assert len(bases) == 30
    answered, refused = 0, []
    for base in bases:
        assert "error" not in base, base
        for view in base["views"]:
            try:
                kepano.query(base["path"], view=view["name"])
                answered += 1
            except BaseError as exc:
                refused.append((base["path"], view["name"], str(exc)))
    # Shows' "Last seen" uses not()/empty(), globals of the first release that the Functions
    # page no longer lists: they answer as they did (Futurama is the one show with a `last`).
    assert refused == []
    assert answered == 75
    assert names(kepano, "Shows", "Last seen") == ["Futurama"]


def test_rows_of_views_checked_by_hand(kepano: BaseService) -> None:
    assert names(kepano, "Books") == ["Out of Control", "The Machine Stops"]
    assert names(kepano, "Board games") == ["Catan"]
    assert names(kepano, "Companies") == ["Obsidian"]
    assert names(kepano, "Podcasts") == ["Well Made"]
    assert names(kepano, "Recipes") == ["Brown butter nectarine tart"]
    assert names(kepano, "Projects") == ["Minimal Theme"]
    assert names(kepano, "Trips", "All trips") == ["2023 Japan Trip"]
    assert names(kepano, "People") == ["Kevin Kelly", "Paul Chambers", "Steph Ango"]
    assert names(kepano, "Evergreen") == [
        "Evergreen notes turn ideas into objects that you can manipulate"
    ]
    assert sorted(names(kepano, "Places")) == ["Fushimi Inari", "Kyoto"]
    # Clippings: five notes in the category, newest `created` first, one without a date last
    assert names(kepano, "Clippings") == [
        "Evergreen notes turn ideas into objects that you can manipulate",
        "68 Bits of Unsolicited Advice",
        "In good hands",
        "Brown butter nectarine tart",
        "Buy wisely",
    ]
    # Ratings: `rating > 0` keeps the 11 notes with a number (Well Made's rating is empty)
    assert len(names(kepano, "Ratings")) == 11 and "Well Made" not in names(kepano, "Ratings")
    assert names(kepano, "Movies", "Favorites") == ["Blade Runner"]  # note.rating > 6
    # `this`: the note a base is embedded in
    assert names(kepano, "Books", "Author", this="Kevin Kelly") == ["Out of Control"]
    assert names(kepano, "Backlinks", this="Kevin Kelly") == [
        "68 Bits of Unsolicited Advice", "Out of Control", "Well Made 145 Kevin Kelly",
    ]  # fmt: skip


def test_attachments_are_rows_with_file_facts(kepano: BaseService) -> None:
    _, every = kepano.query("Everything", view="All files")
    paths = {r["path"]: r["values"] for r in every.rows}
    image = paths["Attachments/out-of-control.jpg"]
    assert image["file.ext"] == "jpg" and image["file.name"] == "out-of-control.jpg"
    assert "Templates/Bases/Books.base" in paths and every.matched == len(paths)
    # LICENSE (no extension) is no file type Obsidian lists while "Detect all file
    # extensions" is off, as in kepano's app.json (issue 42, item 4)
    assert "LICENSE" not in paths
    assert names(kepano, "Everything", "Images") == ["out-of-control.jpg"]
    _, cards = kepano.query("Everything", view="Images")
    assert [r["image"] for r in cards.rows] == ["Attachments/out-of-control.jpg"]


def test_map_view_returns_coordinates(kepano: BaseService) -> None:
    _, result = kepano.query("Map", view="Map")
    coords = {r["path"].rsplit("/", 1)[-1]: r["coordinates"] for r in result.rows}
    assert set(coords) == {"Kyoto.md", "Fushimi Inari.md"}
    assert all(
        c is None or (len(c) == 2 and 30 < c[0] < 40 and 130 < c[1] < 140) for c in coords.values()
    )
    assert any(c is not None for c in coords.values())


def test_store_is_real(kepano: BaseService) -> None:
    assert isinstance(kepano.store, Store) and kepano.store.path.suffix == ".duckdb"
