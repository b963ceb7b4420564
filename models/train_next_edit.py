"""LoRA post-training of the next-edit model (issue 18, step 2). Runs inside the isolated build
environment (~/.cache/tandem/buildenv: torch, transformers, peft); the server never imports it.

    ~/.cache/tandem/buildenv/bin/python models/train_next_edit.py \\
        --train DATA/train.jsonl --valid DATA/valid.jsonl --out .train/RUN [--resume]

- Base weights: the verified GGUF that `tandem models install` keeps in
  ~/.cache/tandem/models/qwen2.5-coder-0.5b/source.gguf, dequantised to fp32 by transformers
  exactly as build_onnx.py does (or a saved HF directory, --base DIR). Nothing comes from a hub.
- LoRA (peft) on q/v/o/down_proj, AdamW, one example (or --batch) per step; bf16 autocast on
  CUDA and on CPUs where it is faster, fp32 on CPUs that would emulate it (--autocast).
- Loss only on the target tokens, and the 151,936-wide LM head only at their positions: the
  hidden states are sliced before the head, which saves about a quarter of the compute.
- A checkpoint every few minutes (and on SIGINT/SIGTERM); --resume continues bit-exactly: the
  example order is a function of (seed, epoch), and adapter, optimizer and RNG are restored.
- DIR/train_log.json: loss per step, validation loss and exact match, runs and their wall time.
- DIR/adapter/: the final adapter in fp16 safetensors, peft's adapter_config.json, SHA256SUMS.

The ONNX build attaches the adapter as side branches switched per call (build_onnx.py --adapter,
side_adapter.py), so inline completion keeps the base weights exactly; merge_adapter below bakes
it into a torch state dict instead (the trainer's own check that a saved adapter is the trained one).
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

try:
    import torch
    import torch.nn.functional as F
except ModuleNotFoundError:  # the server's venv: only the pure data functions below are usable there
    torch = F = None

MODEL_NAME = "qwen2.5-coder-0.5b"
FENCE = "```"
IGNORE = -100
# build_prompt (lsp_server/next_edit/model.py, FORMAT_VERSION 2) ends the user turn with the fenced region
REGION = re.compile(r"to rewrite:\n```\n(.*)\n```<\|im_end\|>", re.S)
PEFT_PREFIX = "base_model.model."
ADAPTER_FILE = "adapter_model.safetensors"
# a resumed run must train the same thing; these may change between runs
RESUMABLE_CHANGES = {"epochs", "max_steps", "eval_every", "eval_examples", "max_new_tokens", "checkpoint_minutes",
                     "device", "autocast"}

# text -> (token ids, character span of each token)
Encoder = Callable[[str], tuple[list[int], list[tuple[int, int]]]]


@dataclass(frozen=True)
class LoraSpec:
    rank: int = 16
    alpha: int = 32
    dropout: float = 0.05
    targets: tuple[str, ...] = ("q_proj", "v_proj", "o_proj", "down_proj")
    layers_from: int = 0       # adapt layers K.. only: backward then stops at layer K


@dataclass(frozen=True)
class TrainConfig:
    lora: LoraSpec = field(default_factory=LoraSpec)
    lr: float = 2e-4
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    seed: int = 1234
    batch: int = 1
    max_tokens: int = 512      # longer examples are dropped (and counted), never cut
    changed_weight: float = 1.0
    epochs: int = 1
    max_steps: int = 0         # 0: as many as the epochs give
    eval_every: int = 100      # 0: no evaluation
    eval_examples: int = 40
    max_new_tokens: int = 256
    checkpoint_minutes: float = 5.0
    device: str = "cpu"
    autocast: str = "auto"     # "bf16", "fp32", or "auto": bf16 on CUDA, on a CPU whichever is faster


@dataclass(frozen=True)
class Example:
    id: str
    kind: str
    ids: list[int]             # prompt + target tokens
    labels: list[int]          # IGNORE on the prompt, the token itself on the target
    changed: list[bool]        # per position: a target token on a line the edit changes
    prompt_len: int
    target: str
    region: str | None         # the region as the prompt shows it (None: prompt not recognised)


@dataclass(frozen=True)
class Codec:
    """What training needs of the tokenizer besides encoding."""
    decode: Callable[[list[int]], str]
    pad_id: int
    stop_ids: frozenset[int]


# ---------------------------------------------------------------- data (pure, no torch)

def prompt_region(prompt: str) -> str | None:
    m = REGION.search(prompt)
    return m.group(1) if m else None


def changed_spans(region: str, target: str) -> list[tuple[int, int]]:
    """Character spans of `target` on the lines that differ from the region: where the edit is
    written, as opposed to the lines the model only copies. A deletion marks the line after it,
    since writing that line instead of the deleted ones is the decision there."""
    end = target.rfind("\n" + FENCE)
    body = target[:end] if end >= 0 else target
    old, new = region.split("\n"), body.split("\n")
    starts = [0]
    for line in new:
        starts.append(starts[-1] + len(line) + 1)
    marked: set[int] = set()
    for op, _, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op in ("replace", "insert"):
            marked.update(range(j1, j2))
        elif op == "delete":
            marked.add(j1)
    spans = []
    for j in sorted(marked):
        lo = starts[j]
        spans.append((lo, starts[j + 1] if j < len(new) else len(target)))
    return spans


def encode_example(encode: Encoder, row: Mapping, max_tokens: int) -> Example | None:
    """Prompt and target are tokenised apart, as at inference (the engine encodes the prompt and
    the model writes the target); None when the example is longer than max_tokens."""
    prompt_ids, _ = encode(row["prompt"])
    target_ids, offsets = encode(row["target"])
    if len(prompt_ids) + len(target_ids) > max_tokens:
        return None
    region = prompt_region(row["prompt"])
    spans = changed_spans(region, row["target"]) if region is not None else []
    changed = [any(a < hi and lo < b for lo, hi in spans) for a, b in offsets]
    return Example(id=str(row.get("id", "")), kind=row.get("kind", ""), ids=prompt_ids + target_ids,
                   labels=[IGNORE] * len(prompt_ids) + target_ids, changed=[False] * len(prompt_ids) + changed,
                   prompt_len=len(prompt_ids), target=row["target"], region=region)


def target_positions(labels: Sequence[int]) -> list[tuple[int, int]]:
    """(position, token): the hidden state at `position` predicts `token`, the label one to its
    right. Only these rows go through the LM head."""
    return [(p - 1, t) for p, t in enumerate(labels) if t != IGNORE]


def loss_weights(ex: Example, changed_weight: float) -> list[float]:
    """Per target token, in target_positions order."""
    return [changed_weight if ex.changed[p + 1] else 1.0 for p, _ in target_positions(ex.labels)]


def answer_text(text: str) -> str:
    """What an answer says: up to the closing fence, surrounding blank space ignored."""
    return text.split(FENCE)[0].strip()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_split(path: Path, encode: Encoder, max_tokens: int) -> tuple[list[Example], dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    examples = [e for e in (encode_example(encode, r, max_tokens) for r in rows) if e is not None]
    stats = {"path": str(path), "sha256": sha256_file(path), "rows": len(rows), "examples": len(examples),
             "dropped_too_long": len(rows) - len(examples),
             "no_region_in_prompt": sum(e.region is None for e in examples),
             "kinds": dict(Counter(e.kind for e in examples)),
             "format_versions": sorted({r.get("format_version") for r in rows}, key=str),
             "tokens": sum(len(e.ids) for e in examples)}
    return examples, stats


def steps_per_epoch(n: int, batch: int) -> int:
    return math.ceil(n / batch)


def total_steps(n: int, cfg: TrainConfig) -> int:
    total = cfg.epochs * steps_per_epoch(n, cfg.batch)
    return min(total, cfg.max_steps) if cfg.max_steps else total


def batch_indices(step: int, n: int, cfg: TrainConfig) -> list[int]:
    """The examples of a 0-based step. The order depends on (seed, epoch) only, so a resumed
    run picks up the same batches without storing the order."""
    spe = steps_per_epoch(n, cfg.batch)
    epoch, i = divmod(step, spe)
    order = list(range(n))
    random.Random(cfg.seed * 1_000_003 + epoch).shuffle(order)
    return order[i * cfg.batch:(i + 1) * cfg.batch]


def eval_sample(valid: list[Example], cfg: TrainConfig) -> list[Example]:
    """A fixed, seeded sample: the same examples at every evaluation and across resumes."""
    return random.Random(cfg.seed).sample(valid, min(cfg.eval_examples, len(valid)))


def write_json(path: Path, obj) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    tmp.replace(path)


# ---------------------------------------------------------------- model (torch)

@dataclass
class Batch:
    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    rows: torch.Tensor       # (N,) batch row of each target token
    cols: torch.Tensor       # (N,) position whose hidden state predicts it
    targets: torch.Tensor    # (N,)
    weights: torch.Tensor    # (N,) loss weight
    changed: torch.Tensor    # (N,) bool


def collate(examples: Sequence[Example], pad_id: int, changed_weight: float, device: str) -> Batch:
    width = max(len(e.ids) for e in examples)
    ids = [e.ids + [pad_id] * (width - len(e.ids)) for e in examples]
    mask = [[1] * len(e.ids) + [0] * (width - len(e.ids)) for e in examples]
    # one entry per target token of the batch: (row, position, token, weight, changed)
    flat = [(r, p, t, w, e.changed[p + 1])
            for r, e in enumerate(examples)
            for (p, t), w in zip(target_positions(e.labels), loss_weights(e, changed_weight))]
    rows, cols, targets, weights, changed = zip(*flat)

    def tensor(x, dtype):
        return torch.tensor(x, dtype=dtype, device=device)

    return Batch(tensor(ids, torch.long), tensor(mask, torch.long), tensor(rows, torch.long), tensor(cols, torch.long),
                 tensor(targets, torch.long), tensor(weights, torch.float32), tensor(changed, torch.bool))


def autocast(cfg: TrainConfig):
    return torch.autocast(device_type=torch.device(cfg.device).type, dtype=torch.bfloat16,
                          enabled=cfg.autocast == "bf16")


def matmul_seconds(rows: int, d_in: int, d_out: int) -> dict[str, float]:
    """One MLP-sized matmul in fp32 and in bf16, best of three."""
    x, w = torch.randn(rows, d_in), torch.randn(d_out, d_in)
    times = {}
    for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        a, b = x.to(dtype), w.to(dtype)
        F.linear(a, b)
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            F.linear(a, b)
            runs.append(time.perf_counter() - t0)
        times[name] = round(min(runs), 4)
    return times


def resolve_autocast(cfg: TrainConfig, model_config) -> tuple[TrainConfig, dict]:
    """bf16 autocast makes a step 2-3x faster than fp32 on CPUs with bf16 instructions, but on an
    AVX2-only CPU (no bf16 instructions) torch emulates it: a 413-token step took 477 s instead
    of 10.7 s. So "auto" times both on this CPU."""
    if cfg.autocast != "auto":
        return cfg, {"chosen": cfg.autocast, "by": "--autocast"}
    if torch.device(cfg.device).type == "cuda":
        return replace(cfg, autocast="bf16"), {"chosen": "bf16", "by": "cuda"}
    times = matmul_seconds(256, model_config.hidden_size, model_config.intermediate_size)
    chosen = "bf16" if times["bf16"] < times["fp32"] else "fp32"
    return replace(cfg, autocast=chosen), {"chosen": chosen, "by": "timed", "matmul_seconds": times}


def target_ce(lm, b: Batch) -> torch.Tensor:
    """Cross-entropy of every target token; the head sees only the target rows."""
    hidden = lm.model(input_ids=b.input_ids, attention_mask=b.attention_mask).last_hidden_state
    logits = lm.lm_head(hidden[b.rows, b.cols])
    return F.cross_entropy(logits.float(), b.targets, reduction="none")


def load_base(base: Path):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils.logging import disable_progress_bar

    disable_progress_bar()
    src, kw = (str(base.parent), {"gguf_file": base.name}) if base.is_file() else (str(base), {})
    tok = AutoTokenizer.from_pretrained(src, **kw)
    model = AutoModelForCausalLM.from_pretrained(src, dtype=torch.float32, **kw)
    # As in build_onnx.dequantise: a GGUF-loaded model is marked quantised although its weights are
    # dequantised fp32; peft would then take the quantised-model route.
    model.hf_quantizer = None
    model.is_quantized = False
    if hasattr(model.config, "quantization_config"):
        delattr(model.config, "quantization_config")
    return model, tok


def hf_codec(tok) -> tuple[Encoder, Codec]:
    def encode(text: str):
        enc = tok(text, add_special_tokens=False, return_offsets_mapping=True)
        return list(enc["input_ids"]), [tuple(o) for o in enc["offset_mapping"]]

    stops = frozenset(i for i in (tok.eos_token_id, tok.pad_token_id) if i is not None)
    return encode, Codec(lambda ids: tok.decode(ids, skip_special_tokens=True), tok.pad_token_id, stops)


def add_lora(model, spec: LoraSpec, base_name: str):
    from peft import LoraConfig, get_peft_model

    n = model.config.num_hidden_layers
    layers = list(range(spec.layers_from, n)) if spec.layers_from else None
    cfg = LoraConfig(r=spec.rank, lora_alpha=spec.alpha, lora_dropout=spec.dropout, target_modules=list(spec.targets),
                     layers_to_transform=layers, bias="none", task_type="CAUSAL_LM")
    peft_model = get_peft_model(model, cfg)
    peft_model.peft_config["default"].base_model_name_or_path = base_name
    return peft_model


def adapter_tensors(model) -> dict[str, torch.Tensor]:
    from peft import get_peft_model_state_dict

    # embeddings are never adapted; "auto" would ask the hub whether the vocabulary changed
    state = get_peft_model_state_dict(model, save_embedding_layers=False)
    return {k: v.detach().to("cpu").contiguous() for k, v in state.items()}


def lookup_draft(seq: list[int], k: int) -> list[int]:
    """Prompt-lookup draft: the k tokens that followed the latest earlier occurrence of the last
    3 (else 2, else 1) tokens. The answer mostly copies the region, which the prompt holds."""
    for n in (3, 2, 1):
        if len(seq) <= n:
            continue
        tail = seq[-n:]
        for j in range(len(seq) - n - 1, -1, -1):
            if seq[j:j + n] == tail:
                return seq[j + n:j + n + k]
    return []


def greedy(lm, prompt: list[int], max_new: int, codec: Codec, cfg: TrainConfig, draft_len: int = 16) -> str:
    """Greedy decoding with the KV cache until the closing fence, a stop token or max_new. Each
    pass verifies a drafted stretch (lookup_draft) and keeps its longest agreeing prefix, so the
    tokens are plain greedy's and a copied stretch costs one pass instead of one per token."""
    out: list[int] = []
    feed, draft, cache = prompt, [], None
    while True:
        with torch.no_grad(), autocast(cfg):
            res = lm(input_ids=torch.tensor([feed], device=cfg.device), cache=cache, use_cache=True,
                     logits_to_keep=len(draft) + 1)
        cache, preds = res.cache, res.logits[0].argmax(-1).tolist()  # preds[i]: the token after feed[:i + 1]
        accepted = 0
        while accepted < len(draft) and draft[accepted] == preds[accepted]:
            accepted += 1
        for t in draft[:accepted] + [preds[accepted]]:
            if t in codec.stop_ids or len(out) >= max_new:
                return codec.decode(out)
            out.append(t)
            if FENCE in codec.decode(out):
                return codec.decode(out)
        # the cache holds every token fed; drop the rejected draft (crop takes minus a count)
        cache.crop(len(prompt) + len(out) - 1 - cache.get_seq_length())
        draft = lookup_draft(prompt + out, draft_len)
        feed = [out[-1]] + draft


