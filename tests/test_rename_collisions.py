"""Issue 28 item 1: a rename never takes a name another note answers to (file name, title or
alias, any case) unless forced, and then the answer lists every link that changes target;
what it lists is what the graph shows afterwards. Real index, real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtui.cli import main
from kbtui.runtime.runtime import VaultRuntime
from tests.test_link_tools import incoming, snapshot


@pytest.fixture
def crowded(runtime: VaultRuntime) -> VaultRuntime:
    """vault_example plus notes in another folder answering to Gizmo (file name), Whatsit
    (title) and Doohickey (alias), each linked from a note of a third folder."""
    vault = runtime.settings.vault
    (vault / "concepts" / "Widget Theory.md").write_text("# Widget Theory\n\nAbout widgets.\n")
    (vault / "elsewhere").mkdir()
    (vault / "elsewhere" / "Gizmo.md").write_text("# Gizmo\n")
    (vault / "elsewhere" / "t2.md").write_text("---\ntitle: Whatsit\n---\n# T2\n")
    (vault / "elsewhere" / "thing.md").write_text("---\naliases: [Doohickey]\n---\n# Thing\n")
    (vault / "refs").mkdir()
    (vault / "refs" / "pointer.md").write_text(
        "# Pointer\n\nSee [[Gizmo]].\n\nAlso [[whatsit]] and [[Doohickey|the thing]].\n"
    )
    runtime.reindex()
    return runtime


@pytest.mark.parametrize(
    ("name", "holder", "kind"),
    [
        ("gizmo", "elsewhere/Gizmo.md", "file name"),
        ("WHATSIT", "elsewhere/t2.md", "title"),
        ("Doohickey", "elsewhere/thing.md", "alias"),
    ],
)
def test_a_name_another_note_answers_to_is_refused(
    crowded: VaultRuntime, name: str, holder: str, kind: str
) -> None:
    vault = crowded.settings.vault
    before = snapshot(vault)
    for dry in (True, False):
        args = {"entityId": "concept:widget_theory", "newName": name, "dryRun": dry}
        got = crowded.call("kg_rename_entity", args)
        assert got["ok"] is False and got["error_type"] == "ConflictError", got
        assert got["error"]["field"] == "newName"
        assert f"{holder} ({kind})" in got["message"] and "force" in got["message"]
    assert snapshot(vault) == before


def test_forced_dry_run_lists_the_link_that_changes_target(crowded: VaultRuntime) -> None:
    vault = crowded.settings.vault
    before = snapshot(vault)
    assert "ref:pointer" in incoming(crowded, "elsewhere:gizmo")
    args = {"entityId": "concept:widget_theory", "newName": "Gizmo", "force": True}
    dry = crowded.call("kg_rename_entity", {**args, "dryRun": True})
    assert dry["ok"], dry
    assert snapshot(vault) == before
    assert dry["retargetedCount"] == 1
    [link] = dry["retargeted"]
    assert link == {
        "path": "refs/pointer.md",
        "line": 3,
        "text": "See [[Gizmo]].",
        "from": "elsewhere/Gizmo.md",
        "to": "concepts/Gizmo.md",
    }
    done = crowded.call("kg_rename_entity", args)
    assert done["ok"] and done["retargeted"] == dry["retargeted"], done
    # what the dry run said is what the index's resolver now does
    assert "ref:pointer" not in incoming(crowded, "elsewhere:gizmo")
    assert "ref:pointer" in incoming(crowded, "concept:gizmo")


def test_an_unshared_name_and_the_own_name_in_other_case_are_fine(crowded: VaultRuntime) -> None:
    args = {"entityId": "concept:widget_theory", "dryRun": True}
    got = crowded.call("kg_rename_entity", {**args, "newName": "widget theory"})
    assert got["ok"] and got["retargeted"] == [], got
    got = crowded.call("kg_rename_entity", {**args, "newName": "Sprocket"})
    assert got["ok"] and got["retargetedCount"] == 0, got


def test_cli_mv_refuses_then_forces(crowded: VaultRuntime) -> None:
    vault: Path = crowded.settings.vault
    crowded.close()
    before = snapshot(vault)
    base = ["mv", "concept:widget_theory", "Gizmo", "--vault", str(vault)]
    got = CliRunner().invoke(main, base)
    assert got.exit_code == 1 and "already a name of elsewhere/Gizmo.md" in got.output
    got = CliRunner().invoke(main, [*base, "--dry-run", "--force"])
    assert got.exit_code == 0, got.output
    assert "refs/pointer.md:3: See [[Gizmo]]." in got.output
    assert snapshot(vault) == before


# -- item 2: a refusal says why; a path that stays inside the vault is taken as meant ------
@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("concepts/", "ends with '/': that names a folder, and the note's file name"),
        ("a//b", "empty folder name between two '/'"),
        ("concepts/../../x", "its '..' climbs above the vault's top folder"),
        ("/etc/x", "starts with '/', which would leave the vault"),
    ],
)
def test_refusals_say_why(crowded: VaultRuntime, name: str, why: str) -> None:
    before = snapshot(crowded.settings.vault)
    got = crowded.call("kg_rename_entity", {"entityId": "concept:widget_theory", "newName": name})
    assert got["ok"] is False and got["error"]["field"] == "newName"
    assert why in got["message"], got["message"]
    assert snapshot(crowded.settings.vault) == before


def test_a_path_through_dotdot_inside_the_vault_is_what_it_means(crowded: VaultRuntime) -> None:
    vault = crowded.settings.vault
    args = {"entityId": "concept:widget_theory", "newName": "people/../refs/Widgets"}
    dry = crowded.call("kg_rename_entity", {**args, "dryRun": True})
    assert dry["ok"] and dry["newPath"] == "refs/Widgets.md", dry
    assert "'people/../refs/Widgets' means refs/Widgets" in dry["message"]
    done = crowded.call("kg_rename_entity", args)
    assert done["ok"] and (vault / "refs" / "Widgets.md").exists()
    assert not (vault / "people" / "..refs").exists()


def test_a_move_that_changes_the_id_retargets_nothing(crowded: VaultRuntime) -> None:
    """Moved to another folder, the note's id changes with its type (concept -> elsewhere);
    the links that reach it by file name still reach it: nothing changes target."""
    vault = crowded.settings.vault
    (vault / "refs" / "fan.md").write_text("[[Widget Theory]] is good.\n")
    crowded.reindex()
    args = {"entityId": "concept:widget_theory", "newName": "elsewhere/Widget Theory"}
    got = crowded.call("kg_rename_entity", {**args, "dryRun": True})
    assert got["ok"] and got["newEntityId"] != "concept:widget_theory", got
    assert got["retargetedCount"] == 0 and got["retargeted"] == [], got
