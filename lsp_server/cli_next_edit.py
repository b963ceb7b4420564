"""`tandem next-edit --batch IN.jsonl` (a contract: docs/architecture.md, "Contracts kept")."""
from __future__ import annotations

import sys

from lsp_server.errors import TandemError


def cmd_next_edit(args) -> int:
    from lsp_server.batch import run_batch
    from lsp_server.next_edit.history import parse_diff
    from lsp_server.next_edit.predict import as_line_edit, predict
    from lsp_server.protocol import normalise_eol

    if not args.batch:
        raise TandemError('usage: tandem next-edit --batch IN.jsonl  (lines {"id","path","text","cursor","recent_edits"})')
    engine = None
    if args.mode != "pattern":
        from lsp_server.model_store.manifest import load_manifest

        if load_manifest().get(None).adapter is None:  # decided by the manifest: no model to load for it
            print("tandem: next-edit: the model has no next-edit adapter; patterns only", file=sys.stderr)
        else:
            from lsp_server.errors import ModelNotInstalled
            from lsp_server.inference.engine import get_engine

            try:
                engine = get_engine(None, None, 0)
                engine.warm_up()
            except ModelNotInstalled as exc:
                if args.mode == "model":
                    raise
                print(f"tandem: next-edit: patterns only ({exc})", file=sys.stderr)

    def handle(item: dict) -> dict:
        path, text, cursor = item.get("path", ""), normalise_eol(item["text"]), item.get("cursor") or {}
        diffs = item.get("recent_edits", [])
        if not isinstance(diffs, list) or not all(isinstance(d, str) for d in diffs) or not isinstance(cursor, dict):
            raise TypeError("recent_edits must be a list of strings")
        prediction = predict(text, [parse_diff(path, normalise_eol(d)) for d in diffs], engine=engine,
                             cursor_line=cursor.get("line"), mode=args.mode, path=path)
        return {"edit": as_line_edit(prediction) if prediction else None}

    run_batch(args.batch, handle, '{"id","path","text","cursor":{"line","character"},"recent_edits":[...]}',
              empty={"edit": None})
    return 0


def add_parsers(sub) -> None:
    n = sub.add_parser("next-edit", help="predict the next edit from recent edits (batch)")
    n.add_argument("--batch", metavar="IN.jsonl", required=False,
                   help='lines {"id","path","text","cursor","recent_edits"} → {"id","edit"|null,"latency_ms"}')
    n.add_argument("--mode", default="both", choices=["pattern", "model", "both"],
                   help="both (default): pattern propagation, then the local model's rewrite where no pattern "
                        "applies; or either alone")
    n.set_defaults(func=cmd_next_edit)
