"""The diff expander on golden cases (tests/apply/golden/<case>/original.*, sketch.*, and
expected.* or error.txt), plus the rules that guard against wrong merges."""
from pathlib import Path

import pytest

from lsp_server.apply import ApplyError, expand
from lsp_server.apply.markers import is_marker, marker_for
from lsp_server.apply.tiebreak import differing_window

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())


def files(case: str):
    d = GOLDEN / case
    original = next(d.glob("original.*"))
    sketch = next(d.glob("sketch.*"))
    expected = next(d.glob("expected.*"), None)
    read = lambda p: p.read_bytes().decode("utf-8")  # noqa: E731 (keep CRLF as is)
    return original.name, read(original), read(sketch), read(expected) if expected else None, d


@pytest.mark.parametrize("case", CASES)
def test_golden(case):
    name, original, sketch, expected, d = files(case)
    if expected is not None:
        result = expand(original, sketch, name)
        assert result.text == expected
        assert 0.5 <= result.confidence <= 1.0
    else:
        with pytest.raises(ApplyError) as err:
            expand(original, sketch, name)
        assert (d / "error.txt").read_text().strip() in str(err.value)


def test_ambiguous_insertion_uses_the_tie_breaker():
    _, original, sketch, _, _ = files("fail_ambiguous")
    seen = []

    def chooser(texts):
        seen.extend(texts)
        return next(i for i, t in enumerate(texts) if "return 3\n\n\ndef d()" in t)

    result = expand(original, sketch, "m.py", chooser=chooser)
    assert result.text.endswith("def c():\n    return 3\n\n\ndef d():\n    return 4\n")
    assert len(seen) >= 2 and "local model" in " ".join(result.notes)
    with pytest.raises(ApplyError, match="could not choose"):
        expand(original, sketch, "m.py", chooser=lambda texts: None)


def test_sketch_without_markers_replaces_the_file_or_keeps_the_rest():
    original = "a = 1\nb = 2\nc = 3\nd = 4\n"
    assert expand(original, "a = 1\nb = 20\nc = 3\nd = 4\n", "m.py").text == "a = 1\nb = 20\nc = 3\nd = 4\n"
    # a fragment from the middle without markers, opening and closing with the file's lines: the lines around it stay
    original = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
    result = expand(original, "b = 2\nc = 30\nd = 4\n", "m.py")
    assert result.text == "a = 1\nb = 2\nc = 30\nd = 4\ne = 5\n" and result.confidence < 1
    # ending in new code, it is the whole file (as the planner's prompt says)...
    assert expand(original, "# header\nb = 2\nc = 3\nf = 6\n", "m.py").text == "# header\nb = 2\nc = 3\nf = 6\n"
    # ...unless it is much shorter than the file: then nobody can tell
    with pytest.raises(ApplyError, match="no markers"):
        expand(original * 3, "c = 3\nf = 6\n", "m.py")


def test_markdown_fence_and_indented_marker_inside_a_function():
    original = "def f(x):\n    a = x\n    b = a * 2\n    c = b + 1\n    return c\n"
    sketch = "```python\ndef f(x):\n    # ... existing code ...\n    return c * 10\n```\n"
    assert expand(original, sketch, "m.py").text == "def f(x):\n    a = x\n    b = a * 2\n    c = b + 1\n    return c * 10\n"


def test_markers_are_comments_that_say_so():
    assert is_marker("    # ... existing code ...") and is_marker("// rest of the file unchanged")
    assert is_marker("<!-- ... -->") and is_marker("/* ... existing code ... */")
    assert not is_marker("    ...")  # Python's Ellipsis is code
    assert not is_marker("# keep the cache warm") and not is_marker("# see foo(a, ...) for details")
    assert not is_marker("# ... existing code ...", frozenset({"# ... existing code ..."}))  # it is in the file
    assert marker_for("a.go") == "// ... existing code ..." and marker_for("x.html") == "<!-- ... existing code ... -->"


def test_moved_code_is_refused_not_guessed():
    original = "def f():\n    setup()\n    a = 1\n    b = 2\n    c = 3\n    run()\n"
    sketch = "def f():\n    run()\n    new_step()\n    # ... existing code ...\n    more()\n"
    with pytest.raises(ApplyError):
        expand(original, sketch, "m.py")


def test_an_original_python_rejects_is_judged_by_tree_sitter_alone():
    # tree-sitter takes the stray indentation, CPython does not: the result is no worse than the
    # original, so the edit applies (a file for a newer Python, or already broken, stays editable)
    original = "def f():\n    return 1\n\n\nx = 1\n    y = 2\nz = 3\n"
    sketch = "# ... existing code ...\nx = 1\n    y = 2\nz = 30\n"
    assert expand(original, sketch, "m.py").text == original.replace("z = 3", "z = 30")


