"""Completions from a real inference engine (llama.cpp's server on 127.0.0.1, the same GGUF as the
local model) through each backend kind, and what happens when the engine misbehaves: cancelled
mid-stream, killed mid-request, asked for a model it does not serve, slow."""
import json
import time

import httpx
import pytest

from bench import engines
from lsp_server.completion.complete import CompletionRequest, complete
from lsp_server.config import BackendSpec
from lsp_server.errors import BackendError
from lsp_server.inference.remote import FimRequest, RemoteEngine
from lsp_server.model_store.manifest import load_manifest
from tests.conftest import FIXTURES, run_cli
from tests.remote.proxy import OLLAMA_MODEL, Proxy

pytestmark = pytest.mark.model  # the engine serves the default model's GGUF

FIB = str(FIXTURES / "sample_project" / "fib.py")
FIB_ANSWERS = {"fib(n-1)+fib(n-2)", "fib(n-2)+fib(n-1)"}
COUNTING = "numbers = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,"  # the model keeps counting for a long time


def remote(kind: str, url: str, model: str = "", timeout_s: float = 30.0) -> RemoteEngine:
    engine = RemoteEngine(BackendSpec(kind, url, model), load_manifest().get(None), api_key="", timeout_s=timeout_s)
    engine.check()
    return engine


def backend_url(kind: str, url: str) -> str:
    return {"openai": f"openai:{url}/v1", "llamacpp": f"llamacpp:{url}", "ollama": f"ollama:{url}"}[kind]


@pytest.mark.parametrize("kind", ["openai", "llamacpp", "ollama"])
def test_fib_completion_through_each_kind_of_backend(llama, kind):
    """`TANDEM_BACKEND=KIND:URL tandem complete fib.py --line 3 --character 11` answers through the
    engine, with that API's request (seen by a recording front)."""
    with Proxy(llama.url, ollama=kind == "ollama") as front:
        env = {"TANDEM_BACKEND": backend_url(kind, front.url), "TANDEM_BACKEND_API_KEY": "team-key-123",
               "TANDEM_BACKEND_MODEL": OLLAMA_MODEL if kind == "ollama" else ""}
        res = run_cli("complete", FIB, "--line", "3", "--character", "11", "--json", env=env)
        sent = [(method, path, body) for method, path, body in front.requests if method == "POST"]
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["completion"].replace(" ", "") in FIB_ANSWERS
    assert out["device"] == "remote" and out["backend"] == backend_url(kind, front.url)
    assert "local model" not in res.stderr and "team-key-123" not in res.stderr + res.stdout
    assert len(sent) == 1
    _, path, body = sent[0]
    body = json.loads(body)
    if kind == "openai":
        assert path == "/v1/completions" and body["stream"] is True and body["model"] == engines.ALIAS
        assert body["prompt"].startswith("<|fim_prefix|>") and body["prompt"].endswith("<|fim_middle|>")
        assert "suffix" not in body and body["max_tokens"] > 0 and "<|endoftext|>" in body["stop"]
    elif kind == "llamacpp":
        assert path == "/infill" and body["cache_prompt"] is True and body["stream"] is True
        assert body["input_prefix"].endswith("    return ") and body["input_suffix"].startswith("\n")
        assert isinstance(body["input_extra"], list)
    else:
        assert path == "/api/generate" and body["raw"] is False and body["model"] == OLLAMA_MODEL
        assert body["prompt"].endswith("    return ") and "suffix" in body and body["options"]["num_predict"] > 0


def test_the_api_key_goes_in_the_authorization_header_only(llama):
    with Proxy(llama.url) as front:
        engine = RemoteEngine(BackendSpec("openai", front.url + "/v1"), load_manifest().get(None), api_key="team-key-123")
        engine.check()
        "".join(engine.stream(FimRequest(prefix="", suffix="", prompt="x = ", max_tokens=4)))
        assert "team-key-123" not in json.dumps(engine.describe())
    assert [h.get("authorization") for h in front.headers] == ["Bearer team-key-123"] * 2
    assert all(b"team-key-123" not in body for _, _, body in front.requests)


def slot_busy(url: str) -> bool:
    slots = httpx.get(url + "/slots", timeout=5).json()
    return any(s.get("is_processing") for s in slots)


def predicted_total(url: str) -> float:
    found = engines.counters(url)
    assert "generated" in found, "no tokens_predicted_total in /metrics"
    return found["generated"]