def evaluate(lm, examples: list[Example], cfg: TrainConfig, codec: Codec) -> dict:
    """Validation loss (plain, and on the changed lines' tokens) and greedy exact match."""
    was_training = lm.training
    lm.eval()
    t0 = time.perf_counter()
    ce_sum = ce_n = ch_sum = ch_n = 0.0
    by_kind: dict[str, Counter] = {}
    for e in examples:
        b = collate([e], codec.pad_id, 1.0, cfg.device)
        with torch.no_grad(), autocast(cfg):
            ce = target_ce(lm, b)
        ce_sum, ce_n = ce_sum + float(ce.sum()), ce_n + ce.numel()
        ch_sum, ch_n = ch_sum + float(ce[b.changed].sum()), ch_n + int(b.changed.sum())
        # an answer longer than the target by this much cannot match it
        budget = min(cfg.max_new_tokens, len(e.ids) - e.prompt_len + 16)
        got = answer_text(greedy(lm, e.ids[:e.prompt_len], budget, codec, cfg))
        c = by_kind.setdefault(e.kind, Counter())
        c["n"] += 1
        c["exact"] += got == answer_text(e.target)
        c["unchanged"] += e.region is not None and got == e.region.strip()
    lm.train(was_training)
    n = sum(c["n"] for c in by_kind.values())
    return {"valid_loss": ce_sum / max(ce_n, 1), "valid_loss_changed": ch_sum / ch_n if ch_n else None,
            "exact_match": sum(c["exact"] for c in by_kind.values()) / max(n, 1), "n": n,
            "by_kind": {k: dict(c) for k, c in sorted(by_kind.items())}, "seconds": round(time.perf_counter() - t0, 1)}


