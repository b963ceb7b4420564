"""The completion service behind `textDocument/inlineCompletion`: engine lifecycle, the newest
request per document wins, typing-through, the LRU cache, idle-time prefill, local stats.

Engine work runs on one worker thread (there is one KV cache and the machine has few cores);
the asyncio side only schedules, cancels and checks that results are not stale.
"""
from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TypeVar

from lsp_server.completion.cache import LruCache, context_key
from lsp_server.completion.complete import (CompletionRequest, CompletionResult, complete, complete_remote, is_remote,
                                            prepare, prepare_remote)
from lsp_server.completion.typing_through import Shown, remainder
from lsp_server.config import Settings, parse_backend
from lsp_server.errors import BackendError
from lsp_server.stats import Stats
from lsp_server.text import indent_of

log = logging.getLogger(__name__)

T = TypeVar("T")
BACKEND_RETRY_S = float(os.environ.get("TANDEM_BACKEND_RETRY_S") or 30)  # a failed backend is tried again after
NEXT_LINE_PAUSE_S = 0.3  # longer than a keystroke gap (~0.125 s at 8 char/s): mid-line it must not fire


@dataclass
class Ticket:
    """One request's claim on a document; a newer request flips `cancelled`."""
    cancelled: bool = False

    def __call__(self) -> bool:
        return self.cancelled


@dataclass
class Suggestion:
    text: str
    source: str          # model | cache | typing-through
    latency_ms: float


@dataclass
class EngineState:
    status: str = "not loaded"   # not loaded | loading | ready | error
    error: str | None = None
    detail: dict = field(default_factory=dict)


def load_engine(settings: Settings):
    """The real engine for these settings (engine thread): the local model, warmed up, or the
    remote backend, reached and its model name settled (BackendError when it cannot serve)."""
    backend = parse_backend(settings.backend, settings.backend_model)
    if backend.remote:
        from lsp_server.inference.remote import connect

        return connect(backend, settings.model)
    from lsp_server.inference.engine import get_engine

    engine = get_engine(settings.model, settings.precision, settings.threads, settings.device)
    engine.warm_up()
    return engine


