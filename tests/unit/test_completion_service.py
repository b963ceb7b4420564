"""CompletionService without the model: a scripted fake engine (one token per character) behind
the real completion pipeline. Covers the newest request winning, the cache, typing-through, an
edit dropping a stale answer, the latency budget, and a model repaired on disk being loaded again."""
import asyncio
import time

from lsp_server.completion.service import CompletionService
from lsp_server.config import Settings
from lsp_server.model_store.manifest import load_manifest

SPECIAL = 0x110000  # ids past Unicode for special tokens


class CharTokenizer:
    def __init__(self, specials) -> None:
        self.special = {t: SPECIAL + n for n, t in enumerate(specials)}
        self.names = {v: k for k, v in self.special.items()}

    def encode(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def encode_batch(self, texts):
        return [self.encode(t) for t in texts]

    def decode(self, ids) -> str:
        return "".join(self.names.get(i, "") if i >= SPECIAL else chr(i) for i in ids)

    def token_id(self, token: str):
        return self.special.get(token)

    def token_bytes(self, token_id: int) -> bytes:
        return self.decode([token_id]).encode()

    def healing_candidates(self, pending: bytes):
        return [ord(pending.decode()[0])]


class FakeEngine:
    """Generates script(prompt text) one character at a time, `delay_s` per token, checking
    `cancelled` between tokens as the real generator does between forward passes."""

    def __init__(self, script, delay_s: float = 0.0) -> None:
        self.spec = load_manifest().get(None)
        fim = self.spec.fim
        self.tokenizer = CharTokenizer([fim.prefix, fim.suffix, fim.middle, fim.file_sep, fim.repo_name])
        self.stop_ids = frozenset()
        self.script, self.delay_s = script, delay_s
        self.calls = 0

    def generate(self, prompt, cfg, cancelled=lambda: False, stats=None, side=False):
        self.calls += 1
        if stats is not None:
            stats.forward_passes += 1
        for ch in self.script(self.tokenizer.decode(prompt))[: cfg.max_new_tokens]:
            if cancelled():
                if stats is not None:
                    stats.cancelled = True
                return
            time.sleep(self.delay_s)
            yield ord(ch)

    def describe(self) -> dict:
        return {"model": "fake"}


def service_with(engine, **settings) -> CompletionService:
    base = {"cache": True, "typing_through": True, "latency_budget_ms": 0, "debounce_ms": 0, "reuse_prefix": False,
            **settings}
    return CompletionService(Settings(**base), load=lambda s: engine)


def run(coro):
    return asyncio.run(coro)


PREFIX = "def fib(n):\n    if n < 2:\n        return n\n    return "
SUFFIX = "\n"
ANSWER = " fib(n - 1) + fib(n - 2)\n"  # the backed-off space, then the suggestion, then a newline


def test_a_suggestion_then_the_cache_then_typing_through():
    engine = FakeEngine(lambda prompt: ANSWER)

    async def scenario():
        s = service_with(engine)
        await s.load()
        first = await s.suggest("file:///a.py", PREFIX, SUFFIX)
        assert (first.text, first.source) == ("fib(n - 1) + fib(n - 2)", "model")
        typed = await s.suggest("file:///a.py", PREFIX + "fib(", SUFFIX)  # the user types into it
        assert (typed.text, typed.source) == ("n - 1) + fib(n - 2)", "typing-through")
        s._shown.clear()
        again = await s.suggest("file:///a.py", PREFIX, SUFFIX)  # the same text around the cursor
        assert (again.text, again.source) == ("fib(n - 1) + fib(n - 2)", "cache")
        assert engine.calls == 1
        report = s.stats.report()
        assert report["cache_hits"] == 1 and report["typing_through"] == 1 and report["model_calls"] == 1
        s.shutdown()

    run(scenario())


def test_the_newest_request_for_a_document_wins():
    engine = FakeEngine(lambda prompt: ANSWER, delay_s=0.01)

    async def scenario():
        s = service_with(engine)
        await s.load()
        older = asyncio.ensure_future(s.suggest("file:///a.py", PREFIX, SUFFIX))
        await asyncio.sleep(0.03)  # mid-generation (25 tokens take 0.25 s)
        newer = await s.suggest("file:///a.py", PREFIX + "f", SUFFIX)
        assert await older is None  # cancelled between tokens, nothing shown
        assert newer is not None and newer.text
        assert s.stats.cancelled >= 1
        s.shutdown()

    run(scenario())


def test_an_edit_drops_the_answer_in_flight():
    engine = FakeEngine(lambda prompt: ANSWER, delay_s=0.01)

    async def scenario():
        s = service_with(engine)
        await s.load()
        pending = asyncio.ensure_future(s.suggest("file:///a.py", PREFIX, SUFFIX))
        await asyncio.sleep(0.03)
        s.document_changed("file:///a.py")  # didChange: the answer would be for old text
        assert await pending is None and s.stats.cancelled == 1
        await s.suggest("file:///a.py", PREFIX, SUFFIX)
        assert engine.calls == 2  # nothing of the dropped answer was cached
        s.shutdown()

    run(scenario())


def test_the_latency_budget_shows_what_exists_and_does_not_cache_it():
    engine = FakeEngine(lambda prompt: ANSWER, delay_s=0.01)

    async def scenario():
        s = service_with(engine, latency_budget_ms=30)
        await s.load()
        cut = await s.suggest("file:///a.py", PREFIX, SUFFIX)
        assert cut is not None and "fib(n - 1) + fib(n - 2)".startswith(cut.text)
        assert len(cut.text) < len("fib(n - 1) + fib(n - 2)")  # the budget stopped it
        s._shown.clear()
        await s.suggest("file:///a.py", PREFIX, SUFFIX)
        assert engine.calls == 2  # a cut-short suggestion is not the one to cache
        s.shutdown()

    run(scenario())


class Loaded:
    def describe(self) -> dict:
        return {"model": "fake"}


def test_a_model_repaired_on_disk_is_loaded_without_a_restart(monkeypatch):
    attempts = []

    def load(settings):
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("model.onnx.data is corrupt")
        return Loaded()

    async def scenario():
        service = CompletionService(Settings(), load=load)
        files = [("model.onnx.data", 5, 1)]
        monkeypatch.setattr(service, "_model_files", lambda: tuple(files))
        await service.load()
        assert service.state.status == "error" and "corrupt" in service.state.error
        assert service.reload_if_repaired() is False  # nothing changed on disk
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
