"""Tandem's LoRA adapter as side branches of the ONNX graph, switched per call by an input.

Merged into the weights, the next-edit adapter cost inline completion 1.4 points of HumanEval
pass@1 (models/README.md). As side branches it costs completion nothing: every adapted
projection y = x·W gets y + s·(x·A)·B, where s is the new graph input `adapter_scale` [1]
(float32). Completion runs with s = 0, which adds exact zeros, so its outputs are bit-for-bit
those of the base graph; next edit runs with s = 1 on its own KV cache. One set of weights stays
in memory; the adapter adds ~8 MB (fp32) and a few small MatMuls per layer.

Runs in the build environment (build_onnx.py) and in the server's venv (tests): numpy and onnx
only. The fused projections of onnxruntime-genai's builder are handled: q/k/v are one
`qkv_proj` MatMul (columns q | k | v), so q's and v's adapters become one branch whose B matrix
is zero over k's columns.
"""
from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import numpy as np

SCALE_INPUT = "adapter_scale"
ADAPTER_FILE = "adapter_model.safetensors"
KEY = re.compile(r"^base_model\.model\.model\.layers\.(\d+)\.(?:self_attn|mlp)\.(\w+)\.lora_([AB])\.weight$")
# peft module name -> the builder's fused node under /model/layers.N/
NODE = {"q_proj": "attn/qkv_proj", "k_proj": "attn/qkv_proj", "v_proj": "attn/qkv_proj",
        "o_proj": "attn/o_proj", "down_proj": "mlp/down_proj", "up_proj": "mlp/up_proj", "gate_proj": "mlp/gate_proj"}
_DTYPES = {"F16": np.float16, "F32": np.float32, "BF16": None}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file (F16/F32) as numpy arrays, without the safetensors package."""
    raw = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(meta["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name} has dtype {meta['dtype']}; the adapter is saved in F16 or F32")
        a, b = meta["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=dtype).reshape(meta["shape"])
    return out


def branches(adapter_dir: Path, head_dim: int, q_heads: int, kv_heads: int) -> dict[tuple[int, str], tuple[np.ndarray, np.ndarray]]:
    """(layer, builder node) -> (A [in, r'], B [r', out]) in float32, with alpha/r folded into B:
    the side branch adds (x·A)·B. q/k/v adapters of a layer are stacked into one branch over the
    fused qkv columns."""
    cfg = json.loads((Path(adapter_dir) / "adapter_config.json").read_text())
    if cfg.get("use_rslora") or cfg.get("use_dora") or cfg.get("rank_pattern") or cfg.get("alpha_pattern"):
        raise ValueError("only plain LoRA (one rank and alpha, no rsLoRA/DoRA) is supported")
    scale = cfg["lora_alpha"] / cfg["r"]
    tensors = read_safetensors(Path(adapter_dir) / ADAPTER_FILE)
    parts: dict[tuple[int, str], dict[str, np.ndarray]] = {}
    for name, t in tensors.items():
        m = KEY.match(name)
        if m is None or m.group(2) not in NODE:
            raise ValueError(f"unexpected adapter tensor {name}")
        parts.setdefault((int(m.group(1)), m.group(2)), {})[m.group(3)] = t.astype(np.float32)
    q, kv = q_heads * head_dim, kv_heads * head_dim
    columns = {"q_proj": (0, q), "k_proj": (q, q + kv), "v_proj": (q + kv, q + 2 * kv)}
    out: dict[tuple[int, str], tuple[list, list]] = {}
    for (layer, module), ab in sorted(parts.items()):
        a, b = ab["A"].T, ab["B"].T * scale           # peft: A [r, in], B [out, r]
        if module in columns:                          # one slice of the fused qkv output
            lo, hi = columns[module]
            wide = np.zeros((b.shape[0], q + 2 * kv), np.float32)
            wide[:, lo:hi] = b
            b = wide
        As, Bs = out.setdefault((layer, NODE[module]), ([], []))
        As.append(a)
        Bs.append(b)
    return {k: (np.concatenate(As, axis=1), np.concatenate(Bs, axis=0)) for k, (As, Bs) in out.items()}


def add_side_adapter(model, adapter: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]], float_type: int) -> None:
    """Edit the ModelProto in place: a side branch after each adapted projection (after its bias
    Add when it has one, so the builder's MatMul+bias pattern stays intact), and the input
    `adapter_scale`. float_type: the graph's activation type (onnx TensorProto.FLOAT/FLOAT16)."""
    from onnx import TensorProto, helper, numpy_helper

    g = model.graph
    if any(i.name == SCALE_INPUT for i in g.input):
        raise ValueError("the graph already has an adapter")
    np_type = np.float16 if float_type == TensorProto.FLOAT16 else np.float32
    consumers: dict[str, list] = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    producer = {y: n for n in g.node for y in n.output}
    inits = {i.name for i in g.initializer}
    targets: dict[str, tuple[int, str, str]] = {}     # output -> (layer, node, the MatMul's input)
    for layer, node in adapter:
        y = f"/model/layers.{layer}/{node}/MatMul/output_0"
        use = consumers.get(y, [])
        if not use or y not in producer:
            raise ValueError(f"the graph has no {y} (builder output changed?)")
        x = producer[y].input[0]
        if len(use) == 1 and use[0].op_type == "Add" and use[0].input[1] in inits:
            y = use[0].output[0]                       # after the bias
        targets[y] = (layer, node, x)
    scale = SCALE_INPUT
    nodes = []
    if np_type is np.float16:
        scale = f"{SCALE_INPUT}/cast"
        nodes.append(helper.make_node("Cast", [SCALE_INPUT], [scale], name=scale, to=TensorProto.FLOAT16))
    for n in g.node:
        nodes.append(n)
        for y in n.output:
            if y not in targets:
                continue
            layer, node, x = targets[y]
            a, b = adapter[(layer, node)]
            p = f"/model/layers.{layer}/{node}/adapter"
            g.initializer.extend([numpy_helper.from_array(a.astype(np_type), p + ".A"),
                                  numpy_helper.from_array(b.astype(np_type), p + ".B")])
            for c in consumers[y]:                     # every reader of y reads y + branch
                for k, name in enumerate(c.input):
                    if name == y:
                        c.input[k] = p + "/sum"
            nodes += [helper.make_node("MatMul", [x, p + ".A"],
                                       [p + "/xa"], name=p + "/MatMulA"),
                      helper.make_node("Mul", [p + "/xa", scale], [p + "/xas"], name=p + "/Scale"),
                      helper.make_node("MatMul", [p + "/xas", p + ".B"], [p + "/delta"], name=p + "/MatMulB"),
                      helper.make_node("Add", [y, p + "/delta"], [p + "/sum"], name=p + "/Add")]
    del g.node[:]
    g.node.extend(nodes)
    g.input.append(helper.make_tensor_value_info(SCALE_INPUT, TensorProto.FLOAT, [1]))

