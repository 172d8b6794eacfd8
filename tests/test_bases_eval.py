"""The expression language of Bases, evaluated over rows of a real index: literals, operators
and their precedence, properties, file.*, formulas (cycles refused), this, dates and durations,
every function family, lazy if, and the errors that name the construct and the line."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from kbtui.bases.errors import BaseError
from kbtui.bases.evaluate import Context, evaluate
from kbtui.bases.parser import parse
from kbtui.bases.syntax import read_base
from kbtui.bases.values import Date, to_json
from tests.bases_kit import indexed

NOTES = {
    "Books/Dune.md": '---\ncategories:\n  - "[[Books]]"\nauthor: "[[Frank Herbert]]"\n'
    "rating: 9\nprice: 12.5\nyear: 1965\nread: 2024-03-01\ntags: [scifi/classic]\n---\n"
    "A desert planet. See [[Frank Herbert]] and ![[cover.png]].\n",
    "Books/Emma.md": '---\ncategories: ["[[Books]]"]\nauthor: "[[Jane Austen]]"\nrating: 6\n'
    "year: 1815\n---\nA novel. #romance\n",
    "People/Frank Herbert.md": '---\ncategories: ["[[People]]"]\nborn: 1920-10-08\n---\nAuthor.\n',
    "People/Jane Austen.md": "# Jane Austen\nLinks to [[Emma]].\n",
    "Books.md": "# Books\n",
    "cover.png": b"\x89PNG fake",
}


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    store, service = indexed(tmp_path / "vault", NOTES)
    rows = service.rows()
    yield Context(
        rows, {}, {}, rows.by_path["People/Frank Herbert.md"], rows.by_path["Books/Dune.md"]
    )
    store.close()


def ev(ctx: Context, text: str) -> object:
    return to_json(evaluate(parse(text), ctx))


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("1 + 2 * 3", 7),
        # the first release's globals, still in real bases (kepano's Shows.base)
        ("not(empty(note.read))", True),
        ("not(empty(note.missing))", False),
        ("empty(note.missing) && empty('') && empty([]) && !empty(0)", True),
        ("not(rating > 8)", False),
        ('contains(file.tags, "scifi/classic") && contains("Dune", "un")', True),
        # the Bases syntax page's custom summary `values.mean().round(3)`: numbers only
        ('[1, 2, "x", 4, null].mean().round(3)', 2.333),
        ("[].mean()", None),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("7 % 4", 3),
        ("1 < 2 && 2 < 1 || true", True),
        ("!false && !0", True),
        ("'a' + 1", "a1"),
        ('"a:b:c".replace(/:/, "-")', "a-b:c"),
        ('"a:b:c".replace(/:/g, "-")', "a-b-c"),
        ('"John Smith".replace(/(\\w+) (\\w+)/, "$2, $1")', "Smith, John"),
        ('"a,b,c,d".split(",", 3)', ["a", "b", "c"]),
        ('"hello".slice(1, 4)', "ell"),
        ('"hello world".title()', "Hello World"),
        ('"hello".containsAny("x", "e")', True),
        ('"hello".containsAll("h", "z")', False),
        ('"  hi ".trim().length', 2),
        ('"123".repeat(2)', "123123"),
        ("(2.5).round()", 3),
        ("(2.3333).round(2)", 2.33),
        ("(3.14159).toFixed(2)", "3.14"),
        ("(-5).abs()", 5),
        ("(2.1).ceil()", 3),
        ("[1,2,3,4].filter(value > 2)", [3, 4]),
        ("[1,2,3,4].map(value + index)", [1, 3, 5, 7]),
        ("[1,2,3].reduce(acc + value, 0)", 6),
        ("[3,1,2].sort()", [1, 2, 3]),
        ("[1,[2,3]].flat()", [1, 2, 3]),
        ("[1,2,2,3].unique()", [1, 2, 3]),
        ('[1,2,3].join("-")', "1-2-3"),
        ("[1,2,3].containsAny(3,4)", True),
        ("[1,2,3].slice(1)", [2, 3]),
        ('{"a": 1, "b": 2}.keys()', ["a", "b"]),
        ('{"a": 1}["a"]', 1),
        ("{}.isEmpty()", True),
        ('/abc/.matches("xabcx")', True),
        ('"example".isType("string")', True),
        ("1.isTruthy()", True),
        ("123.toString()", "123"),
        ('list("v")', ["v"]),
        ("max(1, 5, 3)", 5),
        ("min(4, 2)", 2),
        ('number("3.4")', 3.4),
        ('date("2024-12-01") + "1M" + "4h" + "3m"', "2025-01-01T04:03:00"),
        ('(date("2024-01-02") - date("2024-01-01"))', 86_400_000),
        ('date("2024-01-31") + "1 month"', "2024-02-29"),
        (
            'date("2025-05-27 13:04:05").format("YYYY-MM-DD HH:mm [at] ss")',
            "2025-05-27 13:04 at 05",
        ),
        ('date("2025-05-27 13:04:05").time()', "13:04:05"),
        ('date("2025-05-27 13:04:05").date()', "2025-05-27"),
        ('date("2025-05-27").month', 5),
        ('(duration("5h") * 2).hours', 10),
        ('if(false, missing_fn_is_not_called, "no")', "no"),
        ("if(0, 1)", None),
        ('escapeHTML("<b>")', "&lt;b&gt;"),
    ],
)
def test_expressions(ctx: Context, expr: str, expected: object) -> None:
    assert ev(ctx, expr) == expected


def test_properties_file_facts_links_and_this(ctx: Context) -> None:
    assert ev(ctx, "rating") == 9 and ev(ctx, "note.rating") == 9 and ev(ctx, 'note["rating"]') == 9
    assert ev(ctx, "price * 2") == 25
    assert ev(ctx, "nothing_here") is None and ev(ctx, "nothing_here.isEmpty()") is True
    assert ev(ctx, "read") == "2024-03-01"  # an ISO date in the frontmatter is a date
    assert ev(ctx, "read.year") == 2024
    assert ev(ctx, "read < date('2024-04-01')") is True
    assert ev(ctx, "file.name") == "Dune.md" and ev(ctx, "file.basename") == "Dune"
    assert ev(ctx, "file.folder") == "Books" and ev(ctx, "file.ext") == "md"
    assert ev(ctx, "file.path") == "Books/Dune.md" and ev(ctx, "file.size") > 100
    assert ev(ctx, 'file.hasTag("scifi")') is True and ev(ctx, 'file.hasTag("sci")') is False
    assert ev(ctx, 'file.inFolder("Books")') is True and ev(ctx, 'file.inFolder("People")') is False
    assert ev(ctx, 'file.hasProperty("year")') is True
    assert ev(ctx, 'categories.contains(link("Books"))') is True
    assert ev(ctx, 'categories.contains(link("People"))') is False
    # links compare by the file they resolve to; `this` is Frank Herbert's note
    assert ev(ctx, "author == this") is True and ev(ctx, "list(author).contains(this)") is True
    assert (
        ev(ctx, "file.hasLink(this)") is True and ev(ctx, "file.links.contains(this.file)") is True
    )
    assert ev(ctx, 'file.hasLink("cover.png")') is True
    assert ev(ctx, "file.embeds") == ["[[cover.png]]"]
    assert ev(ctx, "this.file.name") == "Frank Herbert.md"
    assert ev(ctx, "this.born.year") == 1920
    assert ev(ctx, "author.asFile().properties.born") == "1920-10-08"
    assert ev(ctx, 'file("Books/Emma.md").backlinks') == ["[[People/Jane Austen]]"]
    assert isinstance(evaluate(parse("now()"), ctx), Date)
    assert ev(ctx, "today()") == datetime.now().strftime("%Y-%m-%d")
    assert ev(ctx, 'file.mtime > now() - "1 week"') is True


def test_formulas_cycles_and_unsupported_constructs_are_named() -> None:
    base = read_base("formulas:\n  a: price * 2\n  b: formula.a + 1\nviews:\n  - type: table\n")
    assert set(base.formulas) == {"a", "b"}
    with pytest.raises(BaseError) as cycle:
        read_base("formulas:\n  a: formula.b + 1\n  b: formula.c\n  c: formula.a\n")
    assert "formula.a -> formula.b -> formula.c -> formula.a" in str(cycle.value)
    assert cycle.value.line == 2
    with pytest.raises(BaseError) as unknown:
        read_base("filters:\n  and:\n    - file.hasTag('x')\n    - nope(empty(note.last))\n")
    assert "unsupported function `nope()`" in str(unknown.value) and unknown.value.line == 4
    with pytest.raises(BaseError, match=r"unsupported function `\.frobnicate\(\)`"):
        read_base("formulas:\n  x: file.name.frobnicate()\n")
    with pytest.raises(BaseError, match=r"unknown formula `formula\.nope`"):
        read_base("filters: formula.nope > 1\n")
    with pytest.raises(BaseError, match="not valid YAML") as bad:
        read_base("views:\n  - type: table\n   name: [\n")
    assert bad.value.line is not None
    views = read_base("views:\n  - type: gallery\n    name: G\n  - type: table\n").views
    assert views[0].error is not None and "unknown type 'gallery'" in str(views[0].error)
    assert views[1].error is None
    with pytest.raises(BaseError, match="unexpected"):
        parse("1 +* 2", 7)
