"""Codebase retrieval: docstring → function search (CodeSearchNet style) over real packages
downloaded from PyPI at benchmark time (pinned), plus index build time/size, query latency and
one-file update latency.

Each package's functions with a docstring (first paragraph of >= 4 words) give a query (the
docstring) and an answer (that function). The docstrings are removed from the indexed copy, so
the answer must be found from the code. MRR@10, Recall@1 and Recall@10 for lexical-only,
embedding-only and hybrid.

    python bench/retrieval.py [--queries 300]

Prints one JSON object.
"""
from __future__ import annotations

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
import ast  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import zipfile  # noqa: E402
from pathlib import Path  # noqa: E402

PACKAGES = ["requests==2.32.3", "click==8.1.7", "jinja2==3.1.4", "attrs==24.2.0", "rich==13.9.4",
            "werkzeug==3.1.3", "pyparsing==3.2.0", "more-itertools==10.5.0", "urllib3==2.2.3", "packaging==24.2"]
CACHE = Path.home() / ".cache" / "tandem-bench" / "packages"


def fetch(dest: Path) -> None:
    """Download the pinned wheels (cached) and unpack their Python sources into dest."""
    CACHE.mkdir(parents=True, exist_ok=True)
    for spec in PACKAGES:
        name = spec.split("==")[0].replace("-", "_").lower()
        wheels = [w for w in CACHE.glob("*.whl") if w.name.lower().startswith(name + "-" + spec.split("==")[1])]
        if not wheels:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                            "-d", str(CACHE), spec], check=True)
            wheels = [w for w in CACHE.glob("*.whl") if w.name.lower().startswith(name + "-")]
        with zipfile.ZipFile(wheels[0]) as zf:
            for member in zf.namelist():
                if member.endswith(".py") and ".dist-info/" not in member:
                    target = dest / name / member
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(zf.read(member))


def strip_docstrings(root: Path) -> list[dict]:
    """Remove function docstrings in place; return the queries with their answers."""
    tasks = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        counts: dict[str, int] = {}
        for f in funcs:
            counts[f.name] = counts.get(f.name, 0) + 1
        lines = text.split("\n")
        cuts = []
        for f in funcs:
            doc = ast.get_docstring(f)
            if not doc or not f.body or not isinstance(f.body[0], ast.Expr):
                continue
            first = " ".join(doc.strip().split("\n\n")[0].split())
            node = f.body[0]
            cuts.append((node.lineno - 1, node.end_lineno - 1))
            if len(first.split()) >= 4 and counts[f.name] == 1 and not f.name.startswith("__") and len(f.body) > 1:
                tasks.append({"query": first[:300], "path": path.relative_to(root).as_posix(), "name": f.name})
        for a, b in sorted(cuts, reverse=True):
            indent = lines[a][: len(lines[a]) - len(lines[a].lstrip())]
            lines[a:b + 1] = [indent + "pass"]  # keeps the function body valid
        path.write_text("\n".join(lines), encoding="utf-8")
    return tasks


def rank_of(hits, task) -> int | None:
    for i, h in enumerate(hits):
        if h.chunk.path == task["path"] and h.chunk.name == task["name"]:
            return i + 1
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    os.environ.setdefault("TANDEM_INDEX_HOME", tempfile.mkdtemp(prefix="tandem-bench-index-"))
    from lsp_server.retrieval.index import CodeIndex
    from lsp_server.retrieval.store import store_dir

    work = Path(tempfile.mkdtemp(prefix="tandem-bench-src-"))
    fetch(work)
    tasks = strip_docstrings(work)
    lines = sum(len(p.read_text(errors="replace").split("\n")) for p in work.rglob("*.py"))
    random.Random(7).shuffle(tasks)
    tasks = tasks[: args.queries]

    shutil.rmtree(store_dir(work), ignore_errors=True)
    index = CodeIndex(work)
    t = time.perf_counter()
    summary = index.build()
    build_s = time.perf_counter() - t
    size = sum(f.stat().st_size for f in store_dir(work).rglob("*") if f.is_file())

    report = {}
    for mode in ("lexical", "embedding", "hybrid"):
        ranks, lat = [], []
        for task in tasks:
            t = time.perf_counter()
            hits = index.search(task["query"], k=10, mode=mode, budget_ms=1e9)
            lat.append((time.perf_counter() - t) * 1000)
            ranks.append(rank_of(hits, task))
        lat.sort()
        report[mode] = {
            "mrr_at_10": round(sum(1 / r for r in ranks if r) / len(ranks), 4),
            "recall_at_1": round(sum(1 for r in ranks if r == 1) / len(ranks), 4),
            "recall_at_10": round(sum(1 for r in ranks if r) / len(ranks), 4),
            "query_ms_p50": round(lat[len(lat) // 2], 2), "query_ms_p95": round(lat[int(0.95 * (len(lat) - 1))], 2),
        }
    # one-file incremental update: append a function to a mid-sized file, re-index it
    target = sorted(work.rglob("*.py"), key=lambda p: p.stat().st_size)[len(tasks) // 2]
    rel = target.relative_to(work).as_posix()
    upd = []
    for i in range(5):
        with open(target, "a") as fh:
            fh.write(f"\n\ndef bench_added_{i}(x):\n    return x + {i}\n")
        t = time.perf_counter()
        index.update_file(rel)
        upd.append((time.perf_counter() - t) * 1000)
    restart = CodeIndex(work)
    t = time.perf_counter()
    warm = restart.build()
    warm_s = time.perf_counter() - t
    print(json.dumps({
        "benchmark": "retrieval", "packages": PACKAGES, "lines": lines, "files": summary.files,
        "chunks": summary.chunks, "queries": len(tasks),
        "build_seconds": round(build_s, 1), "index_mb": round(size / 1e6, 1),
        "restart_build_seconds": round(warm_s, 2), "restart_embedded": warm.embedded,
        "update_one_file_ms_median": round(statistics.median(upd), 1),
        **report,
        "hybrid_minus_lexical_mrr_points": round(100 * (report["hybrid"]["mrr_at_10"] - report["lexical"]["mrr_at_10"]), 1),
    }))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