def test_cancelling_mid_stream_stops_the_engine(llama):
    """Closing the stream after a few chunks closes the connection, and the engine stops
    generating: its slot goes idle and it predicted far fewer tokens than asked for (an
    uncancelled twin of the request runs long, so the difference is the cancellation)."""
    engine = remote("openai", llama.url + "/v1")
    req = FimRequest(prefix="", suffix="", prompt=COUNTING, max_tokens=400)
    before = predicted_total(llama.url)
    full = "".join(engine.stream(req))
    uncancelled = predicted_total(llama.url) - before
    assert uncancelled >= 150, f"the twin should run long: {uncancelled} tokens, {full!r}"

    before = predicted_total(llama.url)
    stream = engine.stream(req)
    got = [next(stream) for _ in range(3)]
    stream.close()
    assert "".join(got) and full.startswith("".join(got))
    deadline = time.monotonic() + 10
    while slot_busy(llama.url) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not slot_busy(llama.url)
    assert predicted_total(llama.url) - before < uncancelled / 3


def test_cancelled_predicate_closes_the_stream_between_chunks(llama):
    engine = remote("llamacpp", llama.url)
    chunks = []
    cancel_after = lambda: len(chunks) >= 2  # noqa: E731
    for piece in engine.stream(FimRequest(prefix=COUNTING, suffix="]\n", max_tokens=300), cancel_after):
        chunks.append(piece)
    assert len(chunks) == 2


def test_engine_killed_mid_request_is_one_clear_error(tmp_path):
    with engines.llama_server(log=tmp_path / "server.log") as server:
        engine = remote("openai", server.url + "/v1")
        stream = engine.stream(FimRequest(prefix="", suffix="", prompt=COUNTING, max_tokens=400))
        next(stream)
        server.proc.kill()
        server.proc.wait()
        with pytest.raises(BackendError) as err:
            for _ in stream:
                pass
    assert "failed mid-answer" in str(err.value) or "unreachable" in str(err.value)
    assert engine.failures == 1


def test_wrong_model_name_is_refused_naming_what_is_served(llama):
    with pytest.raises(BackendError) as err:
        remote("openai", llama.url + "/v1", model="qwen-does-not-exist")
    assert "qwen-does-not-exist" in str(err.value) and engines.ALIAS in str(err.value)
    with Proxy(llama.url, ollama=True) as front, pytest.raises(BackendError) as err:
        remote("ollama", front.url, model="llama3:70b")
    assert "llama3:70b" in str(err.value) and OLLAMA_MODEL in str(err.value)


def test_cli_falls_back_to_the_local_model_with_one_message(llama):
    res = run_cli("complete", FIB, "--line", "3", "--character", "11", "--json",
                  env={"TANDEM_BACKEND": f"openai:{llama.url}/v1", "TANDEM_BACKEND_MODEL": "qwen-does-not-exist"})
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["device"] != "remote"
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "does not serve model 'qwen-does-not-exist'" in lines[0] and "using the local model" in lines[0]


def test_slow_engine_past_the_read_timeout_is_a_timeout_and_within_it_answers(llama):
    with Proxy(llama.url, delay_s=2.5) as slow:
        engine = RemoteEngine(BackendSpec("llamacpp", slow.url), load_manifest().get(None), api_key="", timeout_s=1.0)
        req = CompletionRequest(prefix="def fib(n):\n    if n < 2:\n        return n\n    return ", suffix="\n")
        with pytest.raises(BackendError, match="timed out"):
            complete(engine, req)
        patient = RemoteEngine(BackendSpec("llamacpp", slow.url), load_manifest().get(None), api_key="", timeout_s=10.0)
        assert complete(patient, req).text.replace(" ", "") in FIB_ANSWERS


def test_unreachable_backend_is_one_clear_error():
    engine = RemoteEngine(BackendSpec("openai", f"http://127.0.0.1:{engines.free_port()}/v1"), load_manifest().get(None),
                          api_key="")
    with pytest.raises(BackendError, match="unreachable"):
        engine.check()


@pytest.mark.asyncio(loop_scope="function")
async def test_an_edit_cancels_the_servers_remote_request_and_the_engine_stops(llama):
    """The language server's path: the request streams on the event loop; didChange cancels it
    before its answer and the connection closes, so the engine's slot goes idle at once."""
    import asyncio
    from dataclasses import replace

    from lsp_server.completion.service import CompletionService, load_engine
    from lsp_server.config import Settings

    settings = replace(Settings(), backend=f"openai:{llama.url}/v1", multiline="always", latency_budget_ms=0,
                       max_tokens=256, cache=False)
    service = CompletionService(settings, load=load_engine)
    await service.load()
    assert service.state.status == "ready" and service.engine.remote
    before = predicted_total(llama.url)
    pending = asyncio.ensure_future(service.suggest("file:///t.py", COUNTING + "\n", "\n"))
    for _ in range(500):  # the request reaches the engine
        if slot_busy(llama.url):
            break
        await asyncio.sleep(0.02)
    assert slot_busy(llama.url) and not pending.done()
    service.document_changed("file:///t.py")
    assert await pending is None
    for _ in range(100):
        if not slot_busy(llama.url):
            break
        await asyncio.sleep(0.05)
    assert not slot_busy(llama.url)
    assert predicted_total(llama.url) - before < 100 and service.stats.cancelled == 1
    service.shutdown()
