import asyncio
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = [sys.executable, "-m", "lsp_server", "serve"]


async def wait_ready(client: LanguageClient, timeout: float = 300) -> dict:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        status = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="tandem.status"))
        if status["engine"] in ("ready", "error"):
            return status
        await asyncio.sleep(0.2)
    raise TimeoutError("model did not load")


def init_params(options=None):
    return types.InitializeParams(capabilities=client_capabilities("visual-studio-code"),
                                  initialization_options=options or {"tandem": {"threads": 2, "latencyBudgetMs": 0}})


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(init_params())
    yield
    await lsp_client.shutdown_session()
