"""Typed settings under `tandem.*`, from initializationOptions and workspace/didChangeConfiguration.

Every setting has a default; a value of the wrong type or out of range is reported (once per
distinct problem) and replaced by the default, never fatal (jedi-language-server's approach).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from lsp_server.errors import TandemError

DEFAULT_PLANNER_MODEL = "claude-sonnet-5-5"  # (claude-sonnet-4-5 reaches end of life 2026-11-30)
MULTILINE_MODES = ("auto", "always", "never")
DEVICES = ("auto", "cpu", "cuda", "tensorrt", "rocm", "dml", "coreml", "openvino")  # inference/device.py
PRECISIONS = ("int8", "int4", "fp16")
BACKEND_KINDS = ("local", "openai", "llamacpp", "ollama")  # inference/remote.py


@dataclass(frozen=True)
class BackendSpec:
    kind: str          # local | openai | llamacpp | ollama
    url: str = ""      # base URL, no trailing slash
    model: str = ""    # the served model's name ("" = the engine's only/default model where it has one)

    @property
    def remote(self) -> bool:
        return self.kind != "local"

    def shown(self) -> str:
        """For logs and tandem.status: no credentials in the URL."""
        return "local" if not self.remote else f"{self.kind}:{safe_url(self.url)}"


def safe_url(url: str) -> str:
    """The URL without user:password, query or fragment (what may be logged and shown)."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def parse_backend(value: str, model: str = "") -> BackendSpec:
    """`local`, or KIND:URL with an http(s) URL. Raises TandemError with what is wrong."""
    value = (value or "local").strip()
    if value == "local":
        return BackendSpec("local")
    kind, sep, url = value.partition(":")
    if not sep or kind not in BACKEND_KINDS[1:]:
        raise TandemError("backend: expected local, openai:URL, llamacpp:URL or ollama:URL")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise TandemError(f"backend {kind}: expected an http(s) URL after '{kind}:' (e.g. {kind}:http://127.0.0.1:8080)")
    return BackendSpec(kind, url.rstrip("/"), model.strip())


def backend_problem(value: str) -> str | None:
    try:
        parse_backend(value)
    except TandemError as exc:  # "backend …: reason" → the reason (the caller names the setting)
        return str(exc).split(": ", 1)[1]
    return None


@dataclass(frozen=True)
class Settings:
    enable: bool = True
    languages: dict[str, bool] = field(default_factory=dict)  # languageId -> enabled; absent = enabled
    model: str = "qwen2.5-coder-0.5b"
    precision: str = "int8"
    max_tokens: int = 32
    multiline: str = "auto"
    debounce_ms: int = 0
    latency_budget_ms: int = 250  # a suggestion is cut short rather than shown after this (0: never)
    threads: int = 0
    device: str = "auto"      # execution provider: auto | cpu | cuda | ... (inference/device.py)
    max_file_bytes: int = 1_000_000
    retrieval: bool = True   # index the workspace; snippets from other files in completion prompts
    # Speed features; switched off only to measure what they buy (bench/typing.py).
    cache: bool = True
    typing_through: bool = True
    reuse_prefix: bool = True
    speculate: bool = True
    # The planner (tandem.planChange): the frontier model and its limits.
    planner_model: str = field(default_factory=lambda: os.environ.get("TANDEM_PLANNER_MODEL") or DEFAULT_PLANNER_MODEL)
    planner_max_tokens: int = 8192
    planner_timeout_s: int = 120
    planner_max_retries: int = 3
    planner_context_tokens: int = 12000
    planner_repair_rounds: int = 1  # sketches the expander could not place, sent back with the reason
    # Where completions come from: the in-process model, or an inference engine a team runs.
    backend: str = field(default_factory=lambda: os.environ.get("TANDEM_BACKEND") or "local")
    backend_model: str = field(default_factory=lambda: os.environ.get("TANDEM_BACKEND_MODEL") or "")

    def language_enabled(self, language_id: str) -> bool:
        return self.enable and self.languages.get(language_id, True)


