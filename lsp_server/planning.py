"""`tandem.planChange` in the language server: retrieve → plan (frontier) → expand (local) →
one versioned workspace/applyEdit. A sketch the expander cannot place goes back to the planner
with the reason (up to `plannerRepairRounds` times) rather than being guessed. All or nothing: if
any sketch still fails, nothing is applied and the result says which and why. Blocking work runs
in threads; the event loop stays free.
"""
from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from lsp_server.apply.change import Failure, FileChange, expand_one, refusal
from lsp_server.apply.tiebreak import model_chooser
from lsp_server.planner.client import PlannerConfig, PlannerError, PlanResult, plan, repair
from lsp_server.planner.context import gather
from lsp_server.errors import TandemError
from lsp_server.files import read_if_exists as read_disk
from lsp_server.protocol import line_edit, uri_to_path

log = logging.getLogger("tandem")


@dataclass
class PlanArgs:
    instruction: str
    uri: str | None = None
    start_line: int | None = None  # 0-based, from the LSP range
    end_line: int | None = None


def parse_args(args) -> PlanArgs:
    """executeCommand arguments: [{instruction, uri?, range?}] (or the object itself)."""
    raw = args[0] if isinstance(args, (list, tuple)) and args else args
    if hasattr(raw, "__dict__") and not isinstance(raw, dict):
        raw = vars(raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("instruction"), str) or not raw["instruction"].strip():
        raise ValueError('tandem.planChange needs {"instruction": "...", "uri"?: "...", "range"?: {...}}')
    uri = raw.get("uri")
    if uri is not None and not isinstance(uri, str):
        raise ValueError("tandem.planChange: uri must be a string")
    start = end = None
    rng = raw.get("range")
    if rng is not None:
        try:
            start, end = int(rng["start"]["line"]), int(rng["end"]["line"])
        except (KeyError, TypeError, ValueError):
            raise ValueError("tandem.planChange: range must be {start: {line, character}, end: {...}}") from None
        if start < 0 or end < start:
            raise ValueError("tandem.planChange: range end is before its start")
    return PlanArgs(raw["instruction"].strip(), uri, start, end)


