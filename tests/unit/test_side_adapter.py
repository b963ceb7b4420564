"""models/side_adapter.py on a small graph of the builder's shape: the adapter's branches add
exactly nothing when `adapter_scale` is 0 and x·A·B·(alpha/r) when it is 1; q's and v's
adapters land on their own columns of the fused qkv projection."""
from __future__ import annotations

import json
import struct

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from models.side_adapter import SCALE_INPUT, add_side_adapter, branches, read_safetensors

HEAD, Q_HEADS, KV_HEADS = 2, 2, 1          # hidden 4; fused qkv columns: q 0:4, k 4:6, v 6:8
HIDDEN, QKV = HEAD * Q_HEADS, HEAD * (Q_HEADS + 2 * KV_HEADS)
R, ALPHA = 2, 4
rng = np.random.default_rng(7)


def write_safetensors(path, tensors: dict[str, np.ndarray]) -> None:
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        raw = t.astype(np.float16).tobytes()
        header[name] = {"dtype": "F16", "shape": list(t.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def lora(module: str, n_in: int, n_out: int) -> dict[str, np.ndarray]:
    attn = module in ("q_proj", "v_proj", "o_proj")
    key = f"base_model.model.model.layers.0.{'self_attn' if attn else 'mlp'}.{module}"
    return {f"{key}.lora_A.weight": rng.normal(size=(R, n_in)).astype(np.float16),
            f"{key}.lora_B.weight": rng.normal(size=(n_out, R)).astype(np.float16)}


@pytest.fixture()
def adapter(tmp_path):
    tensors = {**lora("q_proj", HIDDEN, HIDDEN), **lora("v_proj", HIDDEN, HEAD * KV_HEADS),
               **lora("o_proj", HIDDEN, HIDDEN)}
    write_safetensors(tmp_path / "adapter_model.safetensors", tensors)
    (tmp_path / "adapter_config.json").write_text(json.dumps({"r": R, "lora_alpha": ALPHA}))
    return tmp_path, {k: v.astype(np.float32) for k, v in tensors.items()}


def builder_like_graph():
    """x → qkv MatMul (+ bias) → out_qkv; x → o_proj MatMul → out_o (the builder's names)."""
    wq, bq, wo = (rng.normal(size=s).astype(np.float32) for s in ((HIDDEN, QKV), (QKV,), (HIDDEN, HIDDEN)))
    qkv, o = "/model/layers.0/attn/qkv_proj", "/model/layers.0/attn/o_proj"
    nodes = [helper.make_node("MatMul", ["x", "wq"], [qkv + "/MatMul/output_0"], name=qkv + "/MatMul"),
             helper.make_node("Add", [qkv + "/MatMul/output_0", "bq"], [qkv + "/Add/output_0"], name=qkv + "/Add"),
             helper.make_node("Identity", [qkv + "/Add/output_0"], ["out_qkv"], name="attention"),
             helper.make_node("MatMul", ["x", "wo"], [o + "/MatMul/output_0"], name=o + "/MatMul"),
             helper.make_node("Identity", [o + "/MatMul/output_0"], ["out_o"], name="out")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "S", HIDDEN])],
        [helper.make_tensor_value_info("out_qkv", TensorProto.FLOAT, [1, "S", QKV]),
         helper.make_tensor_value_info("out_o", TensorProto.FLOAT, [1, "S", HIDDEN])],
        [numpy_helper.from_array(wq, "wq"), numpy_helper.from_array(bq, "bq"), numpy_helper.from_array(wo, "wo")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), (wq, bq, wo)


def run(model, x, scale=None):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {"x": x} if scale is None else {"x": x, SCALE_INPUT: np.asarray([scale], np.float32)}
    return sess.run(["out_qkv", "out_o"], feed)


def test_safetensors_are_read_without_the_package(adapter):
    folder, tensors = adapter
    got = read_safetensors(folder / "adapter_model.safetensors")
    assert got.keys() == tensors.keys()
    assert all(np.array_equal(got[k].astype(np.float32), tensors[k]) for k in tensors)


def test_q_and_v_adapters_fill_their_own_columns_of_the_fused_projection(adapter):
    folder, t = adapter
    br = branches(folder, HEAD, Q_HEADS, KV_HEADS)
    assert set(br) == {(0, "attn/qkv_proj"), (0, "attn/o_proj")}
    a, b = br[(0, "attn/qkv_proj")]
    assert a.shape == (HIDDEN, 2 * R) and b.shape == (2 * R, QKV)
    pre = "base_model.model.model.layers.0.self_attn."
    delta = a @ b
    scale = ALPHA / R
    q = t[pre + "q_proj.lora_A.weight"].T @ t[pre + "q_proj.lora_B.weight"].T * scale
    v = t[pre + "v_proj.lora_A.weight"].T @ t[pre + "v_proj.lora_B.weight"].T * scale
    np.testing.assert_allclose(delta[:, :HIDDEN], q, rtol=1e-5, atol=1e-5)
    assert not delta[:, HIDDEN:HIDDEN + HEAD * KV_HEADS].any()  # k is not adapted
    np.testing.assert_allclose(delta[:, HIDDEN + HEAD * KV_HEADS:], v, rtol=1e-5, atol=1e-5)


def test_scale_zero_is_the_base_graph_exactly_and_one_adds_the_adapter(adapter):
    folder, _ = adapter
    model, (wq, bq, wo) = builder_like_graph()
    x = rng.normal(size=(1, 3, HIDDEN)).astype(np.float32)
    base = run(model, x)
    br = branches(folder, HEAD, Q_HEADS, KV_HEADS)
    add_side_adapter(model, br, TensorProto.FLOAT)
    onnx.checker.check_model(model)
    off = run(model, x, 0.0)
    assert all(np.array_equal(a, b) for a, b in zip(base, off))  # bit for bit: completion is untouched
    on = run(model, x, 1.0)
    (aq, bq_), (ao, bo) = br[(0, "attn/qkv_proj")], br[(0, "attn/o_proj")]
    np.testing.assert_allclose(on[0], base[0] + x @ aq @ bq_, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(on[1], base[1] + x @ ao @ bo, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="already has an adapter"):
        add_side_adapter(model, br, TensorProto.FLOAT)
