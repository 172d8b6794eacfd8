"""This process's mapped files by kind, for bench_common.rss_line (kept apart: bench_common
stays under 400 lines)."""

from __future__ import annotations

from pathlib import Path


def mapped_files() -> str:
    """This process's mapped files' resident MB by kind, from /proc/self/smaps, each as
    private+shared (shared: also mapped by another process, e.g. a library another Python has
    loaded). File pages only (Rss less Anonymous): these the OS can drop and read again."""
    kinds: dict[str, list[float]] = {}
    part: list[float] | None = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(None, 5)
        if "-" in head[0] and len(head) > 4 and ":" not in head[0]:
            path = head[5] if len(head) > 5 else ""
            name = Path(path).name
            kind = (
                None
                if not path.startswith("/")
                else name
                if name.endswith(".arrays") or name == "model.onnx.data"
                else "libraries"
                if ".so" in name or name.endswith(".duckdb_extension")
                else "other files"
            )
            part = None if kind is None else kinds.setdefault(kind, [0.0, 0.0])
        elif part is not None and head[0] in ("Rss:", "Anonymous:"):
            part[0] += (1 if head[0] == "Rss:" else -1) * int(head[1]) / 1024
        elif part is not None and head[0] in ("Shared_Clean:", "Shared_Dirty:"):
            part[1] += int(head[1]) / 1024
    return "mapped: " + ", ".join(
        f"{k} {f:.0f} ({f - s:.0f}+{s:.0f})" for k, (f, s) in sorted(kinds.items()) if f >= 0.5
    )
