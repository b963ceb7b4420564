"""The real server over stdio with a real LSP client (pytest-lsp) and the real model."""
import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import wait_ready

pytestmark = [pytest.mark.model, pytest.mark.asyncio(loop_scope="function")]

FIB = "def fib(n):\n    if n < 2:\n        return n\n    return \n"
URI = "file:///tmp/tandem-test/fib.py"


def open_doc(client, text=FIB, uri=URI, language="python", version=1):
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))


def insert(client, version, line, character, text, uri=URI):
    pos = types.Position(line, character)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=types.Range(pos, pos), text=text)]))


async def inline(client, line, character, uri=URI):
    return await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri), position=types.Position(line, character),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic)))


async def status(client):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command="tandem.status"))


async def test_capabilities_progress_and_completion(client: LanguageClient):
    assert client.capabilities is not None
    st = await wait_ready(client)
    assert st["engine"] == "ready", st
    assert st["model"] == "qwen2.5-coder-0.5b"
    # model loading was reported with $/progress begin … end
    kinds = [type(v).__name__ for reports in client.progress_reports.values() for v in reports]
    assert "WorkDoneProgressBegin" in kinds and "WorkDoneProgressEnd" in kinds
    open_doc(client)
    items = await inline(client, 3, 11)
    assert len(items) == 1
    assert items[0].insert_text.replace(" ", "") in {"fib(n-1)+fib(n-2)", "fib(n-2)+fib(n-1)"}
    assert items[0].range.start == types.Position(3, 11)


async def test_typing_through_answers_with_the_rest(client: LanguageClient):
    await wait_ready(client)
    open_doc(client)
    first = (await inline(client, 3, 11))[0].insert_text
    before = (await status(client))["stats"]
    insert(client, 2, 3, 11, first[:3])
    items = await inline(client, 3, 14)
    after = (await status(client))["stats"]
    assert items[0].insert_text == first[3:]
    assert after["typing_through"] == before["typing_through"] + 1
    assert after["model_calls"] == before["model_calls"]


async def test_burst_of_requests_only_newest_answered(client: LanguageClient):
    await wait_ready(client)
    open_doc(client, text="# \nimport os\n\n\ndef walk(root):\n    \n")
    tasks = []
    for k in range(20):
        # keystrokes in the comment above; every request asks at the body line, which stays valid
        insert(client, k + 2, 0, 2 + k, "abcdefghijklmnopqrst"[k])
        tasks.append(asyncio.ensure_future(inline(client, 5, 4)))
    results = await asyncio.gather(*tasks)
    assert all(r == [] for r in results[:-1]), [r for r in results[:-1] if r]
    assert results[-1] and results[-1][0].insert_text.strip()
    st = (await status(client))["stats"]
    assert st["cancelled"] + st["stale"] >= 19
    assert st["model_calls"] < 20


async def test_cancel_request_is_honoured(client: LanguageClient):
    await wait_ready(client)
    # a long prompt so the generation is still running when the cancel arrives
    text = "".join(f"def f{i}(x):\n    return x * {i}\n\n" for i in range(150)) + "def g(x):\n    return \n"
    open_doc(client, text=text)
    line = text.count("\n") - 1
    fut = client.protocol.send_request(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(URI), position=types.Position(line, 11),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic)),
        msg_id="cancel-me")
    await asyncio.sleep(0.3)
    assert not fut.done()
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="cancel-me"))
    with pytest.raises(Exception, match="cancel"):
        await asyncio.wrap_future(fut)
    st = (await status(client))["stats"]
    assert st["cancelled"] >= 1
    # and the server keeps serving
    items = await inline(client, line, 11)
    assert isinstance(items, list)


async def test_bad_inputs_get_empty_lists_and_server_keeps_serving(client: LanguageClient):
    await wait_ready(client)
    assert await inline(client, 0, 0, uri="file:///nowhere/unknown.py") == []
    open_doc(client)
    assert await inline(client, 99, 0) == []          # line outside the document
    emoji_uri = "file:///tmp/tandem-test/e.py"
    open_doc(client, text="x = '😀'\n", uri=emoji_uri)
    assert await inline(client, 0, 6, uri=emoji_uri) == []   # splits a surrogate pair
    big_uri = "file:///tmp/tandem-test/big.js"
    open_doc(client, text="var a=" + "1," * 5_000_000 + "0;\n", uri=big_uri, language="javascript")
    assert await inline(client, 0, 3, uri=big_uri) == []
    bin_uri = "file:///tmp/tandem-test/b.py"
    open_doc(client, text="ab\x00\x01cd\n", uri=bin_uri)
    assert await inline(client, 0, 2, uri=bin_uri) == []
    assert await inline(client, 3, 6) == []  # inside a word: "ret|urn"
    with pytest.raises(Exception, match="not found|Method"):
        await client.protocol.send_request_async("tandem/noSuchMethod", {})
    items = await inline(client, 3, 11)
    assert items and items[0].insert_text


async def test_acceptance_stats(client: LanguageClient):
    await wait_ready(client)
    for cmd in ("tandem.didShowCompletion", "tandem.didShowCompletion", "tandem.didAcceptCompletion"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command=cmd))
    st = (await status(client))["stats"]
    assert st["shown"] == 2 and st["accepted"] == 1 and st["acceptance_rate"] == 0.5
