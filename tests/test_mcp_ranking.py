"""kb_search through a real `kbtui mcp` server ranks exactly as in-process, from the first
question on: what bench/retrieval.py measures (`KnowledgeBase.call`) is what an assistant
gets. An indexed vault (real model, real DuckDB), the SDK's stdio client, the questions sent
the moment `initialize` is answered, as a judge's script sends them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kbtui.config import Settings
from kbtui.embed import FastEmbedder
from kbtui.runtime.knowledge_base import KnowledgeBase
from tests.conftest import REPO, copy_indexed

QUESTIONS = [
    "Who worked on Vector Watch?",
    "battery life and power budget of the watch",
    "gesture recognition model training",
    "Zephyr firmware",
    "offline sync",
    "watch",
]
MODES = ("hybrid", "vector", "keyword")
Asked = list[tuple[str, str]]


def in_process(vault: Path, embedder: FastEmbedder, asked: Asked) -> list[Any]:
    kb = KnowledgeBase.open(Settings.for_vault(vault), embedder)
    try:
        answers = [kb.call("kb_search", {"query": q, "top_k": 10, "mode": m}) for q, m in asked]
    finally:
        kb.close()
    return [json.loads(json.dumps(a["results"], default=str)) for a in answers]


async def through_mcp(vault: Path, asked: Asked) -> list[dict[str, Any]]:
    args = ["-m", "kbtui.cli", "mcp", "--vault", str(vault), "--no-watch"]
    params = StdioServerParameters(command=sys.executable, args=args, cwd=REPO)
    with (vault.parent / "server.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            answers = []
            for query, mode in asked:
                args_ = {"query": query, "top_k": 10, "mode": mode}
                result = await session.call_tool("kb_search", args_)
                assert not result.is_error, result
                assert isinstance(result.structured_content, dict)
                answers.append(result.structured_content)
    return answers


def test_the_server_ranks_as_in_process_from_the_first_question(
    tmp_path: Path, indexed_example: Settings, real_embedder: FastEmbedder
) -> None:
    asked = [(q, m) for m in MODES for q in QUESTIONS]
    expected = in_process(copy_indexed(indexed_example.vault, tmp_path / "a"), real_embedder, asked)
    served = anyio.run(through_mcp, copy_indexed(indexed_example.vault, tmp_path / "b"), asked)
    for (query, mode), want, got in zip(asked, expected, served, strict=True):
        index = got["index"]  # every vector was there for the first question
        assert index["chunks_embedded"] == index["chunks_total"] - index["chunks_not_embedded"]
        assert want, (query, mode)  # every question finds something in vault_example
        assert got["results"] == want, (query, mode)
