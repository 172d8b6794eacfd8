"""A write derives again only the relationships, link_dest rows and path edges it can change
(kbtui.store.graph.relink): the notes whose links changed, that appeared, vanished or moved,
and the notes linking by a name that gained or lost a holder. Random sequences of edits,
renames, moves, deletes, new namesakes, title and alias changes and canvases must leave those
tables equal to a rebuild after every step and to a fresh index at the end."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from kbtui.config import INDEX_DIRNAME, Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store

DERIVED = ("relationships", "link_dest", "graph_edges")
NAMES = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta"]
FOLDERS = ["", "a", "a/d", "b", "c"]  # a/x.md and a/d/x.md: one id, two folders


def derived(store: Store) -> dict[str, list[tuple[object, ...]]]:
    rows = store.snapshot().rows
    return {t: rows[t] for t in DERIVED}


def rebuilt(store: Store) -> dict[str, list[tuple[object, ...]]]:
    """The same tables derived from scratch, in a transaction rolled back after."""
    store.con.execute("BEGIN TRANSACTION")
    try:
        store.rebuild_relationships()
        return derived(store)
    finally:
        store.con.execute("ROLLBACK")


def note_text(rng: random.Random) -> str:
    links = [rng.choice(NAMES) for _ in range(rng.randint(0, 4))]
    body = " ".join(
        rng.choice([f"[[{n}]]", f"[[{rng.choice(FOLDERS[1:])}/{n}]]", f"![[{n}]]", f"[[{n}|x]]"])
        for n in links
    )
    front = []
    if rng.random() < 0.3:
        front.append(f"title: {rng.choice(NAMES)} {rng.randint(1, 2)}")
    if rng.random() < 0.3:
        front.append(f"aliases: [{rng.choice(NAMES)}]")
    if rng.random() < 0.3:
        front.append(f'related: "[[{rng.choice(NAMES)}]]"')
    head = "---\n" + "\n".join(front) + "\n---\n" if front else ""
    return f"{head}Some words {rng.randint(0, 9)}. {body}\n"


def canvas_text(rng: random.Random, notes: list[str]) -> str:
    picked = rng.sample(notes, min(len(notes), 3))
    nodes = [
        {"id": f"n{i}", "type": "file", "file": p, "x": 0, "y": 100 * i, "width": 9, "height": 9}
        for i, p in enumerate(picked)
    ]
    edges = [
        {"id": f"e{i}", "fromNode": f"n{i}", "toNode": f"n{i + 1}", "label": rng.choice(["", "x"])}
        for i in range(len(picked) - 1)
    ]
    return json.dumps({"nodes": nodes, "edges": edges})


def notes_in(vault: Path) -> list[str]:
    return sorted(
        p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if INDEX_DIRNAME not in p.parts
    )


def ident(rel: str) -> tuple[str, str]:
    """The entity id a path gets (type from the top folder, name from the file name)."""
    parts = rel.split("/")
    return (parts[0] if len(parts) > 1 else "note", parts[-1].lower().replace(" ", "_"))


def step(rng: random.Random, vault: Path) -> list[str]:
    """One random change to the vault; returns the paths the watcher would report. Paths
    whose id another note holds are left alone: which note keeps the id depends on history,
    and the fresh index at the end must give every note the same id."""
    notes = notes_in(vault)
    kind = rng.choice(["edit", "edit", "relink", "new", "rename", "move", "delete", "canvas"])
    if kind == "new" or len(notes) < 3:
        folder = rng.choice(FOLDERS)
        rel = f"{folder}/{rng.choice(NAMES)}.md".lstrip("/")
        if any(ident(n) == ident(rel) for n in notes):
            return []
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(note_text(rng))
        return [rel]
    rel = rng.choice(notes)
    path = vault / rel
    if kind == "edit":  # text changes, links and names do not
        path.write_text(path.read_text() + f"\nmore text {rng.random()}\n")
    elif kind == "relink":
        path.write_text(note_text(rng))
    elif kind in ("rename", "move"):  # a move keeps the id: a/x.md <-> a/d/x.md
        name = rel.rsplit("/", 1)[-1]
        new = f"{rng.choice(FOLDERS)}/{rng.choice(NAMES)}{rng.choice(['', ' 2'])}.md".lstrip("/")
        if kind == "move":
            new = f"a/d/{name}" if rel == f"a/{name}" else f"a/{name}"
        if any(ident(n) == ident(new) for n in notes if n != rel) or (vault / new).exists():
            return []
        (vault / new).parent.mkdir(parents=True, exist_ok=True)
        path.rename(vault / new)
        return [rel, new]
    elif kind == "delete":
        path.unlink()
    else:
        (vault / "board.canvas").write_text(canvas_text(rng, notes))
        return ["board.canvas"]
    return [rel]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_writes_keep_derived_tables_equal_to_a_rebuild(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    vault = tmp_path / "vault"
    for folder in FOLDERS:
        (vault / folder).mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(NAMES * 2):
        folder = FOLDERS[i % len(FOLDERS)]
        (vault / folder / f"{name}.md").write_text(note_text(rng))
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    indexer = Indexer(settings, store, HashEmbedder())
    try:
        indexer.run(embed=False)
        for n in range(40):
            paths = step(rng, vault)
            if not paths:
                continue
            indexer.run(embed=False, paths=paths)
            now = derived(store)
            assert now == rebuilt(store), f"seed {seed}, step {n}: {paths}"
        assert now["relationships"] and now["link_dest"], "the vault must link somewhere"
        final = derived(store)
    finally:
        store.close()
    fresh_vault = tmp_path / "fresh"
    shutil.copytree(vault, fresh_vault, ignore=shutil.ignore_patterns(INDEX_DIRNAME))
    fresh_settings = Settings.for_vault(fresh_vault)
    fresh = Store(fresh_settings.db_path)
    try:
        Indexer(fresh_settings, fresh, HashEmbedder()).run(embed=False)
        assert derived(fresh) == final
    finally:
        fresh.close()


def test_a_move_that_keeps_the_id_moves_the_nearest_namesake(tmp_path: Path) -> None:
    """b/E.md links [[Zeta]]; a/Zeta.md and c/Zeta.md are two folders away, the tie goes to
    the smaller id (a:zeta). Moved to a/d/ (same id, same file name: no name of it changes
    but its path), a:zeta is three folders away and c:zeta is the link's note now."""
    vault = tmp_path / "vault"
    for rel, text in (("b/E.md", "[[Zeta]]\n"), ("a/Zeta.md", "a\n"), ("c/Zeta.md", "c\n")):
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    try:
        indexer = Indexer(settings, store, HashEmbedder())
        indexer.run(embed=False)
        targets = "SELECT target_id FROM relationships WHERE source_id = 'b:e'"
        assert store.con.execute(targets).fetchall() == [("a:zeta",)]
        (vault / "a" / "d").mkdir()
        (vault / "a" / "Zeta.md").rename(vault / "a" / "d" / "Zeta.md")
        indexer.run(embed=False, paths=["a/Zeta.md", "a/d/Zeta.md"])
        assert store.con.execute(targets).fetchall() == [("c:zeta",)]
        assert store.obsidian_links("b/E.md") == [("b/E.md", "Zeta", "zeta", "c/Zeta.md")]
        assert derived(store) == rebuilt(store)
    finally:
        store.close()
