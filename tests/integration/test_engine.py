"""The real default model under ONNX Runtime."""
import re

import pytest

from lsp_server.completion import CompletionRequest, complete
from lsp_server.inference.generate import GenerationConfig, GenerationStats

pytestmark = pytest.mark.model

FIB = "def fib(n):\n    if n < 2:\n        return n\n    return "


def squash(s):
    return re.sub(r"\s+", "", s)


def test_fib_completes_with_recursive_call(engine):
    result = complete(engine, CompletionRequest(prefix=FIB, suffix="\n"))
    assert squash(result.text) in {"fib(n-1)+fib(n-2)", "fib(n-2)+fib(n-1)"}, result.text


PROMPTS = [
    (FIB, "\n\nprint(fib(10))\n"),
    ("import os\n\n\ndef list_python_files(root):\n    out = []\n    for dirpath, _, files in os.walk(root):\n        for name in files:\n            if name.endswith('.py'):\n                out.append(os.path.join(", ")\n    return out\n"),
    ("class Stack:\n    def __init__(self):\n        self.items = []\n\n    def push(self, item):\n        self.items.append(item)\n\n    def pop(self):\n        return self.", "\n"),
]


def _tokens(engine, ids, **kw):
    cfg = GenerationConfig(max_new_tokens=24, stop_ids=engine.stop_ids, **kw)
    stats = GenerationStats()
    out = list(engine.generate(ids, cfg, stats=stats))
    return out, stats


def test_prefix_reuse_and_speculation_change_nothing(engine):
    """Tokens with KV reuse and prompt-lookup speculation equal a fresh, plain greedy run."""
    from lsp_server.completion.context import fit_window
    from lsp_server.completion.formats import build_prompt, format_for

    tok = engine.tokenizer
    drafted = 0
    reused = 0
    for prefix, suffix in PROMPTS:
        prompt = build_prompt(format_for(engine.spec), tok, fit_window(tok, prefix, suffix))
        engine.generator.reset()
        plain, _ = _tokens(engine, prompt.ids, reuse_prefix=False, speculate=False)
        # Warm the cache with a shorter, different continuation of the same prompt, then rerun.
        _tokens(engine, prompt.ids[:-2] + [tok.encode(" x")[0]], reuse_prefix=True, speculate=True)
        fast, stats = _tokens(engine, prompt.ids, reuse_prefix=True, speculate=True)
        assert fast == plain, (tok.decode(fast), tok.decode(plain))
        drafted += stats.drafted
        reused += stats.reused_tokens
    assert reused > 0, "prefix reuse never kicked in"
    assert drafted > 0, "speculation never drafted: the equality above proved nothing about it"


def test_token_healing_continues_a_partial_identifier(engine):
    prefix = "import numpy as np\n\ndef mean(xs):\n    return np.mea"
    result = complete(engine, CompletionRequest(prefix=prefix, suffix="\n"))
    assert result.text.startswith("n("), result.text


def test_multiline_block_after_opener(engine):
    prefix = "def is_even(n):\n    "
    result = complete(engine, CompletionRequest(prefix=prefix, suffix="\n\n\nprint(is_even(4))\n"))
    assert result.multiline
    assert "return" in result.text
    assert "print(is_even" not in result.text


def test_cancellation_stops_generation(engine):
    result = complete(engine, CompletionRequest(prefix=FIB, suffix="\n"), cancelled=lambda: True)
    assert result.text == ""
    assert result.stats.cancelled


def test_latency_budget_returns_a_partial_suggestion(engine):
    full = complete(engine, CompletionRequest(prefix=FIB, suffix="\n"))
    cut = complete(engine, CompletionRequest(prefix=FIB, suffix="\n", budget_ms=0.001))
    assert cut.stats.stop_reason == "budget"
    assert cut.text and full.text.startswith(cut.text) and len(cut.text) < len(full.text)


def test_spare_cache_is_used_and_changes_nothing(engine):
    """A speculative prefill of the next line lands in the spare cache; the request for it then
    reuses it, and the tokens equal a fresh plain greedy run."""
    from lsp_server.completion.complete import prepare

    line = FIB  # cursor on "    return "
    next_line = "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n\n"
    engine.generator.reset()
    plain = complete(engine, CompletionRequest(prefix=next_line, suffix="\n", reuse_prefix=False, speculate=False)).text
    engine.generator.reset()
    complete(engine, CompletionRequest(prefix=line, suffix="\n"))  # the working cache: this line
    working = list(engine.generator.cache.ids)
    computed = engine.prefill_spare(prepare(engine, CompletionRequest(prefix=next_line, suffix="\n")).ids)
    assert computed > 0 and engine.generator.cache.ids == working  # working cache untouched
    res = complete(engine, CompletionRequest(prefix=next_line, suffix="\n"))
    assert res.stats.prompt_tokens - res.stats.reused_tokens <= 1  # all but the last token reused
    assert res.text == plain


@pytest.mark.model
def test_log_likelihood_prefers_sensible_code(engine):
    from lsp_server.apply.tiebreak import model_chooser

    good = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    bad = "def add(a, b):\n\n\ndef sub(a, b):\n    return a + b\n    return a - b\n"
    tok = engine.tokenizer
    assert engine.log_likelihood(tok.encode(good)) > engine.log_likelihood(tok.encode(bad))
    assert model_chooser(engine)([bad, good]) == 1


def test_the_next_edit_adapter_is_on_only_for_next_edits_cache(engine):
    """The installed model carries Tandem's adapter as side branches: on, the logits differ from
    the base model's, the same on every run; off (completion), they are exactly the base's."""
    import numpy as np

    dec = engine.decoder
    assert dec.has_adapter and engine.side.adapter and not engine.generator.adapter
    ids = engine.tokenizer.encode(FIB)
    base, _ = dec.forward(ids, dec.empty_past(), keep=len(ids))
    on, _ = dec.forward(ids, dec.empty_past(), keep=len(ids), adapter=True)
    again, _ = dec.forward(ids, dec.empty_past(), keep=len(ids), adapter=True)
    assert np.abs(on - base).max() > 0.1
    assert np.array_equal(on, again)