@dataclass(frozen=True)
class Option:
    """One setting under `tandem.*`: the single source of client-vscode/package.json's
    `contributes.configuration` and the README's table (tests/unit/test_settings_schema.py;
    `python -m lsp_server.config --write` regenerates both)."""
    key: str                  # the JSON name
    attr: str                 # the Settings field
    kind: str                 # boolean | integer | string | object
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    # a string whose empty value means "the default" (VS Code sends "" for a string it has no
    # default for): the default then comes from elsewhere (an environment variable)
    optional: bool = False
    doc_default: str = ""     # the README's default column when the default is not a constant
    validate: Callable[[str], str | None] | None = None  # a string's own syntax (the problem, or None)

    def check(self, v: Any) -> str | None:
        """The problem with a value, or None."""
        if self.kind == "boolean":
            return None if isinstance(v, bool) else "must be true or false"
        if self.kind == "integer":
            if isinstance(v, bool) or not isinstance(v, int) or not self.minimum <= v <= self.maximum:
                return f"must be an integer from {self.minimum} to {self.maximum}"
            return None
        if self.kind == "object":  # languageId -> enabled
            if isinstance(v, dict) and all(isinstance(k, str) and isinstance(b, bool) for k, b in v.items()):
                return None
            return 'must be an object like {"markdown": false}'
        if self.choices:
            return None if v in self.choices else f"must be one of {', '.join(self.choices)}"
        if not isinstance(v, str) or not v.strip():
            return "must be a non-empty string"
        return self.validate(v) if self.validate else None


def _completion_models() -> tuple[str, ...]:
    from lsp_server.model_store.manifest import load_manifest

    return tuple(sorted(n for n, spec in load_manifest().models.items() if spec.role == "completion"))


SCHEMA: tuple[Option, ...] = (
    Option("enable", "enable", "boolean", "Inline completions from the local model."),
    Option("languages", "languages", "object", 'Per-language switch, e.g. {"markdown": false}.'),
    Option("model", "model", "string", "Local model (see `tandem models list`).", _completion_models()),
    Option("precision", "precision", "string", "Model precision: int8 (quality, CPU), int4 (smaller), fp16 (GPU).",
           PRECISIONS),
    Option("maxTokens", "max_tokens", "integer", "Longest single-line suggestion, in tokens.", minimum=1, maximum=256),
    Option("multiline", "multiline", "string",
           "Multi-line suggestions: after a block opener on an empty line (auto), always, or never.", MULTILINE_MODES),
    Option("debounceMs", "debounce_ms", "integer",
           "Wait before starting the model (requests are cancelled by newer ones anyway).", minimum=0, maximum=2000),
    Option("latencyBudgetMs", "latency_budget_ms", "integer",
           "Show the suggestion generated so far after this many ms of decoding (0: no limit).",
           minimum=0, maximum=10000),
    Option("threads", "threads", "integer", "ONNX Runtime threads (0: all cores).", minimum=0, maximum=256),
    Option("device", "device", "string",
           "Where the local model runs: auto picks a GPU provider that works, else the CPU.", DEVICES),
    Option("maxFileBytes", "max_file_bytes", "integer", "No suggestions in larger files.",
           minimum=1000, maximum=100_000_000),
    Option("retrieval", "retrieval", "boolean", "Index the workspace and show the model snippets from other files."),
    Option("cache", "cache", "boolean", "Reuse suggestions for text seen before (off only to measure it)."),
    Option("typingThrough", "typing_through", "boolean",
           "Keep showing a suggestion the user types into (off only to measure it)."),
    Option("reusePrefix", "reuse_prefix", "boolean",
           "Reuse the model's KV cache across keystrokes (off only to measure it)."),
    Option("speculate", "speculate", "boolean", "Speculative decoding from earlier text (off only to measure it)."),
    Option("backend", "backend", "string",
           "Where completions come from: local (the model in this process), or an inference server your team "
           "runs: openai:URL (vLLM, SGLang, llama.cpp: POST URL/completions), llamacpp:URL (llama.cpp's /infill), "
           "ollama:URL. The API key is read from TANDEM_BACKEND_API_KEY only.",
           optional=True, doc_default="TANDEM_BACKEND, else `local`", validate=backend_problem),
    Option("backendModel", "backend_model", "string",
           "The model name the backend serves (empty: TANDEM_BACKEND_MODEL, else the server's only model; "
           "Ollama needs it).", optional=True, doc_default="TANDEM_BACKEND_MODEL, else the server's"),
    Option("plannerModel", "planner_model", "string",
           "Frontier model for Tandem: Plan a change (empty: TANDEM_PLANNER_MODEL, else claude-sonnet-5-5).",
           optional=True, doc_default=f"TANDEM_PLANNER_MODEL, else `{DEFAULT_PLANNER_MODEL}`"),
    Option("plannerMaxTokens", "planner_max_tokens", "integer", "Most tokens the planner may answer with.",
           minimum=256, maximum=64000),
    Option("plannerTimeoutS", "planner_timeout_s", "integer", "Seconds to wait for the planner.",
           minimum=5, maximum=3600),
    Option("plannerMaxRetries", "planner_max_retries", "integer",
           "Retries (with back-off) on 429, 5xx and overloaded answers.", minimum=0, maximum=10),
    Option("plannerContextTokens", "planner_context_tokens", "integer", "How much code the planner is sent at most.",
           minimum=1000, maximum=200000),
    Option("plannerRepairRounds", "planner_repair_rounds", "integer",
           "Times a sketch Tandem cannot place goes back to the planner with the reason (0: fail at once).",
           minimum=0, maximum=3),
)
OPTIONS = {o.key: o for o in SCHEMA}

