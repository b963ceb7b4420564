"""Remote backends without an engine: the setting's syntax, what is shown of a URL, the stream
formats of the three APIs, and the prompt a remote engine is sent (tests/remote: a real one)."""
import pytest

from lsp_server.completion.complete import CompletionRequest, remote_request
from lsp_server.config import BackendSpec, parse_backend, parse_settings, safe_url
from lsp_server.errors import BackendError, TandemError
from lsp_server.inference.remote import RemoteEngine
from lsp_server.model_store.manifest import load_manifest


@pytest.mark.parametrize("value,kind,url", [
    ("local", "local", ""),
    ("openai:http://127.0.0.1:8000/v1/", "openai", "http://127.0.0.1:8000/v1"),
    ("llamacpp:http://gpu-box:8080", "llamacpp", "http://gpu-box:8080"),
    ("ollama:https://ollama.internal", "ollama", "https://ollama.internal"),
])
def test_backend_setting_parses(value, kind, url):
    spec = parse_backend(value)
    assert (spec.kind, spec.url) == (kind, url)


@pytest.mark.parametrize("value", ["vllm:http://x", "openai", "openai:", "openai:ftp://x", "openai:http://h:port",
                                   "llamacpp:127.0.0.1:8080"])
def test_bad_backend_is_one_clear_problem_and_the_default(value):
    with pytest.raises(TandemError):
        parse_backend(value)
    settings, problems = parse_settings({"backend": value})
    assert settings.backend == "local" and len(problems) == 1 and problems[0].startswith("tandem.backend ")


def test_credentials_in_a_url_are_never_shown():
    spec = parse_backend("openai:https://user:hunter2@llm.example:8443/v1?key=abc")
    assert spec.shown() == "openai:https://llm.example:8443/v1"
    assert "hunter2" not in safe_url(spec.url) and "abc" not in spec.shown()
    with pytest.raises(TandemError) as err:
        parse_backend("nope:https://user:hunter2@x")
    assert "hunter2" not in str(err.value)


def test_empty_backend_setting_means_the_environment_default(monkeypatch):
    monkeypatch.setenv("TANDEM_BACKEND", "llamacpp:http://127.0.0.1:9")
    settings, problems = parse_settings({"backend": ""})
    assert settings.backend == "llamacpp:http://127.0.0.1:9" and not problems


def engine(kind: str) -> RemoteEngine:
    return RemoteEngine(BackendSpec(kind, "http://127.0.0.1:9", "m"), load_manifest().get(None), api_key="")


@pytest.mark.parametrize("kind,lines,text", [
    ("openai", ['data: {"choices":[{"text":"fib(","finish_reason":null}]}', "", ": keep-alive",
                'data: {"choices":[{"text":"n-1)","finish_reason":"stop"}]}'], "fib(n-1)"),
    ("llamacpp", ['data: {"content":"fib(","stop":false}', 'data: {"content":"n-1)","stop":true}'], "fib(n-1)"),
    ("ollama", ['{"response":"fib(","done":false}', '{"response":"n-1)","done":true,"done_reason":"stop"}'],
     "fib(n-1)"),
])
def test_each_stream_format_is_read_to_its_end(kind, lines, text):
    e = engine(kind)
    out, done = "", False
    for line in lines:
        assert not done, "a line after the end"
        piece, done = e._piece(line)
        out += piece
    assert out == text and done


def test_openai_done_marker_ends_the_stream():
    assert engine("openai")._piece("data: [DONE]") == ("", True)


@pytest.mark.parametrize("kind,line", [("openai", 'data: {"error":{"message":"model overloaded"}}'),
                                       ("ollama", '{"error":"model overloaded"}')])
def test_an_error_in_the_stream_is_a_backend_error(kind, line):
    with pytest.raises(BackendError, match="overloaded"):
        engine(kind)._piece(line)


def test_remote_prompt_is_the_fim_format_with_secrets_redacted():
    prefix = 'API_KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"\n\ndef fib(n):\n    return '
    req = CompletionRequest(prefix=prefix, suffix="\n\nprint(fib(3))\n")
    fim = remote_request(engine("openai"), req, multiline=False)
    assert fim.prompt.startswith("<|fim_prefix|>") and fim.prompt.endswith("<|fim_suffix|>\n\nprint(fib(3))\n<|fim_middle|>")
    assert "def fib(n):\n    return <|fim_suffix|>" in fim.prompt  # plain PSM: the typed part ends the prefix
    assert "sk-ant" not in fim.prompt + fim.prefix and "<redacted>" in fim.prefix
    assert fim.max_tokens == req.max_tokens and "<|endoftext|>" in fim.stop


def test_private_files_are_secret_or_ignored_at_any_depth(tmp_path):
    from lsp_server.retrieval.walker import is_private

    (tmp_path / ".gitignore").write_text("local_settings.py\nbuild-output/\n")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / ".gitignore").write_text("*.generated.py\n")
    (tmp_path / ".tandemignore").write_text("drafts/\n")
    roots = [tmp_path]
    private = ["local_settings.py", "pkg/local_settings.py", "build-output/x.py", "pkg/sub/a.generated.py",
               "drafts/plan.py", ".env", "config/.env.production", "certs/server.key", "node_modules/x/index.js",
               ".git/config"]
    public = ["app.py", "pkg/sub/a.py", "settings.py", "pkg/generated.py"]
    assert [p for p in private if not is_private(tmp_path / p, roots)] == []
    assert [p for p in public if is_private(tmp_path / p, roots)] == []
    assert not is_private(tmp_path.parent / "elsewhere.py", roots)  # outside every workspace: its name decides
