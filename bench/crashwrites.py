"""kill -9 during the tools that write notes: knowledge_import, kg_create_entity,
kg_create_relationship, kg_merge_entities. A note is never partial and never missing.

    python bench/crashwrites.py --ops 200 --seed 1

Each op runs in a child process (bench/crashkit.py call) that dies at a random moment: between
the steps of the atomic write (before os.fdopen, os.link, os.rename, os.replace, os.fsync),
during or inside a DuckDB transaction, or after a random delay. Then the writes it left half
done are finished as the next open of the vault does (kbtui.tools.write.service.recover_writes),
the vault is compared file by file with its state before the op, the index is reopened and
brought up to date, and at the end it must equal a fresh build. Prints runs, faults injected,
checks, leftover temp files, failures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_common import VAULT_EXAMPLE, copy_vault, cpu_times, machine_note
from crashkit import (
    FS_FAULTS,
    KILLED,
    Counts,
    fresh_snapshot,
    index_snapshot,
    make_embedder,
    run_child,
    vault_digest,
)

from kbtui.config import Settings
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from kbtui.store.history import History
from kbtui.tools.write.service import recover_writes
from kbtui.vault.decode import decode_note
from kbtui.vault.parse import parse_note

PEOPLE = ("person:sofia_marquez", "person:andrei_clodius", "person:maya_okafor")
PROJECTS = ("project:vector_watch_project", "technology:zephyr_rtos")
WRITE_FAULTS = (*FS_FAULTS, "timer", "commit", "txn")


def index_now(vault: Path) -> str | None:
    """Reopen the index as the next start would and bring it up to date (fake model)."""
    settings = Settings.for_vault(vault)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, make_embedder(False)).run()
        return store.recovered
    finally:
        store.close()


def recover_now(vault: Path) -> None:
    """What the next open of the vault does first: the half-done write finished."""
    settings = Settings.for_vault(vault)
    history = History(settings.index_dir)
    try:
        recover_writes(vault, settings.index_dir, history)
    finally:
        history.close()


def plan(vault: Path, rng: random.Random, n: int) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(tool, arguments, what the check needs to know) for op number `n`."""
    kind = rng.choice(("import", "entity", "relationship", "merge"))
    if kind == "import":
        content = f"CRASHMARK{n} " + " ".join(f"Sentence {i} of import {n}." for i in range(300))
        args = {"title": f"Crash import {n}", "content": content, "chunk_size": 300,
                "chunk_overlap": 30}  # fmt: skip
        return "knowledge_import", args, {"content": content}
    if kind == "entity":
        args = {"name": f"Crash Person {n}", "type": "person", "description": f"Made in op {n}."}
        return "kg_create_entity", args, {"content": f"Made in op {n}."}
    if kind == "relationship":
        args = {"fromEntityId": rng.choice(PEOPLE), "toEntityId": rng.choice(PROJECTS),
                "type": "WORKS_ON", "label": f"crash {n}"}  # fmt: skip
        return "kg_create_relationship", args, {"marker": f"crash {n}"}
    folder = vault / "merge"
    folder.mkdir(exist_ok=True)
    for side in ("a", "b"):
        (folder / f"dup {n} {side}.md").write_text(
            f"---\nid: person:dup_{n}_{side}\ntitle: Dup {n} {side}\n---\n"
            f"# Dup {n} {side}\n\nWorks with [[Home]]. Marker {n}{side}.\n"
        )
    index_now(vault)
    args = {"targetEntityId": f"person:dup_{n}_a", "sourceEntityIds": [f"person:dup_{n}_b"]}
    return "kg_merge_entities", args, {"marker": "Merged from", "source": f"merge/dup {n} b.md"}


def check_vault(
    vault: Path, before: dict[str, str], after: dict[str, str], expect: dict[str, Any]
) -> tuple[list[str], int]:
    """Problems (lost, changed, partial or unexpected files) and how many temp files remain."""
    problems: list[str] = []
    leftovers = 0
    hashes_after = set(after.values())
    for rel, digest in before.items():
        if rel not in after:
            if rel == expect.get("source") and digest in hashes_after:
                continue  # a merged note, in the vault's trash whole
            problems.append(f"lost {rel}")
        elif after[rel] != digest and not _complete(vault / rel, expect):
            problems.append(f"{rel} changed but is not the complete new version")
    for rel in sorted(set(after) - set(before)):
        name = rel.rsplit("/", 1)[-1]
        if name.startswith(".kbtui-") and name.endswith(".tmp"):
            leftovers += 1  # hidden and never indexed: not a note
        elif rel.startswith(".trash/"):
            if after[rel] not in before.values():
                problems.append(f"trashed {rel} is not a copy of a note")
        elif not _complete(vault / rel, expect):
            problems.append(f"new {rel} is partial or unreadable")
    return problems, leftovers


def _complete(path: Path, expect: dict[str, Any]) -> bool:
    try:
        text, _ = decode_note(path.read_bytes())
        note = parse_note(path.name, text)
    except (OSError, ValueError):
        return False
    wanted = expect.get("content") or expect.get("marker") or ""
    return wanted in text and bool(note.entity_id)


def write_rounds(vault: Path, scratch: Path, ops: int, rng: random.Random) -> tuple[Counts, int]:
    counts, leftovers = Counts(), 0
    index_now(vault)
    for n in range(ops):
        name, args, expect = plan(vault, rng, n)
        fault = rng.choice(WRITE_FAULTS)
        extra = ["--fault", fault, "--seed", str(rng.randrange(1 << 30)), "--p", "0.7"]
        if fault == "timer":
            extra += ["--delay", f"{rng.uniform(0.0, 0.3):.4f}"]
        before = vault_digest(vault)
        proc = run_child("call", vault, "--name", name, "--args", json.dumps(args), *extra)
        counts.runs += 1
        if proc.returncode == KILLED:
            counts.faults += 1
            counts.by_kind[fault] = counts.by_kind.get(fault, 0) + 1
        elif proc.returncode != 0 or not json.loads(proc.stdout.splitlines()[-1])["ok"]:
            counts.failures.append(
                f"op {n} {name} {fault}: {proc.stdout[-300:]}{proc.stderr[-600:]}"
            )
        recover_now(vault)
        problems, left = check_vault(vault, before, vault_digest(vault), expect)
        leftovers += left
        counts.failures.extend(f"op {n} {name} ({fault}): {p}" for p in problems)
        recovered = index_now(vault)
        counts.checks += 1
        if recovered:
            counts.failures.append(f"op {n} {name} ({fault}): index damaged: {recovered}")
    after, _ = index_snapshot(vault)
    diffs = after.differences(fresh_snapshot(vault, scratch))
    counts.checks += 1
    if diffs:
        counts.failures.append(f"after {ops} ops: differs from a fresh build: {diffs[:4]}")
    return counts, leftovers


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--ops", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="kbtui-crashwrites-") as tmp:
        vault = Path(tmp) / "vault"
        copy_vault(VAULT_EXAMPLE, vault)
        started, before = time.perf_counter(), cpu_times()
        counts, leftovers = write_rounds(
            vault, Path(tmp) / "fresh" / "vault", opts.ops, random.Random(opts.seed)
        )
        print(
            counts.line("writes under kill -9")
            + f", leftover temp files {leftovers} in {time.perf_counter() - started:.0f}s; "
            + machine_note(before)
        )
        for failure in counts.failures:
            print("FAIL", failure)
    return 1 if counts.failures else 0


if __name__ == "__main__":
    sys.exit(main())