def train_step(lm, opt, params, examples: Sequence[Example], cfg: TrainConfig, pad_id: int) -> dict:
    b = collate(examples, pad_id, cfg.changed_weight, cfg.device)
    with autocast(cfg):
        ce = target_ce(lm, b)
    loss = (ce * b.weights).sum() / b.weights.sum()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    if cfg.max_grad_norm:
        torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
    opt.step()
    return {"loss": round(loss.item(), 5), "tokens": int(b.attention_mask.sum()), "target_tokens": len(b.targets)}


# ---------------------------------------------------------------- adapter files and merging

def save_adapter(model, dest: Path) -> dict[str, str]:
    """fp16 safetensors + peft's adapter_config.json (loadable by PeftModel.from_pretrained too)."""
    from safetensors.torch import save_file

    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_file({k: v.half() for k, v in adapter_tensors(model).items()}, str(tmp / ADAPTER_FILE))
    model.peft_config["default"].save_pretrained(str(tmp))
    sums = {name: sha256_file(tmp / name) for name in (ADAPTER_FILE, "adapter_config.json")}
    (tmp / "SHA256SUMS").write_text("".join(f"{h}  {n}\n" for n, h in sums.items()))
    shutil.rmtree(dest, ignore_errors=True)
    tmp.replace(dest)
    return sums


