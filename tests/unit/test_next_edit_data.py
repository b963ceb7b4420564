"""The next-edit training data builder (models/next_edit_data.py) on in-memory package pairs: no
download. The real build is `python models/next_edit_data.py build --out DIR`."""
import ast
import json
import random
import re

from lsp_server.next_edit.model import FENCE, FORMAT_VERSION, build_prompt, region_centre, region_for
from models import next_edit_data as nd

REGION = re.compile(r"Region \(lines (\d+)-(\d+)\) to rewrite:")


def estimate(text: str) -> int:
    return int(len(text) / nd.CHARS_PER_TOKEN) + 1


def module(n: int, name: str = "value") -> list[str]:
    """A small module of n similar functions."""
    lines = ['"""A module."""', "import os", ""]
    for k in range(n):
        lines += ["", f"def {name}_{k}(path, size):", "    data = read(path, size)", f"    return data + {k}", ""]
    return lines


def pair() -> tuple[str, str]:
    """Two versions of a file: line 5 changed, then line 32 (two one-line hunks, 27 lines apart)."""
    old = module(8)
    new = list(old)
    new[4] = "def value_0(path, size, mode):"
    new[31] = "    return data + 50"
    return "\n".join(old), "\n".join(new)


def releases() -> list[nd.Release]:
    old, new = pair()
    far_old = module(20, "item")
    far_new = list(far_old)
    far_new[5] = "    data = read(path, size, strict=True)"
    far_new[80] = "    return data * 2"  # > FAR lines below the first change
    return [nd.Release("alpha", "1.0", "1.1", {"alpha/core.py": old, "alpha/tests/test_core.py": old},
                       {"alpha/core.py": new, "alpha/tests/test_core.py": new}),
            nd.Release("beta", "2.0", "2.1", {"beta/far.py": "\n".join(far_old)}, {"beta/far.py": "\n".join(far_new)})]


def region_of(prompt: str) -> tuple[int, int]:
    m = REGION.search(prompt)
    return int(m.group(1)) - 1, int(m.group(2))


def test_training_packages_are_disjoint_from_benchmarks():
    names = {nd.normalise(p[0]) for p in nd.PAIRS}
    bench = nd.benchmark_packages()
    assert {"attrs", "typing-extensions", "python-dateutil", "termcolor", "express"} <= bench  # it reads every source
    assert names & bench == set()
    assert len(names) >= 100 and len(names) == len(nd.PAIRS)


def test_replay_builds_edit_and_silence_examples():
    old, new = pair()
    src = nd.Source("alpha", ("1.0", "1.1"), "alpha/core.py")
    examples = nd.file_examples(src, old, new, seed=0)
    assert [e.kind for e in examples] == ["edit", "silence"]
    edit, silence = examples
    # after the first hunk, the next one (line 32) is the answer: the region after it, then the fence
    current = old.split("\n")
    current[4] = new.split("\n")[4]
    start, end = region_of(edit.prompt)
    assert start <= 31 < end
    assert edit.target == "\n".join(new.split("\n")[start:end]) + "\n" + FENCE
    diff = nd.edit_between("alpha/alpha/core.py", old, "\n".join(current)).diff
    assert diff.startswith("--- a/alpha/alpha/core.py") and "@@ -4,3 +4,3 @@" in diff
    assert edit.prompt == build_prompt("alpha/alpha/core.py", current, start, end, [diff])
    assert not edit.repeat and not edit.augmented
    # after the last hunk: the region the server would show (centred on the line most like the
    # edited one's old text: the next place for the same edit), unchanged
    start, end = region_of(silence.prompt)
    lines = new.split("\n")
    assert (start, end) == region_for(len(lines), region_centre(lines, 31, (31, old.split("\n")[31], lines[31])))
    assert silence.target == "\n".join(lines[start:end]) + "\n" + FENCE
    assert "@@ -31,3 +31,3 @@" in silence.prompt  # both edits are in the prompt


def test_a_far_next_hunk_gives_silence_at_the_last_edit_and_the_edit_there():
    r = releases()[1]
    src = nd.Source("beta", ("2.0", "2.1"), "beta/far.py")
    kinds = [(e.id.split("#")[1], e.kind) for e in nd.file_examples(src, r.old["beta/far.py"], r.new["beta/far.py"], 0)]
    assert kinds == [("1:edit", "edit"), ("1:silence", "silence"), ("2:silence", "silence")]


