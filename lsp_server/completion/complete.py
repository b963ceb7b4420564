"""The completion orchestrator: one short function over the stages (Continue's
CompletionProvider is the model). Pure stages, the engine is the only I/O."""
from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from lsp_server.completion.context import CharBudget, fit_window
from lsp_server.completion.formats import Prompt, build_prompt, fim_text, format_for
from lsp_server.completion.postprocess import CursorContext, postprocess, should_stop, wants_multiline
from lsp_server.inference.engine import Engine
from lsp_server.inference.generate import GenerationConfig, GenerationStats
from lsp_server.inference.tokenizer import Healer

if TYPE_CHECKING:  # (httpx and detect-secrets load only when a remote backend is used)
    from lsp_server.inference.remote import FimRequest, RemoteEngine

MAX_TYPED_CHARS = 1000  # a "line" longer than this is data (minified code, a blob): no suggestion


@dataclass(frozen=True)
class CompletionRequest:
    prefix: str
    suffix: str
    multiline: str = "auto"          # auto | always | never
    max_tokens: int = 32             # single-line budget
    max_tokens_multiline: int = 128
    prefix_tokens: int = 1024
    suffix_tokens: int = 96
    reuse_prefix: bool = True
    speculate: bool = True
    budget_ms: float = 0             # keystroke budget: past it, return what is generated (0: none)
    path: str = ""                   # the file's path relative to the workspace (for context)
    snippets: tuple = ()             # retrieval.context.Snippet from other files


@dataclass
class CompletionResult:
    text: str
    latency_ms: float
    multiline: bool = False
    raw: str = ""
    stats: GenerationStats = field(default_factory=GenerationStats)

    def as_dict(self) -> dict:
        return {"completion": self.text, "latency_ms": round(self.latency_ms, 1), "multiline": self.multiline,
                "stats": self.stats.as_dict()}


def cursor_context(prefix: str, suffix: str, mode: str) -> CursorContext:
    head, _, typed = prefix.rpartition("\n")
    previous = next((ln for ln in reversed(head.split("\n")) if ln.strip()), "") if head else ""
    line_suffix, _, rest = suffix.partition("\n")
    multiline = {"always": True, "never": False}.get(mode, None)
    if multiline is None:
        multiline = wants_multiline(previous, typed, line_suffix)
    return CursorContext(typed=typed, line_suffix=line_suffix, following=tuple(rest.split("\n")[:3]),
                         previous=previous, multiline=multiline)


def prepare(engine: Engine, req: CompletionRequest) -> Prompt:
    window = fit_window(engine.tokenizer, req.prefix, req.suffix, req.prefix_tokens, req.suffix_tokens)
    return build_prompt(format_for(engine.spec), engine.tokenizer, window, req.snippets, req.path)


def complete(engine: Engine | RemoteEngine, req: CompletionRequest,
             cancelled: Callable[[], bool] = lambda: False) -> CompletionResult:
    started = time.perf_counter()
    ctx = cursor_context(req.prefix, req.suffix, req.multiline)
    if len(ctx.typed) > MAX_TYPED_CHARS:
        return CompletionResult("", (time.perf_counter() - started) * 1000, ctx.multiline)
    if is_remote(engine):
        return _complete_remote(engine, req, ctx, cancelled, started)
    tok = engine.tokenizer
    prompt = prepare(engine, req)
    cfg = GenerationConfig(
        max_new_tokens=req.max_tokens_multiline if ctx.multiline else req.max_tokens,
        stop_ids=engine.stop_ids,
        healer=Healer(tok, prompt.heal) if prompt.heal else None,
        reuse_prefix=req.reuse_prefix,
        speculate=req.speculate,
    )
    stats = GenerationStats()
    generated: list[int] = []
    heal = prompt.heal.decode("utf-8", errors="replace")
    text = ""
    first_token_at = 0.0
    with closing(engine.generate(prompt.ids, cfg, cancelled, stats)) as tokens:
        for t in tokens:
            first_token_at = first_token_at or time.perf_counter()
            generated.append(t)
            text = tok.decode(generated)[len(heal):]
            if should_stop(text, ctx):
                stats.stop_reason = stats.stop_reason or "filter"
                break
            # the budget is for decoding: prefill time is what it is (and mostly reused)
            if req.budget_ms and text.strip() and (time.perf_counter() - first_token_at) * 1000 > req.budget_ms:
                # A partial suggestion now beats a whole one after the next keystroke; typing
                # through it, or the next request (drafting from this output), continues it.
                stats.stop_reason = "budget"
                break
    final = "" if stats.cancelled else postprocess(text, ctx)
    return CompletionResult(final, (time.perf_counter() - started) * 1000, ctx.multiline, text, stats)


