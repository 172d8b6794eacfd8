"""RSS of a resident process around one saved note (issue 18): start, first answer, one note
saved and re-indexed, a search, 10 s idle, then a restart after that save (in a fresh
process: its side files were made before the save, so the start catches up on it).

    python bench/save_memory.py --chunks 100000

Runs on a private copy of the synthetic vault kb_latency.py caches (notes hard-linked, the
index and its side files copied; the edited note is written as a new file, so the cached
vault is never changed), removed at the end. Vectors and queries use the hash embedder the
synthetic index was built with: a save through the real model would re-embed everything.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench_common import cpu_times, machine_note
from kb_latency import rss_line, synthetic_vault  # a sibling script: bench/ is sys.path[0]

from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase


def private_copy(settings: Settings, scratch: Path) -> Settings:
    vault = scratch / f"save_memory_{os.getpid()}"
    shutil.copytree(settings.vault, vault, copy_function=os.link, ignore=_index_dir)
    shutil.copytree(settings.index_dir, vault / settings.index_dir.name)
    return Settings.for_vault(vault)


def _index_dir(folder: str, names: list[str]) -> list[str]:
    return [".kbtui"] if Path(folder).name != ".kbtui" else []


def first_answer(kb: KnowledgeBase, query: str) -> int:
    answer = kb.call("kb_search", {"query": query, "top_k": 10})
    assert answer["ok"], answer
    return len(answer["results"])


def run(settings: Settings) -> None:
    embedder = HashEmbedder()
    started_cpu = cpu_times()
    kb = KnowledgeBase.open(settings, embedder)
    first_answer(kb, "meeting decisions about the release")
    print(rss_line("after the first answer"))
    note = next(settings.vault.glob("people/*.md"))
    rel = note.relative_to(settings.vault).as_posix()
    text = note.read_text(encoding="utf-8")
    note.unlink()  # hard-linked to the cached vault: write a new file, not into it
    note.write_text(text + "\n\nA paragraph the save_memory bench added.\n", encoding="utf-8")
    started = time.perf_counter()
    report = kb.indexer.run(paths=[rel])
    found = first_answer(kb, "paragraph the save_memory bench added")
    print(
        f"one note saved ({len(report.changed)} changed) and searched in "
        f"{time.perf_counter() - started:.2f} s ({found} results)"
    )
    print(rss_line("after the save and a search"))
    time.sleep(10)
    print(rss_line("after 10 s idle"))
    kb.close()
    print(f"while measuring: {machine_note(started_cpu)}")
    subprocess.run([sys.executable, __file__, "--open", str(settings.vault)], check=True)


def restart(vault: Path) -> None:
    kb = KnowledgeBase.open(Settings.for_vault(vault), HashEmbedder())
    first_answer(kb, "meeting decisions about the release")
    print(rss_line("a new process after the save: after its first answer"))
    kb.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/kbtui-bench"))
    parser.add_argument("--scratch", type=Path, help="where the copy goes (default: --work)")
    parser.add_argument("--open", type=Path, help=argparse.SUPPRESS)  # the restart's process
    args = parser.parse_args()
    if args.open:
        restart(args.open)
        return
    args.work.mkdir(parents=True, exist_ok=True)
    scratch = args.scratch or args.work
    scratch.mkdir(parents=True, exist_ok=True)
    settings = private_copy(synthetic_vault(args.work, args.chunks), scratch)
    try:
        run(settings)
    finally:
        shutil.rmtree(settings.vault)


if __name__ == "__main__":
    main()
