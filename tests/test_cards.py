"""Knowledge cards: frontmatter verbatim, otherwise central sentences extracted from the note."""

from __future__ import annotations

import time

from kbtui.search.cards import SUMMARY_CHARS, TAKEAWAY_CHARS, extract_sentences, knowledge_card

BREAD = (
    "Sourdough bread rises with a starter of wild yeast and lactic bacteria instead of baker's "
    "yeast.",
    "A healthy sourdough starter doubles within six hours after feeding it flour and water.",
    "The starter gives sourdough bread its sour flavour and its open, chewy crumb.",
    "Bake the sourdough loaf in a hot covered pot so the bread gets a crisp crust.",
)
OFF_TOPIC = "The quarterly invoice for the office printer lease is due on Thursday."


def _texts(card: dict[str, object]) -> str:
    takeaways = card["takeaways"]
    assert isinstance(takeaways, list)
    return " ".join([str(card["summary"]), *map(str, takeaways)])


def test_frontmatter_summary_and_takeaways_are_used_verbatim() -> None:
    fm = {
        "summary": "A week-long-battery smartwatch with on-device gesture recognition.",
        "takeaways": ["Seven-day battery is the target", "Gestures run on-device"],
    }
    card = knowledge_card(fm, "Some body text that would otherwise be summarised here.", "Watch")
    assert card == {
        "summary": "A week-long-battery smartwatch with on-device gesture recognition.",
        "takeaways": ["Seven-day battery is the target", "Gestures run on-device"],
        "source": "frontmatter",
    }


def test_alternative_keys_and_a_string_takeaway() -> None:
    card = knowledge_card({"description": "Short desc.", "key_points": "Only point"}, "")
    assert card == {"summary": "Short desc.", "takeaways": ["Only point"], "source": "frontmatter"}


def test_missing_parts_are_extracted_and_source_is_mixed() -> None:
    card = knowledge_card({"summary": "All about sourdough."}, " ".join(BREAD), "Sourdough")
    assert card["summary"] == "All about sourdough."
    assert card["takeaways"] and card["source"] == "mixed"
    assert all(t in " ".join(BREAD) for t in card["takeaways"])


def test_central_sentences_beat_an_off_topic_one_even_when_it_comes_first() -> None:
    for position in (0, 2, 4):
        sentences = list(BREAD)
        sentences.insert(position, OFF_TOPIC)
        card = knowledge_card({}, " ".join(sentences), title="Sourdough")
        assert card["source"] == "extracted"
        assert "invoice" not in card["summary"], position
        assert any(card["summary"].startswith(s) for s in BREAD)
        assert "invoice" not in _texts(knowledge_card({}, " ".join(sentences), max_takeaways=2))


def test_takeaways_are_distinct_in_document_order_and_exclude_the_summary() -> None:
    body = "\n\n".join([*BREAD, BREAD[1]])  # a repeated sentence must not come back
    card = knowledge_card({}, body, max_takeaways=5)
    takeaways = card["takeaways"]
    assert len(set(takeaways)) == len(takeaways)
    assert all(t not in card["summary"] for t in takeaways)
    assert takeaways == sorted(takeaways, key=body.index)


def test_markdown_syntax_never_appears_in_the_card() -> None:
    body = """# Sourdough starter

The **starter** is fed with [[flour_types|rye flour]] and water every _morning_ at eight.
See [the guide](https://example.com/guide) and [[baking_schedule]] for the full routine. #baking

## Steps

- [ ] Feed the starter with equal weights of **flour** and water
- [x] Keep the starter jar at about 24 degrees for steady rising
> The starter should smell pleasantly sour, like yoghurt with a hint of apple.

```python
SECRET_CODE_TOKEN = "feed the starter with flour and water every morning"
```

| Day | Starter | Flour |
| --- | --- | --- |
| Monday | 50 g starter | 100 g flour |

![[starter_photo.png]]
"""
    card = knowledge_card({}, body, title="Sourdough starter", max_takeaways=5)
    text = _texts(card)
    assert card["summary"]
    for syntax in (
        "[[",
        "]]",
        "**",
        "```",
        "#",
        "](",
        "http",
        "|",
        "> ",
        "[ ]",
        "[x]",
        "_morning_",
    ):
        assert syntax not in text, syntax
    assert "SECRET_CODE_TOKEN" not in text and "Monday" not in text
    assert "rye flour" in text  # link labels stay as words


