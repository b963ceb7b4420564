"""`tandem apply` and `tandem plan`: the expander and the planner from a shell (their command lines
are contracts: docs/architecture.md, "Contracts kept")."""
from __future__ import annotations

import difflib
import os
import sys
import tempfile
from pathlib import Path

from lsp_server.errors import CannotApply, TandemError


def _model_chooser(use_model: bool):
    """The local model as tie-breaker, when it is installed (the expander works without it)."""
    if not use_model:
        return None
    try:
        from lsp_server.apply.tiebreak import model_chooser
        from lsp_server.inference.engine import get_engine

        return model_chooser(get_engine(None, None, 0))
    except TandemError:
        return None


def cmd_apply(args) -> int:
    from lsp_server.apply import ApplyError, expand
    from lsp_server.files import read_text

    if args.batch:
        return apply_batch(args)
    if not args.original or not args.sketch:
        raise TandemError("usage: tandem apply ORIGINAL SKETCH [--path NAME]  (or --batch IN.jsonl)")
    original, sketch = read_text(Path(args.original), strip_bom=True), read_text(Path(args.sketch), strip_bom=True)
    try:
        result = expand(original, sketch, args.path or args.original, chooser=_model_chooser(not args.no_model))
    except ApplyError as exc:
        raise CannotApply(f"cannot apply the sketch: {exc}") from None
    sys.stdout.write(result.text)
    return 0


def apply_batch(args) -> int:
    from lsp_server.apply import ApplyError, expand
    from lsp_server.batch import run_batch

    chooser = _model_chooser(not args.no_model)

    def handle(item: dict) -> dict:
        original, sketch, path = item["original"], item["sketch"], item.get("path", "")
        if not all(isinstance(x, str) for x in (original, sketch, path)):
            raise TypeError("strings expected")
        try:
            return {"result": expand(original, sketch, path, chooser=chooser).text}
        except ApplyError as exc:
            return {"error": str(exc)}

    run_batch(args.batch, handle, '{"id","path","original","sketch"}')
    return 0


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tandem-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    if path.exists():
        os.chmod(tmp, path.stat().st_mode & 0o777)
    os.replace(tmp, path)


class DiskWorkspace:
    """The files on disk as the plan's workspace (planning.Workspace)."""

    def __init__(self, root: Path, index) -> None:
        self.root, self.index = root, index

    def read(self, path: Path) -> str | None:
        from lsp_server.files import read_if_exists

        return read_if_exists(path)

    def unchanged(self, change) -> bool:
        try:
            return self.read(change.target) == change.old
        except TandemError:
            return False

    def search(self, query: str, k: int) -> list:
        return self.index.search(query, k=k)


def cmd_plan(args) -> int:
    import asyncio

    from lsp_server.apply.change import resolve_inside
    from lsp_server.apply.errors import ApplyError
    from lsp_server.config import Settings
    from lsp_server.files import read_if_exists
    from lsp_server.planner.client import PlannerConfig
    from lsp_server.planning import PlanTask, run_plan
    from lsp_server.retrieval import CodeIndex
    from lsp_server.secrets import is_secret_path

    root = Path(args.root).resolve()
    if not root.is_dir():
        raise TandemError(f"{args.root}: not a directory")
    current = None
    if args.file:
        rel = args.file
        if Path(rel).is_absolute():  # lexically, so a symlink is judged by resolve_inside below
            if not Path(os.path.normpath(rel)).is_relative_to(root):
                raise TandemError(f"{args.file}: not inside {root}")
            rel = Path(os.path.normpath(rel)).relative_to(root).as_posix()
        if is_secret_path(rel):
            current = (rel, "")  # gather withholds it, and says so
        else:
            try:
                target = resolve_inside(root, rel)  # the same check as the language server's
            except ApplyError as exc:
                raise TandemError(f"--file: {exc}") from None
            current = (rel, read_if_exists(target) or "")
    index = CodeIndex(root, use_embeddings=not args.lexical_only)
    index.build()
    print(f"tandem: retrieving code for: {args.instruction}", file=sys.stderr)
    cfg = PlannerConfig.from_settings(Settings())  # the defaults, TANDEM_PLANNER_MODEL included
    try:
        outcome = asyncio.run(run_plan(PlanTask(args.instruction, current), DiskWorkspace(root, index), cfg,
                                       _model_chooser(not args.no_model),
                                       lambda message: print(f"tandem: {message}", file=sys.stderr)))
    finally:
        index.close()
    if outcome.planner_failed:
        raise TandemError(outcome.error)
    if outcome.error is not None:
        for f in outcome.failed:
            print(f"tandem: {f.path}: {f.reason}", file=sys.stderr)
        raise CannotApply(outcome.error)
    outcomes = outcome.changes
    for c in outcomes:
        old = c.old or ""
        if args.dry_run:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), c.new.splitlines(True),
                                                       "/dev/null" if c.old is None else f"a/{c.path}", f"b/{c.path}"))
    if not args.dry_run:
        for c in outcomes:
            _write_atomic(c.target, c.new)
            print(f"tandem: {'created' if c.old is None else 'changed'} {c.path}", file=sys.stderr)
    return 0


def add_parsers(sub) -> None:
    a = sub.add_parser("apply", help="expand a sketch against the original file (prints the new text)")
    a.add_argument("original", nargs="?")
    a.add_argument("sketch", nargs="?")
    a.add_argument("--path", default=None, help="the file's name (picks the grammar); default: ORIGINAL")
    a.add_argument("--batch", metavar="IN.jsonl", help='lines {"id","path","original","sketch"} → {"id","result"|"error","latency_ms"}')
    a.add_argument("--no-model", action="store_true", help="no local-model tie-breaker")
    a.set_defaults(func=cmd_apply)

    p = sub.add_parser("plan", help="plan a change with the frontier model and expand it locally")
    p.add_argument("root")
    p.add_argument("instruction")
    p.add_argument("--dry-run", action="store_true", help="print the unified diff instead of writing")
    p.add_argument("--file", default=None, help="the file the instruction is about (sent whole)")
    p.add_argument("--lexical-only", action="store_true", help="retrieval without embeddings")
    p.add_argument("--no-model", action="store_true", help="no local-model tie-breaker")
    p.set_defaults(func=cmd_plan)
