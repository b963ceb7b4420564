"""`tandem.planChange` in the language server: the planning use case (planning.run_plan) on the
editor's buffers (versions remembered), and its outcome as one versioned workspace/applyEdit.
$/progress carries the steps; a failure is shown once, with every file's reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types

from lsp_server.apply.change import FileChange
from lsp_server.apply.tiebreak import model_chooser
from lsp_server.errors import TandemError
from lsp_server.files import read_if_exists as read_disk
from lsp_server.planner.client import PlannerConfig
from lsp_server.planning import PlanTask, run_plan
from lsp_server.protocol import line_edit, uri_to_path


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
    """The editor as the plan's workspace (planning.Workspace): open documents are read from their
    buffers, their versions remembered, and the edit goes out as one WorkspaceEdit."""

    def __init__(self, ls, args: PlanArgs, report) -> None:
        self.ls, self.args, self.report = ls, args, report
        self.root: Path | None = None
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

    def search(self, query: str, k: int) -> list:
        index = self.ls.index.indexes.get(self.root)
        if index is None or self.ls.index.state == "indexing":
            return []
        return index.search(query, k=k)

    async def run(self) -> dict:
        self.root = self.root_for(self.args.uri)
        if self.root is None:
            return {"applied": False, "error": "open a folder first: plans are made for a workspace"}
        self.report("retrieving related code")
        current = None
        path = uri_to_path(self.args.uri) if self.args.uri else None
        if path is not None and path.resolve().is_relative_to(self.root):
            try:
                text = self.read(path.resolve())
            except TandemError:
                text = None
            if text is not None:
                current = (path.resolve().relative_to(self.root).as_posix(), text)
        selection = None
        if self.args.start_line is not None:
            selection = (self.args.start_line + 1, self.args.end_line + 1)
        engine = self.ls.service.engine
        outcome = await run_plan(PlanTask(self.args.instruction, current, selection), self,
                                 PlannerConfig.from_settings(self.ls.settings),
                                 model_chooser(engine) if engine is not None else None, self.report)
        base = outcome.as_dict()
        if outcome.error is not None:
            return {**base, "applied": False, "error": outcome.error}
        applied = await self.apply(outcome.changes)
        if applied.get("applied") and outcome.repaired:
            applied["message"] += (f"; the planner rewrote the sketch of {', '.join(outcome.repaired)} that Tandem "
                                   "could not place at first")
        return {**base, **applied}

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
