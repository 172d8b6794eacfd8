"""Bases through MCP (vault_query, which took base_query's place there: a real `kbtui mcp`
subprocess and the SDK's client) and the CLI's `kbtui bases`, `base:views`, `base:query`
(click's runner, through the app tool base_query), on a small vault written here."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal
from click.testing import CliRunner

from kbtui.cli import main
from kbtui.tools.registry import PUBLISHED
from tests.test_mcp import Mcp, open_session

BOOKS_BASE = """\
filters:
  and:
    - file.hasTag("book")
formulas:
  per_page: (price / pages * 100).round(2)
properties:
  note.author:
    displayName: Author
summaries:
  twice: values.reduce(acc + value, 0) * 2
views:
  - type: table
    name: By rating
    order: [file.basename, author, rating, formula.per_page]
    sort:
      - property: rating
        direction: DESC
    summaries:
      rating: Average
      pages: twice
  - type: table
    name: By author
    groupBy:
      property: note.author
      direction: ASC
    order: [file.basename, rating]
    summaries:
      rating: Sum
  - type: list
    name: Short
    filters: pages < 300
    limit: 1
"""
NOTES = {
    "Books/Dune.md": '---\ntags: [book]\nauthor: "[[Frank Herbert]]"\nrating: 9\npages: 600\n'
    "price: 12\n---\nSpice.\n",
    "Books/Emma.md": '---\ntags: [book]\nauthor: "[[Jane Austen]]"\nrating: 7\npages: 250\n'
    "price: 5\n---\nA novel.\n",
    "Books/Persuasion.md": '---\ntags: [book]\nauthor: "[[Jane Austen]]"\nrating: 8\n'
    "pages: 200\nprice: 6\n---\nAnother.\n",
    "Jane Austen.md": "# Jane Austen\n\n```base\nfilters: author == this\nviews:\n"
    "  - type: table\n    name: Hers\n    order: [file.basename]\n```\n",
    "Books.base": BOOKS_BASE,
    "Broken.base": "views:\n  - type: gallery\n",
}


def write(vault: Path) -> Path:
    for rel, body in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(body, encoding="utf-8")
    return vault


def run(vault: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--vault", str(vault)])
    return result.exit_code, result.output


def test_cli_lists_bases_views_and_rows_in_every_format(tmp_path: Path) -> None:
    vault = write(tmp_path / "vault")
    code, out = run(vault, "index", "--no-embed")
    assert code == 0 and "skipped Broken.base: base: unknown view type 'gallery'" in out
    code, out = run(vault, "bases")
    assert code == 0
    assert "Books.base: By rating (table), By author (table), Short (list)" in out
    assert "Jane Austen.md (```base at line 3): Hers (table)" in out
    assert "Broken.base" in out and "gallery" in out
    code, out = run(vault, "base:views", "Books")
    assert code == 0 and out.splitlines() == ["By rating\ttable", "By author\ttable", "Short\tlist"]
    code, out = run(vault, "base:query", "Books", "--format", "paths")
    assert out.splitlines() == ["Books/Dune.md", "Books/Persuasion.md", "Books/Emma.md"]
    code, out = run(vault, "base:query", "Books.base", "--format", "json")
    rows = json.loads(out)
    assert rows[0] == {"path": "Books/Dune.md", "file.basename": "Dune",
                       "note.author": "[[Frank Herbert]]", "note.rating": 9,
                       "formula.per_page": 2}  # fmt: skip
    code, out = run(vault, "base:query", "Books", "--format", "csv")
    table = list(csv.reader(io.StringIO(out)))
    # no displayName: a note property by its name, a formula by its name, a file property by
    # the words Obsidian's help uses (file.basename: Base name, file.name: File name)
    assert table[0] == ["Base name", "Author", "rating", "per_page"]
    assert table[3] == ["Emma", "[[Jane Austen]]", "7", "2"]
    code, out = run(vault, "base:query", "Books", "--view", "Short", "--format", "tsv")
    assert out.splitlines() == ["File name", "Emma.md"]  # pages < 300, path order, limit 1
    code, out = run(vault, "base:query", "Books", "--format", "md")
    assert out.splitlines()[2] == "| Dune | [[Frank Herbert]] | 9 | 2 |"
    code, out = run(vault, "base:query", "Jane Austen.md", "--format", "paths")
    assert out.splitlines() == ["Books/Emma.md", "Books/Persuasion.md"]  # `this`: the note
    code, out = run(vault, "base:query", "Books", "--view", "By author")
    assert code == 0 and "Dune" in out and "Sum of rating: 24" in out
    code, out = run(vault, "base:query", "Broken")
    assert code == 1 and "unknown type 'gallery'" in out
    code, out = run(vault, "base:query", "Nope")
    assert code == 1 and "no base 'Nope'" in out
    # kb_search and kb_get know bases exist
    code, out = run(vault, "search", "books base", "--mode", "keyword", "--json")
    results = json.loads(out)["results"]
    first = results[0]
    assert (first["id"], first["type"], first["title"]) == ("base:books", "base", "Books.base")
    assert "By rating (table)" in first["snippet"]
    assert "base_query" not in first["snippet"]  # an MCP tool's name means nothing in the CLI
    scores = [r["score"] for r in results]
    assert len(results) > 1 and scores == sorted(scores, reverse=True)  # in the order shown
    code, out = run(vault, "get", "base:books", "--json")
    assert code == 0 and json.loads(out)["content"] == BOOKS_BASE
    code, out = run(vault, "search", "books novel", "--mode", "keyword", "--json")
    assert all(r["type"] != "base" for r in json.loads(out)["results"])
    code, out = run(vault, "stats", "--json")
    assert json.loads(out)["broken_bases"] == {
        "Broken.base": "unknown view type 'gallery' (known: table, cards, list, map)"
    }


@pytest.fixture(scope="module")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mcp]:
    vault = write(tmp_path_factory.mktemp("bases_mcp") / "vault")
    with (
        open(vault.parent / "server.log", "w") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(open_session(vault, errlog)) as session,
    ):
        client = Mcp(portal, session, vault)
        assert client.wait_for(lambda: client.status()["index"]["state"] == "idle", 120)
        yield client
    assert "Traceback" not in (vault.parent / "server.log").read_text()


BOOKS = {"language": "base", "file": "Books"}


def test_mcp_base_query_rows_groups_summaries_and_index(mcp: Mcp) -> None:
    tools = {t.name: t for t in mcp.portal.call(mcp.session.list_tools).tools}
    listed = tools["vault_query"].model_dump_json(by_alias=True, exclude_none=True)
    assert len(listed) <= 2500 and "bases_list" not in tools and "base_query" not in tools
    answer = mcp.good("vault_query", BOOKS)
    assert [r["path"] for r in answer["rows"]] == [
        "Books/Dune.md",
        "Books/Persuasion.md",
        "Books/Emma.md",
    ]
    assert answer["summaries"] == {
        "note.rating": {"summary": "Average", "value": 8},
        "note.pages": {"summary": "twice", "value": 2100},
    }
    assert answer["columns"][1] == {"id": "note.author", "name": "Author"}
    assert answer["index"]["state"] == "ready" and answer["index"]["notes_indexed"] == 4
    grouped = mcp.good("vault_query", {**BOOKS, "view": "By author"})
    groups = [(g["label"], len(g["rows"]), g["summaries"]["note.rating"]["value"])
              for g in grouped["groups"]]  # fmt: skip
    assert groups == [("Frank Herbert", 1, 9), ("Jane Austen", 2, 15)]
    inline = mcp.good(
        "vault_query",
        {
            "language": "base",
            "query": "filters: rating >= 8\nviews: [{type: table, order: [file.basename]}]",
            "limit": 1,
        },
    )
    assert inline["count"] == 1 and inline["total"] == 2
    hers = mcp.good("vault_query", {"file": "Jane Austen", "block": 1})  # `this`: the note
    assert [r["path"] for r in hers["rows"]] == ["Books/Emma.md", "Books/Persuasion.md"]
    assert (hers["language"], hers["file"], hers["line"]) == ("base", "Jane Austen.md", 3)
    listing = mcp.good("vault_query", {})
    assert {b["file"] for b in listing["blocks"]} == {"Books.base", "Broken.base", "Jane Austen.md"}


def test_mcp_base_query_errors_are_structured(mcp: Mcp) -> None:
    mcp.bad("vault_query", {"query": "views: []"}, "ValidationError", "language")
    mcp.bad("vault_query", {"file": "Nope"}, "NotFoundError")
    answer = mcp.bad(
        "vault_query",
        {"language": "base", "query": "filters:\n  - x\nformulas:\n  a: vacant(x)\n"},
        "ValidationError",
        "query",
    )
    assert "unsupported function `vacant()`" in answer["message"] and "line 4" in answer["message"]
    answer = mcp.bad(
        "vault_query",
        {"language": "base", "query": "formulas:\n  a: formula.b\n  b: formula.a\n"},
        "ValidationError",
    )
    assert "formula.a -> formula.b -> formula.a" in answer["message"]
    # a YAML error names the line of the text given, even where the parser stops past its end
    for yaml_text, line in (("filters: [[[", 1), ("views: []\nfilters: [[[\nlimit: 3\n", 2)):
        base = {"language": "base", "query": yaml_text}
        answer = mcp.bad("vault_query", base, "ValidationError", "query")
        assert answer["message"].startswith(f"line {line}: not valid YAML"), answer["message"]
    mcp.bad("vault_query", {**BOOKS, "view": "Missing"}, "ValidationError")
    mcp.bad("vault_query", {**BOOKS, "limit": 0}, "ValidationError", "limit")


def test_a_saved_base_is_listed_and_answers_live(mcp: Mcp) -> None:
    (mcp.vault / "Later.base").write_text("filters: rating > 8\n", encoding="utf-8")
    # waits are deadlines for a save never seen, not speed bounds (bench/watch_latency.py)
    assert mcp.wait_for(
        lambda: any(b["file"] == "Later.base" for b in mcp.good("vault_query", {})["blocks"]), 60
    )
    assert [r["path"] for r in mcp.good("vault_query", {"file": "Later"})["rows"]] == [
        "Books/Dune.md"
    ]
    (mcp.vault / "Later.base").write_text("views: [{type: nope}]\n", encoding="utf-8")
    assert mcp.wait_for(lambda: "Later.base" in mcp.status()["stats"].get("broken_bases", {}), 60)
    assert "vault_query" in PUBLISHED and "base_query" not in PUBLISHED


def test_cli_prints_a_map_views_coordinates(tmp_path: Path) -> None:
    """A map view's rows carry each note's place (Obsidian's Maps plugin: the view's
    `coordinates` property, "lat, lng" text or a two-item list) and its marker settings."""
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "Places.base").write_text(
        "filters: file.hasTag('place')\nviews:\n  - type: map\n    name: Map\n"
        "    order: [file.basename]\n    sort: [{property: file.basename, direction: ASC}]\n"
        "    coordinates: note.coordinates\n    markerColor: note.color\n",
        encoding="utf-8",
    )
    (vault / "Eiffel Tower.md").write_text(
        '---\ntags: [place]\ncoordinates:\n  - "48.85837"\n  - "2.294481"\ncolor: red\n---\n',
        encoding="utf-8",
    )
    (vault / "Opera.md").write_text(
        '---\ntags: [place]\ncoordinates: "-33.8568, 151.2153"\n---\n', encoding="utf-8"
    )
    (vault / "Nowhere.md").write_text("---\ntags: [place]\n---\n", encoding="utf-8")
    assert run(vault, "index", "--no-embed")[0] == 0
    code, out = run(vault, "base:query", "Places", "--format", "json")
    assert code == 0, out
    assert [(r["file.basename"], r["coordinates"], r["markerColor"]) for r in json.loads(out)] == [
        ("Eiffel Tower", [48.85837, 2.294481], "red"),
        ("Nowhere", None, None),
        ("Opera", [-33.8568, 151.2153], None),
    ]
    code, out = run(vault, "base:query", "Places", "--format", "csv")
    assert list(csv.reader(io.StringIO(out))) == [
        ["Base name", "Coordinates", "Marker color"],
        ["Eiffel Tower", "48.85837, 2.294481", "red"],
        ["Nowhere", "", ""],
        ["Opera", "-33.8568, 151.2153", ""],
    ]


def test_a_broken_base_block_names_the_notes_line(tmp_path: Path) -> None:
    """A ```base block's YAML error is reported at the note's line, not the block's."""
    (tmp_path / "Reading.md").write_text(
        "# Reading\n\nSome text.\n\n```base\nviews: []\nfilters: [[[\n```\n", encoding="utf-8"
    )
    code, out = run(tmp_path, "base:query", "Reading")
    assert code != 0 and "line 7: not valid YAML" in out, out


KEPANO = Path("/work/shared/data/vaults/kepano")


@pytest.mark.skipif(not KEPANO.is_dir(), reason="kepano's vault is not here")
def test_a_base_hit_is_placed_by_its_score_on_kepano(tmp_path: Path) -> None:
    """On kepano's vault (real model) the note Books outscores 0.9: the base's hit must not
    sit above a better score, and names what it matched without an MCP tool's name."""
    vault = tmp_path / "kepano"
    shutil.copytree(KEPANO, vault, ignore=shutil.ignore_patterns(".kbtui"))
    assert run(vault, "index")[0] == 0
    code, out = run(vault, "search", "books base", "--json")
    results = json.loads(out)["results"]
    assert code == 0 and results[0]["title"] == "Books.base"  # named in full: the best match
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True), [(r["title"], r["score"]) for r in results]
    assert "base_query" not in results[0]["snippet"]
