"""End to end with the real model: a question finds the right page of a PDF in the vault,
through `kbtui search` and through an MCP client (the SDK's) calling kb_search."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal

from tests.conftest import REPO, copy_vault
from tests.pdf_kit import WARRANTY_PAGES, make_pdf
from tests.test_mcp import Mcp, open_session

QUESTION = "what did the warranty say about batteries"


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = copy_vault(tmp_path_factory.mktemp("pdfsearch") / "vault")
    (vault / "manuals").mkdir()
    make_pdf(vault / "manuals" / "warranty.pdf", WARRANTY_PAGES, title="Kestrel warranty")
    return vault


def test_kbtui_search_answers_from_the_pdf_page(vault: Path) -> None:
    cli = [sys.executable, "-m", "kbtui.cli"]
    done = subprocess.run(
        [*cli, "index", "--vault", str(vault)], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    shown = subprocess.run(
        [*cli, "search", "--vault", str(vault), "--top-k", "3", QUESTION],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    heads = [line for line in shown.stdout.splitlines() if line[:1].isdigit()]
    assert len(heads) == 3, shown.stdout
    (hit,) = [h for h in heads if "Kestrel warranty" in h]
    assert "p. 4" in hit and "manuals/" in hit, shown.stdout
    assert "eighteen months" in shown.stdout  # the page's own words in the snippet


def test_mcp_kb_search_answers_with_page_and_link(vault: Path) -> None:
    with (
        open(vault.parent / "server.log", "w") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(open_session(vault, errlog)) as session,
    ):
        client = Mcp(portal, session, vault)

        def ready() -> bool:
            stats = client.status()["stats"]
            return stats.get("pdfs") == 1 and stats["chunks"] == stats["embedded"] > 0

        assert client.wait_for(ready, 180)
        found = client.good("kb_search", {"query": QUESTION, "top_k": 3})
        top3 = {r["id"]: r for r in found["results"]}
        assert "manual:warranty_pdf" in top3, found
        meta = top3["manual:warranty_pdf"]["metadata"]
        assert meta["page"] == 4 and meta["link"] == "manuals/warranty.pdf#page=4"
        assert meta["file_path"] == "manuals/warranty.pdf"
        pages = client.good("kb_get", {"id": "manual:warranty_pdf"})["pages"]
        assert pages[3]["page"] == 4 and "replaced free of charge" in pages[3]["text"]
