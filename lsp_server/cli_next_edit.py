"""`tandem next-edit --batch IN.jsonl` (DESIGN.md §3)."""
from __future__ import annotations

import json
import sys
import time

from lsp_server.errors import TandemError


def cmd_next_edit(args) -> int:
    from lsp_server.next_edit.history import parse_diff
    from lsp_server.next_edit.predict import as_line_edit, predict
    from lsp_server.protocol import normalise_eol

    if not args.batch:
        raise TandemError("usage: tandem next-edit --batch IN.jsonl  (lines {\"id\",\"path\",\"text\",\"cursor\",\"recent_edits\"})")
    engine = None
    if args.mode != "pattern":
        from lsp_server.inference.engine import get_engine

        engine = get_engine(None, None, 0)
        engine.warm_up()
    source = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8")
    with source:
        for n, line in enumerate(source, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                rid, path, text = item.get("id"), item.get("path", ""), normalise_eol(item["text"])
                diffs = [normalise_eol(d) for d in item.get("recent_edits", [])]
                if not all(isinstance(d, str) for d in diffs):
                    raise TypeError
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
                print(json.dumps({"id": None, "error": f"line {n}: expected "
                                  '{"id","path","text","cursor":{"line","character"},"recent_edits":[...]}',
                                  "edit": None, "latency_ms": 0}), flush=True)
                continue
            started = time.perf_counter()
            cursor = item.get("cursor") or {}
            prediction = predict(text, [parse_diff(path, d) for d in diffs], engine=engine,
                                 cursor_line=cursor.get("line") if isinstance(cursor, dict) else None,
                                 mode=args.mode, path=path)
            edit = as_line_edit(prediction) if prediction else None
            print(json.dumps({"id": rid, "edit": edit, "latency_ms": round((time.perf_counter() - started) * 1000, 2)}),
                  flush=True)
    return 0


def add_parsers(sub) -> None:
    n = sub.add_parser("next-edit", help="predict the next edit from recent edits (batch)")
    n.add_argument("--batch", metavar="IN.jsonl", required=False,
                   help='lines {"id","path","text","cursor","recent_edits"} → {"id","edit"|null,"latency_ms"}')
    n.add_argument("--mode", default="pattern", choices=["pattern", "model", "both"],
                   help="pattern propagation only (default: instant, no model), the local model's rewrite, or both")
    n.set_defaults(func=cmd_next_edit)
