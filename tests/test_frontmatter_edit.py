"""Editing one frontmatter field changes exactly the lines of that field."""

from __future__ import annotations

import difflib

import pytest

from kbtui.vault.edit.frontmatter import FrontmatterEditError, add_to_list

NOTE = """---
id: person:x
title: "X"   # the display name
works_on:
  - "[[a]]"
  - "[[b]]"
uses: ["[[rust]]"]
owner: "[[maya]]"
tags: [people]
---

# X

Body with --- a rule and [[links]].
"""


def changed_lines(old: str, new: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_append_to_a_block_list() -> None:
    new = add_to_list(NOTE, "works_on", "[[c]]")
    assert changed_lines(NOTE, new) == ['+  - "[[c]]"']


def test_append_to_a_flow_list_and_to_a_scalar() -> None:
    assert changed_lines(NOTE, add_to_list(NOTE, "uses", "[[go]]")) == [
        '-uses: ["[[rust]]"]',
        '+uses: ["[[rust]]", "[[go]]"]',
    ]
    assert changed_lines(NOTE, add_to_list(NOTE, "owner", "[[z]]")) == [
        '-owner: "[[maya]]"',
        '+owner: ["[[maya]]", "[[z]]"]',
    ]


def test_a_new_key_goes_at_the_end_of_the_frontmatter() -> None:
    new = add_to_list(NOTE, "member_of", "[[Org]]")
    assert changed_lines(NOTE, new) == ["+member_of:", '+  - "[[Org]]"']
    assert new.endswith("Body with --- a rule and [[links]].\n")


def test_no_frontmatter_gets_one_and_crlf_and_bom_are_kept() -> None:
    text = "\ufeff# Title\r\n\r\nText\r\n"
    new = add_to_list(text, "uses", "[[x]]")
    assert new.startswith('\ufeff---\r\nuses:\r\n  - "[[x]]"\r\n---\r\n') and new.endswith(text[1:])


def test_quotes_in_values_are_escaped() -> None:
    new = add_to_list(NOTE, "aliases", 'The "Real" X')
    assert 'The "Real" X' in __import__("yaml").safe_load(new.split("---")[1])["aliases"]


@pytest.mark.parametrize(
    "text",
    [
        "---\nworks_on: |\n  text\n---\n",  # a block scalar
        "---\nworks_on:\n  nested: map\n---\n",  # a mapping, not a list
        "---\n: broken\n---\n",  # invalid YAML
        "---\nid: x\n",  # never closed
    ],
)
def test_shapes_it_will_not_touch_raise(text: str) -> None:
    with pytest.raises(FrontmatterEditError):
        add_to_list(text, "works_on", "[[c]]")


def test_a_template_with_placeholders_gets_the_relation_and_keeps_them() -> None:
    template = '---\ncategories:\n  - "[[Books]]"\ncreated: {{date}}\n---\n# {{title}}\n'
    new = add_to_list(template, "related_to", "Reading list")
    assert changed_lines(template, new) == ["+related_to:", '+  - "Reading list"']
    assert "created: {{date}}\n" in new and new.endswith("---\n# {{title}}\n")
