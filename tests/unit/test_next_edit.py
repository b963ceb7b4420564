"""Next-edit pieces: the edit history (coalescing, bounds), each pattern, and the silence rule."""
import json

from lsp_server.next_edit.history import MAX_DOCS, MAX_EDITS, EditHistory, edit_between, parse_diff
from lsp_server.next_edit.patterns import derive, propagate
from lsp_server.next_edit.predict import as_line_edit, predict
from tests.conftest import run_cli


def apply(text, change):
    lines = text.split("\n")
    line = lines[change.line]
    lines[change.line] = line[:change.start] + change.text + line[change.end:]
    return "\n".join(lines)


def test_rename_propagates_to_the_next_whole_word_occurrence():
    text = "a = compute_all(x)\nb = compute(y)\nc = compute(z)\n"
    text = text.replace("compute(y)", "calculate(y)")  # the user renamed on line 1
    ch = propagate(text, 1, "b = compute(y)", "b = calculate(y)")
    assert ch.kind == "rename" and apply(text, ch).split("\n")[2] == "c = calculate(z)"
    # compute_all is another word: not touched
    assert "compute_all" in apply(text, ch)


def test_inserted_keyword_and_added_argument():
    text = "x = await fetch(a)\ny = fetch(b)\nz = await fetch(c)\n"
    ch = propagate(text, 0, "x = fetch(a)", "x = await fetch(a)")
    assert apply(text, ch).split("\n")[1] == "y = await fetch(b)"
    text = "send(msg, retries=3)\nsend(other)\nsend()\n"
    ch = propagate(text, 0, "send(msg)", "send(msg, retries=3)")
    text = apply(text, ch)
    assert text.split("\n")[1] == "send(other, retries=3)"
    ch = propagate(text, 1, "send(other)", "send(other, retries=3)")
    assert apply(text, ch).split("\n")[2] == "send(retries=3)"


def test_changed_literal_and_same_shape_annotation():
    text = "a = get(timeout=60)\nb = get(timeout=30)\n"
    ch = propagate(text, 0, "a = get(timeout=30)", "a = get(timeout=60)")
    assert apply(text, ch).split("\n")[1] == "b = get(timeout=60)"
    text = "    self.done: bool = False\n    self.seen = False\n    self.count = 0\n"
    ch = propagate(text, 0, "    self.done = False", "    self.done: bool = False")
    assert apply(text, ch).split("\n")[1] == "    self.seen: bool = False"


def test_silence():
    assert derive("x = 1", "x = 1") is None
    assert derive("a = f(x)", "b = g(y)") is None                 # two changes: not one pattern
    assert derive("x = 1", "x  = 1") is None                      # whitespace only
    assert propagate("x = 1\ny = 2\n", 0, "x = 0", "x = 1") is None  # nowhere else to apply it
    assert predict("anything\n", []) is None
    # an edit that added a line (no changed pair) is left alone
    assert predict("a\nb\nc\n", [edit_between("m.py", "a\nc\n", "a\nb\nc\n")]) is None


def test_predictions_that_make_no_sense_where_they_land_are_silent():
    def after(before: str, edited: str, path: str = "m.py"):
        """The prediction after the user edited `before` into `edited` (one line changed)."""
        return predict(edited, [edit_between(path, before, edited)], path=path)

    # a local renamed in one function is not renamed in another function, nor in prose
    before = ('def f(value):\n    """Return value."""\n    x = value + 1\n    return value\n\n\n'
              'def g(value):\n    return value\n')
    edited = before.replace("x = value + 1", "x = value_num + 1", 1)
    p = after(before, edited)
    assert p is not None and p.start_line == 3 and p.new_lines == ("    return value_num",)
    edited = edited.replace("    return value\n\n", "    return value_num\n\n", 1)
    p = after(edited.replace("    return value_num\n\n", "    return value\n\n"), edited)
    assert p.new_lines == ("def f(value_num):",)  # the parameter, not the docstring, not g
    # a trailing comment answers that line's own warning: not carried to other lines
    before = "a = f(x)\nb = f(y)\n"
    assert after(before, "a = f(x)  # type: ignore[misc]\nb = f(y)\n") is None
    # an annotation goes to a value of the same kind only
    before = "    self.done = False\n    self.items = list(x)\n    self.seen = False\n"
    p = after(before, before.replace("self.done = False", "self.done: bool = False"))
    assert p is not None and p.new_lines == ("    self.seen: bool = False",)
    # a module alias is no local: renamed wherever it is used
    before = "import typing as _t\n\n\ndef f(x: _t.Any) -> _t.Any:\n    return x\n"
    edited = before.replace("import typing as _t", "import typing as t")
    p = after(before, edited)
    assert p is not None and p.new_lines == ("def f(x: t.Any) -> _t.Any:",)


