import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, init_params, wait_ready

pytestmark = [pytest.mark.model, pytest.mark.asyncio(loop_scope="function")]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def bad_client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(init_params({"tandem": {"maxTokens": "lots", "multiline": "sometimes",
                                                                "threads": 2, "languages": {"markdown": False}}}))
    yield
    await lsp_client.shutdown_session()


async def test_invalid_settings_reported_once_and_defaulted(bad_client: LanguageClient):
    st = await wait_ready(bad_client)
    assert st["engine"] == "ready"
    texts = [m.message for m in bad_client.messages]
    assert sum("tandem.maxTokens" in t for t in texts) == 1
    assert sum("tandem.multiline" in t for t in texts) == 1
    # the same bad value again: not shown a second time
    bad_client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"tandem": {"maxTokens": "lots", "multiline": "sometimes", "threads": 2}}))
    await wait_ready(bad_client)
    assert sum("tandem.maxTokens" in m.message for m in bad_client.messages) == 1
    # disabled language: no suggestion
    uri = "file:///tmp/tandem-test/notes.md"
    bad_client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text="def f():\n    return ")))
    items = await bad_client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri), position=types.Position(1, 11),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked)))
    assert items == []
