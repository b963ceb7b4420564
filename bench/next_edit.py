"""Next-edit benchmark: replay real changes between released package versions.

For each file that changed between two pinned releases (the pairs of bench/apply.py, wheels
downloaded from PyPI at benchmark time), its hunks are applied in order; after the first k hunks
(the recent edits, as unified diffs) the answer is hunk k+1 (replace lines start..end of the
current text); after the last hunk the answer is silence. Reported per mode: exact edit rate
(same lines, same text), location rate (the predicted edit starts on the answer's first line),
silence accuracy on the no-edit cases, overall exact (exact edits + correct silences), latency.

    python bench/next_edit.py [--files 200] [--max-hunks 12] [--model-tasks N] [--heldout]

Prints one JSON object. Modes: pattern (pattern propagation, all tasks); with --model-tasks N,
also model (the local model's rewrite of the region around the last edit) and both (pattern
first, then the model), side by side on an even sample of N tasks (the model costs about a
second per task on 2 cores; N at least the task count runs them all); model_path_latency_ms is
the model's own time on the tasks where no pattern applied (the "both" mode), and
model_threshold the installed adapter's (null: the model path is off).
"""
from __future__ import annotations

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
import difflib  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

import bench.apply as ba  # noqa: E402  (same release pairs and download cache)


def tasks_for(path: str, old: str, new: str, max_hunks: int) -> list[dict]:
    a, b = old.split("\n"), new.split("\n")
    hunks = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not hunks or len(hunks) > max_hunks:
        return []
    tasks, cur, diffs, offset = [], list(a), [], 0
    for k, (tag, i1, i2, j1, j2) in enumerate(hunks):
        if k > 0:  # the answer is this hunk, given the ones before it
            start = i1 + offset
            tasks.append({"path": path, "text": "\n".join(cur), "recent_edits": list(diffs),
                          "answer": {"start_line": start + 1, "end_line": start + (i2 - i1),
                                     "new_text": "".join(x + "\n" for x in b[j1:j2])}})
        before = list(cur)
        cur[i1 + offset:i2 + offset] = b[j1:j2]
        offset += (j2 - j1) - (i2 - i1)
        diffs.append("".join(difflib.unified_diff([x + "\n" for x in before], [x + "\n" for x in cur],
                                                  f"a/{path}", f"b/{path}", n=1)))
    tasks.append({"path": path, "text": "\n".join(cur), "recent_edits": list(diffs), "answer": None})
    return tasks


def run(tasks: list[dict], predictor) -> dict:
    exact = located = silent_ok = edits = silences = wrong = 0
    lat = []
    for t in tasks:
        started = time.perf_counter()
        got = predictor(t)
        lat.append((time.perf_counter() - started) * 1000)
        if t["answer"] is None:
            silences += 1
            silent_ok += got is None
            continue
        edits += 1
        if got is None:
            continue
        if got == t["answer"]:
            exact += 1
        else:
            wrong += 1
        located += got["start_line"] == t["answer"]["start_line"]
    lat.sort()
    n = len(tasks)
    return {"exact_edit_rate": round(exact / max(edits, 1), 4), "location_rate": round(located / max(edits, 1), 4),
            "silence_accuracy": round(silent_ok / max(silences, 1), 4),
            "overall_exact": round((exact + silent_ok) / max(n, 1), 4),
            "predictions_made": exact + wrong, "wrong_predictions": wrong,
            "wrong_per_suggestion": round(wrong / max(exact + wrong, 1), 4),
            "latency_ms_p50": round(lat[n // 2], 3), "latency_ms_p95": round(lat[int(n * 0.95)], 3)}


def percentiles(ms: list[float]) -> dict:
    ms = sorted(ms)
    return {"calls": len(ms), "p50": round(ms[len(ms) // 2], 1) if ms else None,
            "p95": round(ms[int(len(ms) * 0.95)], 1) if ms else None}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--max-hunks", type=int, default=12)
    ap.add_argument("--model-tasks", type=int, default=0, help="also run the model modes on an even sample of N tasks")
    ap.add_argument("--heldout", action="store_true", help="release pairs the patterns were not tuned on")
    args = ap.parse_args()
    pairs = ba.HELDOUT if args.heldout else ba.PAIRS
    from lsp_server.next_edit.history import parse_diff
    from lsp_server.next_edit.predict import as_line_edit, predict

    tasks: list[dict] = []
    files = 0
    for name, v_old, v_new in pairs:
        old_src, new_src = ba.wheel_sources(name, v_old), ba.wheel_sources(name, v_new)
        for path in sorted(set(old_src) & set(new_src)):
            if old_src[path] != new_src[path] and files < args.files:
                t = tasks_for(f"{name}/{path}", old_src[path], new_src[path], args.max_hunks)
                files += bool(t)
                tasks += t

    model_ms: list[float] = []  # the model path's own time: the pattern was silent, the model ran

    def predictor(mode, engine=None):
        def run_one(t):
            edits = [parse_diff(t["path"], d) for d in t["recent_edits"]]
            p = predict(t["text"], edits, mode="pattern", path=t["path"]) if mode != "model" else None
            if p is None and mode != "pattern" and edits:
                started = time.perf_counter()
                p = predict(t["text"], edits, engine=engine, mode="model", path=t["path"])
                if mode == "both":
                    model_ms.append((time.perf_counter() - started) * 1000)
            return as_line_edit(p) if p else None
        return run_one

    result = {"benchmark": "next_edit", "pairs": [f"{n} {a}->{b}" for n, a, b in pairs], "files": files,
              "tasks": len(tasks), "edit_tasks": sum(t["answer"] is not None for t in tasks),
              "silence_tasks": sum(t["answer"] is None for t in tasks),
              "pattern": run(tasks, predictor("pattern"))}
    if args.model_tasks:
        from lsp_server.inference.engine import get_engine

        engine = get_engine(None, None, 0)
        engine.warm_up()
        sub = tasks[:: max(1, len(tasks) // args.model_tasks)][: args.model_tasks]  # an even sample
        result["model_sample_tasks"] = len(sub)
        result["pattern_on_sample"] = run(sub, predictor("pattern"))
        result["model"] = run(sub, predictor("model", engine))
        result["both"] = run(sub, predictor("both", engine))
        result["model_path_latency_ms"] = percentiles(model_ms)
        result["model_threshold"] = engine.next_edit_threshold
    print(json.dumps(result))


if __name__ == "__main__":
    main()
