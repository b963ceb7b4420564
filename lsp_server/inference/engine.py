"""The process-wide inference engine: one loaded model, one generator (one KV cache), one lock.

Generation is serialised (there is one KV cache and two cores); callers cancel by passing a
predicate that the loop checks between forward passes, so a newer request never waits long.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import onnxruntime as ort

from lsp_server.errors import ModelNotInstalled, TandemError
from lsp_server.inference.decoder import Decoder
from lsp_server.inference.device import Choice, choose
from lsp_server.inference.generate import GenerationConfig, GenerationStats, Generator, token_logprobs
from lsp_server.inference.tokenizer import TokenizerWrapper
from lsp_server.model_store.install import check_weights, variant_intact
from lsp_server.model_store.manifest import ModelSpec, load_manifest
from lsp_server.model_store.paths import variant_dir


@dataclass(frozen=True)
class EngineKey:
    model: str
    precision: str
    threads: int
    device: str


class Engine:
    def __init__(self, spec: ModelSpec, precision: str, threads: int = 0, device: str = "auto") -> None:
        vdir = variant_dir(spec.name, precision)
        if precision not in spec.all_precisions:
            raise TandemError(f"model {spec.name} has no {precision} variant (have: {', '.join(spec.all_precisions)})")
        if not variant_intact(vdir, spec):
            raise ModelNotInstalled(f"model {spec.name} ({precision}) is not installed, is incomplete, or was built "
                                    f"with another next-edit adapter in {vdir}; "
                                    f"run `tandem models install {spec.name}`")
        check_weights(vdir)  # bytes changed in place: refuse rather than suggest garbage
        self.spec = spec
        self.precision = precision
        self.path: Path = vdir
        started = time.perf_counter()
        try:
            self.device, self.decoder = self._open(vdir, threads, device)
            self.tokenizer = TokenizerWrapper(vdir / "tokenizer.json")
        except Exception as exc:  # corrupt file, wrong graph: actionable message, not a traceback
            raise ModelNotInstalled(f"model {spec.name} ({precision}) in {vdir} could not be loaded ({exc.__class__.__name__}: "
                                    f"{str(exc).splitlines()[0][:200]}); run `tandem models verify` or reinstall") from exc
        self.load_seconds = time.perf_counter() - started
        self.generator = Generator(self.decoder)
        # next edit's own KV cache, computed with the adapter's branches on: its prompts share
        # nothing with completion's, and writing them into the working cache would make the next
        # keystroke prefill its whole prompt again
        self.side = Generator(self.decoder, adapter=self.decoder.has_adapter)
        self.lock = threading.Lock()
        ids = (self.tokenizer.token_id(t) for t in spec.stop_tokens)
        self.stop_ids = frozenset(i for i in ids if i is not None)
        self.warm = False

    @staticmethod
    def _open(vdir: Path, threads: int, device: str) -> tuple[Choice, Decoder]:
        """The decoder on the best device that really runs it (see inference/device.py)."""
        def trial(providers: tuple[str, ...]) -> list[str]:
            dec = Decoder(vdir, threads=threads, providers=list(providers))
            dec.forward([0], dec.empty_past())  # a provider that initialises but cannot run fails here
            trial.result = dec
            return dec.providers

        return choose(device, ort.get_available_providers(), trial)

    def warm_up(self) -> None:
        """One short generation so the first user request does not pay for lazy ORT init."""
        cfg = GenerationConfig(max_new_tokens=2, stop_ids=self.stop_ids, speculate=False, reuse_prefix=False)
        with self.lock:
            for _ in self.generator.generate(self.tokenizer.encode("def main():\n    "), cfg):
                pass
            self.generator.reset()
        self.tokenizer.healing_candidates(b" ")  # builds the byte-level vocabulary table once
        self.warm = True

    def generate(self, prompt: list[int], cfg: GenerationConfig, cancelled: Callable[[], bool] = lambda: False,
                 stats: GenerationStats | None = None, side: bool = False) -> Iterator[int]:
        """Stream tokens while holding the engine lock. Iterate to the end or close() the iterator.
        side: on the second KV cache (next edit), leaving completion's warm."""
        with self.lock:
            yield from (self.side if side else self.generator).generate(prompt, cfg, cancelled, stats)

    @property
    def next_edit_threshold(self) -> float | None:
        """The model path of next edit speaks above this confidence; None: the model was built
        without Tandem's next-edit adapter, and the untrained model is never right."""
        return self.spec.adapter.next_edit_threshold if self.spec.adapter and self.decoder.has_adapter else None

    def prefill(self, prompt: list[int], cancelled: Callable[[], bool] = lambda: False) -> GenerationStats:
        """Idle-time prefill: compute the KV cache for a prompt the user is likely to ask for next."""
        stats = GenerationStats()
        with self.lock:
            self.generator.prefill(prompt, GenerationConfig(), stats, cancelled)
        return stats

    def prefill_spare(self, prompt: list[int], cancelled: Callable[[], bool] = lambda: False) -> int:
        """Speculative prefill of a prompt the user may ask for after their next move (the next
        line), into the generator's spare cache so the working cache stays warm."""
        with self.lock:
            return self.generator.prefill_spare(prompt, cancelled)

    def log_likelihood(self, ids: list[int]) -> float:
        """Sum of log p(token | tokens before it) over ids[1:], from a fresh cache (the
        generator's caches are left alone). Used to rank candidate texts."""
        if len(ids) < 2:
            return 0.0
        with self.lock:
            logits, _ = self.decoder.forward(ids[:-1], self.decoder.empty_past(), keep=len(ids) - 1)
        return float(token_logprobs(logits, ids[1:]).sum())  # logits: [len(ids) - 1, vocab]

    def describe(self) -> dict:
        return {"model": self.spec.name, "precision": self.precision, "path": str(self.path),
                "device": self.device.device, "device_note": self.device.note, "providers": self.decoder.providers, "load_seconds": round(self.load_seconds, 3), "warm": self.warm}


_engines: dict[EngineKey, Engine] = {}
_engines_lock = threading.Lock()


def get_engine(model: str | None = None, precision: str | None = None, threads: int = 0,
               device: str | None = None) -> Engine:
    """The shared engine for this process (loaded once per model/precision/threads/device).
    device None: TANDEM_DEVICE or auto."""
    spec = load_manifest().get(model)
    key = EngineKey(spec.name, precision or spec.default_precision, threads, device or os.environ.get("TANDEM_DEVICE") or "auto")
    with _engines_lock:
        if key not in _engines:
            _engines.clear()  # one model in memory at a time
            _engines[key] = Engine(spec, key.precision, threads, key.device)
        return _engines[key]
