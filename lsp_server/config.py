"""Typed settings under `tandem.*`, from initializationOptions and workspace/didChangeConfiguration.

Every setting has a default; a value of the wrong type or out of range is reported (once per
distinct problem) and replaced by the default, never fatal (jedi-language-server's approach).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from typing import Any

from lsp_server.inference.device import DEVICES

DEFAULT_PLANNER_MODEL = "claude-sonnet-5-5"  # (claude-sonnet-4-5 reaches end of life 2026-11-30)
MULTILINE_MODES = ("auto", "always", "never")
PRECISIONS = ("int8", "int4", "fp16")


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

    def language_enabled(self, language_id: str) -> bool:
        return self.enable and self.languages.get(language_id, True)


# JSON name -> (attribute, validator returning an error string or None)
def _int_range(lo: int, hi: int):
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            return f"must be an integer from {lo} to {hi}"
        return None
    return check


def _choice(options: tuple[str, ...]):
    def check(v: Any) -> str | None:
        return None if v in options else f"must be one of {', '.join(options)}"
    return check


def _bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else "must be true or false"


def _languages(v: Any) -> str | None:
    if isinstance(v, dict) and all(isinstance(k, str) and isinstance(b, bool) for k, b in v.items()):
        return None
    return 'must be an object like {"markdown": false}'


def _model(v: Any) -> str | None:
    from lsp_server.model_store.manifest import load_manifest

    names = sorted(n for n, spec in load_manifest().models.items() if spec.role == "completion")
    return None if v in names else f"must be one of {', '.join(names)}"


def _nonempty(v: Any) -> str | None:
    return None if isinstance(v, str) and v.strip() else "must be a non-empty string"


SCHEMA = {
    "enable": ("enable", _bool),
    "languages": ("languages", _languages),
    "model": ("model", _model),
    "precision": ("precision", _choice(PRECISIONS)),
    "maxTokens": ("max_tokens", _int_range(1, 256)),
    "multiline": ("multiline", _choice(MULTILINE_MODES)),
    "debounceMs": ("debounce_ms", _int_range(0, 2000)),
    "latencyBudgetMs": ("latency_budget_ms", _int_range(0, 10000)),
    "threads": ("threads", _int_range(0, 256)),
    "device": ("device", _choice(DEVICES)),
    "maxFileBytes": ("max_file_bytes", _int_range(1000, 100_000_000)),
    "retrieval": ("retrieval", _bool),
    "cache": ("cache", _bool),
    "typingThrough": ("typing_through", _bool),
    "reusePrefix": ("reuse_prefix", _bool),
    "speculate": ("speculate", _bool),
    "plannerModel": ("planner_model", _nonempty),
    "plannerMaxTokens": ("planner_max_tokens", _int_range(256, 64000)),
    "plannerTimeoutS": ("planner_timeout_s", _int_range(5, 3600)),
    "plannerMaxRetries": ("planner_max_retries", _int_range(0, 10)),
    "plannerContextTokens": ("planner_context_tokens", _int_range(1000, 200000)),
    "plannerRepairRounds": ("planner_repair_rounds", _int_range(0, 3)),
}


# Settings that editors keep under `tandem` for themselves (the server ignores them silently).
CLIENT_ONLY = {"serverCommand"}


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
        if key not in SCHEMA:
            problems.append(f"unknown setting tandem.{key} (ignored)")
            continue
        attr, check = SCHEMA[key]
        error = check(value)
        if error:
            problems.append(f"tandem.{key} {error}; using the default {getattr(defaults, attr)!r}")
            changes[attr] = getattr(defaults, attr)
        else:
            changes[attr] = value
    return replace(base, **changes), problems


def as_json(settings: Settings) -> dict:
    attr_to_key = {attr: key for key, (attr, _) in SCHEMA.items()}
    return {attr_to_key[f.name]: getattr(settings, f.name) for f in fields(settings)}
