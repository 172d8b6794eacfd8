"""Synthetic Obsidian-style vaults for benchmarks.

Benchmarks need vaults of any size with the shape of real ones (frontmatter ids, typed
relations, headings, wikilinks, tags) without committing data: this writes one into a folder,
deterministically from a seed, so two runs with the same arguments index the same text.

    python bench/synth_vault.py OUT_DIR --notes 500 --seed 0
    python bench/synth_vault.py OUT_DIR --notes 500 --code 0.5   # documentation-like: code, tables

With `--code SHARE`, about that share of sections also gets a code block of 20-120 lines and
half of those a table of numbers (the shape of a product's documentation, e.g. redis's); the
prose is the same as without it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from dataclasses import dataclass, field
from pathlib import Path


def _split(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# A fixed vocabulary: the text only has to look like prose to the tokenizer and chunker.
WORDS = _split(
    "the a an and or but of to in on for with from by at as is are was were be been has have "
    "had will would can could should may might must not this that these those it its we our "
    "they their team build ship test review plan design model data sync device battery sensor "
    "screen layout render query index search vector cache store file folder note link graph "
    "node edge user session latency memory budget release version branch merge patch bug fix "
    "issue feature roadmap milestone sprint meeting decision risk owner deadline estimate "
    "prototype hardware firmware enclosure gesture signal filter sample rate accuracy metric "
    "baseline benchmark dataset label training inference quantised pruning backbone layer "
    "weights export runtime server client protocol message queue retry timeout conflict merge "
    "replica offline local first durable schema migration table column row transaction commit "
    "rollback lock thread process worker pipeline stage batch stream buffer chunk token word "
    "heading paragraph summary context question answer idea insight draft outline feedback "
    "customer partner vendor contract invoice quote shipment factory tooling mould tolerance "
    "material finish colour texture weight size shape strap clasp button crown dial glass "
    "quickly carefully roughly mostly rarely often always never again still already soon "
    "later early small large fast slow cheap stable fragile simple clear noisy quiet warm cold "
    "new old next last first second third main spare shared private public internal external"
)
FIRST_NAMES = _split(
    "amara andrei bea carlos dara elif farid greta hana ines jonas kofi lena mateo nadia "
    "oskar priya quinn ruth sofia tomas uma vera wen yusuf zara noor daniel lucia ravi"
)
LAST_NAMES = _split(
    "nwosu clodius marquez lindqvist raman abernathy hartmann haddad cho okafor novak silva "
    "tanaka weber costa ibrahim moreau larsen petrov rossi kowalski nakamura osei varga"
)
TAGS = _split(
    "ml hardware frontend backend design research ops sync search mobile firmware meeting "
    "planning retro idea todo reading writing"
)
TECH = _split(
    "rust python react react_native sqlite duckdb zephyr_rtos bluetooth_le tflite_micro figma "
    "onnx wasm kotlin swift postgres redis grpc protobuf webgpu vulkan"
)

# (folder, type, share of the vault); the type is also the frontmatter `type`.
KINDS: tuple[tuple[str, str, float], ...] = (
    ("people", "person", 0.18),
    ("projects", "project", 0.12),
    ("tech", "technology", 0.08),
    ("orgs", "organization", 0.05),
    ("concepts", "concept", 0.12),
    ("meetings", "meeting", 0.25),
    ("daily", "daily", 0.20),
)
# Typed relations each kind declares: frontmatter key -> the type its targets have.
RELATIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "person": (("works_on", "project"), ("member_of", "organization"), ("uses", "technology")),
    "project": (("owner", "person"), ("depends_on", "technology"), ("related_to", "concept")),
    "technology": (("related_to", "technology"),),
    "organization": (("related_to", "project"),),
    "concept": (("related_to", "concept"), ("references", "technology")),
    "meeting": (("attendees", "person"), ("related_to", "project")),
    "daily": (),
}
START_DATE = dt.date(2026, 1, 1)
HEADINGS = (
    "Notes",
    "Context",
    "Decisions",
    "Open questions",
    "Next steps",
    "Risks",
    "Background",
    "Links",
    "Log",
    "Ideas",
)


@dataclass
class _Spec:
    """One note to write: where, its id parts, and what it is called."""

    folder: str
    type: str
    name: str  # the id's name part, [a-z0-9_]+
    stem: str  # file name without .md; wikilinks target it, as Obsidian resolves them
    title: str
    aliases: list[str] = field(default_factory=list)


def make_vault(
    root: Path,
    notes: int,
    seed: int = 0,
    words_per_note: tuple[int, int] = (80, 400),
    code: float = 0.0,
) -> Path:
    """Write `notes` markdown notes under `root` (created if needed) and return `root`.

    `words_per_note` bounds the filler prose of a body; headings, links and tags come on top.
    `code` is the share of sections followed by a code block (and maybe a table of numbers).
    """
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    extra = random.Random(seed + 1)  # its own stream: the prose does not depend on `code`
    specs = _plan(rng, notes)
    by_type: dict[str, list[_Spec]] = {}
    for spec in specs:
        by_type.setdefault(spec.type, []).append(spec)
    for spec in specs:
        path = root / spec.folder / f"{spec.stem}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = _note_text(rng, spec, specs, by_type, words_per_note)
        if code > 0:
            text = _with_code(extra, text, code)
        path.write_text(text, encoding="utf-8")
    return root


def _plan(rng: random.Random, notes: int) -> list[_Spec]:
    """Decide every note's kind and unique name before writing, so links can point anywhere."""
    counts = [int(notes * share) for _, _, share in KINDS]
    for i in range(notes - sum(counts)):  # rounding leftovers, spread from the first kind
        counts[i % len(counts)] += 1
    specs: list[_Spec] = []
    used: set[str] = set()
    for (folder, kind, _), count in zip(KINDS, counts, strict=True):
        for n in range(count):
            spec = _spec(rng, folder, kind, n)
            base_name, base_stem, k = spec.name, spec.stem, 2
            while f"{kind}:{spec.name}" in used:
                spec.name, spec.stem = f"{base_name}_{k}", f"{base_stem}_{k}"
                k += 1
            used.add(f"{kind}:{spec.name}")
            specs.append(spec)
    return specs


