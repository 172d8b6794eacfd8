"""kg_suggest_links and kg_rename_entity on a synthetic vault: how long a user waits.

    python bench/link_tools.py --notes 2000

Indexes a synthetic vault (bench/synth_vault.py; hash embedder: vectors play no part here),
then times suggestions for one entity and across the vault, a rename's dry run and the rename
of the note with the most backlinks (written, re-indexed). Every call reads the notes from
disk, so these are cold-ish figures with a warm page cache.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_common import cpu_times, machine_note
from synth_vault import make_vault  # a sibling script: bench/ is sys.path[0] when run by path

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.runtime import VaultRuntime


def timed(rt: VaultRuntime, name: str, args: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    answer = rt.call(name, args)
    assert answer["ok"], answer
    return (time.perf_counter() - started) * 1000, answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=2000)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault = make_vault(Path(tmp) / "vault", opts.notes)
        rt = VaultRuntime(Settings.for_vault(vault), HashEmbedder(), watch=False)
        rt.start()
        assert rt.worker.wait_idle(600)
        top = rt.call("kg_get_high_utility_entities", {"limit": 50})["entities"]
        counts = {
            e["id"]: rt.call(
                "kg_get_neighbors", {"entityId": e["id"], "direction": "incoming", "limit": 100}
            )["relationshipCount"]
            for e in top
        }
        target = max(counts, key=lambda k: counts[k])
        before = cpu_times()
        for run in ("first", "again"):
            ms, got = timed(rt, "kg_suggest_links", {"entityId": target, "limit": 100})
            print(f"suggest for {target} ({run}): {ms:.0f} ms, {got['totalFound']} mentions")
        ms, got = timed(rt, "kg_suggest_links", {"limit": 100})
        print(f"suggest across the vault: {ms:.0f} ms, {got['totalFound']} suggestions")
        args = {"entityId": target, "newName": "Renamed Note", "dryRun": True}
        ms, got = timed(rt, "kg_rename_entity", args)
        print(f"rename dry run: {ms:.0f} ms, {got['linksRewritten']} links")
        ms, got = timed(rt, "kg_rename_entity", {**args, "dryRun": False})
        files = len(got["filesChanged"])
        print(f"rename: {ms:.0f} ms, {got['linksRewritten']} links in {files} files (indexed)")
        print(f"{opts.notes} notes; {machine_note(before)}")
        rt.close()


if __name__ == "__main__":
    main()