def test_headings_and_bare_fragments_are_not_sentences() -> None:
    body = "# Big heading here for the note\n\n2026-03-18\n\nhttps://example.com/a/b\n\nOk.\n"
    assert extract_sentences(body + "A real sentence with enough words in it.") == [
        "A real sentence with enough words in it."
    ]


def test_empty_or_blank_body_gives_an_empty_card() -> None:
    for body in ("", "   \n\t\n", "# Only a heading\n", "```\ncode only\n```\n"):
        assert knowledge_card({}, body) == {"summary": "", "takeaways": [], "source": "extracted"}


def test_cjk_text_splits_on_full_stops() -> None:
    body = (
        "東京は日本の首都です。電車とバスがとても便利に使えます。夜遅くまで開いている店も多いです！"
    )
    sentences = extract_sentences(body)
    assert sentences == [
        "東京は日本の首都です。",
        "電車とバスがとても便利に使えます。",
        "夜遅くまで開いている店も多いです！",
    ]
    card = knowledge_card({}, body)
    assert card["summary"] == "".join(s for s in sentences if s in card["summary"])  # no spaces
    assert all(t in sentences for t in card["takeaways"])


def test_deterministic() -> None:
    body = "\n\n".join([*BREAD, OFF_TOPIC] * 5)
    assert knowledge_card({}, body, "Bread") == knowledge_card({}, body, "Bread")


def test_length_limits_cut_on_a_word_boundary() -> None:
    long_sentence = " ".join(f"word{i}" for i in range(300)) + "."
    card = knowledge_card({}, f"{long_sentence}\n\n{long_sentence.replace('word', 'term')}")
    summary = card["summary"]
    assert len(summary) <= SUMMARY_CHARS and summary.endswith("…")
    assert long_sentence.startswith(summary[:-1] + " ") or long_sentence.replace(
        "word", "term"
    ).startswith(summary[:-1] + " ")
    assert all(len(t) <= TAKEAWAY_CHARS and t.endswith("…") for t in card["takeaways"])


def test_max_takeaways_is_respected() -> None:
    items = [
        "Feed the starter twice a day with rye flour.",
        "Keep the dough covered overnight in the fridge.",
        "Preheat the oven with the cast iron pot inside.",
        "Score the loaf with a razor blade before baking.",
        "Let the bread cool for an hour before slicing it.",
        "Store leftover slices in a linen bag on the counter.",
        "Freeze whole loaves if they will not be eaten soon.",
    ]
    body = "\n".join(f"- {item}" for item in items)
    for limit in (0, 1, 5):
        assert len(knowledge_card({}, body, max_takeaways=limit)["takeaways"]) == limit
    fm = {"takeaways": ["a point", "b point", "c point", "d point"]}
    assert knowledge_card(fm, "", max_takeaways=2)["takeaways"] == ["a point", "b point"]


def test_fast_on_a_ten_thousand_character_note_and_bounded_on_a_huge_one() -> None:
    paragraph = " ".join(BREAD) + " " + OFF_TOPIC
    note = "\n\n".join(f"## Part {i}\n\n{paragraph} Variation {i}." for i in range(30))[:10_000]
    knowledge_card({}, note)
    start = time.thread_time()  # CPU, not wall time: load must not fail it
    card = knowledge_card({}, note, "Sourdough")
    assert time.thread_time() - start < 1.0  # ~10 ms measured; a runaway pattern takes seconds
    assert card["summary"]
    start = time.thread_time()
    knowledge_card({}, note * 100)  # 1 MB: work is capped
    assert time.thread_time() - start < 1.0


def test_pathological_markup_stays_linear() -> None:
    for junk in ("[a ", "[[a ", "[a](", "*a ", "_a ", "`a ", "<a ", "<!-- a ", "![a]("):
        start = time.thread_time()
        knowledge_card({}, junk * 20_000)
        assert time.thread_time() - start < 1.0, junk  # quadratic patterns took 5-30 s
