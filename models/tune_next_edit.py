"""Tune the next-edit model's confidence threshold on the validation split (issue 18, step 4).

    .venv/bin/python models/tune_next_edit.py .train/data/valid.jsonl [--limit N]

Runs the installed model (built with the adapter: `tandem models install`) exactly as the server
decodes (next_edit.model.decode_region) on every validation example, and prints one JSON object:
each example's confidence and whether its rewrite was the right edit, the figures at every
threshold, and the chosen one — the threshold that maximises right suggestions minus wrong ones
(a wrong suggestion costs the user about what a right one saves), the higher on a tie. The chosen
value goes into models/manifest.toml (`next_edit_threshold` of the adapter).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from lsp_server.next_edit.model import decode_region, diff_region, parse_answer  # noqa: E402
from models.train_next_edit import prompt_region  # noqa: E402  (pure: no torch needed)

def region_of(prompt: str) -> list[str]:
    region = prompt_region(prompt)
    if region is None:
        raise ValueError("not a next-edit prompt (no region)")
    return region.split("\n")


def outcome(record: dict, engine) -> dict:
    """What the model does with one example: its confidence (None: it changed nothing) and
    whether its change is the expected one (the expected change of a silence is none)."""
    old = region_of(record["prompt"])
    target = parse_answer(record["target"])  # the region after the edit, then the fence
    expected = diff_region(old, target) if target is not None else None
    got = decode_region(engine, engine.tokenizer.encode(record["prompt"]), old)
    right = got is not None and expected is not None and (got.start_line, got.end_line, got.new_lines) == \
        (expected[0], expected[1], list(expected[2]))
    return {"id": record["id"], "kind": record["kind"], "expected_change": expected is not None,
            "confidence": None if got is None else round(got.confidence, 5), "right": right}


def sweep(outcomes: list[dict]) -> list[dict]:
    """Right and wrong suggestions at every threshold that changes them (each confidence seen)."""
    spoken = sorted((o for o in outcomes if o["confidence"] is not None), key=lambda o: -o["confidence"])
    edits = sum(o["expected_change"] for o in outcomes)
    silences = len(outcomes) - edits
    rows, right, wrong, wrong_on_silence = [], 0, 0, 0
    for o in spoken:
        right += o["right"]
        wrong += not o["right"]
        wrong_on_silence += not o["expected_change"]
        rows.append({"threshold": o["confidence"], "right": right, "wrong": wrong,
                     "exact_edit_rate": round(right / max(edits, 1), 4),
                     "silence_accuracy": round(1 - wrong_on_silence / max(silences, 1), 4)})
    # equal confidences: the row after the last of them holds
    return [r for k, r in enumerate(rows) if k + 1 == len(rows) or rows[k + 1]["threshold"] != r["threshold"]]


def choose(rows: list[dict]) -> dict | None:
    best = max(rows, key=lambda r: (r["right"] - r["wrong"], r["threshold"]), default=None)
    return best if best is not None and best["right"] > best["wrong"] else None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("valid", type=Path)
    ap.add_argument("--limit", type=int, default=0, help="the first N examples only")
    args = ap.parse_args()
    from lsp_server.inference.engine import get_engine

    records = [json.loads(x) for x in args.valid.read_text().splitlines() if x.strip()]
    records = records[: args.limit] if args.limit else records
    engine = get_engine(None, None, 0)
    engine.warm_up()
    started = time.perf_counter()
    outcomes = []
    for n, r in enumerate(records, 1):
        outcomes.append(outcome(r, engine))
        print(f"{n}/{len(records)} {outcomes[-1]}", file=sys.stderr, flush=True)
    rows = sweep(outcomes)
    chosen = choose(rows)
    print(json.dumps({"examples": len(outcomes), "edits": sum(o["expected_change"] for o in outcomes),
                      "seconds": round(time.perf_counter() - started, 1), "chosen": chosen,
                      "right_at_any_threshold": sum(o["right"] for o in outcomes), "sweep": rows,
                      "outcomes": outcomes}))


if __name__ == "__main__":
    main()
