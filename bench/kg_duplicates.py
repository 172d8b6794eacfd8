"""kg_find_duplicates at scale: blocking recall and speed on a synthetic entity set.

    python bench/kg_duplicates.py                      # 100k entities, ~1000 planted duplicates
    python bench/kg_duplicates.py --entities 20000 --planted 200 --threshold 0.85

The set looks like a real graph (people from first x last names, organisations, technologies,
projects, dated events) so block sizes are realistic; planted duplicates are copies of random
entities with a typo, changed case, punctuation, a legal suffix, initials, swapped words or an
alias. Prints generation time, find_duplicates time (median of 3), pairs found, recall on the
planted pairs, a precision lower bound (unplanted pairs are counted wrong, though many are
genuine look-alikes such as "Maya Patel"/"Maya Patil"), and peak memory.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable

from kbtui.graph.duplicates import Candidate, DuplicatePair, find_duplicates


def _split(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FIRST = _split(
    "Andrei Maya Omar Lena Jonas Priya Wei Sofia Mateo Aisha Noah Chloe Ravi Elena Tomas Yuki "
    "Fatima Lucas Ingrid Kofi Amara Diego Hana Felix Nadia Oscar Leila Hugo Zara Ivan Mira Theo "
    "Ana Bruno Camila Dmitri Emeka Farah Gustav Helga Isaac Jana Kenji Lars Marta Nikolai Olga "
    "Pablo Quinn Rosa Stefan Tariq Ursula Viktor Wanda Xavier Yara Zoltan Agnes Björn Chiara "
    "Dario Eszter Filip Greta Henrik Irene Joaquín Katya Lorenzo Maëlle Nils Orla Pia Rafael "
    "Saoirse Timo Uma Vera Wilhelm Ximena Yusuf Zeynep Adrian Beatriz Cyrus Daphne Elias Freya"
)
LAST_HEAD = _split(
    "Clod Okaf Pat Ander Bar Dal Eck Fair Gold Hart Ivan Jens Kov Lind Mart Nov Orl Pet Quist "
    "Ross Sand Thor Ulm Vass Wald Yor Zell Brun Cost Dum Ferr Gal Hol Kow Mor Nak Sil Tan Adel "
    "Bjel Crav Dros Egg Fitz Grub Hesk Jarv Kres Lom Mazur Nils Ostr Prib Rad Szab Trem Vel Wyk"
)
LAST_MID = ("", "", "", "en", "ar", "ov", "el", "in", "ak", "ol", "ist")
LAST_TAIL = _split("ius or el son sen escu ova ini ez berg ley ford man ak ström")
ORG_A = _split(
    "North South Blue Red Iron Silver Golden Quiet Rapid Bright Deep High Open Clear Swift "
    "Green Black White Lunar Solar Polar Coastal Urban Prime Nova Vertex Summit Harbor Cedar Oak"
)
ORG_B = _split(
    "wind stone field bridge river forge peak light wave point gate path spring ridge crest "
    "vale brook haven mark shore"
)
ORG_MID = ("", "", "", "Bio ", "Data ", "Quantum ", "Micro ", "Cyber ", "Agri ", "Aero ", "Med ")
ORG_C = _split(
    "Labs Systems Robotics Analytics Partners Group Foundation Studio Works Dynamics Capital "
    "Networks Health Energy Media Logistics Security Ventures Instruments Materials"
)
SYLL = _split(
    "zen tri kor vo lu men ax on qua sar bel dex ryn tho mi ka pex ul gri fon sta vex "
    "bru cal dor fen gam hul jiv kel mor nix op pra quo rez sil tor ush vin wex yam zor"
)
TECH_SUFFIX = ("", "", ".js", "DB", " ML", " SDK", "ify", " Cloud", "QL", " OS")
PROJ_ADJ = _split(
    "Silent Amber Hidden Vector Crimson Hollow Lucky Frozen Velvet Brave Distant Golden Iron "
    "Quiet Wild Electric Paper Glass Copper Midnight Northern Scarlet Cobalt Ivory Rusty"
)
PROJ_NOUN = _split(
    "Watch Falcon Atlas Lantern Compass Harbor Orchard Beacon Meadow Summit Anchor Comet "
    "Glacier Prism Canyon Ember Fjord Tundra Quartz Willow Badger Heron Otter Raven Cobra "
    "Maple Thistle Bramble Kestrel Walrus Pylon Rocket Sparrow Tiger Viper Yeti Zephyr"
)
EVENTS = _split("Standup Retro Review Offsite Planning Demo Launch Workshop")
SUFFIXES = (" Inc.", " Ltd", ", LLC", " GmbH", " Project", " Corp.")


def _person(rng: random.Random) -> str:
    last = rng.choice(LAST_HEAD) + rng.choice(LAST_MID) + rng.choice(LAST_TAIL)
    return f"{rng.choice(FIRST)} {last}"


def _org(rng: random.Random) -> str:
    return f"{rng.choice(ORG_A)}{rng.choice(ORG_B)} {rng.choice(ORG_MID)}{rng.choice(ORG_C)}"


def _tech(rng: random.Random) -> str:
    word = "".join(rng.choice(SYLL) for _ in range(rng.randint(2, 3))).capitalize()
    return word + rng.choice(TECH_SUFFIX)


def _project(rng: random.Random) -> str:
    return f"{rng.choice(PROJ_ADJ)} {rng.choice(PROJ_NOUN)}" + rng.choice(("", " Two", " Prime"))


def _event(rng: random.Random) -> str:
    return f"{rng.choice(EVENTS)} 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


KINDS: tuple[tuple[str, Callable[[random.Random], str], int], ...] = (
    ("person", _person, 40),
    ("organization", _org, 20),
    ("technology", _tech, 15),
    ("project", _project, 20),
    ("event", _event, 5),
)


def _typo(rng: random.Random, text: str) -> str:
    """One substitution, deletion, insertion or transposition inside a word of >= 5 letters."""
    spots = [i for i in range(1, len(text) - 1) if text[i - 1 : i + 2].isalpha()]
    if len(text) < 5 or not spots:
        return text + "s"
    i = rng.choice(spots)
    op = rng.randrange(4)
    if op == 0:
        return text[:i] + rng.choice("aeioulnrst") + text[i + 1 :]
    if op == 1:
        return text[:i] + text[i + 1 :]
    if op == 2:
        return text[:i] + rng.choice("aeioulnrst") + text[i:]
    return text[: i - 1] + text[i] + text[i - 1] + text[i + 1 :]


def _variant(rng: random.Random, kind: str, name: str) -> tuple[str, tuple[str, ...]]:
    """A planted duplicate of `name`: (new name, aliases)."""
    words = name.split()
    options = ["typo", "case", "punct", "typo+case"]
    if kind in ("organization", "project"):
        options.append("suffix")
    if kind == "person":
        options += ["initials", "swap", "title"]
    if kind in ("technology", "organization"):
        options.append("alias")
    how = rng.choice(options)
    if how == "typo":
        return _typo(rng, name), ()
    if how == "case":
        return rng.choice((name.upper(), name.lower(), name.swapcase())), ()
    if how == "punct":
        return rng.choice(("_", "-", ".", "")).join(words), ()
    if how == "typo+case":
        return _typo(rng, name).lower(), ()
    if how == "suffix":
        return name + rng.choice(SUFFIXES), ()
    if how == "initials":
        return f"{words[0][0]}. {' '.join(words[1:])}", ()
    if how == "swap":
        return f"{words[-1]}, {' '.join(words[:-1])}", ()
    if how == "title":
        return f"Dr. {_typo(rng, name)}, PhD", ()
    acronym = "".join(w[0] for w in words).upper() + rng.choice("XQZ")  # says nothing by itself
    return acronym, (rng.choice((name.lower(), name.replace(" ", ""))),)


def make_entities(
    n: int, planted: int, seed: int = 0
) -> tuple[list[Candidate], set[tuple[str, str]]]:
    """n entities with distinct names, of which `planted` are near-copies of others; returns
    them shuffled and the planted (original id, copy id) pairs."""
    rng = random.Random(seed)
    weights = [w for _, _, w in KINDS]
    seen: set[str] = set()
    base: list[Candidate] = []
    while len(base) < n - planted:
        kind, make, _ = rng.choices(KINDS, weights)[0]
        name = make(rng)
        if name.lower() not in seen:
            seen.add(name.lower())
            base.append(Candidate(f"e{len(base)}", kind, name))
    pairs: set[tuple[str, str]] = set()
    extra: list[Candidate] = []
    for original in rng.sample(base, planted):
        name, aliases = _variant(rng, original.type, original.name)
        copy = Candidate(f"d{len(extra)}", original.type, name, aliases)
        extra.append(copy)
        pairs.add((original.entity_id, copy.entity_id))
    everything = base + extra
    rng.shuffle(everything)
    return everything, pairs


def recall(found: list[DuplicatePair], planted: set[tuple[str, str]]) -> float:
    """Share of planted pairs among the found pairs, either orientation."""
    got = {(p.entity1, p.entity2) for p in found} | {(p.entity2, p.entity1) for p in found}
    return sum(pair in got for pair in planted) / max(len(planted), 1)


def _peak_rss_mb() -> float:
    from bench_common import memory_fields  # here: tests import this file for its generator

    return memory_fields()["VmHWM"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--entities", type=int, default=100_000)
    ap.add_argument("--planted", type=int, default=1000)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from bench_common import cpu_times, machine_note

    before = cpu_times()
    t0 = time.perf_counter()
    entities, planted = make_entities(args.entities, args.planted, args.seed)
    gen = time.perf_counter() - t0
    n_strings = sum(1 + len(e.aliases) for e in entities)
    print(f"entities {len(entities):,} ({n_strings:,} names+aliases), generated in {gen:.2f}s")
    rss_before = _peak_rss_mb()
    times: list[float] = []
    found: list[DuplicatePair] = []
    cpu: list[float] = []  # CPU seconds: comparable when other work shares the machine
    for _ in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        found = find_duplicates(entities, args.threshold)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    rss_after = _peak_rss_mb()
    tracemalloc.start()
    find_duplicates(entities, args.threshold)
    traced_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()

    by_id = {e.entity_id: e for e in entities}
    got = {(p.entity1, p.entity2) for p in found} | {(p.entity2, p.entity1) for p in found}
    missed = sorted(pair for pair in planted if pair not in got)
    # What exhaustive scoring would say of each missed pair alone: no candidate generation.
    scorable = [
        pair for pair in missed if find_duplicates([by_id[x] for x in pair], args.threshold)
    ]
    planted_found = len(planted) - len(missed)
    unplanted = [p for p in found if (p.entity1, p.entity2) not in planted
                 and (p.entity2, p.entity1) not in planted]  # fmt: skip
    runs = ", ".join(f"{t:.2f}" for t in times)
    print(f"find_duplicates(threshold={args.threshold}): median {statistics.median(times):.2f}s "
          f"over {args.runs} runs ({runs}); CPU median {statistics.median(cpu):.2f}s")  # fmt: skip
    print(f"pairs found {len(found):,}; recall on {len(planted):,} planted pairs "
          f"{recall(found, planted):.4f}; blocking recall (vs scoring every pair) "
          f"{planted_found / (planted_found + len(scorable)):.4f}")  # fmt: skip
    print(f"precision lower bound {1 - len(unplanted) / max(len(found), 1):.3f} "
          f"({len(unplanted):,} unplanted: look-alikes the generator made by chance)")  # fmt: skip
    bands = [args.threshold, *(x for x in (0.85, 0.9, 0.95, 1.0) if x > args.threshold)]
    for lo, hi in zip(bands, [*bands[1:], 1.01], strict=True):
        n_all = sum(lo <= p.similarity < hi for p in found)
        n_un = sum(lo <= p.similarity < hi for p in unplanted)
        label = "= 1.00     " if lo == 1.0 else f"[{lo:.2f}, {hi:.2f})"
        print(f"  similarity {label}: {n_all:>7,} pairs, {n_all - n_un:>5,} planted")
    print(f"peak RSS {rss_after:.0f} MB (was {rss_before:.0f} MB before the runs); "
          f"tracemalloc peak of one run {traced_peak:.0f} MB")  # fmt: skip
    rng = random.Random(args.seed)
    for p in rng.sample(unplanted, min(6, len(unplanted))):
        print(f"  unplanted  {p.similarity:.3f}  {p.matched[0]!r} ~ {p.matched[1]!r}")
    for a, b in missed[:6]:
        why = "blocking" if (a, b) in scorable else "below threshold"
        print(f"  missed     {by_id[a].name!r} ~ {by_id[b].name!r} {by_id[b].aliases} ({why})")
    print(machine_note(before))


if __name__ == "__main__":
    main()
