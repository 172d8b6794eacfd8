"""A view answered through SQL (kbtui.bases.prefilter: only the rows that may match are read)
gives exactly what the Python evaluator gives over every row: the same rows in the same
order, the same groups and summaries. Checked on every view of kepano's 30 bases and on
generated filters over a vault written to hold the traps (missing and null properties, keys
in another case, numbers as text, dates as text, lists, links by alias, nested and
capitalised tags, non-ASCII names, files that are not notes)."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kbtui.bases.errors import BaseError
from kbtui.bases.prefilter import reads_every_row
from kbtui.bases.service import KEEP_AFTER, BaseService, result_json
from tests.bases_kit import indexed

KEPANO = Path("/work/shared/data/vaults/kepano")


def both_ways(
    service: BaseService, view: str | None = None, this: str | None = None, **base: Any
) -> tuple[Any, Any]:
    """(through SQL in a service holding no rows, over every row in memory). A view that
    reads file.backlinks (every note's links) is the one kind run over every row both ways."""
    fresh = BaseService(service.store, service.vault)
    service.rows()  # rows in memory: the evaluator runs over all of them
    answers = []
    for svc in (fresh, service):
        try:
            found, result = svc.query(view=view, this=this, **base)
            answers.append(result_json(found, result))
        except BaseError as exc:
            answers.append(f"error: {exc}")
    if fresh._rows is not None:
        text = base.get("yaml_text") or fresh.load(fresh.find(base["file"]))
        found = fresh.load(fresh.find(base["file"])) if "file" in base else None
        assert found is not None and reads_every_row(found.base, found.base.view(view)), text
    return answers[0], answers[1]


@pytest.fixture(scope="module")
def kepano(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BaseService]:
    if not KEPANO.is_dir():
        pytest.skip("kepano's vault is not here")
    vault = tmp_path_factory.mktemp("kepano") / "vault"
    shutil.copytree(KEPANO, vault, ignore=shutil.ignore_patterns(".kbtui"))
    store, service = indexed(vault)
    yield service
    store.close()


def test_every_kepano_view_answers_the_same_through_sql(kepano: BaseService) -> None:
    bases = [b for b in kepano.list_bases() if b["path"].startswith("Templates/Bases/")]
    assert len(bases) == 30
    compared = narrowed = 0
    total = len(kepano.rows().rows)
    for base in bases:
        for view in base["views"]:
            through_sql, in_memory = both_ways(kepano, view["name"], file=base["path"])
            assert through_sql == in_memory, (base["path"], view["name"])
            compared += 1
            found = kepano.load(base["path"])
            chosen = found.base.view(view["name"])
            if len(kepano.partial_rows(found.base, chosen).rows) < total / 2:
                narrowed += 1
    assert compared == 75
    # Most views read under half the vault (Everything and Attachments read it all).
    assert narrowed >= 50, narrowed


def test_a_view_bound_to_a_note_answers_the_same(kepano: BaseService) -> None:
    a, b = both_ways(kepano, "Related", this="Out of Control", file="Templates/Bases/Related.base")
    assert a == b


NOTES: dict[str, str | bytes] = {
    "Books.md": "---\naliases: [Library, Reading list]\n---\nThe books category.\n",
    "People/Ann Lee.md": "---\ntitle: Ann\nrating: 7\n---\nA person.\n",
    "a/b/Deep.md": "---\nRating: 9\nstatus: Done\ntags: [Work/Project, café]\n---\n",
    "a/Other.md": '---\nrating: "8"\nread: 2021-03-04\nstatus: "[[Books]]"\n---\n#work\n',
    "a/Null.md": "---\nrating:\nread: null\nstatus: ''\ncategories: []\n---\n",
    "Dates.md": '---\nread: "2021-01-01T10:30"\nwhen: " 2020-05-05"\nrating: true\n---\n',
    "Lists.md": (
        '---\ncategories:\n  - "[[Library]]"\n  - "[[Books|my books]]"\nrating: [1, 2]\n'
        'tags: [a/b/c, Fiction]\nread: "not a date"\n---\n[[Ann Lee]] [[Nowhere]]\n'
    ),
    "Strings.md": '---\ncategories: "books and more"\nstatus: done\nrating: "abc"\n---\n',
    "Numbers.md": "---\nrating: 6\npages: 6.0\nread: 20210101\nprice: -3\n---\n#fiction/scifi\n",
    "Café/Crème brûlée.md": "---\ncategories: [Books]\nstatus: dOne\n---\n#Café\n",
    "Objects.md": "---\nrating: {a: 1}\ncategories: {x: Books}\n---\n",
    "List only.md": "---\n- a\n- b\n---\nFrontmatter that is a list.\n",
    "Plain.md": "No frontmatter. #fiction\n",
    "img/photo.png": b"\x89PNG\r\n\x1a\n",
    "docs/Report.PDF": b"%PDF-1.4\n",
    "docs/.hidden.md": "---\nrating: 5\n---\n",
    "x/..md": "odd name\n",
    "Cat.base": "views:\n  - type: table\n    name: All\n",
}
for i in range(40):
    NOTES[f"gen/n{i:02d}.md"] = (
        f"---\nrating: {i % 11}\nstatus: {['done', 'Done', 'todo', '[[Books]]'][i % 4]}\n"
        f"read: 20{10 + i % 15}-0{1 + i % 9}-1{i % 10}\ncategories: "
        f"{['[[Books]]', '[[Library]]', 'Books', '[[Ann Lee]]'][i % 4]!r}\n"
        f"tags: [{['fiction', 'Fiction/Old', 'work', 'a/b'][i % 4]}]\n---\n"
        f"[[{['Books', 'Ann', 'Nowhere'][i % 3]}]]\n"
    )

ATOMS = [
    "rating >= 6", "rating > 7.5", "rating < 3", "rating == 6", "rating != 7", "6 <= rating",
    "note.Rating > 1", 'note["rating"] <= 8', "pages == 6", "price < 0", "rating == -3",
    "rating", "!rating", "status", 'status == "done"', 'status != "done"', 'status == "Done"',
    'status == "[[Books]]"', 'status == "books"', 'read > date("2021-01-01")',
    'read >= date("2021-01-01")', 'read < date("2021-03-04")', 'read == date("2021-03-04")',
    'read <= date("2021-01-01T10:30")', 'when < date("2021-01-01")', "read",
    'categories.contains(link("Books"))', 'categories.contains(link("Library"))',
    'categories.contains("Books")', 'categories.contains(link("Ann Lee"))',
    'categories.contains(link("Nowhere"))', 'file.hasTag("fiction")', 'file.hasTag("Work")',
    'file.hasTag("#a/b", "café")', 'file.hasTag("a/b/c")', 'file.inFolder("a")',
    'file.inFolder("a/b/")', 'file.inFolder("Café")', 'file.ext == "md"', 'file.ext == "pdf"',
    'file.ext == "PDF"', 'file.ext == "png"', 'file.name == "Deep.md"', 'file.folder == "a"',
    'file.folder == "/"', 'file.path == "Books.md"', 'file.name.contains("e")',
    'file.basename.startsWith("n0")', 'file.path.endsWith(".md")', 'file.hasProperty("rating")',
    'file.hasProperty("Rating")', 'file.hasLink(link("Ann Lee"))', "formula.big",
    "file.links.length > 1", 'status.lower() == "done"', "this.rating < rating", "true", "0",
]  # fmt: skip


def random_filter(rng: random.Random, depth: int = 0) -> Any:
    """A filter: an expression (possibly with && || !) or an and/or/not tree of them."""
    roll = rng.random()
    if depth < 2 and roll < 0.35:
        kind = rng.choice(["and", "or", "not"])
        return {kind: [random_filter(rng, depth + 1) for _ in range(rng.randint(1, 3))]}
    expr = rng.choice(ATOMS)
    if rng.random() < 0.3:
        expr = f"{expr} {rng.choice(['&&', '||'])} {rng.choice(ATOMS)}"
    if rng.random() < 0.2:
        expr = f"!({expr})"
    return expr


@pytest.fixture(scope="module")
def traps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BaseService]:
    vault = tmp_path_factory.mktemp("traps") / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "types.json").write_text(json.dumps({"types": {"when": "date"}}))
    store, service = indexed(vault, NOTES)
    yield service
    store.close()


