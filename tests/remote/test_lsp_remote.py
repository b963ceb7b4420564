"""The language server with `tandem.backend` set: completions come from the real engine through
the same keystroke path (typing-through, cache, post-processing, stale checks); secret and
ignored files never reach it; an engine that dies mid-session gives one message and the local
model takes over."""
import asyncio
import contextlib
import os
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient

from bench import engines
from tests.remote.proxy import Proxy

pytestmark = [pytest.mark.model, pytest.mark.asyncio(loop_scope="function")]

FIB = "def fib(n):\n    if n < 2:\n        return n\n    return \n"
SECRET = "sk-ant-api03-Zq8vY2mN4pL7kR1tW9xB3cD6fG0hJ5sA"


@contextlib.asynccontextmanager
async def session(root: Path, options: dict, env: dict | None = None):
    client = LanguageClient("tandem-test", "1")
    client.messages = []

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def on_message(params: types.ShowMessageParams) -> None:
        client.messages.append(params.message)

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def on_log(params) -> None:
        pass

    env = {**os.environ, "TANDEM_INDEX_HOME": str(root.parent / "index"), **(env or {})}
    await client.start_io(sys.executable, "-m", "lsp_server", "serve", env=env)
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"tandem": {"threads": 2, "latencyBudgetMs": 0, **options}}))
    client.initialized(types.InitializedParams())
    try:
        yield client
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()


async def status(client) -> dict:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command="tandem.status"))


async def ready(client, timeout: float = 120) -> dict:
    end = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < end:
        st = await status(client)
        if st["engine"] in ("ready", "error"):
            return st
        await asyncio.sleep(0.2)
    raise TimeoutError("engine not ready")


def open_doc(client, path: Path, text: str, version: int = 1) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    return uri


async def complete_at(client, uri: str, line: int, character: int) -> str:
    items = await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri), position=types.Position(line, character),
        context=types.InlineCompletionContext(types.InlineCompletionTriggerKind.Automatic)))
    return items[0].insert_text if items else ""


async def test_server_completes_through_the_backend(llama, tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    with Proxy(llama.url) as front:
        async with session(root, {"backend": f"openai:{front.url}/v1"}) as client:
            st = await ready(client)
            assert st["engine"] == "ready" and st["backend"] == f"openai:{front.url}/v1", st
            assert st["backend_model"] == engines.ALIAS and st["next_edit"]["model"].startswith("off: a remote backend")
            uri = open_doc(client, root / "fib.py", FIB)
            text = await complete_at(client, uri, 3, 11)
            assert text.replace(" ", "") in {"fib(n-1)+fib(n-2)", "fib(n-2)+fib(n-1)"}
            again = await complete_at(client, uri, 3, 11)  # the same text: the cache, not the engine
            posts = [p for m, p, _ in front.requests if m == "POST"]
            st = await status(client)
            assert again == text and len(posts) == 1 and st["stats"]["cache_hits"] == 1
            assert not client.messages


async def test_secret_and_ignored_files_never_reach_the_backend(llama, tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".gitignore").write_text("local_settings.py\nprivate/\n")
    (root / "private").mkdir()
    with Proxy(llama.url) as front:
        async with session(root, {"backend": f"openai:{front.url}/v1"}) as client:
            await ready(client)
            for name in ("local_settings.py", "private/notes.py", ".env"):
                (root / name).parent.mkdir(exist_ok=True)
                uri = open_doc(client, root / name, f"TOKEN = 'abc'\n{FIB}")
                assert await complete_at(client, uri, 4, 11) == ""
            assert not [p for m, p, _ in front.requests if m == "POST"]
            uri = open_doc(client, root / "app.py", f'ANTHROPIC_API_KEY = "{SECRET}"\n\n{FIB}')
            assert await complete_at(client, uri, 5, 11)
            sent = front.sent()
            assert "<redacted>" in sent and SECRET not in sent and "TOKEN = 'abc'" not in sent
            st = await status(client)
            assert st["stats"]["skipped"] == 3


async def test_engine_dying_mid_session_falls_back_to_the_local_model_and_back(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    first = engines.llama_server(log=tmp_path / "server.log")
    server = first.__enter__()
    try:
        async with session(root, {"backend": f"llamacpp:{server.url}"}, {"TANDEM_BACKEND_RETRY_S": "2"}) as client:
            st = await ready(client)
            assert st["backend"] == f"llamacpp:{server.url}"
            uri = open_doc(client, root / "fib.py", FIB)
            assert await complete_at(client, uri, 3, 11)
            server.proc.kill()
            server.proc.wait()
            edit(client, uri, 2)
            assert await complete_at(client, uri, 4, 11) == ""  # this one failed: no suggestion, no error
            for _ in range(600):
                st = await status(client)
                if st["engine"] == "ready" and st["backend"].startswith("local (fallback"):
                    break
                await asyncio.sleep(0.2)
            assert st["backend"].startswith(f"local (fallback: llamacpp:{server.url}"), st
            assert (await complete_at(client, uri, 4, 11)).replace(" ", "") in {"fib(n-1)+fib(n-2)", "fib(n-2)+fib(n-1)"}
            assert len(client.messages) == 1 and "local model" in client.messages[0], client.messages
            first.__exit__(None, None, None)
            # the server comes back on the same address: a request after the retry interval finds
            # it and completions come from it again, without restarting the editor
            port = int(server.url.rsplit(":", 1)[1])
            with engines.llama_server(log=tmp_path / "server2.log", port=port):
                for _ in range(120):
                    await asyncio.sleep(0.5)
                    await complete_at(client, uri, 4, 11)  # requests are what trigger the retry
                    st = await status(client)
                    if st["backend"] == f"llamacpp:{server.url}":
                        break
                assert st["backend"] == f"llamacpp:{server.url}" and st["engine"] == "ready", st
                edit(client, uri, 3)
                assert (await complete_at(client, uri, 5, 11)).replace(" ", "") in {"fib(n-1)+fib(n-2)", "fib(n-2)+fib(n-1)"}
                assert (await status(client))["backend_requests"] >= 1
            assert len(client.messages) == 1, client.messages
    finally:
        first.__exit__(None, None, None)


def edit(client, uri: str, version: int) -> None:
    """A comment line inserted at the top (moves the cursor's line down by one)."""
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                                                text="# fib\n")]))
