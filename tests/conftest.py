import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"


def model_installed() -> bool:
    from lsp_server.model_store.install import variant_intact
    from lsp_server.model_store.manifest import load_manifest
    from lsp_server.model_store.paths import variant_dir

    spec = load_manifest().get(None)
    return variant_intact(variant_dir(spec.name, spec.default_precision), spec)


def pytest_collection_modifyitems(config, items):
    # The real model is required in CI (.ci/run installs it first); locally, say clearly why a
    # test is skipped instead of failing with a load error.
    if os.environ.get("CI") or model_installed():
        return
    skip = pytest.mark.skip(reason="default model not installed: run `tandem models install`")
    for item in items:
        if "model" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def engine():
    from lsp_server.inference.engine import get_engine

    eng = get_engine(None, None, threads=2)
    eng.warm_up()
    return eng


def run_cli(*args, env=None, input=None):
    import subprocess

    return subprocess.run([sys.executable, "-m", "lsp_server", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, input=input, timeout=600)


@pytest.fixture(scope="session")
def llama(tmp_path_factory):
    """llama.cpp's server on 127.0.0.1 with the default model's GGUF (bench/engines.py), shared
    by the session (tests that kill or slow an engine start their own). Skipped where it is not
    built, except in CI, which builds it (.ci/install-llama-server)."""
    from bench import engines

    exe = engines.binary()
    if not os.environ.get("CI") and (exe is None or not exe.exists()):
        pytest.skip("llama-server not built: run `bash .ci/install-llama-server`")
    with engines.llama_server(log=tmp_path_factory.mktemp("llama") / "server.log") as server:
        yield server
