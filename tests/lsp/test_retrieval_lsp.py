"""Retrieval through the server: background indexing after initialize, tandem.indexWorkspace with
$/progress, incremental re-indexing on save, and completion prompts that see other files."""
import asyncio
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.conftest import FIXTURES
from tests.lsp.conftest import SERVER, wait_ready

pytestmark = [pytest.mark.model, pytest.mark.asyncio(loop_scope="function")]

WORK = Path(tempfile.mkdtemp(prefix="tandem-ws-"))
shutil.copytree(FIXTURES / "sample_project", WORK / "proj")
ROOT = WORK / "proj"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER,
                                              server_env={**os.environ, "TANDEM_INDEX_HOME": str(WORK / "index")}))
async def ws_client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[types.WorkspaceFolder(uri=ROOT.as_uri(), name="proj")],
        initialization_options={"tandem": {"threads": 2, "latencyBudgetMs": 0}}))
    yield
    await lsp_client.shutdown_session()


async def status(client):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command="tandem.status"))


async def test_index_workspace_and_incremental_save(ws_client: LanguageClient):
    await wait_ready(ws_client)
    result = await ws_client.workspace_execute_command_async(types.ExecuteCommandParams(command="tandem.indexWorkspace"))
    assert result["files"] == 3 and result["chunks"] >= 4, result
    assert "indexed 3 files" in result["message"]
    titles = [v.title for reports in ws_client.progress_reports.values() for v in reports
              if isinstance(v, types.WorkDoneProgressBegin)]
    assert "Tandem: indexing" in titles
    st = await status(ws_client)
    assert st["index"]["state"] == "ready" and st["index"]["files"] == 3
    # a new file saved: indexed without a full rebuild
    new = ROOT / "units.py"
    new.write_text("def cm_to_inches(cm):\n    return cm / 2.54\n")
    ws_client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(new.as_uri())))
    await asyncio.sleep(1.0)
    result = await ws_client.workspace_execute_command_async(types.ExecuteCommandParams(command="tandem.indexWorkspace"))
    assert result["files"] == 4
    new.unlink()


async def test_completion_uses_a_definition_from_another_file(ws_client: LanguageClient):
    await wait_ready(ws_client)
    await ws_client.workspace_execute_command_async(types.ExecuteCommandParams(command="tandem.indexWorkspace"))
    uri = (ROOT / "main.py").as_uri()
    text = "from pipes import Pipe\n\np = Pipe(inner_diameter_mm=10, "
    ws_client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    items = await ws_client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri), position=types.Position(2, len("p = Pipe(inner_diameter_mm=10, ")),
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked)))
    # only pipes.py says the other field is wall_thickness_mm: the model must have been shown it
    assert items and items[0].insert_text.startswith("wall_thickness_mm"), items
