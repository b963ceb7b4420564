"""Typed view of models/manifest.toml."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field

from lsp_server.errors import TandemError
from lsp_server.model_store.paths import models_data


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    member: str  # path of the weight file inside the wheel
    dest: str = ""      # format "files": the installed file name
    size: int = 0       # format "files": that file's size and sha256
    sha256: str = ""


@dataclass(frozen=True)
class FimTokens:
    prefix: str
    suffix: str
    middle: str
    file_sep: str | None = None
    repo_name: str | None = None


@dataclass(frozen=True)
class Adapter:
    """A LoRA adapter Tandem trained itself (committed under models/), baked into every ONNX
    variant at build time: one set of weights serves inline completion and next edit."""
    path: str                 # folder under models/: adapter_model.safetensors, adapter_config.json
    sha256: str               # of adapter_model.safetensors
    next_edit_threshold: float  # mean log-prob of the changed tokens needed to suggest (validation)


@dataclass(frozen=True)
class ModelSpec:
    name: str
    description: str
    licence: str
    format: str
    size: int
    sha256: str
    precisions: tuple[str, ...]       # built by default (CPU variants; the first is the default)
    packages: tuple[Package, ...]
    stop_tokens: tuple[str, ...]
    fim: FimTokens | None = None
    role: str = "completion"
    extra: dict = field(default_factory=dict)
    gpu_precisions: tuple[str, ...] = ()  # built when asked for, or when a GPU provider is present
    adapter: Adapter | None = None

    @property
    def all_precisions(self) -> tuple[str, ...]:
        return self.precisions + self.gpu_precisions

    @property
    def default_precision(self) -> str:
        return self.precisions[0]


@dataclass(frozen=True)
class Manifest:
    default: str
    models: dict[str, ModelSpec]
    embedding: str = "minilm-l6-v2"

    def get(self, name: str | None) -> ModelSpec:
        name = name or self.default
        if name not in self.models:
            raise TandemError(f"unknown model {name!r}; known: {', '.join(sorted(self.models))}")
        return self.models[name]


def manifest_text() -> str:
    return models_data("manifest.toml").read_text()


def parse_manifest(text: str) -> Manifest:
    raw = tomllib.loads(text)
    models = {}
    for name, m in raw["models"].items():
        fim = m.get("fim")
        models[name] = ModelSpec(
            name=name,
            description=m["description"],
            licence=m["licence"],
            format=m["format"],
            size=int(m["size"]),
            sha256=m["sha256"],
            precisions=tuple(m["precisions"]),
            packages=tuple(Package(**p) for p in m["packages"]),
            stop_tokens=tuple(fim["stop"] if fim else m.get("stop_tokens", ())),
            fim=FimTokens(fim["prefix"], fim["suffix"], fim["middle"], fim.get("file_sep"), fim.get("repo_name")) if fim else None,
            role=m.get("role", "completion"),
            gpu_precisions=tuple(m.get("gpu_precisions", ())),
            adapter=Adapter(**m["adapter"]) if "adapter" in m else None,
        )
    return Manifest(default=raw["default"], models=models, embedding=raw.get("embedding", "minilm-l6-v2"))


def load_manifest() -> Manifest:
    return parse_manifest(manifest_text())
