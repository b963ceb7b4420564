"""Next edit's model path without the model: the answer format, the confidence of the changed
lines, decoding with a scripted engine (threshold, cancellation, the second KV cache), and the
threshold sweep of models/tune_next_edit.py."""
from __future__ import annotations

import math

from lsp_server.next_edit.model import (FENCE, Rewrite, build_prompt, confidence_of, decode_region, parse_answer,
                                        region_centre, region_for, resynced, rewrite)
from models.tune_next_edit import choose, region_of, sweep


class CharTokenizer:
    """One token per character: token ids are code points."""

    def encode(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def decode(self, ids: list[int]) -> str:
        return "".join(map(chr, ids))


class ScriptedEngine:
    """Writes `answer` token by token with the log-probs given per character (-0.1 elsewhere)."""

    def __init__(self, answer: str, low: dict[int, float] | None = None, threshold: float | None = -1.0) -> None:
        self.tokenizer, self.stop_ids = CharTokenizer(), frozenset()
        self.answer, self.low, self.next_edit_threshold = answer, low or {}, threshold
        self.calls: list[dict] = []
        self.written = 0  # tokens the decoding asked for

    def generate(self, prompt, cfg, cancelled=lambda: False, stats=None, side=False):
        self.calls.append({"prompt": self.tokenizer.decode(prompt), "side": side})
        for n, ch in enumerate(self.answer):
            if cancelled() or n == cfg.max_new_tokens:
                return
            cfg.logprobs.append(self.low.get(n, -0.1))
            self.written += 1
            yield ord(ch)


def test_the_answer_is_the_region_then_the_fence():
    assert parse_answer("a\nb\n" + FENCE) == ["a", "b"]
    assert parse_answer("\n" + FENCE) == [""]  # one blank line
    assert parse_answer(FENCE) == []
    assert parse_answer("a\nb") is None  # the fence never came: cut off
    assert parse_answer("a\n" + FENCE + "\ntrailing chatter") == ["a"]


def test_confidence_counts_only_the_changed_lines_tokens():
    new = ["same", "CHANGED", "same"]
    spans = [(k, k + 1) for k in range(len("\n".join(new)) + 1)]
    logprobs = [-5.0] * 5 + [-0.5] * 8 + [-5.0] * 5  # the changed line and its newline are -0.5
    assert math.isclose(confidence_of(new, 1, 1, spans, logprobs), -0.5)
    assert confidence_of(new, 1, 1, [], []) == float("-inf")


def test_decoding_returns_the_changed_block_on_the_second_cache():
    old = ["def f(a):", "    return a", "", "def g(a):", "    return a"]
    engine = ScriptedEngine("def f(a):\n    return a\n\ndef g(a, b):\n    return a\n" + FENCE)
    got = decode_region(engine, engine.tokenizer.encode("prompt"), old)
    assert (got.start_line, got.end_line, got.new_lines) == (3, 4, ["def g(a, b):"])
    assert math.isclose(got.confidence, -0.1)
    assert engine.calls[0]["side"] is True  # completion's KV cache stays warm


def test_an_unchanged_cut_off_or_much_shorter_region_is_silence():
    old = ["a", "b", "c", "d", "e"]
    assert decode_region(ScriptedEngine("a\nb\nc\nd\ne\n" + FENCE), [1], old) is None
    assert decode_region(ScriptedEngine("a\nB\nc\n"), [1], old) is None  # cut off before back in step
    assert decode_region(ScriptedEngine("a\nB\n" + FENCE), [1], old) is None  # lost three lines


def test_a_change_then_two_copied_lines_the_region_has_once_complete_the_region():
    old = ["a", "b", "c", "d", "e", "f"]
    assert resynced(old, ["a", "B", "c", "d"]) == ["a", "B", "c", "d", "e", "f"]       # a line replaced
    assert resynced(old, ["a", "X", "b", "c"]) == ["a", "X", "b", "c", "d", "e", "f"]  # a line inserted
    assert resynced(old, ["a", "c", "d"]) == ["a", "c", "d", "e", "f"]                 # a line deleted
    assert resynced(old, ["a", "b", "c"]) is None      # nothing changed yet: the rest may still change
    assert resynced(old, ["a", "B", "c"]) is None      # one copied line is not enough
    assert resynced(["a", "", "", "x", "", ""], ["a", "y", "", ""]) is None  # blank lines place nothing
    assert resynced(["a", "b", "c", "d", "b", "c"], ["a", "X", "b", "c"]) is None  # the region has them twice


def test_decoding_stops_once_the_answer_is_back_in_step_with_the_region():
    old = ["def f(a):", "    return a", "", "def g(a):", "    return a", "", "x = 1", "y = 2", "z = 3"]
    answer = "\n".join(old).replace("def f(a):", "def f(a, b):") + "\n" + FENCE
    engine = ScriptedEngine(answer)
    got = decode_region(engine, [1], old)
    assert (got.start_line, got.end_line, got.new_lines) == (0, 1, ["def f(a, b):"])
    # "    return a" and "" follow f and g alike: in step only once "def g(a):" is copied
    assert engine.written == len("def f(a, b):\n    return a\n\ndef g(a):\n")  # and not a token more


def test_rewrite_speaks_only_above_the_adapters_threshold():
    text = "\n".join(["x = 1", "def f(a):", "    return a", "", "def g(a):", "    return a", "y = 2"])
    lines = text.split("\n")
    start, end = region_for(len(lines), region_centre(lines, 1, None))
    region = lines[start:end]
    changed = "\n".join(region).replace("def g(a):", "def g(a, b):") + "\n" + FENCE
    diff = "--- a/m.py\n+++ b/m.py\n@@ -2,1 +2,1 @@\n-def f():\n+def f(a):\n"
    sure = ScriptedEngine(changed, threshold=-1.0)
    r = rewrite(sure, "m.py", text, 1, [diff])
    assert r == Rewrite(4, 5, ["def g(a, b):"], r.confidence)
    assert sure.calls[0]["prompt"] == build_prompt("m.py", lines, start, end, [diff])
    at = changed.index("def g(a, b)")
    unsure = ScriptedEngine(changed, low={k: -3.0 for k in range(at, at + 13)}, threshold=-1.0)
    assert rewrite(unsure, "m.py", text, 1, [diff]) is None
    untrained = ScriptedEngine(changed, threshold=None)  # a model built without the adapter
    assert rewrite(untrained, "m.py", text, 1, [diff]) is None and untrained.calls == []


def test_a_cancelled_rewrite_is_silence():
    text = "def f(a):\n    return a\n\ndef g(a):\n    return a"
    engine = ScriptedEngine(text.replace("g(a)", "g(a, b)") + "\n" + FENCE)
    assert rewrite(engine, "m.py", text, 0, ["diff"], cancelled=lambda: True) is None


def test_the_threshold_maximises_right_minus_wrong_suggestions():
    outcomes = [
        {"confidence": -0.05, "right": True, "expected_change": True},
        {"confidence": -0.10, "right": True, "expected_change": True},
        {"confidence": -0.20, "right": False, "expected_change": False},
        {"confidence": -0.30, "right": True, "expected_change": True},
        {"confidence": -0.40, "right": False, "expected_change": True},
        {"confidence": -0.50, "right": False, "expected_change": False},
        {"confidence": None, "right": False, "expected_change": False},
        {"confidence": None, "right": False, "expected_change": True},
    ]
    rows = sweep(outcomes)
    assert [(r["threshold"], r["right"], r["wrong"]) for r in rows] == [
        (-0.05, 1, 0), (-0.10, 2, 0), (-0.20, 2, 1), (-0.30, 3, 1), (-0.40, 3, 2), (-0.50, 3, 3)]
    assert choose(rows)["threshold"] == -0.10  # 2 - 0 ties with 3 - 1: the higher threshold
    assert rows[-1]["silence_accuracy"] == round(1 - 2 / 3, 4) and rows[1]["exact_edit_rate"] == 0.4
    assert choose(sweep([{"confidence": -0.1, "right": False, "expected_change": True}])) is None


def test_the_tuner_reads_the_region_of_a_training_prompt():
    lines = ["a", "b", "c"]
    assert region_of(build_prompt("p.py", lines, 1, 3, ["d"])) == ["b", "c"]