class CompletionService:
    """`load`: settings → an engine (the real one by default; tests pass a scripted fake)."""

    def __init__(self, settings: Settings, context=None, load: Callable[[Settings], object] = load_engine,
                 private: Callable[[str], bool] = lambda uri: False,
                 notify: Callable[[str], None] = lambda message: None) -> None:
        self.settings = settings
        self._load_engine = load
        # (uri, prefix) -> (relative path, snippets from other files); None: no retrieval
        self.context = context
        self.private = private  # uri → never sent to a remote backend (secret or ignored file)
        self.notify = notify    # a problem the user should read once (the server shows it)
        self.fallback: str | None = None  # why the local model serves instead of the backend
        self.state = EngineState()
        self.engine = None
        self.stats = Stats()
        self.cache = LruCache(256)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tandem-engine")
        self._tickets: dict[str, Ticket] = {}
        self._shown: dict[str, Shown] = {}
        self._prefill_ticket: Ticket | None = None
        self._spare_ticket: Ticket | None = None
        self._side: dict[str, Ticket] = {}  # uri → other engine work (next edit's model path)
        self._streams: dict[str, asyncio.Future] = {}  # uri → a remote completion's stream task
        self._failed_files: tuple = ()  # the model's files when loading failed
        self._checked_at = 0.0
        self._retry_at = 0.0  # when a failed backend may be tried again

    # -- engine lifecycle -------------------------------------------------------------------
    def _load(self, local_only: bool = False) -> None:
        """The configured engine; when a remote backend cannot serve, the local model (if it is
        installed), with the reason kept for tandem.status and shown once."""
        settings = replace(self.settings, backend="local") if local_only else self.settings
        try:
            self.engine = self._load_engine(settings)
            self.fallback = self.fallback if local_only else None
        except BackendError as exc:
            try:
                self.engine = self._load_engine(replace(self.settings, backend="local"))
            except Exception as local_exc:
                raise BackendError(f"{exc}; the local model cannot serve either: {local_exc}") from None
            self.fallback = str(exc)
            self._retry_at = time.monotonic() + BACKEND_RETRY_S

    async def load(self, local_only: bool = False) -> None:
        """Load (or reload after a settings change) the model without blocking the event loop."""
        self.state = EngineState("loading")
        old, self.engine = self.engine, None
        if is_remote(old):
            await old.aclose()
        self.cache = LruCache(256)
        try:
            await asyncio.get_running_loop().run_in_executor(self.executor, self._load, local_only)
        except Exception as exc:  # reported in status and once to the user by the server
            self.state = EngineState("error", str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__)
            self._failed_files = self._model_files()
            log.error("model load failed: %s", self.state.error)
            return
        detail = self.engine.describe()
        if self.fallback:
            detail["backend"] = f"local (fallback: {self.fallback})"
            self.notify(f"{self.fallback}: completions come from the local model until the backend answers again "
                        f"(tried every {BACKEND_RETRY_S:g} s)")
        self.state = EngineState("ready", detail=detail)

    def _model_files(self) -> tuple:
        """(name, size, mtime) of the configured model's files: they change when it is installed,
        repaired or restored."""
        from lsp_server.model_store.manifest import load_manifest
        from lsp_server.model_store.paths import variant_dir

        try:
            spec = load_manifest().get(self.settings.model)
            vdir = variant_dir(spec.name, self.settings.precision or spec.default_precision)
            return tuple(sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in vdir.iterdir()))
        except Exception:  # missing folder, unknown model: nothing to compare
            return ()

    def reload_if_repaired(self) -> bool:
        """After a failed load, load again once the model's files changed (`tandem models install`
        in another terminal): no restart needed. Checked at most every 2 s."""
        if self.state.status != "error" or time.monotonic() - self._checked_at < 2.0:
            return False
        self._checked_at = time.monotonic()
        if self._model_files() == self._failed_files:
            return False
        log.info("the model's files changed: loading again")
        asyncio.ensure_future(self.load())
        return True

    def retry_backend(self) -> bool:
        """While the local model stands in for a backend that failed, try the backend again (on
        a request, at most every BACKEND_RETRY_S) and switch back when it answers — a restarted
        server needs no editor restart. The probe runs off the engine thread."""
        if not self.fallback or self.state.status != "ready" or time.monotonic() < self._retry_at \
                or not parse_backend(self.settings.backend).remote:
            return False
        self._retry_at = time.monotonic() + BACKEND_RETRY_S
        asyncio.ensure_future(self._probe_backend(self.settings))
        return True

    async def _probe_backend(self, settings: Settings) -> None:
        try:
            engine = await asyncio.to_thread(self._load_engine, settings)
        except Exception as exc:  # still down: stay on the local model, say nothing new
            log.info("backend still failing: %s", str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__)
            return
        if settings is not self.settings or not self.fallback or self.state.status != "ready":
            if is_remote(engine):
                await engine.aclose()
            return  # the settings changed or a load began meanwhile: that one decides
        log.info("%s answers again: completions come from it", engine.backend.shown())
        self.engine, self.fallback = engine, None
        self.cache = LruCache(256)
        self.state = EngineState("ready", detail=engine.describe())

    def status(self) -> dict:
        detail = {**self.state.detail, **(self.engine.describe() if is_remote(self.engine) else {})}  # live counters
        return {"engine": self.state.status, "error": self.state.error, "backend": "local", **detail,
                "settings": {"model": self.settings.model, "precision": self.settings.precision},
                "stats": self.stats.report()}

    # -- what became of a request (local stats) --------------------------------------------
    def skipped(self, reason: str) -> None:
        """A request answered with nothing before any model work (see prefilter.skip_reason)."""
        self.stats.skipped += 1
        log.debug("no suggestion: %s", reason)

    def stale(self) -> None:
        """An answer dropped because the document moved on while it was computed."""
        self.stats.stale += 1

    def feedback(self, event: str, args: tuple = ()) -> None:
        self.stats.feedback(event, args)

    # -- requests ---------------------------------------------------------------------------
    def _request(self, prefix: str, suffix: str) -> CompletionRequest:
        s = self.settings
        return CompletionRequest(prefix=prefix, suffix=suffix, multiline=s.multiline, max_tokens=s.max_tokens,
                                 reuse_prefix=s.reuse_prefix, speculate=s.speculate, budget_ms=s.latency_budget_ms)

    async def suggest(self, uri: str, prefix: str, suffix: str) -> Suggestion | None:
        """The suggestion at the cursor, or None (not ready, cancelled, nothing worth showing)."""
        self.reload_if_repaired()
        self.retry_backend()
        started = time.perf_counter()
        self.stats.requests += 1
        previous = self._tickets.get(uri)
        if previous is not None:
            previous.cancelled = True
        self._cancel_stream(uri)
        ticket = self._tickets[uri] = Ticket()
        self._cancel_side(uri)  # the keystroke path goes first
        if self._prefill_ticket is not None:
            self._prefill_ticket.cancelled = True
        self._cancel_spare()

        suggestion = await self._suggest(uri, prefix, suffix, ticket, started)
        if not ticket.cancelled:
            # Whatever the answer, the line may end here: get the next one ready. The text as
            # typed, not with the suggestion: accepting it is an edit that comes back here anyway.
            self.schedule_next_line(uri, prefix, suffix)
        return suggestion

    async def _suggest(self, uri: str, prefix: str, suffix: str, ticket: Ticket, started: float) -> Suggestion | None:
        rest = remainder(self._shown.get(uri), prefix, suffix) if self.settings.typing_through else None
        if rest is not None:
            self.stats.typing_through += 1
            return self._done(Suggestion(rest, "typing-through", 0.0), started)
        if self.engine is None:
            return None
        if is_remote(self.engine) and self.private(uri):
            self.skipped("a secret or ignored file is never sent to a remote backend")
            return None
        key = context_key(prefix, suffix, self.settings.model)
        cached = self.cache.get(key) if self.settings.cache else None
        if cached is not None:
            self.stats.cache_hits += 1
            self._shown[uri] = Shown(prefix, suffix, cached)
            return self._done(Suggestion(cached, "cache", 0.0), started)
        if self.settings.debounce_ms:
            await asyncio.sleep(self.settings.debounce_ms / 1000)
            if ticket.cancelled:
                self.stats.cancelled += 1
                return None
        engine, req = self.engine, self._request(prefix, suffix)
        try:
            if is_remote(engine):
                result = await self._remote(uri, engine, req, ticket, started)
            else:
                result = await asyncio.get_running_loop().run_in_executor(self.executor, self._complete, uri, engine, req, ticket)
        except asyncio.CancelledError:  # $/cancelRequest: stop the generation at its next step
            ticket.cancelled = True
            self.stats.cancelled += 1
            raise
        except BackendError as exc:  # the engine went away or failed mid-answer
            self._backend_failed(engine, str(exc))
            return None
        if result is None:  # a remote request cancelled by a newer keystroke or an edit
            self.stats.cancelled += 1
            return None
        if result.stats.forward_passes:
            self.stats.model_calls += 1
        if ticket.cancelled or result.stats.cancelled:
            self.stats.cancelled += 1
            return None
        if result.stats.stop_reason != "budget":  # a cut-short suggestion is not the answer to cache
            self.cache.put(key, result.text)
        if not result.text:
            return None
        self._shown[uri] = Shown(prefix, suffix, result.text)
        return self._done(Suggestion(result.text, "model", result.latency_ms), started)

    async def _remote(self, uri: str, engine, req: CompletionRequest, ticket: Ticket, started: float):
        """A remote completion: the window and redaction on the engine thread, the stream on the
        event loop as its own task, which a newer keystroke or an edit cancels — closing the
        connection at once. None when it was cancelled so."""
        loop = asyncio.get_running_loop()
        ctx, fim = await loop.run_in_executor(self.executor, lambda: prepare_remote(engine, self._with_context(uri, req)))
        if fim is None:
            return CompletionResult("", (time.perf_counter() - started) * 1000, ctx.multiline)
        if ticket.cancelled:
            return None
        task = self._streams[uri] = asyncio.ensure_future(complete_remote(engine, req, ctx, fim, started))
        try:
            return await task
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():  # this request itself was cancelled
                raise
            return None
        finally:
            if self._streams.get(uri) is task:
                del self._streams[uri]

    def _cancel_stream(self, uri: str) -> None:
        task = self._streams.pop(uri, None)
        if task is not None:
            task.cancel()

    def _with_context(self, uri: str, req: CompletionRequest) -> CompletionRequest:
        """Add retrieval snippets (cached per region by the index service); engine thread only."""
        if self.context is None or not uri:
            return req
        path, snippets = self.context(uri, req.prefix)
        return replace(req, path=path, snippets=snippets)

    def _complete(self, uri: str, engine, req: CompletionRequest, ticket: Ticket):
        return complete(engine, req if ticket.cancelled else self._with_context(uri, req), ticket)

    def _done(self, s: Suggestion, started: float) -> Suggestion:
        self.stats.latencies_ms.append((time.perf_counter() - started) * 1000)
        return s if s.text else None

    def _backend_failed(self, engine, reason: str) -> None:
        """A remote backend that failed while serving: say so once and serve from the local model."""
        if self.engine is not engine:  # already switched
            return
        log.warning("%s", reason)
        self.fallback = reason
        self._retry_at = time.monotonic() + BACKEND_RETRY_S
        asyncio.ensure_future(self.load(local_only=True))

    def document_changed(self, uri: str) -> None:
        """A request in flight for this document now answers an outdated version: stop it."""
        ticket = self._tickets.get(uri)
        if ticket is not None:
            ticket.cancelled = True
        self._cancel_stream(uri)
        self._cancel_side(uri)
        self._cancel_spare()

    async def run_side(self, uri: str, work: Callable[[object, Ticket], T]) -> T | None:
        """Engine work other than completion, `work(engine, ticket)` on the engine thread (next
        edit's model path), cancelled by an edit of the document, a completion request, a newer
        side request, or $/cancelRequest. None when no model is loaded."""
        if self.engine is None or is_remote(self.engine):
            return None
        self._cancel_side(uri)
        ticket = self._side[uri] = Ticket()
        try:
            return await asyncio.get_running_loop().run_in_executor(self.executor, work, self.engine, ticket)
        except asyncio.CancelledError:
            ticket.cancelled = True
            raise
        finally:
            if self._side.get(uri) is ticket:
                del self._side[uri]

    def _cancel_side(self, uri: str) -> None:
        ticket = self._side.pop(uri, None)
        if ticket is not None:
            ticket.cancelled = True

    def _cancel_spare(self) -> None:
        if self._spare_ticket is not None:
            self._spare_ticket.cancelled = True
            self._spare_ticket = None

    def schedule_next_line(self, uri: str, prefix: str, suffix: str, pause_s: float = NEXT_LINE_PAUSE_S) -> None:
        """When the cursor ends a line and the user pauses, prefill the prompt they will ask for
        after Enter (with the editor's auto-indent) into the engine's spare KV cache: starting
        a line otherwise recomputes the whole suffix (~100 tokens, ~0.35 s)."""
        line_suffix = suffix.split("\n", 1)[0]
        line = prefix.rsplit("\n", 1)[-1]
        if self.engine is None or is_remote(self.engine) or not self.settings.reuse_prefix or line_suffix.strip() \
                or not line.strip():
            return
        indent = indent_of(line)
        if line.rstrip().endswith((":", "{", "(", "[")):
            indent += "\t" if indent.startswith("\t") else "    "
        self._cancel_spare()
        ticket = self._spare_ticket = Ticket()
        engine, req = self.engine, self._request(prefix + "\n" + indent, suffix)

        def run() -> None:
            if not ticket.cancelled:
                engine.prefill_spare(prepare(engine, self._with_context(uri, req)).ids, ticket)

        asyncio.get_running_loop().call_later(pause_s, lambda: ticket.cancelled or self.executor.submit(run))

    def forget(self, uri: str) -> None:
        ticket = self._tickets.pop(uri, None)
        if ticket is not None:
            ticket.cancelled = True
        self._cancel_stream(uri)
        self._cancel_side(uri)
        self._shown.pop(uri, None)

    def schedule_prefill(self, prefix: str, suffix: str, uri: str = "") -> None:
        """After an edit, compute the KV cache for the prompt at the edit point while the user
        pauses; any completion request cancels it (it then reuses whatever was computed)."""
        if self.engine is None or is_remote(self.engine) or not self.settings.reuse_prefix:
            return  # (a remote engine keeps its own prompt cache)
        if self._prefill_ticket is not None:
            self._prefill_ticket.cancelled = True
        ticket = self._prefill_ticket = Ticket()
        engine, req = self.engine, self._request(prefix, suffix)

        def run() -> None:
            if not ticket.cancelled:
                engine.prefill(prepare(engine, self._with_context(uri, req)).ids, ticket)

        self.executor.submit(run)

    def shutdown(self) -> None:
        self._cancel_spare()
        for uri in list(self._streams):
            self._cancel_stream(uri)
        for t in [*self._tickets.values(), *self._side.values()]:
            t.cancelled = True
        if self._prefill_ticket is not None:
            self._prefill_ticket.cancelled = True
        self.executor.shutdown(wait=False, cancel_futures=True)
