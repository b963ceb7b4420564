"""The pygls language server. Handlers are thin: they translate LSP types (via protocol.py
helpers) and delegate to the completion service."""
from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from lsp_server import __version__
from lsp_server.completion.complete import is_remote
from lsp_server.completion.prefilter import skip_reason
from lsp_server.completion.service import CompletionService
from lsp_server.config import Settings, as_json, parse_backend, parse_settings
from lsp_server.errors import TandemError
from lsp_server.next_edit.service import NextEdit, NextEditService, as_ghost_text
from lsp_server.plan_command import plan_change
from lsp_server.protocol import detect_eol, normalise_eol, offset_at, uri_to_path
from lsp_server.retrieval.service import IndexService

log = logging.getLogger("tandem")

RELOAD_KEYS = ("model", "precision", "threads", "device", "backend", "backend_model")


class _Dropped:
    """A message that could not be read; already answered (requests) or logged (notifications)."""
    jsonrpc = None


class TandemProtocol(LanguageServerProtocol):
    """pygls drops a request whose params do not fit the method's type without answering it, and
    the client then waits forever; answer it with InvalidParams instead."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except Exception as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                log.warning("invalid params for %s (request %s)", data.get("method"), data.get("id"))
                self._send_response(data["id"], error=JsonRpcInvalidParams().to_response_error())
                return _Dropped()
            raise exc

    def handle_message(self, message):
        if isinstance(message, _Dropped):
            return None
        return super().handle_message(message)

    def _send_response(self, msg_id, result=None, error=None):
        # pygls puts the traceback of a handler's exception in error.data: internals belong in the
        # log (pygls logged it), the client gets the kind of failure only
        if error is not None and error.code == JsonRpcInternalError.CODE:
            error = type(error)(code=error.code, message="internal error in the Tandem server (see its log)")
        return super()._send_response(msg_id, result, error)


class TandemServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tandem", __version__, protocol_cls=TandemProtocol)
        self.settings = Settings()
        self.index = IndexService()
        self.service = CompletionService(self.settings, context=self._context,
                                         private=lambda uri: self.index.is_private(uri, self.workspace_roots()),
                                         notify=lambda message: self.report_problems([message]))
        self.next_edit = NextEditService()
        self._reported: set[str] = set()
        self._load_task: asyncio.Task | None = None

    def _context(self, uri: str, prefix: str):
        return self.index.snippets_for(uri, prefix) if self.settings.retrieval else ("", ())

    async def progress(self, title: str, work):
        """Run `work(report)` inside a $/progress begin … end when the client supports it."""
        token = None
        caps = self.client_capabilities
        if caps and caps.window and caps.window.work_done_progress:
            token = str(uuid.uuid4())
            try:
                await self.work_done_progress.create_async(token)
                self.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title))
            except Exception as exc:  # the client may refuse progress; the work goes on
                log.info("no progress reporting: %s", exc)
                token = None

        def report(message: str) -> None:
            if token:
                self.work_done_progress.report(token, types.WorkDoneProgressReport(message=message))

        try:
            return await work(report)
        finally:
            if token:
                self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))

    def workspace_roots(self):
        roots = [uri_to_path(f.uri) for f in (self.workspace.folders or {}).values()]
        if not roots and self.workspace.root_path:
            roots = [uri_to_path(self.workspace.root_uri)] if self.workspace.root_uri else []
        return [r for r in roots if r is not None]

    async def index_workspace(self) -> dict:
        try:
            self.index.add_roots(self.workspace_roots())
        except TandemError as exc:  # e.g. a read-only index home: tell the user once, keep serving
            self.index.state = "error"
            self.report_problems([f"indexing is off: {exc}"])
            return {"files": 0, "chunks": 0, "seconds": 0, "message": f"indexing is off: {exc}"}
        if not self.index.indexes:
            return {"files": 0, "chunks": 0, "seconds": 0, "message": "no workspace folder to index"}
        summary = await self.progress("Tandem: indexing", lambda report: self.index.build(report))
        return {**summary, "message": f"indexed {summary['files']} files ({summary['chunks']} chunks) in {summary['seconds']}s"}

    def report_server_error(self, error: Exception, source) -> None:
        # Garbage from a client (unreadable JSON, a bad notification): one log line, no popup.
        log.warning("protocol error (%s): %s", getattr(source, "__name__", source), str(error).splitlines()[0][:200])

    def report_problems(self, problems: list[str]) -> None:
        """Show each distinct settings/model problem once."""
        for p in problems:
            log.warning("%s", p)
            if p not in self._reported:
                self._reported.add(p)
                self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"Tandem: {p}"))

    def apply_settings(self, raw, source: str = "initialize") -> None:
        old = self.settings
        self.settings, problems = parse_settings(raw, old)
        self.service.settings = self.settings
        received = raw.get("tandem", raw) if isinstance(raw, dict) else {}
        defaults = as_json(Settings())
        changed = {k: v for k, v in as_json(self.settings).items() if v != defaults.get(k)}
        log.info("settings from %s: %d received; not the default: %s", source,
                 len(received) if isinstance(received, dict) else 0,
                 ", ".join(f"{k}={v!r}" for k, v in sorted(changed.items())) or "none")
        self.report_problems(problems)
        if any(getattr(old, k) != getattr(self.settings, k) for k in RELOAD_KEYS) and self._load_task is not None:
            self.start_loading()

    def start_loading(self) -> None:
        self._load_task = asyncio.ensure_future(self._load_with_progress())

    async def _load_with_progress(self) -> None:
        backend = parse_backend(self.settings.backend, self.settings.backend_model)
        title = (f"Tandem: connecting to {backend.shown()}" if backend.remote
                 else f"Tandem: loading {self.settings.model} ({self.settings.precision})")
        await self.progress(title, lambda report: self.service.load())
        state = self.service.state
        if state.status == "error":
            self.report_problems([f"model not loaded: {state.error}"])
            return
        log.info("model ready: %s", state.detail)
        if self.settings.retrieval:  # after the model, so the two do not fight over the cores
            asyncio.ensure_future(self.index_workspace())


server = TandemServer()


@server.feature(types.INITIALIZE)
def on_initialize(ls: TandemServer, params: types.InitializeParams) -> None:
    ls.apply_settings(params.initialization_options)


@server.feature(types.INITIALIZED)
def on_initialized(ls: TandemServer, params: types.InitializedParams) -> None:
    ls.start_loading()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def on_configuration(ls: TandemServer, params: types.DidChangeConfigurationParams) -> None:
    ls.apply_settings(params.settings, "didChangeConfiguration")


def _edit_point(params: types.DidChangeTextDocumentParams, text: str) -> int | None:
    """Index just after the last change: where the cursor almost certainly is."""
    change = params.content_changes[-1] if params.content_changes else None
    if not isinstance(change, types.TextDocumentContentChangePartial):
        return None
    try:
        start = offset_at(text, change.range.start.line, change.range.start.character)
    except TandemError:
        return None
    return start + len(normalise_eol(change.text))


def _too_large(ls: TandemServer, text: str) -> bool:
    """maxFileBytes stops every feature before it does any work (a 5 MB file cost seconds per
    keystroke in next edit's diffing)."""
    return len(text) > ls.settings.max_file_bytes


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def on_open(ls: TandemServer, params: types.DidOpenTextDocumentParams) -> None:
    if not _too_large(ls, params.text_document.text):
        ls.next_edit.opened(params.text_document.uri, normalise_eol(params.text_document.text))


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def on_change(ls: TandemServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.service.document_changed(params.text_document.uri)
    doc = ls.workspace.get_text_document(params.text_document.uri)
    if _too_large(ls, doc.source):
        ls.next_edit.closed(params.text_document.uri)  # no history for it: it gets no suggestions
        return
    text = normalise_eol(doc.source)
    last = params.content_changes[-1] if params.content_changes else None
    line = last.range.start.line if isinstance(last, types.TextDocumentContentChangePartial) else 0
    ls.next_edit.changed(params.text_document.uri, text, line, bool(last and "\n" in last.text))
    if not ls.settings.language_enabled(doc.language_id or ""):
        return
    at = _edit_point(params, text)
    if at is not None:
        ls.service.schedule_prefill(text[:at], text[at:], params.text_document.uri)
    if ls.settings.retrieval:
        ls.index.file_changed(params.text_document.uri, text)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def on_save(ls: TandemServer, params: types.DidSaveTextDocumentParams) -> None:
    if ls.settings.retrieval:
        ls.index.file_saved(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def on_close(ls: TandemServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.service.forget(params.text_document.uri)
    ls.next_edit.closed(params.text_document.uri)


def _moved_on(ls: TandemServer, uri: str, version: int) -> bool:
    """The document was closed or edited since `version`: an answer computed for it is stale."""
    return uri not in ls.workspace.text_documents or ls.workspace.get_text_document(uri).version != version


async def _next_edit(ls: TandemServer, uri: str, norm: str, eol: str) -> NextEdit | None:
    """The next-edit answer for this text, computed on a worker thread (tree-sitter parses)."""
    edits = ls.next_edit.recent(uri)  # the history belongs to the event loop
    return await asyncio.to_thread(ls.next_edit.suggest, uri, norm, eol, edits)


@server.feature("tandem/nextEdit")
async def on_next_edit(ls: TandemServer, params) -> dict | None:
    """{textDocument: {uri}, position} → {uri, range, newText} | null (a contract: docs/architecture.md)."""
    doc_id = getattr(params, "text_document", None) or getattr(params, "textDocument", None)
    if doc_id is None and isinstance(params, dict):
        doc_id = params.get("textDocument")
    uri = doc_id.get("uri") if isinstance(doc_id, dict) else getattr(doc_id, "uri", None)
    if not isinstance(uri, str) or uri not in ls.workspace.text_documents:
        return None
    doc = ls.workspace.get_text_document(uri)
    version = doc.version
    if _too_large(ls, doc.source) or not ls.settings.language_enabled(doc.language_id or ""):
        return None
    norm, eol = normalise_eol(doc.source), detect_eol(doc.source)
    result = await _next_edit(ls, uri, norm, eol)
    if result is None and not _moved_on(ls, uri, version):
        # no pattern applies: the model path, while the user pauses (the next keystroke stops it)
        edits = ls.next_edit.history.recent(uri)
        line = _position_line(params)
        if edits:
            result = await ls.service.run_side(uri, lambda engine, ticket: ls.next_edit.model_suggest(
                engine, uri, norm, eol, edits, line, ticket))
    if result is None or _moved_on(ls, uri, version):
        return None  # never a suggestion for text that has moved on
    return result.to_lsp()


def _position_line(params) -> int | None:
    """The request's cursor line (None when it sends none: the model goes by the last edit)."""
    pos = params.get("position") if isinstance(params, dict) else getattr(params, "position", None)
    line = pos.get("line") if isinstance(pos, dict) else getattr(pos, "line", None)
    return line if isinstance(line, int) and line >= 0 else None


@dataclass(frozen=True)
class Cursor:
    """An inline-completion request in text terms: the document's text with \n line ends, the
    cursor's index in it, and its line."""
    uri: str
    version: int
    language: str
    eol: str
    text: str
    at: int
    line: str
    column: int  # code points into `line`


def _cursor(ls: TandemServer, params: types.InlineCompletionParams) -> Cursor | None:
    uri, pos = params.text_document.uri, params.position
    if uri not in ls.workspace.text_documents:
        log.warning("inlineCompletion for a document that is not open: %s", uri)
        return None
    doc = ls.workspace.get_text_document(uri)
    if _too_large(ls, doc.source):
        ls.service.skipped("file too large")
        return None
    text = normalise_eol(doc.source)
    try:
        at = offset_at(text, pos.line, pos.character, str(ls.workspace.position_encoding or "utf-16"))
    except TandemError as exc:
        log.warning("inlineCompletion at an invalid position %s:%s: %s", pos.line, pos.character, exc)
        return None
    start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
    return Cursor(uri, doc.version, doc.language_id or "", detect_eol(doc.source), text, at,
                  text[start: end if end >= 0 else len(text)], at - start)


@server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
async def on_inline_completion(ls: TandemServer, params: types.InlineCompletionParams) -> list[types.InlineCompletionItem]:
    """A next edit on the cursor's line shows as ghost text first; else the completion."""
    cur, pos = _cursor(ls, params), params.position
    if cur is None:
        return []
    ahead = await _next_edit(ls, cur.uri, cur.text, cur.eol)
    if _moved_on(ls, cur.uri, cur.version):
        return []  # the text moved on while predicting
    ghost = as_ghost_text(ahead, cur.line, pos.line, pos.character)
    if ghost is not None:
        return [types.InlineCompletionItem(insert_text=ghost.text,
                                           range=types.Range(pos, types.Position(pos.line, ghost.end_character)))]
    reason = skip_reason(ls.settings, cur.language, cur.text, cur.line, cur.column)
    if reason:
        ls.service.skipped(reason)
        return []
    suggestion = await ls.service.suggest(cur.uri, cur.text[:cur.at], cur.text[cur.at:])
    if suggestion is None:
        return []
    if _moved_on(ls, cur.uri, cur.version):
        ls.service.stale()
        return []
    return [types.InlineCompletionItem(insert_text=suggestion.text.replace("\n", cur.eol), range=types.Range(pos, pos))]


@server.command("tandem.status")
def cmd_status(ls: TandemServer, *args) -> dict:
    return {**ls.service.status(), "settings": as_json(ls.settings),  # as the server has them now
            "index": {"state": ls.index.state, **(ls.index.last_summary or {})},
            "next_edit": {**ls.next_edit.stats.report(), "model": _next_edit_model(ls)}}


def _next_edit_model(ls: TandemServer) -> str:
    """Whether next edit's model path runs: it needs a model built with Tandem's adapter."""
    engine = ls.service.engine
    if engine is None:
        return "off: no model loaded"
    if is_remote(engine):
        return "off: a remote backend serves no next-edit adapter (patterns only)"
    threshold = engine.next_edit_threshold
    return "off: the model has no next-edit adapter" if threshold is None else f"on (threshold {threshold})"


def _command_args(args: tuple) -> tuple:
    """A command's `arguments`: pygls passes the list as one positional argument."""
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args


@server.command("tandem.planChange")
async def cmd_plan(ls: TandemServer, *args) -> dict:
    return await plan_change(ls, _command_args(args))


@server.command("tandem.indexWorkspace")
async def cmd_index(ls: TandemServer, *args) -> dict:
    return await ls.index_workspace()


def _feedback(command: str, event: str, owner) -> None:
    """tandem.didShow/Accept/Reject…: what the editor did with a suggestion, counted by the
    service that made it (local stats for tandem.status; nothing leaves the machine)."""
    server.command(command)(lambda ls, *args: owner(ls).feedback(event, _command_args(args)))


for _event, _verb in (("shown", "Show"), ("accepted", "Accept"), ("rejected", "Reject")):
    _feedback(f"tandem.did{_verb}Completion", _event, lambda ls: ls.service)
    _feedback(f"tandem.did{_verb}NextEdit", _event, lambda ls: ls.next_edit)


@server.feature(types.SHUTDOWN)
def on_shutdown(ls: TandemServer, *args) -> None:
    ls.service.shutdown()
    ls.index.shutdown()


def serve(tcp: str | None = None) -> int:
    from lsp_server import documents, jsonrpc

    jsonrpc.install()  # the framing loop that neither dies nor goes deaf on bad input
    documents.install()  # documents split into lines where LSP splits them
    logging.basicConfig(level=logging.INFO, format="tandem %(levelname)s %(message)s")
    # pygls logs every message at INFO and tracebacks for client garbage; our handlers and
    # report_server_error log one line per problem instead.
    logging.getLogger("pygls").setLevel(logging.CRITICAL)
    # httpx logs every request line at INFO: a remote backend would write one per keystroke
    logging.getLogger("httpx").setLevel(logging.WARNING)
    try:
        if tcp:
            host, _, port = tcp.rpartition(":")
            server.start_tcp(host or "127.0.0.1", int(port))
        else:
            server.start_io()
    finally:
        server.service.shutdown()
    return jsonrpc.exit_code
