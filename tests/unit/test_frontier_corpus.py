"""The frontier-sketch corpus (bench/frontier/*.jsonl) is well formed without fetching anything:
fields, unique ids, languages, a held-out half fixed by id; and its diff format round-trips."""
import random

from bench import frontier_corpus as fc

KINDS = {"append_function", "add_function_middle", "add_method", "add_class", "add_parameter", "imports", "delete",
         "rename", "error_handling", "multi_place", "modify_body", "docs", "top_of_file", "end_of_file"}


def test_the_corpus_is_well_formed():
    cases = fc.load()
    assert len(cases) >= 200
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert c["registry"] in fc.REGISTRIES and c["kind"] in KINDS, c["id"]
        assert len(c["sha256"]) == 64 and c["instruction"].strip() and c["target_diff"].startswith("--- a\n+++ b\n@@")
    suffixes = {c["path"].rsplit(".", 1)[1] for c in cases}
    assert {"py", "js", "ts"} <= suffixes and suffixes & {"go", "rs", "java"}
    held = sum(fc.heldout(c) for c in cases)
    assert 0.4 < held / len(cases) < 0.6


def test_the_benchmark_uses_none_of_the_release_sets_packages():
    import bench.apply as ba

    used = {name.lower() for pairs in [*ba.SETS.values(), ba.TUNE_MORE] for name, _, _ in pairs}
    assert not {c["package"].lower() for c in fc.load()} & used


def test_diffs_round_trip():
    rng = random.Random(7)
    for _ in range(500):
        a = [rng.choice(["x", "y", "\x0cz", "", "w\r"]) for _ in range(rng.randint(0, 10))]
        b = list(a)
        for _ in range(rng.randint(1, 4)):
            if b and rng.random() < 0.4:
                del b[rng.randrange(len(b))]
            else:
                b.insert(rng.randint(0, len(b)), rng.choice(["new", "", "q"]))
        old = "\n".join(a) + rng.choice(["", "\n"])
        new = "\n".join(b) + rng.choice(["", "\n"])
        assert fc.apply_diff(old, fc.make_diff(old, new)) == new
