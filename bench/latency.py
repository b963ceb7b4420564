"""Latency of the local completion engine, side by side: the shipped engine (prefix-KV reuse +
prompt-lookup speculation) and the same engine with both switched off, in one run.

Measures: a cold request on a ~1,024-token prompt; warm one-character-edit requests (the user
types the next character of real code; one line, <= 16 tokens); decode ms/token; peak RSS; and
decode time as a multiple of the weights-read lower bound (bytes of weights read per token /
measured memory bandwidth of this machine).

    python bench/latency.py [--precision int8|int4] [--edits 12] [--backend KIND[:URL]]

--backend adds the same cold request and one-character edits through a remote backend (KIND:URL,
or openai / llamacpp to start llama.cpp's server on the same GGUF), with the ratios to the local
engine, measured in the same run.

Prints one JSON object.
"""
from __future__ import annotations

import os
import sys

# bench/typing.py shadows the stdlib module for scripts run from this folder: drop the folder.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse
import json
import resource
import statistics
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lsp_server.completion import CompletionRequest, complete  # noqa: E402
from lsp_server.inference.engine import get_engine  # noqa: E402
from lsp_server.inference.generate import GenerationConfig, GenerationStats  # noqa: E402


def memory_bandwidth_gbs(mb: int = 512, reps: int = 5) -> float:
    """Read bandwidth: sum over a large array (one pass reads it all), best of `reps`."""
    a = np.ones(mb * (1 << 20) // 8, dtype=np.float64)
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        a.sum()
        best = min(best, time.perf_counter() - t)
    return a.nbytes / best / 1e9


def weights_read_per_token(model_dir: Path) -> int:
    """Bytes of initializers a decode step reads: everything except embedding tables, of which
    a Gather reads one row."""
    import onnx

    m = onnx.load(str(model_dir / "model.onnx"), load_external_data=False)
    sizes = {}
    for init in m.graph.initializer:
        ext = {e.key: e.value for e in init.external_data}
        sizes[init.name] = int(ext["length"]) if "length" in ext else len(init.raw_data)
    gathered = {n.input[0] for n in m.graph.node if n.op_type in ("Gather", "GatherBlockQuantized")}
    total = 0
    for name, size in sizes.items():
        if name in gathered:
            continue
        total += size
    return total


def source_text() -> tuple[str, int]:
    """A real module not written for this project, cut at a point with ~1,024 tokens before it."""
    import argparse as mod

    text = Path(mod.__file__).read_text()
    anchor = text.index("    def add_argument(self, *args, **kwargs):")
    return text, anchor + 2000


def cut_at_line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def run_edits(engine, text: str, start: int, edits: int, fast: bool) -> dict:
    """The user is writing the line that starts at `start`: the rest of that line is not there
    yet, and each edit types its next character (the file's real text) at the cursor."""
    lat, reused, prompt, accepted, drafted = [], [], [], [], []
    line_end = text.index("\n", start)
    engine.generator.reset()
    # the first request (cursor arrives on the line) is excluded: it is the "cold-ish" one
    complete(engine, CompletionRequest(prefix=text[:start], suffix=text[line_end:], max_tokens=16,
                                       reuse_prefix=fast, speculate=fast))
    for k in range(1, edits + 1):
        req = CompletionRequest(prefix=text[: start + k], suffix=text[line_end:], max_tokens=16,
                                reuse_prefix=fast, speculate=fast)
        res = complete(engine, req)
        lat.append(res.latency_ms)
        reused.append(res.stats.reused_tokens)
        prompt.append(res.stats.prompt_tokens)
        accepted.append(res.stats.accepted)
        drafted.append(res.stats.drafted)
    return {"median_ms": round(statistics.median(lat), 1), "p90_ms": round(sorted(lat)[int(0.9 * (len(lat) - 1))], 1),
            "max_ms": round(max(lat), 1), "mean_prompt_tokens": round(statistics.mean(prompt)),
            "mean_reused_tokens": round(statistics.mean(reused)),
            "draft_acceptance": round(sum(accepted) / max(sum(drafted), 1), 2)}


def decode_ms_per_token(engine, text: str, start: int, n: int = 48) -> float:
    tok = engine.tokenizer
    ids = tok.encode(text[max(0, start - 1500):start])
    cfg = GenerationConfig(max_new_tokens=n, stop_ids=frozenset(), reuse_prefix=False, speculate=False)
    engine.generator.reset()
    stats = GenerationStats()
    it = engine.generate(ids, cfg, stats=stats)
    next(it)  # prefill + first token
    t = time.perf_counter()
    count = sum(1 for _ in it)
    return (time.perf_counter() - t) * 1000 / max(count, 1)


def remote_section(arg: str, text: str, cold_start: int, start: int, edits: int, local: dict, cold: dict) -> dict:
    """The cold request and the one-character edits through a remote backend (the engine's own
    prompt cache plays the part of prefix reuse)."""
    from bench.engines import backend, counters
    from lsp_server.config import parse_backend
    from lsp_server.inference.remote import RemoteEngine
    from lsp_server.model_store.manifest import load_manifest

    with backend(arg) as spec:
        engine = RemoteEngine(parse_backend(spec), load_manifest().get(None))
        engine.check()
        line_end = text.index("\n", start)
        first = complete(engine, CompletionRequest(prefix=text[:cold_start], suffix=text[cold_start:], max_tokens=16))
        complete(engine, CompletionRequest(prefix=text[:start], suffix=text[line_end:], max_tokens=16))
        before = counters(engine.backend.url)
        lat = [complete(engine, CompletionRequest(prefix=text[: start + k], suffix=text[line_end:], max_tokens=16)).latency_ms
               for k in range(1, edits + 1)]
        after = counters(engine.backend.url)
        engine.close()
    per_request = {k: round((after[k] - before[k]) / edits, 1) for k in after if k in before}
    warm = {"median_ms": round(statistics.median(lat), 1), "p90_ms": round(sorted(lat)[int(0.9 * (len(lat) - 1))], 1),
            "max_ms": round(max(lat), 1)}
    return {"backend": parse_backend(spec).shown(), "cold_1024_prompt_ms": round(first.latency_ms, 1),
            "warm_one_char_edit": warm,
            # what one keystroke costs the engine (llama.cpp's /metrics; docs/deploy.md sizes a server by it)
            "engine_tokens_per_edit": per_request or None,
            "remote_over_local": {"cold": round(first.latency_ms / cold["latency_ms"], 2),
                                  "warm_median": round(warm["median_ms"] / max(local["median_ms"], 1e-6), 2),
                                  "warm_p90": round(warm["p90_ms"] / max(local["p90_ms"], 1e-6), 2)}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=None)
    ap.add_argument("--precision", default=None)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--edits", type=int, default=12)
    ap.add_argument("--backend", default=None, help="also measure this backend (KIND:URL, openai, llamacpp)")
    args = ap.parse_args()

    engine = get_engine(args.model, args.precision, args.threads)
    engine.warm_up()
    text, pos = source_text()
    tok = engine.tokenizer
    # cold: a ~1,024-token prefix, cursor at a line start, nothing cached
    cold_start = cut_at_line_start(text, pos)
    engine.generator.reset()
    res = complete(engine, CompletionRequest(prefix=text[:cold_start], suffix=text[cold_start:], max_tokens=16,
                                             reuse_prefix=False, speculate=False))
    cold = {"latency_ms": round(res.latency_ms, 1), "prompt_tokens": res.stats.prompt_tokens}

    # warm edits: cursor a few characters into a non-blank line
    line_start = cut_at_line_start(text, pos)
    first_char = line_start + (len(text[line_start:]) - len(text[line_start:].lstrip(" ")))
    fast = run_edits(engine, text, first_char + 2, args.edits, fast=True)
    plain = run_edits(engine, text, first_char + 2, args.edits, fast=False)

    # speculation on a line it can copy from: duplicate an earlier line's start
    decode = decode_ms_per_token(engine, text, pos)
    bandwidth = memory_bandwidth_gbs()
    wbytes = weights_read_per_token(engine.path)
    bound_ms = wbytes / (bandwidth * 1e9) * 1000
    remote = remote_section(args.backend, text, cold_start, first_char + 2, args.edits, fast, cold) if args.backend else None
    print(json.dumps({
        **({"remote": remote} if remote else {}),
        "benchmark": "latency", "model": engine.spec.name, "precision": engine.precision,
        "threads": args.threads or "all", "tokens_in_source": len(tok.encode(text[:pos])),
        "cold_1024_prompt": cold,
        "warm_one_char_edit": {"reuse_and_speculation": fast, "plain": plain,
                               "speedup_median": round(plain["median_ms"] / max(fast["median_ms"], 1e-6), 2)},
        "decode_ms_per_token": round(decode, 2),
        "memory_bandwidth_gbs": round(bandwidth, 2),
        "weights_read_per_token_mb": round(wbytes / 1e6, 1),
        "weights_read_bound_ms": round(bound_ms, 2),
        "decode_vs_bound": round(decode / bound_ms, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))


if __name__ == "__main__":
    main()
