"""A real llama.cpp server (llama-server, built by .ci/install-llama-server) on 127.0.0.1,
serving the same Qwen2.5-Coder-0.5B GGUF as the local model. CI builds it, so there these
tests run; elsewhere they are skipped with the command that builds it."""
import os

import pytest

from bench import engines


def pytest_collection_modifyitems(config, items):
    exe = engines.binary()
    if os.environ.get("CI") or (exe is not None and exe.exists()):
        return
    skip = pytest.mark.skip(reason="llama-server not built: run `bash .ci/install-llama-server`")
    for item in items:
        if "tests/remote/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)
