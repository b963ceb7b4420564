"""The user cache layout. Built files live here, never in git.

    $TANDEM_HOME (default ~/.cache/tandem)
      models/NAME/source.gguf           verified download (sha256 from the manifest)
      models/NAME/PRECISION/            model.onnx, model.onnx.data, tokenizer.json, receipt.json
      buildenv/                         isolated venv with torch/transformers, build time only
      index/ROOTHASH/                   retrieval store per workspace (TANDEM_INDEX_HOME overrides)
"""
from __future__ import annotations

import os
from importlib import resources
from pathlib import Path


def tandem_home() -> Path:
    env = os.environ.get("TANDEM_HOME")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "tandem"


def model_dir(name: str) -> Path:
    return tandem_home() / "models" / name


def variant_dir(name: str, precision: str) -> Path:
    return model_dir(name) / precision


def buildenv_dir() -> Path:
    return tandem_home() / "buildenv"


def models_data(name: str):
    """A file of the repository's models/ folder (manifest, build script), installed or not."""
    try:
        return resources.files("lsp_server.models_data").joinpath(name)
    except ModuleNotFoundError:  # imported from a source tree that was never pip-installed
        return Path(__file__).resolve().parents[2] / "models" / name
