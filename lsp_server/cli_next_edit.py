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
            prediction = predict(text, [parse_diff(path, d) for d in diffs])
            edit = as_line_edit(text, prediction.change) if prediction else None
            print(json.dumps({"id": rid, "edit": edit, "latency_ms": round((time.perf_counter() - started) * 1000, 2)}),
                  flush=True)
    return 0


def add_parsers(sub) -> None:
    n = sub.add_parser("next-edit", help="predict the next edit from recent edits (batch)")
    n.add_argument("--batch", metavar="IN.jsonl", required=False,
                   help='lines {"id","path","text","cursor","recent_edits"} → {"id","edit"|null,"latency_ms"}')
    n.set_defaults(func=cmd_next_edit)
