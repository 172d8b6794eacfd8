"""Do searches wait for the unlinked-mentions scan? The note view asks for a note's mentions
(a scan of every note's file); while it runs, keyword searches are timed in a loop.

    python bench/mentions_lock.py --vault /tmp/kbtui-bench/watch_synth_6600 \
        --entity project:branch_insight_project

Opens the vault as a one-shot command would (an indexed vault; nothing is written).
Prints the scan's time and how many searches were answered during it, median and slowest.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from pathlib import Path

from kbtui.config import Settings
from kbtui.runtime.shared import open_vault_once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--entity", required=True, help="the note whose mentions are scanned")
    parser.add_argument("--query", default="project planning meeting")
    args = parser.parse_args()
    handle = open_vault_once(Settings.for_vault(args.vault), lambda: None)
    query = {"query": args.query, "mode": "keyword", "top_k": 5}
    handle.call("kb_search", query)
    done = threading.Event()
    scan_s: list[float] = []

    def scan() -> None:
        started = time.perf_counter()
        handle.call("app_note_mentions", {"entityId": args.entity, "limit": 20})
        scan_s.append(time.perf_counter() - started)
        done.set()

    thread = threading.Thread(target=scan)
    thread.start()
    time.sleep(0.05)
    waits: list[float] = []
    while not done.is_set():
        started = time.perf_counter()
        handle.call("kb_search", query)
        waits.append(time.perf_counter() - started)
    thread.join()
    handle.close()
    load = os.getloadavg()[0]
    print(f"scan {scan_s[0]:.2f} s; {len(waits)} keyword searches answered during it, median "
          f"{1000 * statistics.median(waits):.1f} ms, slowest {1000 * max(waits):.0f} ms "
          f"(load {load:.2f})")  # fmt: skip


if __name__ == "__main__":
    main()
