"""What every embedding model's files share: where builds are cached, how a build is checked
before it is used, the error a missing model raises, and the vectors' normal form.

Both models (MiniLM, kbtui.embed; multilingual-e5-small, kbtui.embed_e5) are built once from
their wheels into the same cache root and checked by sha256 rather than trusted.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("kbtui.embed")
MANIFEST = "kbtui_model.json"
# Tensors this large are written beside the graph: onnxruntime maps such a file instead of
# copying it into its heap, and a query reads a few rows of the word embeddings.
EXTERNAL_BYTES = 2**20


class EmbedderError(RuntimeError):
    """The embedding model cannot be loaded; the message says what to install or fix."""


def cache_root(cache_dir: Path | None = None) -> Path:
    """The folder model builds live under: `cache_dir` or $XDG_CACHE_HOME/kbtui/models."""
    base = cache_dir or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kbtui"
    return base / "models"


def sha256(path: Path) -> str:
    with path.open("rb") as f:  # in blocks: the file is not held in memory
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_manifest(folder: Path, files: list[str], **facts: str) -> None:
    """Record the sha256 of a fresh build's `files` (and `facts` about it) in MANIFEST."""
    manifest: dict[str, object] = dict(facts)
    manifest["files"] = {name: sha256(folder / name) for name in files}
    (folder / MANIFEST).write_text(json.dumps(manifest))


def build_ok(folder: Path, **facts: str) -> bool:
    """The build in `folder` is whole and unaltered and was made with these `facts`: each
    file's sha256 matches the manifest, or the files' sizes and mtimes are those they had
    when it last matched (hashing ~100 MB on every start would cost each first answer)."""
    try:
        path = folder / MANIFEST
        manifest = json.loads(path.read_text())
        if any(manifest.get(key) != value for key, value in facts.items()):
            return False
        files: dict[str, str] = manifest["files"]
        stamp = stamp_of([folder / name for name in files])
        if manifest.get("stamp") == stamp:
            return True
        if any(sha256(folder / name) != digest for name, digest in files.items()):
            return False
        record_stamp(path, manifest, stamp)
        return True
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return False


def stamp_of(paths: list[Path]) -> list[int]:
    """Sizes and mtimes: writing or truncating a file changes them."""
    return [n for st in (p.stat() for p in paths) for n in (st.st_size, st.st_mtime_ns)]


def record_stamp(path: Path, manifest: dict[str, Any], stamp: list[int]) -> None:
    """Keep the stamp of files whose sha256 just matched in their manifest at `path`."""
    manifest["stamp"] = stamp
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    with suppress(OSError):  # a read-only cache is only checked in full every time
        tmp.write_text(json.dumps(manifest))
        os.replace(tmp, path)


def quantize_and_save(staged: Path, dst: Path, data_file: str) -> None:
    """Dynamic int8 with per-channel weight scales (per-tensor scales lost retrieval quality,
    see EMBEDDING.md) of the MatMul and Attention ops of the fp32 model at `staged`, written
    to `dst` with its tensors over EXTERNAL_BYTES in `data_file` beside it."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix="kbtui-quant-") as tmp:
        quantized = Path(tmp) / "quantized.onnx"
        quantize_dynamic(
            str(staged),
            str(quantized),
            per_channel=True,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Attention"],
            use_external_data_format=True,
            # Shape inference stops at com.microsoft ops; every activation here is fp32.
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
        (dst.parent / data_file).unlink(missing_ok=True)  # onnx appends to one that exists
        onnx.save_model(
            onnx.load(str(quantized)),
            str(dst),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=data_file,
            size_threshold=EXTERNAL_BYTES,
        )


def session_options(threads: int | None) -> Any:
    """onnxruntime options for an embedding session whose idle threads sleep, not spin, and
    that keeps no memory arena.

    onnxruntime's threads busy-wait for a while after each run; right after embedding a
    query that stole both cores from the vector search and tripled its latency (measured
    29 ms instead of 8 ms at 100k chunks); the arena kept ~240 MB after indexing."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
    options.enable_cpu_mem_arena = False
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


class Preloading:
    """Loading a model on a thread while a one-shot command opens the index meanwhile."""

    _preload: threading.Thread | None = None

    def load(self) -> None:
        raise NotImplementedError

    def loaded(self) -> bool:
        raise NotImplementedError

    def preload(self) -> None:
        """Start loading the model on a thread (importing fastembed alone took 0.4-1.2 s,
        opening the index 0.3-1 s). Once."""
        if self._preload is not None or self.loaded():
            return
        self._preload = threading.Thread(target=self._quiet_load, name="kbtui-model", daemon=True)
        self._preload.start()

    def wait_for_preload(self) -> None:
        """Before the process exits: an interpreter shutting down under an import fails."""
        if self._preload is not None:
            self._preload.join()

    def _quiet_load(self) -> None:
        try:
            self.load()
        except Exception as exc:  # the first embed() loads again and raises it there
            log.debug("model preload failed: %s", exc)


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), as float32."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: np.ndarray = (vectors / norms).astype(np.float32)
    return normalised


@contextmanager
def build_lock(models: Path) -> Iterator[None]:
    """One build of a cached model at a time across processes (a TUI and an MCP server, or
    test workers, starting together on a fresh cache): the second waits, then finds the
    first one's build whole instead of removing it from under its reader."""
    models.mkdir(parents=True, exist_ok=True)
    with open(models / ".build.lock", "ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