def test_empty_sketch_and_empty_file():
    with pytest.raises(ApplyError, match="empty"):
        expand("x = 1\n", "\n\n", "m.py")
    assert expand("", "x = 1\n", "m.py").text == "x = 1\n"


def test_tie_breaker_window_spans_the_differences():
    texts = ["\n".join(["same"] * 30 + ["A", "B"] + ["same"] * 30), "\n".join(["same"] * 30 + ["B", "A"] + ["same"] * 30)]
    head, tail = differing_window(texts)
    assert head == 30 - 12 and tail == 30 - 12


def test_a_repeated_unique_line_is_refused_not_merged():
    # the sketch shows `_pattern = compile(` as context right after new lines, but without the
    # marker that says the old definition above it was removed: keeping both would duplicate it
    original = ("import re\n\n\n# parameters\n_old = compile(\n    r'x'\n)\n# charset\n"
                "_pattern_for_charset = compile(\n    r'y'\n)\n\n\ndef use():\n    return _pattern_for_charset\n")
    sketch = ("import re\n\n\n# parameters\n_key = compile('k')\n# charset\n_pattern_for_charset = compile(\n"
              "    r'z'\n# ... existing code ...\n")
    try:
        result = expand(original, sketch, "m.py").text
    except ApplyError as exc:
        assert "repeat" in str(exc) or "parse" in str(exc)
    else:  # if it merges, it must not hold two copies of the line
        assert result.count("_pattern_for_charset = compile(") == 1


def test_a_bug_in_the_expander_refuses_the_file_with_a_reason(monkeypatch):
    from lsp_server.apply import expander

    def broken(*args, **kwargs):
        raise IndexError("list index out of range")

    monkeypatch.setattr(expander, "align", broken)
    with pytest.raises(ApplyError, match="internal error in the expander \\(IndexError\\)"):
        expand("x = 1\n", "# ... existing code ...\nx = 2\n", "m.py")


def test_a_new_definition_with_no_user_after_an_edited_line_is_refused_not_crashed():
    # above_first_user read a trial's text (dropped lines left out) at the trial's own indices
    original = "import os\n\nX = 1\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n"
    sketch = "import os\n\nX = 2\n# ... existing code ...\ndef helper():\n    return 3\n# ... existing code ...\n"
    with pytest.raises(ApplyError, match="3 places fit"):
        expand(original, sketch, "m.py")


def test_results_are_parsed_in_pieces_cut_at_statements():
    from lsp_server.syntax.check import python_pieces

    lines = ["import os", "", "", "@decorator", "class A:", '    """Doc', "class B: not a statement", '    """',
             "", "    def m(self):", "        return (1,", "2)", "", "", "def f():", "    return 3", "else_ = 1"]
    # top-level statements: a decorator with its class, a docstring's lines and a bracket's are no cut
    assert python_pieces(lines) == [(0, 3), (3, 14), (14, 16), (16, 17)]
    # a method's body in a 4,000-line class is judged by the piece it is in (a broken piece is still caught)
    text = "class A:\n" + "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(200))
    sketch = "# ... existing code ...\n    def m150(self):\n        return 1500\n# ... existing code ...\n"
    assert "return 1500" in expand(text, sketch, "m.py").text
    broken = "# ... existing code ...\n    def m150(self):\n        return (1500\n# ... existing code ...\n"
    with pytest.raises(ApplyError, match="would not parse"):
        expand(text, broken, "m.py")


def test_syntax_counts_an_empty_python_block():
    from lsp_server.syntax import check as syntax

    assert syntax.error_count("x.py", "def f():\n    return 1\n") == 0
    assert syntax.error_count("x.py", "def f():\n\ndef g():\n    return 1\n") > 0  # `def f` lost its body


def test_a_name_the_sketch_still_shows_is_not_renamed():
    """Two new lines that each differ from a line of the file only by a new name make a rename,
    unless the sketch still shows the old name on a line of the file: then the new lines are new
    code beside the old (a class `And` written next to `Or`), never an edit of it."""
    from lsp_server.apply.align import new_names, prepare, renames
    from lsp_server.apply.sketch import parse

    orig = prepare(["class Base:", "    def __or__(self, other):", "        return Or(self, other)", "", "",
                    "class Or(Base):", "    pass"])
    renaming = parse("# ... existing code ...\n        return And(self, other)\n# ... existing code ...\n"
                     "class And(Base):\n    pass\n", orig.counts)
    assert renames(orig, renaming, new_names(orig, renaming)) == frozenset({("Or", "And")})
    beside = parse("# ... existing code ...\n        return Or(self, other)\n\n    def __and__(self, other):\n"
                   "        return And(self, other)\n# ... existing code ...\nclass And(Base):\n    pass\n", orig.counts)
    assert renames(orig, beside, new_names(orig, beside)) == frozenset()
