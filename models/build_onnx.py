"""Build ONNX decoders from a verified GGUF file. Runs inside the isolated build environment
(torch, transformers, onnxruntime-genai); the server never imports this file.

    python build_onnx.py GGUF OUT_DIR --precision int8 [--precision int4] [--adapter DIR]

Route (measured: models/README.md): GGUF → transformers (dequantised fp32) → onnxruntime-genai's
model builder (weight-only int8/int4 MatMulNBits, GroupQueryAttention) → one graph edit:
the builder's "prune_lm_head" keeps only the last position's logits, which is right for prefill
but wrong for speculative decoding, which must score every drafted token in one pass. We replace
that fixed Gather(-1) by a Slice driven by a new input `num_logits_to_keep`, so the caller asks
for 1 row during prefill and k+1 rows when verifying k drafted tokens. With --adapter, a second
edit adds Tandem's LoRA adapter as side branches switched by the input `adapter_scale`
(side_adapter.py): merged into the weights it cost inline completion 1.4 points of HumanEval.
"""
from __future__ import annotations

import argparse
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def dequantise(gguf: Path, hf_dir: Path) -> None:
    """GGUF → an fp32 HF folder."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    src, name = str(gguf.parent), gguf.name
    tok = AutoTokenizer.from_pretrained(src, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(src, gguf_file=name, dtype=torch.float32)
    # transformers marks GGUF-loaded models as quantised and refuses to save them; the weights
    # are already dequantised fp32, so the marker is dropped.
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        delattr(model.config, "quantization_config")
    model.save_pretrained(hf_dir)
    tok.save_pretrained(hf_dir)


def run_builder(hf_dir: Path, out: Path, precision: str, cache: Path) -> None:
    extra = ["prune_lm_head=true"]
    if precision == "int8":
        extra.append("op_types_to_quantize=MatMul/Gather")
    elif precision == "int4":
        extra += ["op_types_to_quantize=MatMul/Gather", "int4_is_symmetric=false", "int4_accuracy_level=4"]
    # fp16 is the GPU variant: the builder lays it out for the CUDA provider (fp16 weights and KV cache)
    target = "cuda" if precision == "fp16" else "cpu"
    cmd = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", str(hf_dir), "-o", str(out),
           "-p", precision, "-e", target, "-c", str(cache), "--extra_options", *extra]
    log = out.parent / f"builder-{precision}.log"
    with open(log, "w") as fh:
        rc = subprocess.call(cmd, stdout=fh, stderr=subprocess.STDOUT)
    if rc != 0:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise SystemExit(f"onnxruntime-genai builder failed ({precision}); last lines:\n" + "\n".join(tail))


def keep_logits_input(model_path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper

    m = onnx.load(str(model_path), load_external_data=False)
    g = m.graph
    nodes = list(g.node)
    names = [n.name for n in nodes]
    if "/lm_head/prune/Gather" not in names:
        raise SystemExit("unexpected graph: no /lm_head/prune/Gather (builder output changed?)")
    gi = names.index("/lm_head/prune/Gather")
    unsq = nodes[names.index("/lm_head/prune/Unsqueeze")]
    hidden, out = nodes[gi].input[0], unsq.output[0]
    const = lambda n, v: helper.make_node(  # noqa: E731
        "Constant", [], [n], name=n, value=helper.make_tensor(n, TensorProto.INT64, [1], [v]))
    new = [
        helper.make_node("Neg", ["num_logits_to_keep"], ["/lm_head/keep/start"], name="/lm_head/keep/Neg"),
        const("/lm_head/keep/end", 2**62),
        const("/lm_head/keep/axes", 1),
        helper.make_node("Slice", [hidden, "/lm_head/keep/start", "/lm_head/keep/end", "/lm_head/keep/axes"],
                         [out], name="/lm_head/keep/Slice"),
    ]
    dropped = {"/lm_head/prune/Gather", "/lm_head/prune/Unsqueeze"}
    kept = [n for n in nodes if n.name not in dropped]
    used = {i for n in kept + new for i in n.input}
    kept = [n for n in kept if not (n.op_type == "Constant" and n.output[0] not in used)]
    gi = next(i for i, n in enumerate(kept) if out in n.input)
    del g.node[:]
    g.node.extend(kept[:gi] + new + kept[gi:])
    g.input.append(helper.make_tensor_value_info("num_logits_to_keep", TensorProto.INT64, [1]))
    for o in g.output:
        if o.name == "logits":
            d = o.type.tensor_type.shape.dim[1]
            d.ClearField("dim_value")
            d.dim_param = "num_logits"
    onnx.save(m, str(model_path))


def attach_adapter(variant: Path, adapter: Path) -> None:
    """Tandem's adapter (models/adapters/NAME) as side branches of the variant's graph."""
    import json

    import onnx
    from onnx import TensorProto

    from side_adapter import add_side_adapter, branches  # this folder: the script's own sys.path entry

    cfg = json.loads((variant / "genai_config.json").read_text())["model"]["decoder"]
    m = onnx.load(str(variant / "model.onnx"), load_external_data=False)
    kv = next(i for i in m.graph.input if i.name.startswith("past_key_values."))
    add_side_adapter(m, branches(adapter, cfg["head_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]),
                     kv.type.tensor_type.elem_type if kv.type.tensor_type.elem_type == TensorProto.FLOAT16
                     else TensorProto.FLOAT)
    onnx.save(m, str(variant / "model.onnx"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("gguf", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--precision", action="append", required=True, choices=["int8", "int4", "fp32", "fp16"])
    ap.add_argument("--adapter", type=Path, help="LoRA adapter folder to attach (models/adapters/NAME)")
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    os.environ.setdefault("TQDM_DISABLE", "1")
    with tempfile.TemporaryDirectory(dir=args.out.parent, prefix=".hf-") as tmp:
        hf_dir = Path(tmp) / "hf"
        print("stage: dequantise", flush=True)
        dequantise(args.gguf, hf_dir)
        for p in args.precision:
            print(f"stage: build {p}", flush=True)
            dest = args.out / p
            run_builder(hf_dir, dest, p, Path(tmp) / "cache")
            keep_logits_input(dest / "model.onnx")
            if args.adapter is not None:
                attach_adapter(dest, args.adapter)
            for extra in ("chat_template.jinja", "tokenizer_config.json"):
                (dest / extra).unlink(missing_ok=True)
            if not (dest / "tokenizer.json").exists():
                shutil.copy(hf_dir / "tokenizer.json", dest / "tokenizer.json")
    print("stage: done", flush=True)


if __name__ == "__main__":
    main()
