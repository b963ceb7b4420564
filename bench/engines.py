"""Peer inference engines started on 127.0.0.1 for the remote-backend tests and benchmarks:
llama.cpp's own server (`.ci/install-llama-server` builds it from llama-cpp-python's sdist),
serving the same Qwen2.5-Coder-0.5B GGUF that `tandem models install` verified.

    with llama_server() as server:   # server.url: http://127.0.0.1:PORT (OpenAI API under /v1,
        ...                          # /infill, /health, /slots, /metrics); server.proc: the process
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

ALIAS = "qwen2.5-coder-0.5b"  # the name the server answers to (GET /v1/models)


def binary() -> Path | None:
    """The llama-server that .ci/install-llama-server built (TANDEM_LLAMA_SERVER overrides)."""
    if os.environ.get("TANDEM_LLAMA_SERVER"):
        return Path(os.environ["TANDEM_LLAMA_SERVER"])
    found = sorted((Path.home() / ".cache" / "tandem-ci").glob("llama-server-*/bin/llama-server"))
    return found[-1] if found else (Path(shutil.which("llama-server")) if shutil.which("llama-server") else None)


def gguf() -> Path:
    from lsp_server.model_store.paths import model_dir

    return model_dir("qwen2.5-coder-0.5b") / "source.gguf"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Running:
    url: str
    proc: subprocess.Popen


@contextlib.contextmanager
def llama_server(threads: int = 0, ctx: int = 4096, log: Path | None = None, port: int = 0) -> Iterator[Running]:
    """A llama-server process for the duration of the block (on `port`, else a free one)."""
    exe, model = binary(), gguf()
    if exe is None or not exe.exists():
        raise RuntimeError("llama-server is not built: run `bash .ci/install-llama-server`")
    if not model.exists():
        raise RuntimeError(f"{model} is missing: run `tandem models install`")
    port = port or free_port()
    cmd = [str(exe), "-m", str(model), "--host", "127.0.0.1", "--port", str(port), "-c", str(ctx),
           "-np", "1", "-t", str(threads or os.cpu_count() or 2), "--alias", ALIAS, "--metrics", "--no-webui"]
    out = open(log, "ab") if log else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama-server exited with {proc.returncode} at start ({' '.join(cmd)})")
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama-server did not become healthy in 120 s")
            time.sleep(0.2)
        yield Running(url, proc)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if log:
            out.close()


def counters(url: str) -> dict[str, float]:
    """llama.cpp's server's token counters (GET /metrics; started with --metrics): `prompt`
    tokens it evaluated and tokens it `generated`, since it started. {} when it has none."""
    names = {"llamacpp:prompt_tokens_total": "prompt", "llamacpp:tokens_predicted_total": "generated"}
    try:
        text = httpx.get(url.removesuffix("/v1") + "/metrics", timeout=5).text
    except httpx.HTTPError:
        return {}
    return {names[k]: float(v) for k, v, *_ in (line.split() for line in text.splitlines() if " " in line) if k in names}


@contextlib.contextmanager
def backend(arg: str, log: Path | None = None) -> Iterator[str]:
    """A `tandem.backend` value for a benchmark's --backend: KIND:URL as given, or a bare kind
    (openai | llamacpp) to start llama.cpp's server on the same GGUF for the run."""
    if ":" in arg:
        yield arg
        return
    if arg not in ("openai", "llamacpp"):
        raise SystemExit(f"--backend {arg}: give KIND:URL, or openai / llamacpp to start llama.cpp's server here")
    with llama_server(log=log) as server:
        yield f"{arg}:{server.url}" + ("/v1" if arg == "openai" else "")
