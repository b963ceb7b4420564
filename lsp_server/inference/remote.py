"""Remote backends: completions from an inference engine a team already runs (vLLM, SGLang,
llama.cpp's server, Ollama) instead of the in-process model. Never a server of our own.

    openai:URL    POST URL/completions      raw FIM prompt in Tandem's own format, SSE stream
    llamacpp:URL  POST URL/infill           input_prefix / input_suffix / input_extra, SSE stream
    ollama:URL    POST URL/api/generate     prompt + suffix (the model's own FIM template), NDJSON

Every request streams; `stream()` is a generator whose close() closes the HTTP response, so a
cancelled request stops the engine generating (it sees the connection go). httpx does the HTTP.
The API key comes only from TANDEM_BACKEND_API_KEY and is never logged or shown; URLs are shown
without any user:password part.
"""
from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass

import httpx

from lsp_server.config import BackendSpec
from lsp_server.errors import BackendError
from lsp_server.model_store.manifest import ModelSpec

API_KEY_ENV = "TANDEM_BACKEND_API_KEY"
CONNECT_TIMEOUT_S = 3.0
READ_TIMEOUT_S = 30.0  # between two streamed chunks: a slow engine still answers; a hung one does not hang us


@dataclass(frozen=True)
class FimRequest:
    """What a backend is asked: text around the cursor (already windowed and redacted)."""
    prefix: str
    suffix: str
    max_tokens: int
    prompt: str = ""                    # the raw FIM prompt (openai), built by completion/formats.py
    extra: tuple[tuple[str, str], ...] = ()  # (path, text) snippets from other files (llamacpp)
    stop: tuple[str, ...] = ()


def connect(backend: BackendSpec, model: str | None = None) -> "RemoteEngine":
    """A RemoteEngine for `backend` that answered `check()`, in the prompt format of the manifest
    model `model` (tandem.model; None: the default); BackendError (nothing left open) otherwise."""
    from lsp_server.model_store.manifest import load_manifest

    engine = RemoteEngine(backend, load_manifest().get(model))
    try:
        engine.check()
    except Exception:
        engine.close()
        raise
    return engine