def _spec(rng: random.Random, folder: str, kind: str, n: int) -> _Spec:
    if kind == "person":
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        name = f"{first}_{last}"
        return _Spec(folder, kind, name, name, f"{first.title()} {last.title()}", [first.title()])
    if kind == "technology":
        name = TECH[n] if n < len(TECH) else f"{rng.choice(TECH)}_{rng.choice(WORDS)}"
        return _Spec(folder, kind, name, name, name.replace("_", " ").title())
    if kind == "daily":
        day = START_DATE + dt.timedelta(days=n)
        iso = day.isoformat()
        return _Spec(folder, kind, iso.replace("-", "_"), iso, iso)
    if kind == "meeting":
        day = START_DATE + dt.timedelta(days=(n * 3) % 700)
        topic = " ".join(w.title() for w in _words(rng, 3))
        stem = f"{day.isoformat()} {topic}"
        name = stem.lower().replace("-", "_").replace(" ", "_")
        return _Spec(f"{folder}/{day.year}", kind, name, stem, topic)
    words = _words(rng, 2)
    suffix = {"project": "project", "organization": "labs", "concept": ""}[kind]
    name = "_".join([*words, suffix] if suffix else words)
    title = " ".join(w.title() for w in name.split("_"))
    return _Spec(folder, kind, name, name, title, [words[0].title()])


def _words(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(WORDS) for _ in range(n)]


def _note_text(
    rng: random.Random,
    spec: _Spec,
    specs: list[_Spec],
    by_type: dict[str, list[_Spec]],
    words_per_note: tuple[int, int],
) -> str:
    tags = sorted(set(rng.sample(TAGS, rng.randint(1, 3))))
    lines = [
        "---",
        f"id: {spec.type}:{spec.name}",
        f"type: {spec.type}",
        f"title: {json.dumps(spec.title)}",
        f"aliases: {json.dumps(spec.aliases)}",
        f"tags: [{', '.join(tags)}]",
    ]
    if spec.type in ("meeting", "daily"):
        lines.append(f"date: {spec.stem[:10]}")
    for key, target_type in RELATIONS[spec.type]:
        pool = [s for s in by_type.get(target_type, []) if s is not spec]
        if pool:
            targets = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
            lines.append(f"{key}: {json.dumps([f'[[{t.stem}]]' for t in targets])}")
    lines += ["---", "", f"# {spec.title}", ""]
    budget = rng.randint(*words_per_note)
    headings = ["Overview", *rng.sample(HEADINGS, rng.randint(2, 4))]
    per_section = max(1, budget // len(headings))
    for i, heading in enumerate(headings):
        if i:
            lines += [f"## {heading}", ""]
        left = per_section
        while left > 0:
            size = min(left, rng.randint(30, 90))
            lines += [_paragraph(rng, size, specs, tags), ""]
            left -= size
    return "\n".join(lines)


def _with_code(rng: random.Random, text: str, share: float) -> str:
    """After each section, with probability `share`, a code block and maybe a numbers table."""
    out: list[str] = []
    for part in text.split("\n## "):
        out.append(part)
        if rng.random() < share:
            body = [
                f"    {rng.choice(WORDS)}_{i} = {rng.choice(WORDS)}({i}, {rng.randint(0, 999)})"
                for i in range(rng.randint(20, 120))
            ]
            out[-1] += "\n```python\ndef run():\n" + "\n".join(body) + "\n```\n"
            if rng.random() < 0.5:
                rows = [f"| {rng.randint(0, 9999)} | {rng.random():.3f} |" for _ in range(30)]
                out[-1] += "\n| n | rate |\n|---:|---:|\n" + "\n".join(rows) + "\n"
    return "\n## ".join(out)


def _paragraph(rng: random.Random, words: int, specs: list[_Spec], tags: list[str]) -> str:
    """Sentences of 6-16 words, with a wikilink or a #tag now and then."""
    sentences: list[str] = []
    left = words
    while left > 0:
        n = min(left, rng.randint(6, 16))
        sentence = _words(rng, n)
        roll = rng.random()
        if roll < 0.35:
            target = rng.choice(specs)
            link = (
                f"[[{target.stem}|{target.title}]]" if rng.random() < 0.2 else f"[[{target.stem}]]"
            )
            sentence.insert(rng.randrange(len(sentence) + 1), link)
        elif roll < 0.45:
            sentence.append(f"#{rng.choice(tags)}")
        sentence[0] = sentence[0].capitalize()
        sentences.append(" ".join(sentence) + ".")
        left -= n
    return " ".join(sentences)


def main() -> None:
    """Command line: write a vault into OUT_DIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR")
    parser.add_argument("--notes", type=int, default=300, help="number of notes (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--code", type=float, default=0.0, help="share of sections with code (default 0)"
    )
    args = parser.parse_args()
    root = make_vault(args.out_dir, args.notes, seed=args.seed, code=args.code)
    print(f"wrote {args.notes} notes to {root}")


if __name__ == "__main__":
    main()
