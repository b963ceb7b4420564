"""models/train_next_edit.py without the real model: target-token masking, the LoRA merge,
checkpoint/resume. The data tests run anywhere; the others need torch, transformers, peft and
safetensors, which live only in the model-build environment, and skip without them. All of it:

    ~/.cache/tandem/buildenv/bin/pip install pytest    # once; not part of requirements-build.txt
    ~/.cache/tandem/buildenv/bin/python -m pytest -q tests/unit/test_train_next_edit.py
"""
import importlib.util
import json

import pytest

from lsp_server.next_edit.model import build_prompt
from models import train_next_edit as tne

needs_torch = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("torch", "transformers", "peft", "safetensors")),
    reason="torch/transformers/peft live in the build venv: run with ~/.cache/tandem/buildenv/bin/python -m pytest")

SNIPPETS = [  # (file lines, region start, end, the region after the next edit)
    (["def f(a):", "    return a", "", "def g(a):", "    return a"], 3, 5, ["def g(a, b):", "    return a + b"]),
    (["x = 1", "y = 2", "z = 3"], 0, 3, ["x = 1", "y = 2", "z = 3"]),
    (["import os", "import sys", "", "print(sys.argv)"], 0, 4, ["import sys", "", "print(sys.argv)"]),
    (["for i in range(3):", "    print(i)"], 0, 2, ["for i in range(4):", "    print(i)", "print('done')"]),
    (["a = load()", "b = load()", "c = load()"], 0, 3, ["a = load(cache=True)", "b = load(cache=True)", "c = load()"]),
]


def char_encode(text):
    """A tokenizer with one token per character (ids fit a 128-word vocabulary)."""
    return [ord(c) % 128 for c in text], [(i, i + 1) for i in range(len(text))]


def row(n, lines, start, end, after):
    prompt = build_prompt("m.py", lines, start, end, ["@@ -1 +1 @@\n-old\n+new\n"])
    kind = "silence" if after == lines[start:end] else "edit"
    return {"id": f"t{n}", "kind": kind, "prompt": prompt, "target": "\n".join(after) + "\n```"}


ROWS = [row(n, *s) for n, s in enumerate(SNIPPETS)]


# ---------------------------------------------------------------- data, no torch

def test_labels_mask_the_prompt_and_positions_line_up():
    r = ROWS[0]
    ex = tne.encode_example(char_encode, r, 10_000)
    prompt_ids, _ = char_encode(r["prompt"])
    target_ids, _ = char_encode(r["target"])
    assert ex.ids == prompt_ids + target_ids and ex.prompt_len == len(prompt_ids)
    assert ex.labels[:ex.prompt_len] == [tne.IGNORE] * len(prompt_ids)
    assert ex.labels[ex.prompt_len:] == target_ids
    pos = tne.target_positions(ex.labels)
    assert len(pos) == len(target_ids)
    assert pos[0][0] == ex.prompt_len - 1  # the prompt's last token predicts the first target token
    assert all(ex.ids[p + 1] == t for p, t in pos)


def test_changed_lines_are_the_edit_not_the_copied_lines():
    ex = tne.encode_example(char_encode, ROWS[0], 10_000)
    assert ex.region == "def g(a):\n    return a"
    target = ex.target
    marked = "".join(c for c, m in zip(target, ex.changed[ex.prompt_len:]) if m)
    assert marked == "def g(a, b):\n    return a + b\n"
    weights = tne.loss_weights(ex, 3.0)
    assert sorted(set(weights)) == [1.0, 3.0] and weights.count(3.0) == len(marked)
    silence = tne.encode_example(char_encode, ROWS[1], 10_000)
    assert not any(silence.changed) and set(tne.loss_weights(silence, 3.0)) == {1.0}


def test_a_deletion_marks_the_line_after_it():
    assert tne.changed_spans("import os\nimport sys", "import sys\n```") == [(0, 11)]
    t = "a\n```"
    assert tne.changed_spans("a\nb", t) == [(2, len(t))]  # deleted last line: the fence is the decision


def test_long_examples_are_dropped_and_counted(tmp_path):
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps({**r, "format_version": 1}) + "\n" for r in ROWS))
    longest = max(len(r["prompt"]) + len(r["target"]) for r in ROWS)
    examples, stats = tne.load_split(path, char_encode, longest - 1)
    assert stats["rows"] == 5 and stats["dropped_too_long"] == 1 and len(examples) == 4
    assert stats["format_versions"] == [1] and len(stats["sha256"]) == 64