def merge_lora(base_state: Mapping[str, torch.Tensor], lora: Mapping[str, torch.Tensor],
               scale: float) -> dict[str, torch.Tensor]:
    """W + (B @ A) * scale for every adapted module; the inputs are not modified. peft's keys
    ("base_model.model.<module>.lora_A.weight") name the module of the base state dict."""
    merged = dict(base_state)
    for key_a in sorted(k for k in lora if k.endswith(".lora_A.weight")):
        module = key_a[len(PEFT_PREFIX):-len(".lora_A.weight")]
        target = module + ".weight"
        if target not in base_state:
            raise ValueError(f"the adapter changes {module}, which the base weights do not have")
        w = base_state[target]
        delta = lora[key_a.replace(".lora_A.", ".lora_B.")].float() @ lora[key_a].float()
        merged[target] = (w.float() + delta.to(w.device) * scale).to(w.dtype)
    return merged


def merge_adapter(base_state: Mapping[str, torch.Tensor], adapter_dir: Path) -> dict[str, torch.Tensor]:
    """The base state dict with a saved adapter (save_adapter's folder) baked in."""
    from safetensors.torch import load_file

    cfg = json.loads((Path(adapter_dir) / "adapter_config.json").read_text())
    if cfg.get("use_rslora") or cfg.get("use_dora") or cfg.get("rank_pattern") or cfg.get("alpha_pattern"):
        raise ValueError("only plain LoRA (one rank and alpha, no rsLoRA/DoRA) is merged here")
    return merge_lora(base_state, load_file(str(Path(adapter_dir) / ADAPTER_FILE)), cfg["lora_alpha"] / cfg["r"])