def test_hunks_longer_than_the_region_give_no_edit_example():
    old = module(3)
    new = list(old)
    new[4] = "def value_0(path, size, mode):"
    new[12:12] = [f"    x{k} = {k}" for k in range(12)]  # 12 new lines: longer than an 11-line region
    src = nd.Source("alpha", ("1", "2"), "a.py")
    assert [e.kind for e in nd.file_examples(src, "\n".join(old), "\n".join(new), 0)] == ["silence"]


def test_repeats_of_the_last_edit_are_marked():
    old = module(3)
    new = [line.replace("read(path, size)", "read(path, size, strict=True)") for line in old]
    examples = nd.file_examples(nd.Source("alpha", ("1", "2"), "a.py"), "\n".join(old), "\n".join(new), 0)
    assert [e.repeat for e in examples if e.kind == "edit"] == [True, True]


def test_synthetic_sequences_parse_and_are_not_repeats():
    lines = tuple(module(4))
    add = nd.added_parameter(lines, random.Random(0))
    text = add[1].apply(add[0].apply(lines))
    ast.parse("\n".join(text))
    name = re.search(r", (\w+)=", text[add[0].start]).group(1)
    assert text[add[1].start].endswith(f"read(path, size, {name}={name})")
    ren = nd.renamed_function(lines + ("", "def main(path):", "    return value_2(path, 1)"), random.Random(0))
    assert ren is not None and ren[1].new[0].strip().startswith("return ")
    assert not re.search(r"\bvalue_2\(", ren[1].new[0])
    assert nd.renamed("get_thing", random.Random(0)) == "fetch_thing" and nd.renamed("_x", random.Random(0)) == "x"
    examples = nd.synthetic_examples(releases()[0], ["alpha/core.py"], seed=0)
    assert {e.id.split("#")[1] for e in examples} == {"add-parameter:edit"}  # no call of value_k: no rename
    assert all(e.augmented and e.kind == "edit" and not e.repeat for e in examples)


def test_build_is_deterministic_split_by_package_and_deduplicated(tmp_path):
    data = nd.build(releases(), seed=0, count_tokens=estimate)
    again = nd.build(releases(), seed=0, count_tokens=estimate)
    assert data == again
    records = data["train"] + data["valid"]
    assert {r["package"] for r in records} == {"alpha", "beta"}
    assert not any("tests/" in r["path"] for r in records)
    for package in ("alpha", "beta"):
        assert len({r["split"] for r in records if r["package"] == package}) == 1
        assert all(r["split"] == nd.split_of(package, 0) for r in records if r["package"] == package)
    assert all(r["format_version"] == FORMAT_VERSION and r["target"].endswith(FENCE) for r in records)
    assert len({(r["prompt"], r["target"]) for r in records}) == len(records)
    nd.write(tmp_path / "a", data, {"seed": 0})
    nd.write(tmp_path / "b", again, {"seed": 0})
    for name in ("train.jsonl", "valid.jsonl", "manifest.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert [json.loads(x)["id"] for x in (tmp_path / "a" / "train.jsonl").read_text().splitlines()] == \
        [r["id"] for r in data["train"]]


def test_the_split_is_by_a_hash_of_the_name():
    names = [f"package-{k}" for k in range(1000)]
    valid = [n for n in names if nd.split_of(n, 0) == "valid"]
    assert 60 < len(valid) < 140
    assert nd.split_of("Some_Package", 0) == nd.split_of("some.package", 0)
    assert valid != [n for n in names if nd.split_of(n, 1) == "valid"]


def test_dedup_keeps_one_of_each_prompt_and_target():
    e = nd.Example("b", "p", ("1", "2"), "x.py", "edit", "prompt", "target", False, False)
    copies = [e, nd.Example("a", "q", ("1", "2"), "y.py", "edit", "prompt", "target", False, False),
              nd.Example("c", "p", ("1", "2"), "x.py", "edit", "prompt", "other", False, False)]
    assert [x.id for x in nd.dedup(copies)] == ["a", "c"]


def test_package_selection_caps_and_balances():
    def ex(i, kind, path="x.py", augmented=False):
        return nd.Example(f"p/{path}#{i}:{kind}", "p", ("1", "2"), path, kind, str(i), kind, augmented, False)

    many = [ex(i, "edit", f"f{i % 3}.py") for i in range(60)] + [ex(i, "silence") for i in range(60)]
    many += [ex(i, "edit", augmented=True) for i in range(2)]
    chosen = nd.package_selection(many, 0)
    assert len(chosen) <= nd.PER_PACKAGE
    edits = [e for e in chosen if e.kind == "edit" and not e.augmented]
    assert len(edits) == 3 * nd.PER_FILE and sum(e.augmented for e in chosen) == 2
    assert round(len(chosen) * nd.SILENCE_SHARE) == sum(e.kind == "silence" for e in chosen)
