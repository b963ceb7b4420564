"""JSON-lines batch commands (`tandem apply --batch`, `tandem next-edit --batch`): one output line
per input line, in order, flushed; a bad line gets {"id": null, "error": "line N: ..."} and the
batch goes on. `tandem complete --batch` exits 1 when a line was bad; apply and next-edit exit 0
(their contract: a bad line is an answer like any other)."""
from __future__ import annotations

import json
import sys
import time
from typing import Callable

from lsp_server.errors import TandemError


def run_batch(path: str, handle: Callable[[dict], dict], expected: str, empty: dict | None = None) -> int:
    """handle(item) → the output fields (raise KeyError/TypeError/ValueError for a bad item).
    Returns how many lines were bad."""
    bad = 0
    try:
        source = sys.stdin if path == "-" else open(path, encoding="utf-8")
    except OSError as exc:
        raise TandemError(f"{path}: cannot read ({exc.strerror or exc})") from None
    with source:
        for n, line in enumerate(source, 1):
            if not line.strip():
                continue
            started = time.perf_counter()
            try:
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise TypeError("not an object")
                out = {"id": item.get("id"), **handle(item)}
            except (ValueError, KeyError, TypeError, AttributeError):
                out = {"id": None, "error": f"line {n}: expected {expected}", **(empty or {})}
                bad += 1
            out["latency_ms"] = round((time.perf_counter() - started) * 1000, 2)
            print(json.dumps(out), flush=True)
    return bad
