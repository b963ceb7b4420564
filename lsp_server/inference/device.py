"""Which ONNX Runtime execution provider runs the model (setting `tandem.device`).

`auto` tries the accelerators this onnxruntime build offers, best first, and keeps the first
one that creates a session *and* runs a warm-up pass; anything else falls back to the CPU with
one log line saying why (provider not installed, driver missing, out of memory...). A named
device that cannot run is the same fallback, reported as a problem. Pure choice logic here;
the trial itself is a callable so it can be tested without a GPU.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger(__name__)

PROVIDERS = {
    "cuda": "CUDAExecutionProvider",
    "tensorrt": "TensorrtExecutionProvider",
    "rocm": "ROCMExecutionProvider",
    "dml": "DmlExecutionProvider",        # DirectML: Windows GPUs
    "coreml": "CoreMLExecutionProvider",  # Apple silicon
    "openvino": "OpenVINOExecutionProvider",
    "cpu": "CPUExecutionProvider",
}
# `auto` order: the fastest usually first. TensorRT is left to explicit choice: its engine build
# takes minutes on first use, which is no way to start an editor.
AUTO_ORDER = ("cuda", "rocm", "dml", "coreml", "openvino")
# Precision that suits each device when the user has not chosen one (int8 MatMul kernels are CPU ones).
PREFERRED_PRECISION = {"cuda": "fp16", "rocm": "fp16", "dml": "fp16", "tensorrt": "fp16"}


@dataclass(frozen=True)
class Choice:
    device: str                 # what runs: cpu | cuda | ...
    providers: tuple[str, ...]  # passed to InferenceSession
    note: str = ""              # why this and not what was asked for ("" when as asked)


def plan(device: str, available: list[str]) -> list[str]:
    """Devices to try in order for a setting, given onnxruntime.get_available_providers()."""
    if device == "cpu":
        return ["cpu"]
    if device == "auto":
        return [d for d in AUTO_ORDER if PROVIDERS[d] in available] + ["cpu"]
    return [device, "cpu"]


def has_provider(device: str, available: list[str]) -> bool:
    """This onnxruntime build can run `device` at all (the CPU always)."""
    return device == "cpu" or PROVIDERS[device] in available


def providers_for(device: str) -> tuple[str, ...]:
    return (PROVIDERS[device],) if device == "cpu" else (PROVIDERS[device], "CPUExecutionProvider")


def choose(device: str, available: list[str], trial: Callable[[tuple[str, ...]], list[str]]) -> tuple[Choice, object]:
    """Try each candidate with trial(providers) → the providers the session really uses (it
    raises when the session cannot be created or the warm-up fails). Returns the choice and
    whatever the successful trial left in `trial.result` (the session)."""
    reasons: list[str] = []
    for cand in plan(device, available):
        if not has_provider(cand, available):
            reasons.append(f"{cand}: this onnxruntime build has no {PROVIDERS[cand]} "
                           f"(install the GPU build: pip install 'tandem-lsp[gpu]')")
            continue
        try:
            used = trial(providers_for(cand))
        except Exception as exc:  # driver missing, out of memory, unsupported op...
            reasons.append(f"{cand}: {exc.__class__.__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}")
            continue
        if cand != "cpu" and (not used or used[0] != PROVIDERS[cand]):
            reasons.append(f"{cand}: onnxruntime fell back to {used[0] if used else 'nothing'}")
            continue
        note = ""
        if cand != device and device != "auto":
            note = f"tandem.device={device} is not usable, running on {cand} ({'; '.join(reasons)})"
        elif device == "auto" and reasons:
            note = f"no accelerator usable, running on {cand} ({'; '.join(reasons)})"
        if note:
            log.warning("%s", note)
        return Choice(cand, providers_for(cand), note), getattr(trial, "result", None)
    raise RuntimeError("no execution provider could run the model: " + "; ".join(reasons))
