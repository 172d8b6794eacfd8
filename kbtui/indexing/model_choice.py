"""Which embedding model a vault uses, and the one place every front end builds it.

`Settings.model` is `auto` unless $KBTUI_MODEL or `--model` forces `minilm` (all-MiniLM-L6-v2,
English) or `e5` (multilingual-e5-small, ~100 languages). `auto` decides from the vault's text
when the index is first opened by this kbtui: with E5_SHARE or more of its notes in a language
other than English (kbtui.indexing.languages), e5. The decision is kept in the index (meta
`model_choice`, with the reason in `model_reason`) and never taken again on its own: a vault
whose notes drift across the line keeps its model until the user asks (`kbtui index
--choose-model`) or forces one.

A switch (the chosen model differs from the one that made the stored vectors) drops the old
vectors when the index opens, so a query is never compared with another model's vectors; the
next pass embeds every chunk again (newest notes first, `kbtui index` with its progress bar).
Meanwhile keyword search is whole and vector search finds the chunks embedded so far.
"""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from kbtui.config import Settings
from kbtui.embed import Embedder, EmbedderError, FastEmbedder
from kbtui.indexing.languages import VaultLanguages, vault_languages

log = logging.getLogger("kbtui.model")

MINILM, E5 = "minilm", "e5"
MODEL_NAMES = {MINILM: "all-MiniLM-L6-v2", E5: "multilingual-e5-small"}
E5_ID_PREFIX = "multilingual-e5"  # E5Embedder's model_id starts so (kbtui.embed_e5)
# The share of notes not in English from which `auto` takes e5. Low on purpose: MiniLM ranks
# notes in other languages at random, while e5 reads English about as well (SciFact 1,000
# documents: nDCG@10 0.806 vs MiniLM's 0.779, issue 43); what e5 costs is embedding time.
E5_SHARE = 0.2
KEPT, REASON = "model_choice", "model_reason"


class MetaStore(Protocol):
    """What the choice needs of the index (kbtui.store.Store)."""

    def meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def reset_embeddings_for_model(self, model_id: str) -> bool: ...


@dataclass(frozen=True)
class Choice:
    model: str  # MINILM or E5
    reason: str  # said by `kbtui stats` and the TUI's status line


def family(model_id: str | None) -> str | None:
    """MINILM or E5: which model made vectors with this id (None: no vectors yet)."""
    if not model_id:
        return None
    return E5 if model_id.startswith(E5_ID_PREFIX) else MINILM


def build(model: str, settings: Settings) -> Embedder:
    """The embedder of `model`; EmbedderError saying what to do when it cannot be had."""
    if model != E5:
        return FastEmbedder(batch_size=settings.embed_batch_size, threads=settings.embed_threads)
    try:  # by name: the multilingual embedder is a module of its own (kbtui.embed_e5)
        module = importlib.import_module("kbtui.embed_e5")
    except ImportError as exc:
        raise EmbedderError(
            f"the multilingual model is not available ({exc}); "
            "KBTUI_MODEL=minilm uses the English one"
        ) from exc
    made: Embedder = module.E5Embedder(
        batch_size=settings.embed_batch_size, threads=settings.embed_threads
    )
    return made


def auto_choice(languages: VaultLanguages) -> Choice:
    """e5 when E5_SHARE or more of the notes are not in English, else MiniLM."""
    if not languages.counted:
        return Choice(MINILM, "auto: no note long enough to tell its language")
    share, other = languages.share_not_english(), languages.main_other()
    if share < E5_SHARE or other is None:
        return Choice(MINILM, f"auto: {1 - share:.0%} of notes in English")
    if len(languages.counts) - ("en" in languages.counts) == 1:
        return Choice(E5, f"auto: {share:.0%} of notes in {other}")
    return Choice(E5, f"auto: {share:.0%} of notes not in English, most in {other}")


def decide(settings: Settings, store: MetaStore) -> Choice:
    """The forced model, else the one kept in the index, else auto's decision from the text."""
    if settings.model != "auto":
        return Choice(settings.model, f"set by {settings.model_set_by or 'the settings'}")
    kept, reason = store.meta(KEPT), store.meta(REASON) or ""
    if kept in MODEL_NAMES and not settings.choose_model_again:
        was = reason if reason.startswith(("auto", "kept")) else f"kept ({reason} before)"
        return Choice(kept, was)
    return auto_choice(vault_languages(settings.vault, settings.index_dir))