# ---------------------------------------------------------------- checkpoints

def rng_state() -> dict:
    state = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(out: Path, model, opt, step: int, cfg: TrainConfig, data_sha: str) -> None:
    """The adapter stays fp32 here (resuming must be exact); written aside, then swapped in, so
    a stop while saving leaves the previous checkpoint whole."""
    from safetensors.torch import save_file

    tmp, dest, old = out / "checkpoint.tmp", out / "checkpoint", out / "checkpoint.old"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_file(adapter_tensors(model), str(tmp / ADAPTER_FILE))
    torch.save({"step": step, "optimizer": opt.state_dict(), "rng": rng_state(), "config": asdict(cfg),
                "data_sha256": data_sha}, tmp / "state.pt")
    if dest.exists():
        shutil.rmtree(old, ignore_errors=True)
        dest.replace(old)
    tmp.replace(dest)
    shutil.rmtree(old, ignore_errors=True)


def load_adapter_weights(model, folder: Path, device: str = "cpu") -> list[str]:
    """A saved adapter's (or a checkpoint's) LoRA weights into the peft model, in fp32; returns
    the keys it has that the model's LoRA configuration lacks."""
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    saved = {k: v.float() for k, v in load_file(str(Path(folder) / ADAPTER_FILE), device=device).items()}
    return set_peft_model_state_dict(model, saved).unexpected_keys