def test_generated_filters_answer_the_same_through_sql(traps: BaseService) -> None:
    rng = random.Random(30)
    sorts = [[], [{"property": "rating", "direction": "DESC"}], [{"property": "file.name"}]]
    matched_some = 0
    for i in range(300):
        base = {
            "formulas": {"big": "rating > 5"},
            "filters": random_filter(rng),
            "views": [{"type": "table", "name": "V", "order": ["file.path", "rating", "read"],
                       "filters": random_filter(rng) if i % 2 else None,
                       "sort": rng.choice(sorts), "limit": rng.choice([None, 3]),
                       "summaries": {"rating": "Sum"}}],
        }  # fmt: skip
        text = json.dumps(base)
        a, b = both_ways(traps, this="Numbers.md", yaml_text=text)
        assert a == b, text
        matched_some += bool(isinstance(a, dict) and a["rows"])
    assert matched_some > 100


@pytest.mark.parametrize(
    ("expr", "paths"),
    [
        # tags are read without case (the index keeps them lower case): "Fiction/Old" counts
        (
            'file.hasTag("fiction")',
            {"Numbers.md", "Plain.md", "Lists.md"}
            | {f"gen/n{i:02d}.md" for i in range(40) if i % 4 in (0, 1)},
        ),
        # "Done" and "[[Books]]" are not "done"
        ('status == "done"', {"Strings.md"} | {f"gen/n{i:02d}.md" for i in range(0, 40, 4)}),
        # n11-n13 read in 2021-2023 with ratings 0-2; Other.md's rating is "8"; Lists.md
        # compares as text ("not a date" > "2021-03-01", "1,2" < "3"), as the evaluator does
        (
            'read > date("2021-03-01") && rating < 3',
            {"gen/n11.md", "gen/n12.md", "gen/n13.md", "Lists.md"},
        ),
        # "[[Library]]" is Books by its alias; a one-link text holds "Books"; "Books" is the name
        (
            'categories.contains(link("Books"))',
            {"Lists.md", "Café/Crème brûlée.md"}
            | {f"gen/n{i:02d}.md" for i in range(40) if i % 4 in (0, 2)},
        ),
        ('file.ext == "pdf"', {"docs/Report.PDF"}),
    ],
)
def test_filters_by_hand(traps: BaseService, expr: str, paths: set[str]) -> None:
    """What the traps vault holds, read by hand: both ways give these rows."""
    text = json.dumps({"filters": expr, "views": [{"type": "table", "name": "V"}]})
    a, b = both_ways(traps, yaml_text=text)
    assert a == b
    assert {r["path"] for r in a["rows"]} == paths


def test_a_process_that_keeps_asking_reads_the_rows_once(traps: BaseService) -> None:
    """A CLI call asks once, through SQL; a process asking again and again (the TUI, the MCP
    server) reads every row of a small vault after KEEP_AFTER answers and keeps them."""
    service = BaseService(traps.store, traps.vault)
    text = json.dumps({"filters": 'file.hasTag("work")', "views": [{"type": "table"}]})
    answers = []
    for _ in range(KEEP_AFTER + 2):
        answers.append(result_json(*service.query(yaml_text=text)))
        if len(answers) <= KEEP_AFTER:
            assert service._rows is None
    assert service._rows is not None
    assert all(a == answers[0] for a in answers)
    assert {r["path"] for r in answers[0]["rows"]} == {"a/Other.md", "a/b/Deep.md"} | {
        f"gen/n{i:02d}.md" for i in range(2, 40, 4)
    }
