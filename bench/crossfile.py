"""Cross-file completion: FIM tasks whose answer uses an identifier defined in another file of the
same package. Exact match of the rest of the line with retrieved context (the snippets the
server adds: definitions of nearby identifiers + similar chunks) vs without, same model, same run.

Tasks come from a real package downloaded from PyPI at benchmark time (pinned): each is a line
inside a function that calls `Name(...)` where Name is a class or function defined in another
module of the package (not in the file itself); the cursor sits just before `Name`.

    python bench/crossfile.py [--tasks 80]

Prints one JSON object.
"""
from __future__ import annotations

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

PACKAGE = "werkzeug==3.1.3"
CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{3,})\(")


def make_tasks(root: Path, index, limit: int) -> list[dict]:
    tasks = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        own = {c.name for c in index.chunks.values() if c.path == rel}
        lines = text.split("\n")
        offset = 0
        for line in lines:
            if line.startswith((" ", "\t")) and not line.strip().startswith(("#", "def ", "class ", "@")):
                for m in CALL.finditer(line):
                    name = m.group(1)
                    if name in own or not index.definitions(name, exclude_path=rel):
                        continue
                    start = offset + m.start()
                    rest = line[m.start():]
                    if len(rest.strip()) < 6:
                        continue
                    tasks.append({"path": rel, "prefix": text[:start], "suffix": text[offset + len(line):],
                                  "target": rest.strip(), "name": name})
                    break
            offset += len(line) + 1
    random.Random(11).shuffle(tasks)
    return tasks[:limit]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=80)
    ap.add_argument("--modes", default="without_context,with_context")
    args = ap.parse_args()
    os.environ.setdefault("TANDEM_INDEX_HOME", tempfile.mkdtemp(prefix="tandem-bench-index-"))
    from lsp_server.completion import CompletionRequest, complete
    from lsp_server.inference.engine import get_engine
    from lsp_server.retrieval.context import choose_snippets
    from lsp_server.retrieval.index import CodeIndex

    import bench.retrieval as br  # same download cache and unpacking


    br.PACKAGES = [PACKAGE]
    work = Path(tempfile.mkdtemp(prefix="tandem-bench-src-"))
    br.fetch(work)
    index = CodeIndex(work, use_embeddings=False)  # snippets use definitions + lexical search
    index.build()
    tasks = make_tasks(work, index, args.tasks)
    engine = get_engine(None, None, 0)
    engine.warm_up()
    results = {}
    started = time.perf_counter()
    for mode in args.modes.split(","):
        exact = 0
        used = 0
        lat = []
        for t in tasks:
            snippets = choose_snippets(index, t["path"], t["prefix"]) if mode == "with_context" else ()
            used += bool(snippets)
            req = CompletionRequest(prefix=t["prefix"], suffix=t["suffix"], multiline="never", path=t["path"],
                                    snippets=snippets)
            res = complete(engine, req)
            lat.append(res.latency_ms)
            exact += res.text.strip() == t["target"]
        lat.sort()
        results[mode] = {"exact_match": round(exact / len(tasks), 4), "tasks_with_snippets": used,
                         "latency_ms_p50": round(lat[len(lat) // 2], 1)}
    print(json.dumps({
        "benchmark": "crossfile", "package": PACKAGE, "tasks": len(tasks), **results,
        "exact_match_gain_points": round(100 * (results["with_context"]["exact_match"]
                                                 - results["without_context"]["exact_match"]), 1)
        if len(results) == 2 else None,
        "seconds": round(time.perf_counter() - started, 1),
    }))


if __name__ == "__main__":
    main()