def test_every_example_once_per_epoch_in_a_seeded_order():
    cfg = tne.TrainConfig(batch=2, epochs=2, seed=7)
    assert tne.total_steps(5, cfg) == 6
    epoch = [i for s in range(3) for i in tne.batch_indices(s, 5, cfg)]
    assert sorted(epoch) == list(range(5))
    assert [tne.batch_indices(s, 5, cfg) for s in range(6)] == [tne.batch_indices(s, 5, cfg) for s in range(6)]
    assert epoch != [i for s in range(3, 6) for i in tne.batch_indices(s, 5, cfg)]


def test_the_draft_continues_the_latest_earlier_match():
    assert tne.lookup_draft([1, 2, 3, 9, 1, 2, 3, 7, 8, 1, 2, 3], 2) == [7, 8]
    assert tne.lookup_draft([5, 6, 4, 6], 3) == [4, 6]  # no 3- or 2-gram match: the last token alone
    assert tne.lookup_draft([1, 2, 3], 4) == []


def test_answers_compare_up_to_the_fence():
    assert tne.answer_text("x = 1\n```\nmore") == tne.answer_text("x = 1\n```") == "x = 1"


# ---------------------------------------------------------------- model, tiny and random

def tiny_model(seed=0):
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    cfg = Qwen2Config(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                      tie_word_embeddings=False)
    return Qwen2ForCausalLM(cfg).eval()


CODEC = tne.Codec(decode=lambda ids: "".join(chr(i) for i in ids), pad_id=0, stop_ids=frozenset())
SPEC = tne.LoraSpec(rank=4, alpha=8, dropout=0.1)


def lora_model(seed=0, spec=SPEC):
    import torch

    model = tiny_model()
    torch.manual_seed(seed)
    return tne.add_lora(model, spec, "tiny")


@needs_torch
def test_the_head_at_target_rows_equals_the_full_logits():
    import torch
    import torch.nn.functional as F

    lm = tiny_model()
    exs = [tne.encode_example(char_encode, r, 10_000) for r in ROWS[:2]]
    b = tne.collate(exs, CODEC.pad_id, 1.0, "cpu")
    with torch.no_grad():
        ce = tne.target_ce(lm, b)
        want = []
        for e in exs:
            logits = lm(input_ids=torch.tensor([e.ids])).logits[0]
            pos = tne.target_positions(e.labels)
            want.append(F.cross_entropy(logits[[p for p, _ in pos]], torch.tensor([t for _, t in pos]), reduction="none"))
    assert ce.shape == (sum(len(e.ids) - e.prompt_len for e in exs),)
    assert torch.allclose(ce, torch.cat(want), atol=1e-5)  # the padded batch of two, too


@needs_torch
def test_lora_goes_on_the_named_modules_of_the_upper_layers_only():
    model = lora_model(spec=tne.LoraSpec(rank=4, alpha=8, layers_from=1))
    adapted = {n.split(".lora_")[0] for n, p in model.named_parameters() if p.requires_grad}
    assert adapted == {f"base_model.model.model.layers.1.{m}" for m in
                       ("self_attn.q_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.down_proj")}


@needs_torch
def test_merge_is_base_plus_scaled_product():
    import torch

    g = torch.Generator().manual_seed(0)
    base = {"model.layers.0.self_attn.q_proj.weight": torch.randn(6, 5, generator=g),
            "model.layers.0.self_attn.k_proj.weight": torch.randn(6, 5, generator=g)}
    key = "base_model.model.model.layers.0.self_attn.q_proj"
    a, b = torch.randn(2, 5, generator=g), torch.randn(6, 2, generator=g)
    lora = {f"{key}.lora_A.weight": a, f"{key}.lora_B.weight": b}
    snapshot = {k: v.clone() for k, v in base.items()}
    merged = tne.merge_lora(base, lora, 4.0)
    assert torch.allclose(merged["model.layers.0.self_attn.q_proj.weight"], snapshot["model.layers.0.self_attn.q_proj.weight"] + 4.0 * b @ a)
    assert merged["model.layers.0.self_attn.k_proj.weight"] is base["model.layers.0.self_attn.k_proj.weight"]
    assert all(torch.equal(base[k], snapshot[k]) for k in base)  # the input is not modified
    again = tne.merge_lora(base, lora, 4.0)
    assert all(torch.equal(merged[k], again[k]) for k in merged)
    with pytest.raises(ValueError):
        tne.merge_lora({}, lora, 1.0)


