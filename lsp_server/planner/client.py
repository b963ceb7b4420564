"""The only module that talks to the frontier model (`anthropic` SDK, Messages API).

One streamed request with the `propose_edits` tool forced; each file's sketch is handed on as
soon as its JSON object is complete, so expansion starts while the rest is still arriving.
`repair` continues the same conversation when some sketches could not be expanded: the tool's
result names each file and the expander's reason, and the model writes those sketches again
(the cached system prompt and context are the same prefix, so the second request is cheap).
Retries with back-off on 429 / 5xx / 529 overloaded are the SDK's (it honours retry-after);
every failure becomes a PlannerError with a message a user can act on. The API key is read
from the argument or ANTHROPIC_API_KEY and never appears in a message or a log line.
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from typing import Callable

from lsp_server.config import DEFAULT_PLANNER_MODEL, Settings
from lsp_server.errors import TandemError
from lsp_server.apply.change import FileSketch
from lsp_server.planner.prompt import TOOL, PlanRequest, build_prompt, repair_turn

log = logging.getLogger(__name__)



class PlannerError(TandemError):
    """The planner could not produce a plan; str() says why and what to do."""


@dataclass(frozen=True)
class PlannerConfig:
    model: str = DEFAULT_PLANNER_MODEL
    max_tokens: int = 8192
    timeout_s: float = 120.0
    max_retries: int = 3
    context_tokens: int = 12000
    repair_rounds: int = 1          # sketches the expander could not place go back this many times
    api_key: str | None = None      # None: ANTHROPIC_API_KEY
    base_url: str | None = None     # None: ANTHROPIC_BASE_URL or the SDK's default

    @classmethod
    def from_settings(cls, settings: Settings) -> "PlannerConfig":
        return cls(model=settings.planner_model, max_tokens=settings.planner_max_tokens,
                   timeout_s=float(settings.planner_timeout_s), max_retries=settings.planner_max_retries,
                   context_tokens=settings.planner_context_tokens, repair_rounds=settings.planner_repair_rounds)


@dataclass
class PlanResult:
    sketches: list[FileSketch]
    sent: list[str]
    dropped: list[str]
    stop_reason: str | None = None
    usage: dict = field(default_factory=dict)
    # the conversation so far, for a repair round: the request, then the planner's answer
    system: list[dict] = field(default_factory=list)
    messages: list[dict] = field(default_factory=list)
    tool_use_id: str = ""


class SketchStream:
    """Pulls complete `{...}` objects out of the `edits` array of a JSON document that arrives
    in pieces (input_json_delta events). Pure; tolerant of any split point."""

    def __init__(self) -> None:
        self.buf = ""
        self.pos = -1       # scan position inside the edits array (-1: array not found yet)
        self.depth = 0
        self.start = -1
        self.in_str = False
        self.escape = False

    def feed(self, piece: str) -> list[dict]:
        self.buf += piece
        out: list[dict] = []
        if self.pos < 0:
            key = self.buf.find('"edits"')
            if key < 0:
                return out
            bracket = self.buf.find("[", key)
            if bracket < 0:
                return out
            self.pos = bracket + 1
        while self.pos < len(self.buf):
            ch = self.buf[self.pos]
            if self.in_str:
                if self.escape:
                    self.escape = False
                elif ch == "\\":
                    self.escape = True
                elif ch == '"':
                    self.in_str = False
            elif ch == '"':
                self.in_str = True
            elif ch == "{":
                if self.depth == 0:
                    self.start = self.pos
                self.depth += 1
            elif ch == "}":
                self.depth -= 1
                if self.depth == 0 and self.start >= 0:
                    try:
                        out.append(json.loads(self.buf[self.start:self.pos + 1]))
                    except json.JSONDecodeError:
                        pass  # reported from the final message instead
                    self.start = -1
            self.pos += 1
        return out


def parse_edit(obj: object) -> FileSketch:
    """One tool-input entry → FileSketch, or PlannerError for malformed input."""
    if not isinstance(obj, dict) or not isinstance(obj.get("path"), str) or not isinstance(obj.get("sketch"), str):
        raise PlannerError("the planner's answer was malformed (an edit without a path or sketch); nothing was applied")
    path = obj["path"].strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    if not path:
        raise PlannerError("the planner's answer was malformed (an empty path); nothing was applied")
    summary = obj.get("summary") if isinstance(obj.get("summary"), str) else ""
    return FileSketch(path=path, sketch=obj["sketch"], summary=summary)


def _client(cfg: PlannerConfig):
    import anthropic

    key = cfg.api_key or os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise PlannerError("no Anthropic API key: set ANTHROPIC_API_KEY (in VS Code: 'Tandem: Set Anthropic API key')")
    return anthropic.Anthropic(api_key=key, base_url=cfg.base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
                               timeout=cfg.timeout_s, max_retries=cfg.max_retries)


def _explain(exc: Exception, cfg: PlannerConfig, mid_stream: bool = False) -> PlannerError:
    """The user's message for an SDK error. mid_stream: the answer had begun (the SDK does not
    retry then, so no "after N retries")."""
    import anthropic

    if mid_stream and isinstance(exc, anthropic.APIStatusError):
        overloaded = getattr(exc, "status_code", 0) == 529 or "overloaded" in str(exc).lower()
        what = "became overloaded" if overloaded else "failed"
        return PlannerError(f"the Anthropic API {what} in the middle of its answer; nothing was applied; try again")

    if isinstance(exc, anthropic.AuthenticationError):
        return PlannerError("the Anthropic API rejected the key (401): check ANTHROPIC_API_KEY")
    if isinstance(exc, anthropic.PermissionDeniedError):
        return PlannerError("the Anthropic API refused access for this key (403)")
    if isinstance(exc, anthropic.NotFoundError):
        return PlannerError(f"the Anthropic API does not know the model {cfg.model!r} (404): check tandem.plannerModel")
    if isinstance(exc, anthropic.RateLimitError):
        return PlannerError(f"the Anthropic API is rate limiting this key (429) after {cfg.max_retries} retries; try again later")
    if isinstance(exc, anthropic.APITimeoutError):
        return PlannerError(f"the planner did not answer within {cfg.timeout_s:g} s (tandem.plannerTimeoutS)")
    if isinstance(exc, anthropic.APIConnectionError):
        return PlannerError("could not reach the Anthropic API (network error); nothing was sent or applied")
    if isinstance(exc, anthropic.APIStatusError):
        overloaded = exc.status_code == 529 or "overloaded" in str(exc).lower()
        what = "is overloaded (529)" if overloaded else f"failed ({exc.status_code})"
        return PlannerError(f"the Anthropic API {what} after {cfg.max_retries} retries; try again later")
    return PlannerError(f"the planner failed: {exc.__class__.__name__}")


def plan(req: PlanRequest, cfg: PlannerConfig, on_sketch: Callable[[FileSketch], None] | None = None,
         cancelled: Callable[[], bool] = lambda: False) -> PlanResult:
    """Ask the frontier model for sketches. `on_sketch` sees each file as soon as it is complete."""
    prompt = build_prompt(req, cfg.context_tokens)
    return _ask(cfg, prompt.system, prompt.messages, prompt.sent, prompt.dropped, on_sketch, cancelled)


def repair(previous: PlanResult, failures: list[tuple[str, str]], cfg: PlannerConfig,
           on_sketch: Callable[[FileSketch], None] | None = None,
           cancelled: Callable[[], bool] = lambda: False) -> PlanResult:
    """Ask again for the sketches of the files in `failures` ((path, the expander's reason)),
    continuing the conversation of `previous`: nothing is sent that was not sent before except
    the reasons."""
    messages = previous.messages + [repair_turn(previous.tool_use_id, failures)]
    return _ask(cfg, previous.system, messages, previous.sent, previous.dropped, on_sketch, cancelled)


def _ask(cfg: PlannerConfig, system: list[dict], messages: list[dict], sent: list[str], dropped: list[str],
         on_sketch, cancelled) -> PlanResult:
    """One streamed request; the result carries the conversation with the planner's answer."""
    import anthropic

    client = _client(cfg)
    stream_parser = SketchStream()
    seen = 0
    stopped = False  # message_stop seen: the answer is whole
    begun = False  # an event arrived: errors now are mid-answer
    try:
        with client.messages.stream(model=cfg.model, max_tokens=cfg.max_tokens, system=system,
                                    messages=messages, tools=[TOOL],
                                    tool_choice={"type": "tool", "name": TOOL["name"]}) as stream:
            for event in stream:
                if cancelled():
                    raise PlannerError("planning was cancelled; nothing was applied")
                stopped = stopped or event.type == "message_stop"
                begun = True
                if event.type == "content_block_delta" and getattr(event.delta, "type", "") == "input_json_delta":
                    for obj in stream_parser.feed(event.delta.partial_json):
                        seen += 1
                        if on_sketch:
                            on_sketch(parse_edit(obj))
            final = stream.get_final_message()
    except anthropic.AnthropicError as exc:
        raise _explain(exc, cfg, begun) from None
    if not stopped or final.stop_reason is None:
        # a connection that closed early still leaves a message snapshot: a plan is all or nothing
        raise PlannerError("the planner's answer ended before it was complete (the connection closed early); "
                           "nothing was applied")
    if final.stop_reason == "refusal":
        raise PlannerError("the planner declined this request (refusal); nothing was applied")
    if final.stop_reason == "max_tokens":
        raise PlannerError(f"the plan was cut off at {cfg.max_tokens} tokens (tandem.plannerMaxTokens); nothing was applied")
    tool = next((b for b in final.content if b.type == "tool_use" and b.name == TOOL["name"]), None)
    if tool is None:
        said = " ".join(b.text for b in final.content if b.type == "text").strip()
        raise PlannerError(f"the planner proposed no edits: {said[:300] or '(no answer)'}")
    edits = tool.input.get("edits") if isinstance(tool.input, dict) else None
    if not isinstance(edits, list):
        raise PlannerError("the planner's answer was malformed (no list of edits); nothing was applied")
    sketches = [parse_edit(e) for e in edits]
    if on_sketch:  # anything the stream parser could not see early
        for s in sketches[seen:]:
            on_sketch(s)
    usage = final.usage.model_dump() if hasattr(final.usage, "model_dump") else {}
    log.info("planner: %d file(s), stop %s, usage %s", len(sketches), final.stop_reason, usage)
    answer = [{"type": "text", "text": b.text} if b.type == "text" else
              {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input}
              for b in final.content if b.type in ("text", "tool_use")]
    return PlanResult(sketches=sketches, sent=sent, dropped=dropped, stop_reason=final.stop_reason, usage=usage,
                      system=system, messages=messages + [{"role": "assistant", "content": answer}],
                      tool_use_id=tool.id)
