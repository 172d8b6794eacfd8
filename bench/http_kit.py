"""Real `kbtui mcp --http` servers for the HTTP soak and fault runs (and their tests): start one
on a vault and read its address, SDK sessions with the token, what the server process holds
(RSS, open files, threads, child processes), the index against a fresh build, and a PNG line
chart drawn with Pillow (already installed: fastembed depends on it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "bench"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import httpx2  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from kbtui.config import Settings  # noqa: E402
from kbtui.mcp.files import load_token  # noqa: E402

# Answers that are a failure of the server, not of the request: counted as errors.
SERVER_FAULTS = ("INTERNAL", "TRANSIENT")


class Served:
    """`kbtui mcp --http 127.0.0.1:0` on `vault`, as a user starts it; stderr kept."""

    def __init__(self, vault: Path, *extra: str, timeout: float = 120) -> None:
        self.vault = vault
        command = [sys.executable, "-m", "kbtui.cli", "mcp", "--vault", str(vault)]
        self.proc = subprocess.Popen(
            [*command, "--http", "127.0.0.1:0", "--log-level", "info", *extra],
            cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        self.lines: list[str] = []
        self.url = ""
        assert self.proc.stderr is not None
        deadline = time.monotonic() + timeout
        for line in self.proc.stderr:  # printed once the socket listens
            self.lines.append(line)
            found = re.search(r"kbtui MCP at (http://\S+/mcp)", line)
            if found:
                self.url = found.group(1)
                break
            if time.monotonic() > deadline:
                break
        if not self.url:
            self.kill()
            raise RuntimeError("the server did not start:\n" + "".join(self.lines))
        self.token = load_token(Settings.for_vault(vault).index_dir)
        self._drain = threading.Thread(target=self._read_rest, daemon=True)
        self._drain.start()

    def _read_rest(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stderr(self) -> str:
        return "".join(self.lines)

    def stop(self, timeout: float = 90) -> int:
        """SIGTERM, as a user stops it; its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout)
        self._drain.join(10)
        return code

    def kill(self) -> None:
        """kill -9: no clean-up of any kind."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)


@contextlib.asynccontextmanager
async def session(url: str, token: str, timeout: float = 180) -> AsyncIterator[ClientSession]:
    """An initialized SDK session over Streamable HTTP with the bearer token."""
    headers = {"authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


async def call(client: ClientSession, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A tool's envelope (structured content)."""
    result = await client.call_tool(name, args)
    return dict(result.structured_content or {})


def server_fault(envelope: dict[str, Any]) -> bool:
    """True when the answer says the server failed (not the request)."""
    error = envelope.get("error")
    return not envelope.get("ok") and isinstance(error, dict) and error.get("type") in SERVER_FAULTS


async def settle(client: ClientSession, timeout: float = 300) -> dict[str, Any]:
    """Wait until the server's indexer is idle with every chunk embedded, twice in a row
    across the watcher's debounce; its last status."""
    deadline = time.monotonic() + timeout
    quiet = 0
    while True:
        result = await client.read_resource("kbtui://status")
        status = dict(json.loads(getattr(result.contents[0], "text", "{}")))
        index = status.get("index", {})
        idle = index.get("state") == "idle" and not index.get("chunks_waiting_for_vectors")
        quiet = quiet + 1 if idle else 0
        if quiet >= 3:
            return status
        if time.monotonic() > deadline:
            raise TimeoutError(f"the index did not settle: {index}")
        await _sleep(1.0)


async def _sleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)


def process_stats(pid: int) -> dict[str, float]:
    """RSS (MB), open file descriptors, threads, and live child processes of `pid`."""
    fields: dict[str, float] = {"rss_mb": 0.0, "threads": 0.0}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                fields["rss_mb"] = int(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                fields["threads"] = float(line.split()[1])
    fields["fds"] = float(len(os.listdir(f"/proc/{pid}/fd")))
    fields["children"] = float(len(children(pid)))
    return fields


def children(pid: int) -> list[int]:
    """Processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def index_differences(vault: Path, scratch: Path) -> list[str]:
    """What the vault's index (the server stopped) holds that a fresh build does not. The
    build uses the server's own embedder settings (`kbtui index`'s): the model's int8
    kernels give other vectors with other thread and batch settings."""
    import shutil

    from crashkit import index_snapshot

    from kbtui.cli.common import make_embedder
    from kbtui.indexing.indexer import Indexer
    from kbtui.store import Store

    got, _ = index_snapshot(vault)
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(vault, scratch, symlinks=True, ignore=shutil.ignore_patterns(".kbtui"))
    settings = Settings.for_vault(scratch)
    store = Store(settings.db_path)
    try:
        Indexer(settings, store, make_embedder(settings)).run()
        want = store.snapshot()
    finally:
        store.close()
    return got.differences(want)


def line_chart(
    path: Path,
    series: Sequence[tuple[float, float]],
    *,
    title: str,
    band: tuple[float, float] | None = None,
    mark_x: float | None = None,
) -> None:
    """A PNG of y against x (minutes, MB) with a shaded band (the allowed range) and a
    vertical mark (the end of the warm-up)."""
    from PIL import Image, ImageDraw

    width, height, pad = 900, 420, 60
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    xs, ys = [p[0] for p in series], [p[1] for p in series]
    low = min([*ys, *(band or ())]) * 0.95
    high = max([*ys, *(band or ())]) * 1.05
    span_x = max(xs[-1] - xs[0], 1e-9)

    def at(x: float, y: float) -> tuple[float, float]:
        return (
            pad + (x - xs[0]) / span_x * (width - 2 * pad),
            height - pad - (y - low) / max(high - low, 1e-9) * (height - 2 * pad),
        )

    if band is not None:
        draw.rectangle([at(xs[0], band[1]), at(xs[-1], band[0])], fill=(225, 240, 225))
    if mark_x is not None:
        draw.line([at(mark_x, low), at(mark_x, high)], fill=(150, 150, 150), width=1)
    draw.line([at(x, y) for x, y in series], fill=(30, 80, 200), width=2)
    draw.rectangle([pad, pad, width - pad, height - pad], outline="black")
    draw.text((pad, 20), title, fill="black")
    for value in (low, (low + high) / 2, high):
        draw.text((5, at(xs[0], value)[1] - 6), f"{value:.0f} MB", fill="black")
    for x in (xs[0], (xs[0] + xs[-1]) / 2, xs[-1]):
        draw.text((at(x, low)[0] - 15, height - pad + 8), f"{x:.0f} min", fill="black")
    image.save(path)
