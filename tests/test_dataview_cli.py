"""`kbtui dataview` (click's runner) in every format, and answers that follow the vault: a note's
inline field edited, the path indexed (as the watcher does), the answer changes; and a running
vault (VaultRuntime with its real watcher) answering the new value with no explicit index."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from kbtui.cli import main
from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.runtime.runtime import VaultRuntime
from tests.dataview_kit import Runner, indexed, write

NOTES = {
    "Books/Dune.md": "---\nrating: 9\n---\n#book\nauthor:: [[Frank Herbert]]\n"
    "- [ ] reread chapter 1 [due:: 2024-03-04]\n    - [x] find the copy\n",
    "Books/Emma.md": "#book\nrating:: 7\nauthor:: [[Jane Austen]]\n- [x] finished\n",
    "Jane Austen.md": "born:: 1775\n",
    "Daily.md": "Today: [[Dune]]\n",
}


def cli(vault: Path, *args: str) -> Any:
    return CliRunner().invoke(main, ["dataview", *args, "--vault", str(vault)])


def test_cli_formats(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    store, _service = indexed(vault, NOTES)
    store.close()
    query = "TABLE rating, author AS Author FROM #book SORT rating DESC"
    res = cli(vault, query, "--format", "json")
    assert res.exit_code == 0, res.output
    dune = {"File": "[[Books/Dune.md|Dune]]", "rating": 9}
    emma = {"File": "[[Books/Emma.md|Emma]]", "rating": 7}
    assert json.loads(res.output) == [
        {**dune, "Author": "[[Frank Herbert|Frank Herbert]]"},  # no such note: as written
        {**emma, "Author": "[[Jane Austen.md|Jane Austen]]"},
    ]
    res = cli(vault, query, "--format", "csv")
    assert list(csv.reader(io.StringIO(res.output))) == [
        ["File", "rating", "Author"],
        ["[[Books/Dune.md|Dune]]", "9", "[[Frank Herbert|Frank Herbert]]"],
        ["[[Books/Emma.md|Emma]]", "7", "[[Jane Austen.md|Jane Austen]]"],
    ]
    assert cli(vault, query, "--format", "tsv").output.splitlines()[1].split("\t")[1] == "9"
    assert cli(vault, query, "--format", "paths").output == "Books/Dune.md\nBooks/Emma.md\n"
    md = cli(vault, query).output  # Dataview's Markdown export
    assert md.splitlines()[0].startswith("| File") and "| 9 " in md
    grouped = json.loads(cli(vault, "TABLE length(rows) AS n GROUP BY rating > 8 AS good",
                             "--format", "json").output)  # fmt: skip
    assert grouped == [{"good": False, "n": 3}, {"good": True, "n": 1}]


def test_cli_tasks_and_this(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    store, _service = indexed(vault, NOTES)
    store.close()
    res = cli(vault, "TASK FROM #book WHERE !completed", "--format", "json")
    assert json.loads(res.output) == [{
        "status": " ", "text": "- [ ] reread chapter 1 [due:: 2024-03-04]",
        "file": "Books/Dune.md", "line": "6",
        "children": [{"status": "x", "text": "    - [x] find the copy", "file": "Books/Dune.md",
                      "line": "7"}],
    }]  # fmt: skip
    res = cli(vault, "TASK FROM #book WHERE !completed", "--format", "paths")
    assert res.output == "Books/Dune.md:6\nBooks/Dune.md:7\n"
    assert cli(vault, "TASK GROUP BY file.name").output.startswith("# Dune\n\n- [ ] reread")
    res = cli(vault, "LIST FROM outgoing([[]])", "--this", "Daily", "--format", "paths")
    assert res.output == "Books/Dune.md\n"
    res = cli(vault, "LIST author.born WHERE file.link = [[Emma]]", "--format", "json")
    assert json.loads(res.output) == [{"File": "[[Books/Emma.md|Emma]]", "value": 1775}]


def test_cli_errors(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    store, _service = indexed(vault, NOTES)
    store.close()
    res = cli(vault, "TABLE frob(rating)")
    assert res.exit_code == 1 and "unsupported function `frob()`" in res.output
    res = cli(vault, "CALENDAR file.ctime")
    assert res.exit_code == 1 and "CALENDAR queries are not supported" in res.output
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "a.md").write_text("x:: 1\n")
    res = cli(empty, "LIST")
    assert res.exit_code == 1 and "kbtui index" in res.output  # never indexed: say so


MISSPELT = [  # (query, what the error says): each names the construct, none answers empty
    ('LIST WHERE contians(file.tags, "#book")',
     "unsupported function `contians()`: Dataview has no function of that name; did you mean "
     "`contains()`?"),
    ("TABLE lenght(file.tasks)", "did you mean `length()`?"),
    ("TABLE rating SORT rating ASCC",
     "line 1: expected FROM, WHERE, SORT, GROUP BY, FLATTEN or LIMIT at `ASCC`"),
    ("TABLE rating WHER rating > 5", "at `WHER rating > 5`"),
    ("TABEL rating", "a query starts with LIST, TABLE or TASK at `TABEL rating`"),
    ("TABLE rating GROUPBY rating", "at `GROUPBY rating`"),
    ('TASK WHERE contains(text, "task"', 'line 1: cannot read the call `contains(text, "task"`: '
                                         "an argument is no expression, or its `)` is missing"),
    ("TABLE dur(3 dyas)", "cannot read the call `dur(3 dyas)`"),
    ("TABLE round()",  # every row fails alike: the reason said once
     "every row failed during 'extract': No implementation of 'round' found for arguments: \n"),
]  # fmt: skip


def test_misspelt_keywords_and_functions_are_named(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    store, _service = indexed(vault, NOTES)
    store.close()
    for query, said in MISSPELT:
        res = CliRunner(env={"COLUMNS": "300"}).invoke(
            main, ["dataview", query, "--vault", str(vault)]
        )
        assert res.exit_code == 1 and said in res.output, (query, res.output)


def test_an_edited_inline_field_changes_the_answer(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    store, service = indexed(vault, NOTES)
    run = Runner(service)
    settings = Settings.for_vault(vault)
    assert run.list("LIST rating FROM #book SORT rating") == [("Emma", "7"), ("Dune", "9")]

    def save(rel: str, body: str | None) -> None:
        if body is None:
            (vault / rel).unlink()
        else:
            write(vault, {rel: body})
        Indexer(settings, store, None).run(embed=False, paths=[rel])

    save("Books/Emma.md", NOTES["Books/Emma.md"].replace("rating:: 7", "rating:: 10"))
    assert run.list("LIST rating FROM #book SORT rating") == [("Dune", "9"), ("Emma", "10")]
    save("Books/Persuasion.md", "#book\n- [ ] read it [rating:: 8]\n\nrating:: 8\n")
    assert run.list("LIST rating FROM #book SORT rating") == [
        ("Persuasion", "8"), ("Dune", "9"), ("Emma", "10")]  # fmt: skip
    assert run.tasks("TASK WHERE rating = 8") == ["[ ] read it [rating:: 8]"]
    save("Books/Dune.md", None)
    assert run.list("LIST FROM #book") == ["Emma", "Persuasion"]
    store.close()


def eventually(check: Callable[[], Any], limit: float = 20.0) -> Any:
    deadline = time.monotonic() + limit
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_a_running_vault_follows_a_saved_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, NOTES)
    runtime = VaultRuntime(Settings.for_vault(vault), HashEmbedder())
    runtime.start()
    try:
        assert runtime.worker.wait_idle(60)

        def ratings() -> list[Any]:
            answer = runtime.call("app_dataview", {"query": "TABLE rating FROM #book"})
            return [row["rating"] for row in answer["rows"]]

        assert ratings() == [9, 7]
        note = vault / "Books" / "Emma.md"
        note.write_text(note.read_text().replace("rating:: 7", "rating:: 6"), encoding="utf-8")
        assert eventually(lambda: ratings() == [9, 6])
    finally:
        runtime.close()
