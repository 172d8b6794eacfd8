"""The Review screen (issue 40, item 6) driven with Pilot: an assistant's write held for
review (a call from an `mcp:` origin under review, as `kbtui mcp --review` makes it, through a
real VaultRuntime) shows in the status line's badge and on the screen (f3); `a` writes it as
proposed, a note changed since is a conflict applied to the note as it is now, `x` rejects,
`c` copies; `kbtui --review` and the palette turn the vault's review mode on."""

from __future__ import annotations

from typing import Any

import pytest

from kbtui.runtime.runtime import VaultRuntime
from kbtui.tools.write.origin import Origin, acting_as
from kbtui.tui.edit.conflict import ConflictScreen
from kbtui.tui.edit.review import ReviewScreen
from kbtui.tui.widgets.status import StatusBar
from tests.tui_helpers import SIZE, make_app, settle

pytestmark = pytest.mark.anyio

CRDT = "concepts/crdt.md"
LINE = "- Proposed by the assistant: CRDTs need a garbage collector."


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def propose(runtime: VaultRuntime, text: str = LINE) -> dict[str, Any]:
    """An assistant's append, as `kbtui mcp --review` runs it."""
    with acting_as(Origin("mcp:claude", review=True)):
        answer = runtime.call("note_write", {"path": "crdt", "mode": "append", "content": text})
    assert answer["ok"] and answer["pending"], answer
    return answer


def state(runtime: VaultRuntime, number: int) -> str:
    got = runtime.call("app_proposals", {"action": "get", "id": number})
    return str(got["proposal"]["state"])


async def test_the_badge_and_f3_then_a_writes_it_as_proposed(runtime: VaultRuntime) -> None:
    crdt = runtime.settings.vault / CRDT
    before = crdt.read_text()
    number = propose(runtime)["proposal"]
    assert crdt.read_text() == before
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "⚑ 1 to review (f3)" in str(app.screen.query_one(StatusBar).render())
        await pilot.press("f3")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewScreen) and list(review.proposals) == [str(number)]
        await pilot.press("a")
        await settle(pilot)
        assert review.proposals[str(number)]["state"] == "accepted"
        assert "to review" not in str(review.query_one(StatusBar).render())
    assert crdt.read_text() == before + LINE + "\n"
    history = runtime.kb.tools.parts.history
    assert history is not None and history.versions(CRDT)[0].source == "mcp:claude"


async def test_a_note_changed_since_is_a_conflict_applied_to_the_note_now(
    runtime: VaultRuntime,
) -> None:
    crdt = runtime.settings.vault / CRDT
    number = propose(runtime)["proposal"]
    with crdt.open("a", encoding="utf-8") as other:  # the person's editor, meanwhile
        other.write("- Typed by the person meanwhile.\n")
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        conflict = app.screen
        assert isinstance(conflict, ConflictScreen)
        assert conflict.mine is not None and conflict.mine.endswith(
            "- Typed by the person meanwhile.\n" + LINE + "\n"
        )  # what applying would write: both
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
    assert crdt.read_text().endswith("- Typed by the person meanwhile.\n" + LINE + "\n")
    assert state(runtime, number) == "accepted"


async def test_x_rejects_and_c_saves_a_copy(runtime: VaultRuntime) -> None:
    vault = runtime.settings.vault
    before = (vault / CRDT).read_text()
    first = propose(runtime, "- one")["proposal"]
    second = propose(runtime, "- two")["proposal"]
    app = make_app(runtime)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)  # newest first: the second is highlighted
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("down", "c")  # the first, below it
        await settle(pilot)
    assert state(runtime, second) == "rejected" and state(runtime, first) == "copied"
    assert (vault / CRDT).read_text() == before
    assert (vault / f"concepts/crdt (proposal {first}).md").read_text() == before + "- one\n"


async def test_kbtui_review_and_the_palette_turn_review_on_and_off(runtime: VaultRuntime) -> None:
    app = make_app(runtime)
    app.start_review = True  # what `kbtui --review` sets
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert runtime.call("app_proposals", {})["review"] is True
        assert "review on" in str(app.screen.query_one(StatusBar).render())
        names = [name for name, _, _ in app.edit_commands(True)]
        assert names == ["Review proposals", "Review mode: turn off"]
        app.edit_commands(True)[1][2]()  # the palette's command
        await settle(pilot)
        assert runtime.call("app_proposals", {})["review"] is False
    with acting_as(Origin("mcp:claude")):  # review off: written at once
        written = runtime.call("note_write", {"path": "crdt", "mode": "append", "content": "x"})
    assert written["ok"] and "pending" not in written
