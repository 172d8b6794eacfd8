"""The examples of the Dataview plugin's query pages (blacksmithgu/obsidian-dataview, MIT:
docs/queries/query-types.md, structure.md, data-commands.md, docs/reference/sources.md,
docs/annotation/*.md) run by kbtui on vaults holding the notes they describe, with the answers
the pages give. Where the pages show unsorted output, rows come in path order."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from kbtui.store import Store
from tests.dataview_kit import Runner, indexed

NOW = datetime(2022, 10, 1, 12, 0)
GAMES = {
    "Baking/Recipes/Classic Cheesecake.md": "type:: recipe\n",
    "Coding/Git Basics.md": "type:: knowledge\n",
    "Coding/Cheatsheets/How to fix Git Cheatsheet.md": "type:: summary\n",
    "Games/League of Legends.md": "---\ntype: game\nstarted: 2021-05-16\n---\n#games/moba\n",
    "Games/Pillars of Eternity 2.md": "---\ntype: game\nstarted: 2022-04-21\nsteamid: 560130\n"
    "finished: 2022-11-23\n---\n#games/crpg\n",
    "Games/finished/Stardew Valley.md": "---\ntype: game\nstarted: 2021-04-04\nsteamid: 413150\n"
    "finished: 2021-08-28\n---\n#games/simulation\n",
    "Dashboard.md": "type:: moc\n",
}
TASKS = {
    "2022-07-30.md": "- [ ] Finish the math assignment\n"
    "\t- [x] Finish Paper 1 [due:: 2022-08-13]\n"
    "\t- [ ] Read again through chapter 3 [due:: 2022-09-01]\n"
    "\t- [x] Write a cheatsheet [due:: 2022-08-02]\n"
    "\t- [ ] Write a summary of chapter 1-4 [due:: 2022-09-12]\n"
    "- [x] Hand in physics\n",
    "2022-09-21.md": "- [ ] Buy new shoes #shopping\n- [ ] Mail Paul about training schedule\n",
    "2022-09-27.md": "- [ ] Get new pillows for mom #shopping\n"
    "- [x] Buy some working pencils #shopping\n",
}


@pytest.fixture
def games(tmp_path: Path) -> Iterator[Runner]:
    store, service = indexed(tmp_path / "vault", GAMES)
    yield Runner(service, NOW)
    store.close()


@pytest.fixture
def tasks(tmp_path: Path) -> Iterator[Runner]:
    store, service = indexed(tmp_path / "vault", TASKS)
    yield Runner(service, NOW)
    store.close()


ALL = ["Classic Cheesecake", "How to fix Git Cheatsheet", "Git Basics", "Dashboard",
       "League of Legends", "Pillars of Eternity 2", "Stardew Valley"]  # fmt: skip


# -- query-types.md: LIST ---------------------------------------------------------------------
def test_list(games: Runner) -> None:
    assert games.list("LIST") == ALL
    assert games.list("LIST\nFROM #games/mobas OR #games/crpg") == ["Pillars of Eternity 2"]
    assert games.list("LIST FROM #games/moba OR #games/crpg") == [
        "League of Legends", "Pillars of Eternity 2"]  # fmt: skip


def test_list_with_a_value(games: Runner) -> None:
    assert games.list("LIST file.folder") == [
        ("Classic Cheesecake", "Baking/Recipes"),
        ("How to fix Git Cheatsheet", "Coding/Cheatsheets"),
        ("Git Basics", "Coding"),
        ("Dashboard", ""),
        ("League of Legends", "Games"),
        ("Pillars of Eternity 2", "Games"),
        ("Stardew Valley", "Games/finished"),
    ]
    got = games.list(
        'LIST "File Path: " + file.folder + " _(created: " + file.cday + ")_"\nFROM "Games"'
    )
    assert [name for name, _ in got] == ["League of Legends", "Pillars of Eternity 2",
                                         "Stardew Valley"]  # fmt: skip
    assert got[2][1].startswith("File Path: Games/finished _(created: ")


def test_grouped_list(games: Runner) -> None:
    assert games.list("LIST\nGROUP BY type") == ["game", "knowledge", "moc", "recipe", "summary"]
    assert games.list("LIST rows.file.link\nGROUP BY type") == [
        ("game", ["League of Legends", "Pillars of Eternity 2", "Stardew Valley"]),
        ("knowledge", ["Git Basics"]),
        ("moc", ["Dashboard"]),
        ("recipe", ["Classic Cheesecake"]),
        ("summary", ["How to fix Git Cheatsheet"]),
    ]


def test_list_without_id(games: Runner) -> None:
    assert games.list("LIST WITHOUT ID") == ALL
    assert sorted(games.list("LIST WITHOUT ID type")) == [
        "game", "game", "game", "knowledge", "moc", "recipe", "summary"]  # fmt: skip
    assert games.list('LIST WITHOUT ID length(rows) + " pages of type " + key\nGROUP BY type') == [
        "3 pages of type game", "1 pages of type knowledge", "1 pages of type moc",
        "1 pages of type recipe", "1 pages of type summary"]  # fmt: skip


# -- query-types.md: TABLE --------------------------------------------------------------------
def test_table(games: Runner) -> None:
    headers, rows = games.table("TABLE")
    assert headers == ["File"] and [r[0] for r in rows] == ALL
    assert games.table("TABLE started, file.folder, file.etags\nFROM #games") == (
        ["File", "started", "file.folder", "file.etags"],
        [
            ["League of Legends", "May 16, 2021", "Games", ["#games/moba"]],
            ["Pillars of Eternity 2", "April 21, 2022", "Games", ["#games/crpg"]],
            ["Stardew Valley", "April 04, 2021", "Games/finished", ["#games/simulation"]],
        ],
    )


def test_column_headers(games: Runner) -> None:
    headers, rows = games.table(
        'TABLE started, file.folder AS Path, file.etags AS "File Tags"\nFROM #games'
    )
    assert headers == ["File", "started", "Path", "File Tags"]
    assert rows[2] == ["Stardew Valley", "April 04, 2021", "Games/finished", ["#games/simulation"]]
    headers, rows = games.table(
        'TABLE\ndefault(finished, date(today)) - started AS "Played for",\n'
        'file.folder AS Path,\nfile.etags AS "File Tags"\nFROM #games'
    )
    assert headers == ["File", "Played for", "Path", "File Tags"]
    assert rows[1][1] == "7 months, 2 days"  # Pillars: 2022-04-21 to 2022-11-23, as on the page
    assert rows[2][1] == "4 months, 3 weeks, 3 days"  # Stardew, as on the page
    assert rows[0][1] == "1 year, 4 months, 2 weeks, 1 day"  # LoL: until `today` (NOW here)


def test_table_without_id(games: Runner) -> None:
    assert games.table('TABLE WITHOUT ID\nsteamid,\nfile.etags AS "File Tags"\nFROM #games') == (
        ["steamid", "File Tags"],
        [["\\-", ["#games/moba"]], ["560130", ["#games/crpg"]], ["413150", ["#games/simulation"]]],
    )
    headers, rows = games.table(
        'TABLE WITHOUT ID\nfile.link AS "Game",\nfile.etags AS "File Tags"\nFROM #games'
    )
    assert headers == ["Game", "File Tags"]
    assert [r[0] for r in rows] == ["League of Legends", "Pillars of Eternity 2", "Stardew Valley"]


def test_a_grouped_table_names_its_id_column_after_the_group(games: Runner) -> None:
    """As Dataview's engine does (src/query/engine.ts, executeTable): `GROUP BY type` heads
    the first column `type`; `AS` names it."""
    headers, rows = games.table("TABLE length(rows) AS n\nGROUP BY type")
    assert headers == ["type", "n"] and rows[0] == ["game", "3"]
    headers, _rows = games.table("TABLE rows.file.name\nGROUP BY file.folder AS Folder")
    assert headers == ["Folder", "rows.file.name"]


# -- query-types.md: TASK ---------------------------------------------------------------------
def test_task(tasks: Runner) -> None:
    assert tasks.tasks("TASK") == [
        ("[ ] Finish the math assignment", [
            "[x] Finish Paper 1 [due:: 2022-08-13]",
            "[ ] Read again through chapter 3 [due:: 2022-09-01]",
            "[x] Write a cheatsheet [due:: 2022-08-02]",
            "[ ] Write a summary of chapter 1-4 [due:: 2022-09-12]"]),
        "[x] Hand in physics",
        "[ ] Buy new shoes #shopping",
        "[ ] Mail Paul about training schedule",
        "[ ] Get new pillows for mom #shopping",
        "[x] Buy some working pencils #shopping",
    ]  # fmt: skip
    assert tasks.tasks('TASK\nWHERE !completed AND contains(tags, "#shopping")') == [
        "[ ] Buy new shoes #shopping", "[ ] Get new pillows for mom #shopping"]  # fmt: skip


def test_tasks_grouped_by_file(tasks: Runner) -> None:
    got = tasks.tasks("TASK\nWHERE !completed\nGROUP BY file.link")
    assert [(key, [t if isinstance(t, str) else t[0] for t in rows]) for key, rows in got] == [
        ("2022-07-30", ["[ ] Finish the math assignment"]),
        ("2022-09-21", ["[ ] Buy new shoes #shopping", "[ ] Mail Paul about training schedule"]),
        ("2022-09-27", ["[ ] Get new pillows for mom #shopping"]),
    ]
    answer = tasks.answer("TASK\nWHERE !completed\nGROUP BY file.link")
    assert answer["count"] == 4  # child tasks are counted with their parent: (1), (2), (1)


def test_child_tasks(tmp_path: Path) -> None:
    store, service = indexed(tmp_path / "v", {"House.md": (
        "- [ ] clean up the house\n\t- [ ] kitchen\n\t- [x] living room\n"
        "\t- [ ] Bedroom [urgent:: true]\n- [ ] Call the insurance about the car\n"
        "- [x] Find out the transaction number\n")})  # fmt: skip
    run = Runner(service)
    house = ("[ ] clean up the house",
             ["[ ] kitchen", "[x] living room", "[ ] Bedroom [urgent:: true]"])  # fmt: skip
    assert run.tasks("TASK") == [house, "[ ] Call the insurance about the car",
                                 "[x] Find out the transaction number"]  # fmt: skip
    assert run.tasks("TASK\nWHERE !completed") == [house, "[ ] Call the insurance about the car"]
    assert run.tasks("TASK\nWHERE urgent") == ["[ ] Bedroom [urgent:: true]"]
    assert run.tasks("TASK WHERE !fullyCompleted") == [
        house,
        "[ ] Call the insurance about the car",
    ]
    store.close()


def test_unsupported_query_types_are_named(games: Runner) -> None:
    from kbtui.dataview.query import DqlError

    with pytest.raises(DqlError, match="CALENDAR queries are not supported"):
        games.raw("CALENDAR file.ctime")
    with pytest.raises(DqlError, match="csv\\(\\) sources are not supported"):
        games.raw('TABLE x FROM csv("data.csv")')
    with pytest.raises(DqlError, match="DataviewJS is not run"):
        games.raw('dv.list(dv.pages("#games"))')


# -- structure.md, data-commands.md, sources.md -------------------------------------------------
SCHOOL = {
    "30 School/Essay.md": "#assignment\n",
    "30 School/32 Homeworks/Math.md": "#homework\n",
    "30 School/32 Homeworks/Physics.md": "#homework\n",
    "Other/Task.md": "#assignment #status/open\nstatus:: open\n",
    "School Dashboard Current To Dos.md": "[[Physics]] [[Task]]\n",
    "Open.md": "#status/open\n",
    "Wip.md": "---\ntags: status/wip\n---\n",
    "Food/Pizza.md": "#food #fastfood [[Food]]\n",
    "Food/Salad.md": "#food [[Exercise]]\n",
    "Food.md": "[[Pizza]]\n",
}


@pytest.fixture
def school(tmp_path: Path) -> Iterator[tuple[Runner, Store]]:
    store, service = indexed(tmp_path / "vault", SCHOOL)
    yield Runner(service, NOW), store
    store.close()


def test_sources(school: tuple[Runner, Store]) -> None:
    run, _ = school
    assert run.list('LIST\nFROM "30 School/32 Homeworks"') == ["Math", "Physics"]
    assert run.list("LIST\nFROM #status/open OR #status/wip") == ["Open", "Task", "Wip"]
    assert run.list(
        'LIST\nFROM (#assignment AND "30 School") OR ("30 School/32 Homeworks" AND '
        "outgoing([[School Dashboard Current To Dos]]))"
    ) == ["Physics", "Essay"]
    assert run.list("LIST FROM #food and !#fastfood") == ["Salad"]
    assert run.list('LIST FROM #food and -"Food/Salad"') == ["Pizza"]
    assert run.list("LIST FROM [[Food]] or [[Exercise]]") == ["Pizza", "Salad"]
    assert run.list("LIST FROM [[Pizza]]") == ["Food"]
    assert run.list("LIST FROM outgoing([[Food]])") == ["Pizza"]
    assert run.list('LIST FROM "30 School/Essay"') == ["Essay"]  # a single file
    assert run.list('LIST FROM "30 School/32 Homeworks/"') == []  # no trailing slash
    assert run.list('LIST FROM "30 School"') == ["Math", "Physics", "Essay"]
    assert run.list("LIST FROM [[]]", this="Food.md") == ["Pizza"]  # the note holding the query
    assert run.list("LIST FROM #Status/Open") == ["Open", "Task"]  # tags ignore case


def test_where_and_field_values(school: tuple[Runner, Store]) -> None:
    run, _ = school
    assert run.list('LIST\nFROM #assignment\nWHERE status = "open"') == ["Task"]
    assert run.list('LIST FROM #homework WHERE status != "done"') == ["Math", "Physics"]
    recent = "LIST WHERE file.mtime >= date(today) - dur(1 day)"  # modified in the last day
    assert len(Runner(run.service, datetime.now()).list(recent)) == len(SCHOOL)
    assert Runner(run.service, datetime(2100, 1, 1)).list(recent) == []


def test_commands_run_in_order(tmp_path: Path) -> None:
    """data-commands.md: LIMIT then SORT sorts the limited rows; commands repeat."""
    notes = {f"n{i}.md": f"date:: 2021-01-{10 - i:02d}\nrank:: {i % 3}\n" for i in range(1, 10)}
    store, service = indexed(tmp_path / "v", notes)
    run = Runner(service)
    assert run.list("LIST\nLIMIT 5\nSORT date ASCENDING") == ["n5", "n4", "n3", "n2", "n1"]
    assert run.list("LIST\nSORT date ASCENDING\nLIMIT 5") == ["n9", "n8", "n7", "n6", "n5"]
    assert run.list("LIST SORT rank DESC, date ASC") == [
        "n8", "n5", "n2", "n7", "n4", "n1", "n9", "n6", "n3"]  # fmt: skip
    assert run.list("LIST WHERE rank > 0 WHERE rank < 2") == ["n1", "n4", "n7"]
    assert run.list("LIST rows.rows.file.name GROUP BY rank GROUP BY length(rows)") == [
        ("3", [["n3", "n6", "n9"], ["n1", "n4", "n7"], ["n2", "n5", "n8"]])]  # fmt: skip
    assert run.list("LIST rows.key GROUP BY rank GROUP BY length(rows)") == [("3", ["0", "1", "2"])]
    store.close()


def test_flatten(tmp_path: Path) -> None:
    store, service = indexed(tmp_path / "v", {
        "stegEnvironmentalPsychologyIntroduction2018 SN.md": "#LiteratureNote\n"
        'authors:: "Steg, L.", "Van den Berg, A. E.", "De Groot, J. I. M."\n',
        "Soap Dragons SN.md": '#LiteratureNote\nauthors:: "Robert Lamb", "Joe McCormick"\n',
        "smithPainAssaultSelf2007 SN.md": "---\ntags: LiteratureNote\n"
        "authors: [Jonathan A. Smith, Mike Osborn]\n---\n",
        "Scratchpad/Day.md": "- [ ] one\n- [ ] two\n",
    })  # fmt: skip
    run = Runner(service)
    assert run.table("TABLE authors FROM #LiteratureNote\nFLATTEN authors") == (
        ["File", "authors"],
        [["Soap Dragons SN", "Robert Lamb"], ["Soap Dragons SN", "Joe McCormick"],
         ["smithPainAssaultSelf2007 SN", "Jonathan A. Smith"],
         ["smithPainAssaultSelf2007 SN", "Mike Osborn"],
         ["stegEnvironmentalPsychologyIntroduction2018 SN", "Steg, L."],
         ["stegEnvironmentalPsychologyIntroduction2018 SN", "Van den Berg, A. E."],
         ["stegEnvironmentalPsychologyIntroduction2018 SN", "De Groot, J. I. M."]],
    )  # fmt: skip
    assert run.table(
        'table T.text as "Task Text"\nfrom "Scratchpad"\nflatten file.tasks as T\nwhere T.text'
    ) == (["File", "Task Text"], [["Day", "one"], ["Day", "two"]])
    assert run.table(
        'table filter(file.tasks.text, (t) => t) as "Task Text"\nfrom "Scratchpad"\n'
        "where file.tasks.text"
    ) == (["File", "Task Text"], [["Day", ["one", "two"]]])
    store.close()


# -- annotation pages ------------------------------------------------------------------------
def test_metadata_examples(tmp_path: Path) -> None:
    store, service = indexed(tmp_path / "v", {
        "Movie X.md": '---\ngenre: "action"\nreviewed: false\n---\n# Movie X\n#movies\n\n'
        "**Thoughts**:: It was decent.\n**Rating**:: 6\n\n[mood:: okay] | [length:: 2 hours]\n",
        "Doc.md": "---\nalias: \"document\"\nlast-reviewed: 2021-08-17\nthoughts:\n  rating: 8\n"
        "  reviewable: false\n---\n",
        "Untitled 2.md": "date1:: 2021-02-26T15:15\ndate2:: 2021-04-17 18:00\n\n"
        "grocery:: flour\n\ntext\n\ngrocery:: soap\n",
        "Obj.md": '---\nobj:\n  key1: "Val"\n  key2: 3\n  key3:\n'
        '    - "List1"\n    - "List2"\n---\n',
        "Done.md": "- [x] Completed last Saturday ✅2021-08-22\n"
        "- [x] Some Done Task [completion:: 2021-08-22]\n- [ ] open [x:: 1]\n",
    })  # fmt: skip
    run = Runner(service)
    headers, rows = run.table("TABLE file.ctime, length, rating, reviewed\nFROM #movies")
    assert headers == ["File", "file.ctime", "length", "rating", "reviewed"]
    assert rows[0][0] == "Movie X" and rows[0][2:] == ["2 hours", "6", "false"]
    assert run.list("LIST\nWHERE thoughts.rating = 8") == ["Doc"]
    assert run.table("TABLE date1, date2\nWHERE file = this.file", "Untitled 2") == (
        ["File", "date1", "date2"],
        [["Untitled 2", "3:15 PM - February 26, 2021", "2021-04-17 18:00"]],
    )
    assert run.list("LIST grocery\nWHERE file = this.file", "Untitled 2") == [
        ("Untitled 2", ["flour", "soap"])]  # fmt: skip
    assert run.table("TABLE obj.key1, obj.key2, obj.key3\nWHERE file = this.file", "Obj")[1] == [
        ["Obj", "Val", "3", ["List1", "List2"]]]  # fmt: skip
    assert run.tasks('TASK\nWHERE completion = date("2021-08-22")') == [
        "[x] Completed last Saturday ✅2021-08-22",
        "[x] Some Done Task [completion:: 2021-08-22]",
    ]
    assert run.list("LIST\nWHERE any(file.tasks, (t) => !t.fullyCompleted)") == ["Done"]
    store.close()