def test_a_repeated_substitution_makes_the_next_hunk():
    from lsp_server.next_edit.patterns import substitutions

    v0 = ("a: t.List[int] = []\nz: t.List[int] = []\nb: t.Dict[str, int] = {}\nn = 1\n"
          "c: t.Dict[str, t.List[int]] = {}\nd: t.List[int] = [1]\ne = 2\n")
    v1 = v0.replace(": t.List[int] = []\nz: t.List[int]", ": list[int] = []\nz: list[int]")  # twice: a rule
    v2 = v1.replace("b: t.Dict[str, int]", "b: dict[str, int]")  # the newest edit: a rule
    edits = [edit_between("m.py", v0, v1), edit_between("m.py", v1, v2)]
    p = predict(v2, edits, path="m.py")
    # both substitutions on line 5, and line 6 with it: one hunk, as the user would make it
    assert (p.start_line, p.end_line) == (4, 6)
    assert p.new_lines == ("c: dict[str, list[int]] = {}", "d: list[int] = [1]")
    assert as_line_edit(p) == {"start_line": 5, "end_line": 6,
                               "new_text": "c: dict[str, list[int]] = {}\nd: list[int] = [1]\n"}
    # a rule made once, by an older edit, is no rule yet; inserted comments never are
    rules = substitutions([("x = f(a)", "x = g(a)"), ("y = 1", "y = 2  # why")])
    assert ("f(a)", "g(a)") not in [(o.strip(), n.strip()) for o, n in rules] and not any("#" in n for _, n in rules)


def test_history_coalesces_keystrokes_and_is_bounded():
    h = EditHistory(pause_s=1.0)
    h.opened("u", "x = compute(1)\ny = 2\n")
    for i, partial in enumerate(["x = c(1)", "x = ca(1)", "x = calc(1)"]):
        h.changed("u", f"{partial}\ny = 2\n", 0, now=10 + i * 0.1)
    [edit] = h.recent("u")
    assert edit.pairs == ((0, "x = compute(1)", "x = calc(1)"),)
    h.changed("u", "x = calc(1)\ny = 3\n", 1, now=20.0)  # after a pause: a new edit
    edits = h.recent("u")
    assert [e.pairs[-1][2] for e in edits] == ["x = calc(1)", "y = 3"]
    for i in range(MAX_EDITS + 5):
        h.changed("u", f"x = calc(1)\ny = {i + 10}\n", 1, now=30.0 + i * 5)
    assert len(h.recent("u")) <= MAX_EDITS + 1
    for i in range(MAX_DOCS + 5):
        h.opened(f"d{i}", "x")
    assert len(h.docs) == MAX_DOCS


def test_huge_and_mixed_diffs_do_not_break_parsing():
    big = "\n".join(f"line {i}" for i in range(5000))
    e = edit_between("m.py", big, big.replace("line 7", "LINE 7"))
    assert e.pairs and len(e.diff) <= 4000
    assert parse_diff("m.py", "garbage\n@@ nonsense @@\n+x\n").pairs == ()


def test_cli_batch(tmp_path):
    t0 = "def f():\n    a = compute(x)\n    b = compute(y)\n"
    t1 = t0.replace("a = compute(x)", "a = calculate(x)")
    diff = edit_between("m.py", t0, t1).diff
    lines = [{"id": 1, "path": "m.py", "text": t1.replace("\n", "\r\n"), "cursor": {"line": 1, "character": 9},
              "recent_edits": [diff]},
             {"id": 2, "path": "m.py", "text": t1, "cursor": {"line": 0, "character": 0}, "recent_edits": []}]
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n{bad\n")
    res = run_cli("next-edit", "--batch", str(f), "--mode", "pattern")
    out = [json.loads(x) for x in res.stdout.splitlines()]
    assert out[0]["edit"] == {"start_line": 3, "end_line": 3, "new_text": "    b = calculate(y)\n"}
    assert out[1]["edit"] is None and out[2]["id"] is None and "line 3" in out[2]["error"]
    assert as_line_edit(predict(t1, [parse_diff("m.py", diff)])) == out[0]["edit"]