class RemoteEngine:
    """One remote backend: `check()` and the sync `stream()` from a worker thread or the CLI,
    `astream()` on the language server's event loop."""

    remote = True
    next_edit_threshold = None  # next edit's model path needs Tandem's adapter, which no backend serves

    def __init__(self, backend: BackendSpec, spec: ModelSpec, api_key: str | None = None,
                 timeout_s: float = READ_TIMEOUT_S) -> None:
        self.backend = backend
        self.spec = spec  # the model family whose prompt format and stop tokens we use (tandem.model)
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV, "")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.client = httpx.Client(headers=headers, trust_env=False,
                                   timeout=httpx.Timeout(timeout_s, connect=CONNECT_TIMEOUT_S))
        self.model = backend.model
        self.aclient: httpx.AsyncClient | None = None  # made on first use, in the server's event loop
        self.requests = self.failures = 0

    # -- set-up -----------------------------------------------------------------------------
    def check(self) -> None:
        """Reach the engine and settle the model name; BackendError with the reason otherwise."""
        shown = self.backend.shown()
        if self.backend.kind == "llamacpp":
            self._get("/health")
            return
        if self.backend.kind == "openai":
            served = _names(self._get("/models").get("data"), "id")
            if not self.model and not served:
                raise BackendError(f"{shown} serves no model (GET /models is empty)")
            self.model = self.model or served[0]
        else:  # ollama: there is no default model
            served = _names(self._get("/api/tags").get("models"), "name")
            if not self.model:
                raise BackendError(f"{shown}: set tandem.backendModel (Ollama serves: {', '.join(served) or 'nothing'})")
            if f"{self.model}:latest" in served:
                served.append(self.model)
        if (served or self.backend.kind == "ollama") and self.model not in served:  # (an empty /models list: trust it)
            raise BackendError(f"{shown} does not serve model {self.model!r} (it serves: {', '.join(served) or 'nothing'})")

    def describe(self) -> dict:
        return {"backend": self.backend.shown(), "backend_model": self.model or None,
                "backend_requests": self.requests, "backend_failures": self.failures}

    def close(self) -> None:
        self.client.close()

    async def aclose(self) -> None:
        self.client.close()
        if self.aclient is not None:
            await self.aclient.aclose()

    # -- requests ---------------------------------------------------------------------------
    def stream(self, req: FimRequest, cancelled: Callable[[], bool] = lambda: False) -> Iterator[str]:
        """The completion's text as it arrives. Closing the generator (or `cancelled()` turning
        true between chunks) closes the HTTP stream at once."""
        path, body = self._body(req)
        self.requests += 1
        try:
            with self.client.stream("POST", self.backend.url + path, json=body) as response:
                if response.status_code >= 400:
                    response.read()
                    raise self._refused(response)
                for line in response.iter_lines():
                    if cancelled():
                        return
                    piece, done = self._piece(line)
                    if piece:
                        yield piece
                    if done:
                        return
        except httpx.HTTPError as exc:
            raise self._failed(exc) from None

    async def astream(self, req: FimRequest) -> AsyncIterator[str]:
        """stream() for the language server's event loop: cancelling the awaiting task (a newer
        keystroke, $/cancelRequest) closes the connection at once, even before the first chunk."""
        path, body = self._body(req)
        self.requests += 1
        if self.aclient is None:
            self.aclient = httpx.AsyncClient(headers=self.client.headers, trust_env=False, timeout=self.client.timeout)
        try:
            async with self.aclient.stream("POST", self.backend.url + path, json=body) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise self._refused(response)
                async for line in response.aiter_lines():
                    piece, done = self._piece(line)
                    if piece:
                        yield piece
                    if done:
                        return
        except httpx.HTTPError as exc:
            raise self._failed(exc) from None

    def _refused(self, response: httpx.Response) -> BackendError:
        self.failures += 1
        return BackendError(f"{self.backend.shown()} answered {response.status_code}: {_reason(response)}")

    def _failed(self, exc: httpx.HTTPError) -> BackendError:
        self.failures += 1
        if isinstance(exc, httpx.TimeoutException):
            return BackendError(f"{self.backend.shown()} timed out ({exc.__class__.__name__})")
        first = str(exc).splitlines()[0][:160] if str(exc) else ""
        return BackendError(f"{self.backend.shown()} is unreachable or failed mid-answer ({exc.__class__.__name__}: {first})")

    def _get(self, path: str) -> dict:
        base = self.backend.url
        try:
            response = self.client.get(base + path, timeout=httpx.Timeout(5.0, connect=CONNECT_TIMEOUT_S))
        except httpx.HTTPError as exc:
            raise BackendError(f"{self.backend.shown()} is unreachable ({exc.__class__.__name__})") from None
        if response.status_code >= 400:
            raise BackendError(f"{self.backend.shown()} answered {response.status_code} to GET {path}: {_reason(response)}")
        try:
            data = response.json()
        except ValueError:
            raise BackendError(f"{self.backend.shown()} answered GET {path} with something that is not JSON") from None
        return data if isinstance(data, dict) else {}

    def _body(self, req: FimRequest) -> tuple[str, dict]:
        kind = self.backend.kind
        if kind == "openai":
            # a raw prompt with the FIM tokens (vLLM rejects `suffix`; this works on every engine)
            return "/completions", {"model": self.model, "prompt": req.prompt, "max_tokens": req.max_tokens,
                                    "temperature": 0, "stream": True, "stop": list(req.stop)}
        if kind == "llamacpp":
            return "/infill", {"input_prefix": req.prefix, "input_suffix": req.suffix,
                               "input_extra": [{"filename": p, "text": t} for p, t in req.extra],
                               "n_predict": req.max_tokens, "temperature": 0, "top_k": 1, "stream": True,
                               "cache_prompt": True, "stop": list(req.stop)}
        # ollama: the model's own template does FIM with prompt + suffix (raw would skip it)
        return "/api/generate", {"model": self.model, "prompt": req.prefix, "suffix": req.suffix, "raw": False,
                                 "stream": True, "options": {"num_predict": req.max_tokens, "temperature": 0,
                                                             "stop": list(req.stop)}}

    def _piece(self, line: str) -> tuple[str, bool]:
        """One streamed line → (text, finished)."""
        line = line.strip()
        if not line:
            return "", False
        if self.backend.kind == "ollama":  # NDJSON
            data = _json(line)
            if "error" in data:
                raise BackendError(f"{self.backend.shown()}: {str(data['error'])[:200]}")
            return str(data.get("response") or ""), bool(data.get("done"))
        if not line.startswith("data:"):
            return "", False  # SSE comments, event names
        payload = line[5:].strip()
        if payload == "[DONE]":
            return "", True
        data = _json(payload)
        if "error" in data:
            err = data["error"]
            raise BackendError(f"{self.backend.shown()}: {(err.get('message') if isinstance(err, dict) else err)!s:.200}")
        if self.backend.kind == "openai":
            choices = data.get("choices") or [{}]
            choice = choices[0] if isinstance(choices[0], dict) else {}
            return str(choice.get("text") or ""), choice.get("finish_reason") is not None
        return str(data.get("content") or ""), bool(data.get("stop"))


def _names(items, key: str) -> list[str]:
    """The model names in a GET /models (OpenAI) or /api/tags (Ollama) answer."""
    return [m[key] for m in items or () if isinstance(m, dict) and isinstance(m.get(key), str)]


def _json(text: str) -> dict:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _reason(response: httpx.Response) -> str:
    """The engine's own error message (OpenAI, llama.cpp and Ollama shapes), short."""
    data = _json(response.text)
    err = data.get("error", data.get("message", ""))
    if isinstance(err, dict):
        err = err.get("message", "")
    return (str(err) or response.reason_phrase or "error")[:200]