# Settings that editors keep under `tandem` for themselves (the server ignores them silently).
CLIENT_ONLY = {
    "serverCommand": {"type": "array", "items": {"type": "string"}, "default": [],
                      "description": 'Command line that starts the server, e.g. ["/path/to/.venv/bin/tandem", '
                                     '"serve"]. Empty: `tandem serve` from PATH, else `python -m lsp_server serve` '
                                     "with the active Python interpreter."},
}


def parse_settings(raw: Any, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Settings from a `tandem` object (or `{"tandem": {...}}`); returns (settings, problems)."""
    base = base or Settings()
    problems: list[str] = []
    if isinstance(raw, dict) and isinstance(raw.get("tandem"), dict):
        raw = raw["tandem"]
    if raw is None:
        return base, problems
    if not isinstance(raw, dict):
        return base, [f"tandem settings must be an object, got {type(raw).__name__}; using defaults"]
    defaults = Settings()
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        if key in CLIENT_ONLY:
            continue
        option = OPTIONS.get(key)
        if option is None:
            problems.append(f"unknown setting tandem.{key} (ignored)")
            continue
        attr = option.attr
        if option.optional and (value is None or value == ""):
            changes[attr] = getattr(defaults, attr)  # unset: silently the default
            continue
        error = option.check(value)
        if error:
            problems.append(f"tandem.{key} {error}; using the default {getattr(defaults, attr)!r}")
            changes[attr] = getattr(defaults, attr)
        else:
            changes[attr] = value
    return replace(base, **changes), problems


def as_json(settings: Settings) -> dict:
    attr_to_key = {o.attr: o.key for o in SCHEMA}
    return {attr_to_key[f.name]: getattr(settings, f.name) for f in fields(settings)}


# --- the schema's other homes ------------------------------------------------------------------

def contributes_configuration() -> dict:
    """client-vscode/package.json's `contributes.configuration`, from SCHEMA."""
    defaults = Settings()
    props: dict[str, dict] = {"tandem.serverCommand": CLIENT_ONLY["serverCommand"]}
    for o in SCHEMA:
        p: dict[str, Any] = {"type": o.kind, "default": "" if o.optional else getattr(defaults, o.attr)}
        if o.choices:
            p["enum"] = list(o.choices)
        if o.minimum is not None:
            p["minimum"], p["maximum"] = o.minimum, o.maximum
        p["description"] = o.description
        props[f"tandem.{o.key}"] = p
    return {"title": "Tandem", "properties": props}


def readme_table() -> str:
    """The README's settings table, from SCHEMA."""
    import json

    defaults = Settings()
    rows = ["| setting | default | meaning |", "|---|---|---|"]
    for o in SCHEMA:
        default = o.doc_default or f"`{json.dumps(getattr(defaults, o.attr))}`".replace('`"', "`").replace('"`', "`")
        meaning = o.description.replace("|", "/")
        if o.choices:
            meaning += " One of " + ", ".join(f"`{c}`" for c in o.choices) + "."
        rows.append(f"| `{o.key}` | {default} | {meaning} |")
    return "\n".join(rows) + "\n"


README_BEGIN, README_END = "<!-- settings: generated from lsp_server/config.py -->\n", "<!-- settings end -->\n"


def _write() -> None:
    """Rewrite package.json's configuration and the README's table from SCHEMA."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    pkg_path = root / "client-vscode" / "package.json"
    pkg = json.loads(pkg_path.read_text())
    pkg["contributes"]["configuration"] = contributes_configuration()
    pkg_path.write_text(json.dumps(pkg, indent=2, ensure_ascii=False) + "\n")
    readme = root / "README.md"
    text = readme.read_text()
    a, b = text.index(README_BEGIN) + len(README_BEGIN), text.index(README_END)
    readme.write_text(text[:a] + readme_table() + text[b:])


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m lsp_server.config --write")
    _write()
