import pytest

from kbtui.models import Link
from kbtui.vault.parse import parse_note


def test_frontmatter_id_type_title_aliases_tags() -> None:
    note = parse_note(
        "people/andrei.md",
        "---\nid: person:andrei_clodius\ntitle: Andrei Clodius\naliases: [Andrei]\n"
        "tags: [people, '#mobile']\n---\n# Andrei\n\nHello #design and #ml/vision.\n",
    )
    assert note.entity_id == "person:andrei_clodius"
    assert (note.type, note.name, note.title) == ("person", "andrei_clodius", "Andrei Clodius")
    assert note.aliases == ("Andrei",)
    assert note.tags == ("people", "mobile", "design", "ml/vision")


@pytest.mark.parametrize(
    ("path", "meta", "expected"),
    [
        ("people/Jane Doe.md", "", "person:jane_doe"),
        ("projects/Big Thing.md", "", "project:big_thing"),
        ("tech/Rust.md", "type: technology\n", "technology:rust"),
        ("Inbox.md", "", "note:inbox"),
        ("concepts/Café des idées.md", "", "concept:cafe_des_idees"),
        ("x/y.md", "id: Not Valid\n", "x:y"),
    ],
)
def test_derived_ids(path: str, meta: str, expected: str) -> None:
    text = f"---\n{meta}---\nbody\n" if meta else "body\n"
    assert parse_note(path, text).entity_id == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [  # titles of Obsidian's Chinese help vault, and other scripts
        ("在团队中使用 Obsidian.md", "note:zai_tuan_dui_zhong_shi_yong_obsidian"),
        ("更新 Obsidian.md", "note:geng_xin_obsidian"),
        ("Obsidian 积分.md", "note:obsidian_ji_fen"),
        ("Obsidian 的储存机制.md", "note:obsidian_de_chu_cun_ji_zhi"),
        ("daily/会议.md", "daily:hui_yi"),
        ("Люди/Лев Толстой.md", "lyudi:lev_tolstoi"),
        ("Αθήνα.md", "note:athina"),
        ("مرحبا.md", "note:mrhb"),
        ("🗂️ Projects/Bjørn Straße.md", "project:bjorn_strasse"),
    ],
)
def test_non_latin_titles_are_transliterated(path: str, expected: str) -> None:
    assert parse_note(path, "x").entity_id == expected


def test_a_name_of_symbols_only_gets_a_stable_hashed_name() -> None:
    a = parse_note("daily/🎉.md", "x").entity_id
    assert a == parse_note("daily/🎉.md", "y").entity_id
    assert a.startswith("daily:n") and a != parse_note("daily/🎈.md", "x").entity_id


def test_invalid_yaml_leaves_the_body_with_a_warning_naming_the_line() -> None:
    """Obsidian shows such a note and searches its text: so does kbtui, without properties."""
    note = parse_note("t.md", "---\ncreated: {{date}}\ntags: [unclosed\n---\nbody [[x]]\n")
    assert note.body == "body [[x]]" and note.frontmatter == {} and note.entity_id == "note:t"
    assert [lk.target for lk in note.links] == ["x"]
    (warning,) = note.warnings
    assert warning.startswith("invalid YAML frontmatter, properties not read: line 3: ")
    assert warning.endswith("indexed by its body and file name")


def test_template_placeholders_in_frontmatter_are_read_as_text() -> None:
    """Obsidian templates write `created: {{date}}`: to YAML a mapping as a key, to the
    user a placeholder. The note indexes, the placeholder is its text, nothing else moves."""
    text = (
        "---\ncreated: {{date}}\nlast: {{date:YYYY-MM-DD}} \ntags:\n  - {{tag}}\n"
        "  - kept\nsource: 'it''s {{x}}'\nwho: {{title}}'s\n---\n# {{title}}\n\nBody.\n"
    )
    note = parse_note("Templates/Book Template.md", text)
    assert note.frontmatter == {
        "created": "{{date}}",
        "last": "{{date:YYYY-MM-DD}}",
        "tags": ["{{tag}}", "kept"],
        "source": "it's {{x}}",
        "who": "{{title}}'s",
    }
    assert note.body.startswith("# {{title}}")
    assert not note.warnings
    valid = "---\ncreated: 2024-01-02\nflow: {a: 1}\n---\nx\n"
    assert parse_note("a.md", valid).frontmatter == {"created": "2024-01-02", "flow": {"a": 1}}


def test_frontmatter_that_is_not_a_mapping() -> None:
    note = parse_note("t.md", "---\n- a\n- b\n---\nbody\n")
    assert note.body == "body" and note.frontmatter == {}
    assert "a list, not a mapping" in note.warnings[0]


def test_every_wikilink_form() -> None:
    note = parse_note(
        "a.md",
        "See [[note]], [[note two|Label]], [[note#Heading]] and ![[embed]].\n"
        "Self link [[#Only heading]] is not a link to another note.\n",
    )
    assert note.links == (
        Link("note", "references"),
        Link("note two", "references", label="Label"),
        Link("note", "references", heading="Heading"),
        Link("embed", "embeds"),
    )


def test_code_is_never_a_link_or_a_tag() -> None:
    text = (
        "Use `[[Feature #123]]` and `#not-a-tag` inline.\n\n"
        "```bash\nif [[ -z \"$x\" ]]; then grep '[[:space:]]' f; fi # [[not_a_link]] #nope\n```\n\n"
        "    [[indented_code]]\n\n"
        "Real [[link]] and #real-tag, but not C# or page#anchor or #123.\n"
    )
    note = parse_note("a.md", text)
    assert [lk.target for lk in note.links] == ["link"]
    assert note.tags == ("real-tag",)


def test_frontmatter_relations_quoted_unquoted_and_bare() -> None:
    note = parse_note(
        "people/p.md",
        '---\nworks_on: ["[[vector_watch_project]]"]\nuses: [[Figma]]\n'
        "member_of: Vector Studio\nsource_url: https://example.com/x\n"
        'related_to: "[[crdt|CRDTs]]"\n---\nbody\n',
    )
    assert set(note.links) == {
        Link("vector_watch_project", "works_on"),
        Link("Figma", "uses"),
        Link("Vector Studio", "member_of", form="bare"),  # not an Obsidian link
        Link("crdt", "related_to", label="CRDTs"),
    }


def test_frontmatter_dates_become_json_safe() -> None:
    note = parse_note("d.md", "---\ndate: 2026-03-14\nwhen: 2026-03-14 10:30:00\n---\nx\n")
    assert note.frontmatter == {"date": "2026-03-14", "when": "2026-03-14T10:30:00"}


def test_heading_sections_carry_their_path() -> None:
    body = "intro\n\n# Top\n\ntext\n\n## Sub\n\nmore\n\n# Other\n\nend\n"
    note = parse_note("h.md", body)
    assert [h for _, h in note.sections] == ["", "Top", "Top > Sub", "Other"]
    assert all(note.body[off:].startswith(("intro", "#")) for off, _ in note.sections)


def test_deeply_nested_list_does_not_crash() -> None:
    text = "".join("  " * i + "- item\n" for i in range(2000))
    assert parse_note("deep.md", text).entity_id == "note:deep"
