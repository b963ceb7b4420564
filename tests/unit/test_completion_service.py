"""CompletionService without the model: a failed load is retried once the model's files change."""
import asyncio

from lsp_server.completion.service import CompletionService
from lsp_server.config import Settings


class Loaded:
    def describe(self) -> dict:
        return {"model": "fake"}


def test_a_model_repaired_on_disk_is_loaded_without_a_restart(monkeypatch):
    async def scenario():
        service = CompletionService(Settings())
        files = [("model.onnx.data", 5, 1)]
        monkeypatch.setattr(service, "_model_files", lambda: tuple(files))

        def broken():
            raise RuntimeError("model.onnx.data is corrupt")

        monkeypatch.setattr(service, "_load", broken)
        await service.load()
        assert service.state.status == "error" and "corrupt" in service.state.error
        assert service.reload_if_repaired() is False  # nothing changed on disk

        def fixed():
            service.engine = Loaded()

        monkeypatch.setattr(service, "_load", fixed)
        files[0] = ("model.onnx.data", 5, 2)  # `tandem models install` rewrote it
        service._checked_at = 0.0
        assert service.reload_if_repaired() is True
        for _ in range(100):
            if service.state.status == "ready":
                break
            await asyncio.sleep(0.01)
        assert service.state.status == "ready" and service.state.detail == {"model": "fake"}
        service.shutdown()

    asyncio.run(scenario())