class PlanChange:
    def __init__(self, ls, args: PlanArgs, report) -> None:
        self.ls, self.args, self.report = ls, args, report
        self.loop = asyncio.get_running_loop()
        self.versions: dict[Path, int | None] = {}  # version of each open document when read

    def open_document(self, path: Path):
        """The editor's document for a resolved path, or None when it is not open."""
        for uri, doc in list(self.ls.workspace.text_documents.items()):
            p = uri_to_path(uri)
            if p is not None and p.resolve() == path:
                return doc
        return None

    def read(self, path: Path) -> str | None:
        """The editor's buffer when the file is open (its version remembered), else the disk."""
        doc = self.open_document(path)
        self.versions[path] = doc.version if doc is not None else None
        return doc.source if doc is not None else read_disk(path)

    def root_for(self, uri: str | None) -> Path | None:
        roots = [r.resolve() for r in self.ls.workspace_roots()]
        path = uri_to_path(uri).resolve() if uri and uri_to_path(uri) else None
        for r in roots:
            if path is not None and path.is_relative_to(r):
                return r
        return roots[0] if roots else None

    async def run(self) -> dict:
        root = self.root_for(self.args.uri)
        if root is None:
            return {"applied": False, "error": "open a folder first: plans are made for a workspace"}
        self.report("retrieving related code")
        current = None
        if self.args.uri and uri_to_path(self.args.uri):
            path = uri_to_path(self.args.uri).resolve()
            if path.is_relative_to(root):
                try:
                    text = self.read(path)
                except TandemError:
                    text = None
                if text is not None:
                    current = (path.relative_to(root).as_posix(), text)
        selection = None
        if self.args.start_line is not None:
            selection = (self.args.start_line + 1, self.args.end_line + 1)
        index = self.ls.index.indexes.get(root)
        search = None
        if index is not None and self.ls.index.state != "indexing":
            search = lambda q, k: index.search(q, k=k)  # noqa: E731
        gathered = await asyncio.to_thread(gather, root, self.args.instruction, current, selection, search)
        cfg = PlannerConfig.from_settings(self.ls.settings)
        sent, withheld = gathered.sent, gathered.withheld
        self.report(gathered.announce(cfg.model))
        engine = self.ls.service.engine
        chooser = model_chooser(engine) if engine is not None else None
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tandem-expand")
        futures: list[Future] = []

        def on_sketch(sketch) -> None:  # planner thread: expand while the rest streams in
            futures.append(pool.submit(expand_one, root, sketch, self.read, chooser))
            n = len(futures)
            self.loop.call_soon_threadsafe(self.report, f"expanding file {n}: {sketch.path}")

        try:
            result = await asyncio.to_thread(plan, gathered.request, cfg, on_sketch)
            outcomes = [await asyncio.wrap_future(f) for f in futures]
        except PlannerError as exc:
            return {"applied": False, "error": str(exc), "sent": sent, "withheld": withheld,
                    "redacted": gathered.redacted}
        finally:
            pool.shutdown(wait=False)
        sketches = list(result.sketches)  # sketches[k] made outcomes[k]
        repaired = await self.repair(result, sketches, outcomes, cfg, root, chooser)
        total = len(outcomes)
        for k, _ in enumerate(outcomes, 1):
            self.report(f"expanded file {k} of {total}")
        failures = [o for o in outcomes if isinstance(o, Failure)]
        changes = [o for o in outcomes if isinstance(o, FileChange)]
        base = {"sent": sent, "withheld": withheld, "redacted": gathered.redacted,
                "failed": [{"path": f.path, "reason": f.reason} for f in failures], "repaired": repaired,
                "summaries": {c.path: c.summary for c in changes}}
        refused = refusal(outcomes)
        if refused:
            return {**base, "applied": False, "error": refused}
        changes = await self.refresh_stale(changes, root, chooser, sketches)
        if isinstance(changes, str):
            return {**base, "applied": False, "error": changes}
        applied = await self.apply(changes)
        if applied.get("applied") and repaired:
            applied["message"] += f"; the planner rewrote the sketch of {', '.join(repaired)} that Tandem could not place at first"
        return {**base, **applied}

    async def repair(self, result: PlanResult, sketches: list, outcomes: list, cfg: PlannerConfig, root,
                     chooser) -> list[str]:
        def report(message: str) -> None:
            self.loop.call_soon_threadsafe(self.report, message)

        expand = lambda sketch: expand_one(root, sketch, self.read, chooser)  # noqa: E731
        return await asyncio.to_thread(repair_failures, result, sketches, outcomes, cfg, expand, report)

    async def refresh_stale(self, changes: list[FileChange], root, chooser, sketches):
        """A file that changed while the plan was being made (an open document's version moved; a
        closed file's text on disk is not what was expanded) is expanded again against its new
        text; if it moves again, the plan is abandoned rather than applied to stale text."""
        by_path = {s.path: s for s in sketches}
        out = []
        for change in changes:
            if self.unchanged(change):
                out.append(change)
                continue
            log.info("%s changed while planning: expanding again", change.path)
            again = await asyncio.to_thread(expand_one, root, by_path[change.path], self.read, chooser)
            if isinstance(again, Failure) or not self.unchanged(again):
                return f"{change.path} kept changing while the plan was made; nothing was applied"
            out.append(again)
        return out

    def unchanged(self, change: FileChange) -> bool:
        """The file is still the text `change` was expanded from."""
        if self.versions.get(change.target) != self.current_version(change.target):
            return False
        if self.current_version(change.target) is None and change.old is not None:
            try:  # closed: the edit goes out without a version, so the disk must still match
                return read_disk(change.target) == change.old
            except TandemError:
                return False
        return True

    def current_version(self, path: Path) -> int | None:
        doc = self.open_document(path)
        return doc.version if doc is not None else None

    async def apply(self, changes: list[FileChange]) -> dict:
        encoding = str(self.ls.workspace.position_encoding or "utf-16")
        doc_changes: list = []
        changed, created = [], []
        for c in changes:
            uri = c.target.as_uri()
            if c.old is None:
                doc_changes.append(types.CreateFile(uri=uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False)))
                doc_changes.append(types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                    edits=[types.TextEdit(range=types.Range(types.Position(0, 0), types.Position(0, 0)), new_text=c.new)]))
                created.append(c.path)
                continue
            edit = line_edit(c.old, c.new, encoding)
            if edit is None:
                continue
            (sl, sc, el, ec), text = edit
            doc_changes.append(types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=self.versions.get(c.target)),
                edits=[types.TextEdit(range=types.Range(types.Position(sl, sc), types.Position(el, ec)), new_text=text)]))
            changed.append(c.path)
        if not doc_changes:
            return {"applied": False, "changed": [], "created": [], "error": "the plan changes nothing"}
        label = f"Tandem: {self.args.instruction[:60]}"
        result = await self.ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=types.WorkspaceEdit(document_changes=doc_changes), label=label))
        if not result.applied:
            return {"applied": False, "changed": [], "created": [],
                    "error": f"the editor did not apply the edit: {result.failure_reason or 'no reason given'}"}
        return {"applied": True, "changed": changed, "created": created,
                "message": f"changed {len(changed)} file(s), created {len(created)}"}


def repair_failures(result: PlanResult, sketches: list, outcomes: list, cfg: PlannerConfig, expand,
                    report=lambda message: None) -> list[str]:
    """Sketches the expander could not place go back to the planner with its reasons, in the
    same conversation, up to `cfg.repair_rounds` times; each file's new sketch, expanded, replaces its
    failure (in place: sketches[k] made outcomes[k]). Not when a path was refused: that plan
    fails whatever comes back. A failed repair request leaves the first failures standing.
    Returns the paths whose rewritten sketch expanded."""
    repaired: list[str] = []
    for _ in range(cfg.repair_rounds):
        failed = [k for k, o in enumerate(outcomes) if isinstance(o, Failure)]
        if not failed or not all(outcomes[k].sketch_fault for k in failed):
            break
        paths = sorted({outcomes[k].path for k in failed})
        report(f"asking {cfg.model} to rewrite {len(failed)} sketch(es) Tandem could not place: {', '.join(paths)}")
        try:
            result = repair(result, [(outcomes[k].path, outcomes[k].reason) for k in failed], cfg)
        except PlannerError as exc:
            log.info("planner repair round: %s", exc)
            break
        again: dict[str, list] = {}
        for s in result.sketches:
            again.setdefault(s.path, []).append(s)
        for k in failed:
            if again.get(outcomes[k].path):
                sketches[k] = again[outcomes[k].path].pop(0)
                outcomes[k] = expand(sketches[k])
                if not isinstance(outcomes[k], Failure):
                    repaired.append(outcomes[k].path)
    return repaired


async def plan_change(ls, args) -> dict:
    try:
        parsed = parse_args(args)
    except ValueError as exc:
        return {"applied": False, "error": str(exc)}
    result = await ls.progress("Tandem: planning a change", lambda report: PlanChange(ls, parsed, report).run())
    if result.get("error"):  # (clients show `message` on success themselves)
        failed = "; ".join(f"{f['path']}: {f['reason']}" for f in result.get("failed", []))
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Error,
                                                       f"Tandem: {result['error']}" + (f" ({failed})" if failed else "")))
    return result
