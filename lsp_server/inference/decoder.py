"""One ONNX Runtime session over a decoder-only model built by models/build_onnx.py.

Graph contract (onnxruntime-genai builder + our `num_logits_to_keep` edit):
  inputs   input_ids [1, S] int64, attention_mask [1, P+S] int64, num_logits_to_keep [1] int64,
           past_key_values.{i}.key / .value [1, kv_heads, P, head_dim] float32,
           adapter_scale [1] float32 (only in graphs built with Tandem's adapter: models/side_adapter.py)
  outputs  logits [1, K, vocab] (the last K positions), present.{i}.key / .value [1, kv_heads, P+S, head_dim]
GroupQueryAttention derives positions from the attention mask, so a chunk of S > 1 new tokens on
top of a non-empty past (prefix reuse, draft verification) is computed exactly like S single steps.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort

KV = tuple[np.ndarray, ...]


class Decoder:
    def __init__(self, model_dir: Path, threads: int = 0, providers: list[str] | None = None) -> None:
        opts = ort.SessionOptions()
        # Explicit threads: ORT's default spins one thread per core plus inter-op threads; on a
        # 2-core laptop budget the editor also needs CPU, so the count is a setting (0 = all cores).
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(model_dir / "model.onnx"), opts,
                                            providers=providers or ["CPUExecutionProvider"])
        self.past_names = [i.name for i in self.session.get_inputs() if i.name.startswith("past_key_values.")]
        self.output_names = ["logits"] + [n.replace("past_key_values.", "present.") for n in self.past_names]
        cfg = json.loads((model_dir / "genai_config.json").read_text())["model"]["decoder"]
        self.kv_heads = int(cfg["num_key_value_heads"])
        self.head_dim = int(cfg["head_size"])
        self.num_layers = int(cfg["num_hidden_layers"])
        self.vocab_size = int(self.session.get_outputs()[0].shape[-1])
        self.providers = self.session.get_providers()
        # Tandem's next-edit adapter as side branches: 0 runs the base model exactly, 1 the adapted one
        self.has_adapter = any(i.name == "adapter_scale" for i in self.session.get_inputs())
        # the KV cache has the graph's float type (float32 for int8/int4 CPU builds, float16 for fp16)
        past_type = next((i.type for i in self.session.get_inputs() if i.name.startswith("past_key_values.")), "")
        self.kv_dtype = np.float16 if "float16" in past_type else np.float32

    def empty_past(self) -> KV:
        z = np.zeros((1, self.kv_heads, 0, self.head_dim), self.kv_dtype)
        return tuple(z for _ in self.past_names)

    @staticmethod
    def past_len(past: KV) -> int:
        return past[0].shape[2]

    @staticmethod
    def truncate(past: KV, n: int) -> KV:
        if past[0].shape[2] == n:
            return past
        return tuple(np.ascontiguousarray(a[:, :, :n, :]) for a in past)

    def forward(self, ids: list[int], past: KV, keep: int = 1, adapter: bool = False) -> tuple[np.ndarray, KV]:
        """Run `ids` on top of `past`; return logits of the last `keep` positions and the new past.
        adapter: with the next-edit adapter's branches on (a past computed with it on or off
        belongs to that setting only)."""
        if adapter and not self.has_adapter:
            raise ValueError("this model was built without the next-edit adapter")
        total = self.past_len(past) + len(ids)
        feed = {
            "input_ids": np.asarray([ids], dtype=np.int64),
            "attention_mask": np.ones((1, total), dtype=np.int64),
            "num_logits_to_keep": np.asarray([keep], dtype=np.int64),
        }
        if self.has_adapter:
            feed["adapter_scale"] = np.asarray([1.0 if adapter else 0.0], dtype=np.float32)
        feed.update(zip(self.past_names, past))
        outs = self.session.run(self.output_names, feed)
        return outs[0][0], tuple(outs[1:])