def is_remote(engine) -> bool:
    """A RemoteEngine (inference/remote.py) rather than the in-process model."""
    return bool(getattr(engine, "remote", False))


def remote_request(engine: RemoteEngine, req: CompletionRequest, multiline: bool) -> FimRequest:
    """What a remote engine is sent: the same window as the local model gets (by characters),
    with credential values redacted from every part (secrets.redact), never whole secret files
    (retrieval never indexes them)."""
    window = fit_window(CharBudget(), req.prefix, req.suffix, req.prefix_tokens, req.suffix_tokens)
    from lsp_server.inference.remote import FimRequest
    from lsp_server.secrets import redact

    clean = lambda text: redact(text).text  # noqa: E731
    window = replace(window, before=clean(window.before), typed=clean(window.typed), after=clean(window.after))
    snippets = tuple(replace(s, text=clean(s.text)) for s in req.snippets)
    fmt = format_for(engine.spec)
    return FimRequest(prefix=window.before + window.typed, suffix=window.after,
                      max_tokens=req.max_tokens_multiline if multiline else req.max_tokens,
                      prompt=fim_text(fmt, window, snippets, req.path),
                      extra=tuple((s.path, s.text) for s in snippets), stop=engine.spec.stop_tokens)


class _Collect:
    """The remote loop's state: text so far, the same stop filters and budget as the local loop."""

    def __init__(self, req: CompletionRequest, ctx: CursorContext) -> None:
        self.req, self.ctx, self.text, self.first_at = req, ctx, "", 0.0
        self.stats = GenerationStats(forward_passes=1)  # one model call, for the service's counters

    def add(self, piece: str) -> bool:
        """Take a chunk; True: stop reading (the connection is then closed)."""
        self.first_at = self.first_at or time.perf_counter()
        self.text += piece
        self.stats.generated += 1  # chunks: an engine streams about a token each
        if should_stop(self.text, self.ctx):
            self.stats.stop_reason = "filter"
            return True
        if self.req.budget_ms and self.text.strip() and (time.perf_counter() - self.first_at) * 1000 > self.req.budget_ms:
            self.stats.stop_reason = "budget"
            return True
        return False

    def result(self, started: float, cancelled: bool) -> CompletionResult:
        self.stats.cancelled = cancelled
        final = "" if cancelled else postprocess(self.text, self.ctx)
        return CompletionResult(final, (time.perf_counter() - started) * 1000, self.ctx.multiline, self.text, self.stats)


def _complete_remote(engine: RemoteEngine, req: CompletionRequest, ctx: CursorContext,
                     cancelled: Callable[[], bool], started: float) -> CompletionResult:
    """The remote twin of the loop above: text chunks instead of tokens, the same filters,
    budget and post-processing. Leaving the loop closes the HTTP stream (the engine stops)."""
    collect = _Collect(req, ctx)
    with closing(engine.stream(remote_request(engine, req, ctx.multiline), cancelled)) as pieces:
        for piece in pieces:
            if collect.add(piece):
                break
    return collect.result(started, cancelled())


def prepare_remote(engine: RemoteEngine, req: CompletionRequest) -> tuple[CursorContext, FimRequest | None]:
    """The CPU part of a remote completion (window, redaction), for a worker thread; None: no
    request to make (a data line)."""
    ctx = cursor_context(req.prefix, req.suffix, req.multiline)
    return ctx, (None if len(ctx.typed) > MAX_TYPED_CHARS else remote_request(engine, req, ctx.multiline))


async def complete_remote(engine: RemoteEngine, req: CompletionRequest, ctx: CursorContext, fim: FimRequest,
                          started: float) -> CompletionResult:
    """The language server's remote path, on its event loop: cancelling the awaiting task closes
    the connection at once (CancelledError propagates)."""
    collect = _Collect(req, ctx)
    pieces = engine.astream(fim)
    try:
        async for piece in pieces:
            if collect.add(piece):
                break
    finally:
        await pieces.aclose()
    return collect.result(started, False)
