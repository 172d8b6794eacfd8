"""Relationships between the mentions of one sentence: cue phrases, prepositions, lists
of people (`_relations`), with pronouns resolved to recent mentions (`_arguments`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kbtui.graph import lexicon as lx
from kbtui.graph.candidates import _Cand
from kbtui.graph.model import ENTITY_TYPES, ExtractedRelation
from kbtui.graph.text import _CUE_WORDS, _CUES, _FUNCTION, _STOP, _Tok, fold


def _types(spec: str) -> frozenset[str]:
    return frozenset(ENTITY_TYPES if spec == "*" else spec.split())


# (source types, target types) per relationship. A type outside ENTITY_TYPES (a vault's
# "meeting") counts as a document.
_SIGNATURES = {
    rel: (_types(src), _types(dst))
    for rel, src, dst in (
        ("MEMBER_OF", "person organization", "organization"),
        ("WORKS_ON", "person organization", "project task technology"),
        ("USES", "person organization project technology task", "technology"),
        ("DEPENDS_ON", "project technology task", "project technology task"),
        ("OWNS", "person organization", "project technology task document concept organization"),
        ("CREATED", "person organization", "project technology task document concept organization"),
        ("MODIFIED", "person organization", "project technology task document concept"),
        ("REFERENCES", "*", "*"),
        ("BLOCKS", "project task technology", "project task"),
        (
            "CONTRADICTS",
            "person organization document concept",
            "person organization document concept",
        ),
        ("RELATED_TO", "person", "person"),
    )
}
# Words standing for the most recent person / project / organisation.
_ANAPHORS: dict[tuple[str, ...], str] = {
    **{(w,): "person" for w in ("he", "she", "him", "his", "her")},
    ("it",): "it",
    ("its",): "it",
    **{(d, n): "project" for d in ("the", "this", "our") for n in ("team", "project")},
    **{(d, n): "organization" for d in ("the", "this") for n in ("company", "lab", "startup")},
}
_COORD = frozenset({",", "and", "or", "&"})
_MADE = frozenset({"CREATED", "MODIFIED", "OWNS"})
_BOUNDARY = frozenset({";", ":", "(", ")", "—", "–", "|", '"'})


@dataclass(slots=True)
class _Arg:
    name: str
    type: str
    i: int
    j: int
    conf: float
    oblique: bool = False  # after a preposition or before "'s": never a clause's subject
    possessive: bool = False


class _Sentence:
    """One sentence's tokens and arguments (outer mentions and resolved pronouns), and the
    small grammar the cues need: clause boundaries, subject, objects, lists."""

    def __init__(self, toks: list[_Tok], s: int, e: int, args: list[_Arg]) -> None:
        self.toks, self.s, self.e, self.args = toks, s, e, args
        self.lows = [t.low for t in toks]
        self.starts = {a.i: a for a in args}
        self.ends = {a.j: a for a in args}

    def clause_start(self, c: int) -> int:
        """The token after the last clause boundary before c (";", "said", ", but")."""
        for k in range(c - 1, self.s - 1, -1):
            low = self.lows[k]
            if low in _BOUNDARY or low in lx.CLAUSE_OPENERS:
                return k + 1
            if low == "," and k + 1 < c and self.lows[k + 1] in lx.CONJUNCTIONS:
                return k + 1
        return self.s

    def first_subject(self, c: int, owner: bool = False) -> _Arg | None:
        """The clause's first argument not after a preposition (nor, unless `owner`, before
        "'s"); failing that, an organisation acting through its people ("The firmware team at
        Garmin uses ...")."""
        start = self.clause_start(c)
        args = [a for a in self.args if start <= a.i < c]
        found = next(
            (
                a
                for a in args
                if (not a.oblique or (owner and a.possessive)) and not self.modifier(a, True)
            ),
            None,
        )
        if found is None:
            found = next(
                (a for a in args if a.type == "organization" and self.role_before(a.i)), None
            )
        return found

    def role_before(self, i: int) -> bool:
        """ "team at X", "CTO of X": a role or group noun, then a membership preposition."""
        k = i - 1 - (i > self.s and self.lows[i - 1] == "the")
        return (
            k > self.s
            and self.lows[k] in lx.MEMBERSHIP_PREPOSITIONS
            and self.lows[k - 1] in lx.ROLE_NOUNS
        )

    def subject(self, c: int) -> list[_Arg]:
        """Who does the verb at token c: inside a relative clause, the argument before
        "which/who"; else the argument right before the verb (auxiliaries and adverbs
        between); else the clause's first subject. With those listed alongside it."""
        start = self.clause_start(c)
        for k in range(c - 1, start - 1, -1):
            if self.lows[k] == ",":
                break
            if self.lows[k] in lx.RELATIVE_PRONOUNS:
                near = [a for a in self.args if a.j <= k]
                return near[-1:]
        k = c
        while k > start and self.lows[k - 1] in lx.AUXILIARIES | lx.ADVERBS:
            k -= 1
        last = self.ends.get(k)
        if last is not None and not last.oblique and not self.modifier(last, subject=True):
            return self.listed(last, -1)
        first = self.first_subject(c)
        return self.listed(first, +1) if first else []

    def listed(self, arg: _Arg, step: int) -> list[_Arg]:
        """arg and the arguments listed with it ("Python, Rust and Go"), leftwards or right."""
        group, idx = [arg], self.args.index(arg)
        while 0 <= idx + step < len(self.args):
            a, b = sorted((self.args[idx], self.args[idx + step]), key=lambda x: x.i)
            gap = self.lows[a.j : b.i]
            if len(gap) > 1 and gap[0].isalpha() and gap[0] not in _STOP:
                gap = gap[1:]  # "Arduino boards and a Raspberry Pi"
            if not gap or any(w not in _COORD and w not in lx.DETERMINERS for w in gap):
                break
            idx += step
            group.append(self.args[idx])
        return group

    def objects(self, k: int) -> list[_Arg]:
        """The first argument from token k on (up to three determiners, adjectives or "version
        of" between) and the arguments listed with it."""
        loose = 0
        for m in range(k, self.e):
            if m in self.starts:
                return self.listed(self.starts[m], +1)
            low = self.lows[m]
            if low in lx.DETERMINERS or (low == "of" and self.lows[m - 1] in lx.PART_NOUNS):
                continue
            if not low[0].isalnum() or low in _FUNCTION or low in _CUE_WORDS or loose == 3:
                return []
            loose += 1
        return []

    def modifier(self, arg: _Arg, subject: bool = False) -> bool:
        """ "updated the Grafana dashboards", "Our Android app is ...": the technology (or, as
        an object, the organisation) qualifies an unnamed thing."""
        nxt = self.lows[arg.j] if arg.j < self.e else "."
        kinds = {"technology"} if subject else {"technology", "organization"}
        return (
            arg.type in kinds and nxt.isalpha() and nxt not in _STOP
            and nxt not in _CUE_WORDS and not nxt.endswith("ly")
        )  # fmt: skip


def _relations(sent: _Sentence, evidence: str) -> list[ExtractedRelation]:
    """Cue phrases, membership prepositions, "with", and lists of people, in one sentence."""
    out: list[ExtractedRelation] = []

    def add(src: _Arg, rel: str, dst: _Arg, conf: float) -> None:
        sources, targets = _SIGNATURES[rel]
        st = src.type if src.type in ENTITY_TYPES else "document"
        dt = dst.type if dst.type in ENTITY_TYPES else "document"
        if fold(src.name) != fold(dst.name) and st in sources and dt in targets:
            conf = round(conf * min(src.conf, dst.conf), 3)
            out.append(ExtractedRelation(src.name, dst.name, rel, conf, evidence))

    inside = {k for a in sent.args for k in range(a.i, a.j)}
    k = sent.s
    while k < sent.e:
        hit = _CUES.match(sent.lows, k, sent.e)
        if hit is not None and inside.isdisjoint(range(k, k + hit[0])):
            n, (rel, inverted) = hit
            _cue(sent, k, k + n, rel, inverted, add)
            k += n
        else:
            if k not in inside:
                _preposition(sent, k, add)
            k += 1
    for a in sent.args:
        for b in sent.listed(a, +1)[1:] if a.type == "person" else []:
            add(a, "RELATED_TO", b, 0.4)
    return out


_Add = Callable[[_Arg, str, _Arg, float], None]


def _cue(sent: _Sentence, c: int, d: int, rel: str, inverted: bool, add: _Add) -> None:
    """The cue phrase at tokens [c, d): its subject(s) `rel` its object(s), or the reverse for
    a passive ("was built by"). Intentions ("to update X") and things merely named after a
    technology ("updated the Grafana dashboards") are not relationships."""
    objects = [] if c > sent.s and sent.lows[c - 1] == "to" and rel in _MADE else sent.objects(d)
    if rel == "MEMBER_OF" and inverted:  # "X hired Y": only people join by being hired
        objects = [o for o in objects if o.type == "person"]
    if rel in _MADE and objects and sent.modifier(objects[0]):
        return
    for a in sent.subject(c) if objects else []:
        for b in objects:
            add(b, rel, a, 0.75) if inverted else add(a, rel, b, 0.75)


def _preposition(sent: _Sentence, p: int, add: _Add) -> None:
    """ "Sarah Chen from Google", "Yuki (Mozilla)", "a professor at MIT", "the team at X" are
    MEMBER_OF; "a book by X" is CREATED; "shared it with Daniel" is RELATED_TO (people)."""
    word = sent.lows[p]
    if word not in lx.MEMBERSHIP_PREPOSITIONS and word not in {"with", "by"}:
        return
    q = p + 1 + (p + 1 < sent.e and sent.lows[p + 1] in {"the", "a", "an"})
    target, before = sent.starts.get(q), sent.ends.get(p)
    if target is None or (word == "(" and sent.lows[target.j : target.j + 1] != [")"]):
        return
    first = sent.first_subject(p, owner=True)
    if word == "with":
        subject = before if before is not None and before.type == "person" else first
        if subject is not None:
            for t in sent.listed(target, +1):
                add(subject, "RELATED_TO", t, 0.5)
    elif word == "by":
        if before is not None and before.type == "document":
            add(target, "CREATED", before, 0.6)
    elif before is not None and before.type != "project":
        add(before, "MEMBER_OF", target, 0.7)
    elif (
        first is not None
        and first.type == "person"
        and (
            sent.lows[p - 1] in lx.ROLE_NOUNS
            or before is not None  # "professor at", "X initiative at"
        )
    ):
        add(first, "MEMBER_OF", target, 0.6)


def _arguments(
    toks: list[_Tok], s: int, e: int, mentions: list[_Cand], recent: dict[str, _Arg]
) -> list[_Arg]:
    """Outer mentions, and pronouns or "the team" resolved to the most recent person, project
    or thing; `recent` carries over from sentence to sentence."""
    lows, args = [t.low for t in toks], []
    by_start = {c.i: c for c in mentions if not c.inner}
    k = s
    while k < e:
        c, arg = by_start.get(k), None
        if c is not None:
            arg, n = _Arg(c.name, c.type, c.i, c.j, 1.0), c.j - c.i
        else:
            n = 2 if tuple(lows[k : k + 2]) in _ANAPHORS else 1
            kind = _ANAPHORS.get(tuple(lows[k : k + n]))
            if kind == "it":
                ref = recent.get("project") or recent.get("thing")
            else:
                ref = None if kind is None else recent.get(kind)
            if ref is not None:
                arg = _Arg(ref.name, ref.type, k, k + n, 0.85)
        if arg is not None:
            back = k - 1
            while back >= s and lows[back] in lx.DETERMINERS:
                back -= 1
            arg.possessive = arg.j < e and lows[arg.j] == "'s"
            arg.oblique = arg.possessive or (back >= s and lows[back] in lx.PREPOSITIONS)
            args.append(arg)
            recent[arg.type] = arg
            if arg.type in {"technology", "organization", "document"}:
                recent["thing"] = arg
        k += n
    return args