@needs_torch
def test_a_saved_adapter_merged_gives_the_adapted_model(tmp_path):
    import torch

    model = lora_model()
    for name, p in model.named_parameters():  # peft starts B at zero (a no-op adapter): give it weight
        if "lora_B" in name:
            p.data.normal_(0, 0.5)
    model.eval()
    ids = torch.tensor([char_encode("def f(a):\n    return a\n")[0]])
    with torch.no_grad():
        adapted = model(input_ids=ids).logits
    tne.save_adapter(model, tmp_path / "adapter")
    sums = (tmp_path / "adapter" / "SHA256SUMS").read_text()
    assert tne.sha256_file(tmp_path / "adapter" / tne.ADAPTER_FILE) in sums

    plain = tiny_model()
    base_logits = plain(input_ids=ids).logits.detach()
    merged = tne.merge_adapter(plain.state_dict(), tmp_path / "adapter")
    assert all(torch.equal(merged[k], v) for k, v in tne.merge_adapter(plain.state_dict(), tmp_path / "adapter").items())
    plain.load_state_dict(merged)
    with torch.no_grad():
        got = plain(input_ids=ids).logits
    assert (got - base_logits).abs().max() > 1e-2  # the adapter changes the outputs
    assert torch.allclose(got, adapted, atol=2e-2)  # as the adapter did (saved in fp16)


@needs_torch
def test_drafted_greedy_gives_plain_greedy_tokens():
    import torch

    lm = tiny_model(seed=5)
    cfg = tne.TrainConfig(autocast="fp32")
    for r in ROWS[:3]:
        prompt = char_encode(r["prompt"])[0]
        ids = list(prompt)
        with torch.no_grad():
            for _ in range(40):
                ids.append(int(lm(input_ids=torch.tensor([ids])).logits[0, -1].argmax()))
        want = CODEC.decode(ids[len(prompt):])
        want = want[:want.index(tne.FENCE) + 3] if tne.FENCE in want else want
        assert tne.greedy(lm, prompt, 40, CODEC, cfg) == want


def run_training(out, max_steps, resume=False):
    examples = [tne.encode_example(char_encode, r, 10_000) for r in ROWS]
    cfg = tne.TrainConfig(lora=SPEC, lr=1e-2, batch=2, epochs=3, max_steps=max_steps, eval_every=2, eval_examples=2,
                          max_new_tokens=8, seed=3, autocast="bf16")
    meta = {"data": {"train": {"sha256": "fake"}}, "run": {"command": "test"}}
    model = lora_model()
    log = tne.train(model, examples, examples[:2], cfg, CODEC, out, meta, resume=resume)
    return model, log


@needs_torch
def test_resume_continues_exactly(tmp_path):
    import torch

    straight, log_a = run_training(tmp_path / "a", 6)
    run_training(tmp_path / "b", 3)
    resumed, log_b = run_training(tmp_path / "b", 6, resume=True)
    a, b = tne.adapter_tensors(straight), tne.adapter_tensors(resumed)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert [s["loss"] for s in log_a["steps"]] == [s["loss"] for s in log_b["steps"]]
    assert [s["step"] for s in log_b["steps"]] == list(range(1, 7)) and len(log_b["runs"]) == 2
    assert log_b["finished"] and log_b["runs"][1]["resumed_from_step"] == 3
    assert {e["step"] for e in log_b["evals"]} >= {2, 4, 6}
    assert (tmp_path / "b" / "adapter" / "adapter_config.json").exists()
    on_disk = json.loads((tmp_path / "b" / "train_log.json").read_text())
    assert on_disk["final_step"] == 6 and on_disk["evals"][-1]["n"] == 2


@needs_torch
def test_resume_refuses_other_settings(tmp_path):
    run_training(tmp_path, 2)
    examples = [tne.encode_example(char_encode, r, 10_000) for r in ROWS]
    cfg = tne.TrainConfig(lora=SPEC, lr=5e-3, batch=2, max_steps=4, seed=3, autocast="bf16")
    with pytest.raises(SystemExit, match="lr"):
        tne.train(lora_model(), examples, [], cfg, CODEC, tmp_path, {"data": {"train": {"sha256": "fake"}}}, resume=True)


@needs_torch
def test_autocast_auto_times_both_on_a_cpu_and_keeps_an_explicit_choice():
    model_config = tiny_model().config
    cfg, how = tne.resolve_autocast(tne.TrainConfig(), model_config)
    assert cfg.autocast in ("bf16", "fp32") and set(how["matmul_seconds"]) == {"bf16", "fp32"}
    assert tne.resolve_autocast(tne.TrainConfig(autocast="fp32"), model_config)[0].autocast == "fp32"