def load_checkpoint(out: Path, model, opt, cfg: TrainConfig, data_sha: str) -> int:
    ckpt = out / "checkpoint"
    # on the CPU: RNG states must be CPU tensors; the optimizer moves its state to the parameters
    state = torch.load(ckpt / "state.pt", map_location="cpu", weights_only=True)
    now, then = asdict(cfg), state["config"]
    differ = [k for k in now if k not in RESUMABLE_CHANGES and now[k] != then.get(k)]
    if state["data_sha256"] != data_sha:
        differ.append("training data")
    if differ:
        raise SystemExit(f"--resume: the checkpoint was trained with other {', '.join(differ)}; use a new --out")
    if (unexpected := load_adapter_weights(model, ckpt, cfg.device)):
        raise SystemExit(f"--resume: checkpoint adapter does not fit the model: {unexpected[:3]}")
    opt.load_state_dict(state["optimizer"])
    set_rng_state(state["rng"])
    return state["step"]


# ---------------------------------------------------------------- the loop

def peak_memory_mb(device: str) -> float:
    if torch.device(device).type == "cuda":
        return round(torch.cuda.max_memory_allocated() / 2**20, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux: KiB


def start_log(out: Path, meta: dict, step: int) -> dict:
    """A new log, or on resume the previous one cut back to the checkpoint's step."""
    path = out / "train_log.json"
    log = json.loads(path.read_text()) if step and path.exists() else {"steps": [], "evals": [], "runs": []}
    log["steps"] = [s for s in log["steps"] if s["step"] <= step]
    log["evals"] = [e for e in log["evals"] if e["step"] <= step]
    log.update({k: v for k, v in meta.items() if k != "run"})
    log["runs"].append({**meta.get("run", {}), "resumed_from_step": step, "wall_seconds": 0.0})
    log["finished"] = False
    return log


def train(model, train_set: list[Example], valid_set: list[Example], cfg: TrainConfig, codec: Codec, out: Path,
          meta: dict, resume: bool = False, stop: threading.Event | None = None, start_step: int = 0) -> dict:
    """Train `model` (a peft model) from `start_step` (the examples of the steps before it are
    skipped: see --init-adapter) or from out/checkpoint; returns the log."""
    out.mkdir(parents=True, exist_ok=True)
    lm = model.get_base_model()  # the LoRA layers are inside it; its .model and .lm_head are used apart
    cfg, autocast_choice = resolve_autocast(cfg, lm.config)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    data_sha = meta.get("data", {}).get("train", {}).get("sha256", "")
    step = load_checkpoint(out, model, opt, cfg, data_sha) if resume else start_step
    log = start_log(out, meta, step)
    log["config"], log["autocast"] = asdict(cfg), autocast_choice
    evalset, total = eval_sample(valid_set, cfg), total_steps(len(train_set), cfg)
    run, started = log["runs"][-1], time.monotonic()
    last_ckpt = started

    def flush() -> None:
        run["wall_seconds"] = round(time.monotonic() - started, 1)
        log["wall_seconds"] = round(sum(r["wall_seconds"] for r in log["runs"]), 1)
        log["peak_memory_mb"] = max(log.get("peak_memory_mb", 0), peak_memory_mb(cfg.device))
        write_json(out / "train_log.json", log)

    model.train()
    while step < total and not (stop and stop.is_set()):
        t0 = time.perf_counter()
        batch = [train_set[i] for i in batch_indices(step, len(train_set), cfg)]
        rec = train_step(lm, opt, params, batch, cfg, codec.pad_id)
        step += 1
        log["steps"].append({"step": step, **rec, "seconds": round(time.perf_counter() - t0, 3)})
        if evalset and cfg.eval_every and (step % cfg.eval_every == 0 or step == total):
            log["evals"].append({"step": step, **evaluate(lm, evalset, cfg, codec)})
        if time.monotonic() - last_ckpt >= cfg.checkpoint_minutes * 60:
            save_checkpoint(out, model, opt, step, cfg, data_sha)
            last_ckpt = time.monotonic()
        flush()
    save_checkpoint(out, model, opt, step, cfg, data_sha)
    if step >= total:
        log["adapter"] = {"path": str(out / "adapter"), "sha256": save_adapter(model, out / "adapter")}
        log["finished"] = True
    log["final_step"] = step
    flush()
    return log


# ---------------------------------------------------------------- command line

def default_base() -> Path:
    # the same place as lsp_server/model_store/paths.py (TANDEM_HOME, else ~/.cache/tandem)
    home = Path(os.environ.get("TANDEM_HOME", "~/.cache/tandem")).expanduser()
    return home / "models" / MODEL_NAME / "source.gguf"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    d, dl = TrainConfig(), LoraSpec()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=Path, required=True, help="train.jsonl")
    ap.add_argument("--valid", type=Path, help="valid.jsonl (validation loss and exact match)")
    ap.add_argument("--out", type=Path, required=True, help="run folder: checkpoint/, adapter/, train_log.json")
    ap.add_argument("--base", type=Path, default=default_base(), help="GGUF file or HF folder (default: %(default)s)")
    ap.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint")
    ap.add_argument("--init-adapter", type=Path, help="start from a saved adapter (its folder) instead of a fresh "
                    "LoRA: to go on training a committed adapter whose checkpoint is gone (the optimizer starts anew)")
    ap.add_argument("--start-step", type=int, default=0, help="with --init-adapter: the step it was saved at, so "
                    "training goes on with the examples that run had not reached")
    ap.add_argument("--rank", type=int, default=dl.rank)
    ap.add_argument("--alpha", type=int, default=dl.alpha)
    ap.add_argument("--dropout", type=float, default=dl.dropout)
    ap.add_argument("--targets", default=",".join(dl.targets), help="comma-separated module names")
    ap.add_argument("--layers-from", type=int, default=dl.layers_from, help="LoRA on layers K.. only")
    ap.add_argument("--lr", type=float, default=d.lr)
    ap.add_argument("--weight-decay", type=float, default=d.weight_decay)
    ap.add_argument("--max-grad-norm", type=float, default=d.max_grad_norm, help="0: no clipping")
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--batch", type=int, default=d.batch)
    ap.add_argument("--max-tokens", type=int, default=d.max_tokens)
    ap.add_argument("--changed-weight", type=float, default=d.changed_weight,
                    help="loss weight of target tokens on changed lines (1: off)")
    ap.add_argument("--epochs", type=int, default=d.epochs)
    ap.add_argument("--max-steps", type=int, default=d.max_steps, help="0: no cap")
    ap.add_argument("--eval-every", type=int, default=d.eval_every, help="steps; 0: off")
    ap.add_argument("--eval-examples", type=int, default=d.eval_examples)
    ap.add_argument("--max-new-tokens", type=int, default=d.max_new_tokens)
    ap.add_argument("--checkpoint-minutes", type=float, default=d.checkpoint_minutes)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--device", default=d.device, choices=["cpu", "cuda"])
    ap.add_argument("--autocast", default=d.autocast, choices=["auto", "bf16", "fp32"],
                    help="auto: bf16 on CUDA; on a CPU whichever of the two a timed matmul finds faster")
    return ap.parse_args(argv)


