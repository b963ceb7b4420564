"""tandem/nextEdit through the real server over stdio: a rename at one call site predicts the
same rename at the next one; accepting it feeds the history, so the chain continues; then silence."""
import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, init_params

pytestmark = [pytest.mark.asyncio(loop_scope="function")]

URI = "file:///tmp/tandem-next-edit/app.py"
TEXT = "def run(items):\n    a = compute(items[0])\n    b = compute(items[1])\n    c = compute(items[2])\n    return a + b + c\n"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(init_params({"tandem": {"threads": 1, "retrieval": False}}))
    yield
    await lsp_client.shutdown_session()


def change(client, version, line, start, end, text):
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=version),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, start), types.Position(line, end)), text=text)]))


async def next_edit(client, line, character):
    return await client.protocol.send_request_async(
        "tandem/nextEdit", {"textDocument": {"uri": URI}, "position": {"line": line, "character": character}})


def plain(result):
    return None if result is None else {"range": [result.range.start.line, result.range.start.character,
                                                  result.range.end.line, result.range.end.character],
                                        "newText": result.newText}


async def test_rename_chain_then_silence(client: LanguageClient):
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=URI, language_id="python", version=1, text=TEXT)))
    assert await next_edit(client, 0, 0) is None  # no edit yet: silence
    change(client, 2, 1, 8, 15, "calculate")       # the user renames the first call
    got = plain(await next_edit(client, 1, 17))
    assert got == {"range": [2, 8, 2, 15], "newText": "calculate"}
    change(client, 3, 2, 8, 15, "calculate")       # Tab: the client applies it
    got = plain(await next_edit(client, 2, 17))
    assert got == {"range": [3, 8, 3, 15], "newText": "calculate"}
    change(client, 4, 3, 8, 15, "calculate")
    assert await next_edit(client, 3, 17) is None  # nothing left to rename
    assert await next_edit(client, 99, 0) is None
    bad = await client.protocol.send_request_async("tandem/nextEdit", {"textDocument": {"uri": "file:///nope.py"}})
    assert bad is None


async def test_next_edit_on_the_cursor_line_is_ghost_text(client: LanguageClient):
    text = "total = f(a) + f(b)\n"
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=URI, language_id="python", version=1, text=text)))
    change(client, 2, 0, 8, 9, "g")  # f(a) → g(a); the cursor is after "g"
    items = await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(URI), position=types.Position(0, 9),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic)))
    assert len(items) == 1
    item = items[0] if isinstance(items, list) else items.items[0]
    assert item.insert_text == "(a) + g" and item.range.end.character == 16  # replaces "(a) + f"


async def test_a_file_over_max_file_bytes_gets_no_next_edit(client: LanguageClient):
    """maxFileBytes stops next edit before it does any work: the same rename that predicts the
    next call site in a small file predicts nothing in a 1.2 MB one."""
    padding = "# " + "x" * 98 + "\n"
    big = TEXT + padding * 12_000
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=URI, language_id="python", version=1, text=big)))
    change(client, 2, 1, 8, 15, "calculate")
    assert await next_edit(client, 1, 17) is None
    items = await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(URI), position=types.Position(1, 17),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic)))
    assert not items or not (items if isinstance(items, list) else items.items)


async def test_ghost_text_next_edit_in_a_file_with_cr_line_ends(client: LanguageClient):
    """A CR-only file (old Mac line ends): the next edit on the cursor's line still shows as ghost
    text (the server once split the raw text at \\n only and failed with an IndexError)."""
    text = "x = 1\rtotal = f(a) + f(b)\r"
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=URI, language_id="python", version=1, text=text)))
    change(client, 2, 1, 8, 9, "g")
    items = await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(URI), position=types.Position(1, 9),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic)))
    item = items[0] if isinstance(items, list) else items.items[0]
    assert item.insert_text == "(a) + g" and item.range.end.character == 16
