"""Execution-provider choice (inference/device.py) without a GPU: the trial is faked where a
provider would be needed, and the real onnxruntime is used for the CPU fallback."""
import pytest

from lsp_server.config import parse_settings
from lsp_server.inference.device import choose, plan

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"


def trial_using(behaviour):
    def trial(providers):
        outcome = behaviour(providers[0])
        if isinstance(outcome, Exception):
            raise outcome
        trial.result = f"session on {outcome[0]}"
        return outcome
    return trial


def test_auto_prefers_an_accelerator_that_runs():
    choice, session = choose("auto", [CUDA, CPU], trial_using(lambda p: [p, CPU]))
    assert choice.device == "cuda" and choice.providers == (CUDA, CPU) and choice.note == ""
    assert session == f"session on {CUDA}"


def test_auto_falls_back_to_cpu_with_the_reason():
    def behaviour(p):
        return RuntimeError("CUDA driver version is insufficient") if p == CUDA else [CPU]
    choice, _ = choose("auto", [CUDA, CPU], trial_using(behaviour))
    assert choice.device == "cpu" and "driver version is insufficient" in choice.note


def test_silent_fallback_inside_onnxruntime_is_caught():
    # ORT may create the session but quietly run it on the CPU (missing cuDNN): not "cuda"
    choice, _ = choose("cuda", [CUDA, CPU], trial_using(lambda p: [CPU]))
    assert choice.device == "cpu" and "fell back to CPUExecutionProvider" in choice.note


def test_named_device_without_its_provider():
    choice, _ = choose("cuda", [CPU], trial_using(lambda p: [p]))
    assert choice.device == "cpu" and "tandem-lsp[gpu]" in choice.note
    assert plan("cpu", [CUDA, CPU]) == ["cpu"]
    assert plan("auto", ["CoreMLExecutionProvider", CPU]) == ["coreml", "cpu"]


def test_nothing_runs():
    with pytest.raises(RuntimeError, match="no execution provider"):
        choose("cpu", [CPU], trial_using(lambda p: MemoryError("out of memory")))


def test_device_setting_is_validated():
    s, problems = parse_settings({"device": "cuda"})
    assert s.device == "cuda" and not problems
    s, problems = parse_settings({"device": "gpu-please"})
    assert s.device == "auto" and "tandem.device must be one of" in problems[0]


@pytest.mark.model
def test_real_engine_asked_for_cuda_runs_on_cpu_here():
    import onnxruntime as ort

    from lsp_server.inference.engine import Engine
    from lsp_server.model_store.manifest import load_manifest

    if CUDA in ort.get_available_providers():
        pytest.skip("this machine has CUDA: the fallback is tested on CPU-only machines")
    spec = load_manifest().get(None)
    engine = Engine(spec, spec.default_precision, threads=1, device="cuda")
    info = engine.describe()
    assert info["device"] == "cpu" and info["providers"] == [CPU]
    assert "tandem.device=cuda is not usable" in info["device_note"]