def config_from(args: argparse.Namespace) -> TrainConfig:
    lora = LoraSpec(rank=args.rank, alpha=args.alpha, dropout=args.dropout, layers_from=args.layers_from,
                    targets=tuple(t for t in args.targets.split(",") if t))
    return TrainConfig(lora=lora, lr=args.lr, weight_decay=args.weight_decay, max_grad_norm=args.max_grad_norm,
                       seed=args.seed, batch=args.batch, max_tokens=args.max_tokens, changed_weight=args.changed_weight,
                       epochs=args.epochs, max_steps=args.max_steps, eval_every=args.eval_every,
                       eval_examples=args.eval_examples, max_new_tokens=args.max_new_tokens,
                       checkpoint_minutes=args.checkpoint_minutes, device=args.device, autocast=args.autocast)


def stop_on_signals() -> threading.Event:
    """Ctrl-C or SIGTERM: finish the step, checkpoint, exit. A second one stops at once."""
    stop = threading.Event()

    def handler(sig, _frame):
        stop.set()
        signal.signal(sig, signal.SIG_DFL if sig == signal.SIGTERM else signal.default_int_handler)
        print("stopping after this step (checkpoint follows)", file=sys.stderr, flush=True)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)
    return stop


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # base weights come from the verified local file only
    cfg = config_from(args)
    torch.set_num_threads(args.threads)
    t0 = time.monotonic()
    model, tok = load_base(args.base)
    encode, codec = hf_codec(tok)
    train_set, train_stats = load_split(args.train, encode, cfg.max_tokens)
    valid_set, valid_stats = load_split(args.valid, encode, cfg.max_tokens) if args.valid else ([], None)
    if not train_set:
        raise SystemExit(f"{args.train}: no example fits in {cfg.max_tokens} tokens")
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)  # the LoRA init, then dropout
    base_name = MODEL_NAME if args.base == default_base() else str(args.base)
    model = add_lora(model, cfg.lora, base_name).to(cfg.device)
    if args.init_adapter is not None and load_adapter_weights(model, args.init_adapter, cfg.device):
        raise SystemExit(f"--init-adapter: {args.init_adapter} does not fit this LoRA configuration")
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    meta = {"command": " ".join([sys.executable, *sys.argv]), "seed": cfg.seed, "config": asdict(cfg),
            "base": {"path": str(args.base), "name": base_name,
                     "sha256": sha256_file(args.base) if args.base.is_file() else None},
            "data": {"train": train_stats, "valid": valid_stats}, "trainable_parameters": trainable,
            "init_adapter": ({"path": str(args.init_adapter), "start_step": args.start_step,
                              "sha256": sha256_file(args.init_adapter / ADAPTER_FILE)} if args.init_adapter else None),
            "versions": {"torch": torch.__version__, "threads": torch.get_num_threads()},
            "run": {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": " ".join(sys.argv),
                    "load_seconds": round(time.monotonic() - t0, 1)}}
    print(f"train: {train_stats['examples']} examples ({train_stats['dropped_too_long']} over {cfg.max_tokens} "
          f"tokens dropped); {trainable:,} trainable parameters; {total_steps(len(train_set), cfg)} steps",
          file=sys.stderr, flush=True)
    log = train(model, train_set, valid_set, cfg, codec, args.out, meta, args.resume, stop_on_signals(),
                args.start_step if args.init_adapter is not None else 0)
    last = log["evals"][-1] if log["evals"] else {}
    print(json.dumps({"step": log["final_step"], "finished": log["finished"], "wall_seconds": log["wall_seconds"],
                      "last_loss": log["steps"][-1]["loss"] if log["steps"] else None,
                      "exact_match": last.get("exact_match"), "adapter": log.get("adapter")}, indent=1))
    if not log["finished"]:
        print(f"stopped at step {log['final_step']}: continue with --resume", file=sys.stderr)


if __name__ == "__main__":
    main()