class VaultEmbedder:
    """The vault's embedder: the model its settings and its index choose (`choose`, called
    by KnowledgeBase.open once the index is open)."""

    def __init__(self, settings: Settings, make: Any = build) -> None:
        self.settings = settings
        self._make = make
        self.choice: Choice | None = None
        # Made now (cheap: nothing loads), so a model that cannot be had fails before the index
        # opens; under auto, MiniLM until `choose` says otherwise, and no preload before it.
        self._chosen = settings.model != "auto"
        self._model: Embedder = make(settings.model if self._chosen else MINILM, settings)
        self.model_id, self.dim = self._model.model_id, self._model.dim
        self._preload = False  # asked before the model was chosen: loads once it is

    def choose(self, store: MetaStore) -> Choice:
        """Decide, keep the decision in the index, and drop another model's vectors."""
        choice = decide(self.settings, store)
        try:
            model = self._model_of(choice.model)
        except EmbedderError as exc:
            if choice.model != E5 or self.settings.model != "auto":
                raise
            log.warning("%s; using MiniLM until it is: %s", choice.reason, exc)
            choice = Choice(MINILM, f"{choice.reason}; the multilingual model is missing")
            model = self._model_of(MINILM)
        else:
            if (store.meta(KEPT), store.meta(REASON)) != (choice.model, choice.reason):
                store.set_meta(KEPT, choice.model)
                store.set_meta(REASON, choice.reason)
        self._model, self.choice, self._chosen = model, choice, True
        self.model_id, self.dim = model.model_id, model.dim
        made_by = family(store.meta("embed_model"))
        if made_by is not None and made_by != family(model.model_id):
            log.info("switching the vault's vectors to %s (%s)", model.model_id, choice.reason)
            store.reset_embeddings_for_model(model.model_id)
        if self._preload:
            self.preload()
        return choice

    def _model_of(self, name: str) -> Embedder:
        if family(self._model.model_id) == name:
            return self._model
        made: Embedder = self._make(name, self.settings)
        return made

    @property
    def model(self) -> Embedder:
        return self._model

    @property
    def batch_size(self) -> int:
        return int(getattr(self._model, "batch_size", 1))

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.model.embed(texts)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        """Queries: e5 reads them with their own prefix (`query: `)."""
        model = self.model
        query = getattr(model, "embed_query", None)
        vectors: np.ndarray = query(texts) if callable(query) else model.embed(texts)
        return vectors

    def preload(self) -> None:
        if not self._chosen:
            self._preload = True
            return
        preload = getattr(self._model, "preload", None)
        if callable(preload):
            preload()

    def load(self) -> None:
        load = getattr(self.model, "load", None)
        if callable(load):
            load()

    def wait_for_preload(self) -> None:
        wait = getattr(self._model, "wait_for_preload", None)
        if callable(wait):
            wait()

    def bulk_sessions(self) -> int:
        sessions = getattr(self.model, "bulk_sessions", None)
        return int(sessions()) if callable(sessions) else 1

    def comparable(self, cosines: np.ndarray, query: str = "") -> np.ndarray:
        """The model's cosines on MiniLM's scale (e5's map), as search reads them; without
        it here, every search of an e5 vault ranked on e5's raw, compressed cosines."""
        mapped = getattr(self._model, "comparable", None)
        return np.asarray(mapped(cosines, query)) if callable(mapped) else cosines

    def one_thread_session(self) -> Embedder:
        sibling: Embedder = self.model.one_thread_session()  # type: ignore[attr-defined]
        return sibling


def describe(stats: dict[str, Any]) -> str | None:
    """ "multilingual-e5-small (auto: 62% of notes in Chinese)" from the index's stats."""
    model = stats.get(KEPT)
    if model not in MODEL_NAMES:
        return None
    reason = stats.get(REASON)
    return MODEL_NAMES[model] + (f" ({reason})" if reason else "")
