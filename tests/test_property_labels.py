"""Issue 28 item 11: a relationship from a property is labelled with the property's name, not
with the link's display text; an index derived by the older rule is put right at open."""

from __future__ import annotations

from click.testing import CliRunner

from kbtui.cli import main
from kbtui.config import Settings
from kbtui.embed import HashEmbedder
from kbtui.indexing.indexer import Indexer
from kbtui.store import Store
from kbtui.store.graph.links import RELATION_RULE

NOTE = (
    '---\nrelated: "[[maya_okafor|Maya]]"\nrelated_to: "[[rust|the language]]"\n---\n'
    "See [[daniel_cho|Dan]].\n"
)


def labels(store: Store) -> set[tuple[str, str, str]]:
    rows = store.con.execute(
        """SELECT target_id, type, coalesce(label, '') FROM relationships
           WHERE source_id = 'note:props'"""
    ).fetchall()
    return {(r[0], r[1], r[2]) for r in rows}


def test_a_property_link_is_labelled_by_its_property(settings: Settings, store: Store) -> None:
    (settings.vault / "props.md").write_text(NOTE)
    Indexer(settings, store, HashEmbedder()).run(embed=False)
    assert labels(store) == {
        ("person:maya_okafor", "RELATED_TO", "related"),  # not "Maya"
        ("technology:rust", "RELATED_TO", "the language"),  # a spec type keeps the link's label
        ("person:daniel_cho", "REFERENCES", "Dan"),  # body links: the link's label
    }
    store.close()
    got = CliRunner().invoke(main, ["neighbors", "note:props", "--vault", str(settings.vault)])
    assert got.exit_code == 0 and "RELATED_TO (related)" in got.output, got.output
    assert "(Maya)" not in got.output


def test_an_index_derived_by_the_old_rule_is_relabelled_at_open(settings: Settings) -> None:
    (settings.vault / "props.md").write_text(NOTE)
    store = Store(settings.db_path)
    Indexer(settings, store, HashEmbedder()).run(embed=False)
    store.con.execute(
        "UPDATE relationships SET label = 'Maya' "
        "WHERE source_id = 'note:props' AND label = 'related'"
    )
    store.set_meta("relation_rule", "1")
    store.close()
    store = Store(settings.db_path)
    try:
        assert ("person:maya_okafor", "RELATED_TO", "related") in labels(store)
        assert store.meta("relation_rule") == RELATION_RULE
    finally:
        store.close()
