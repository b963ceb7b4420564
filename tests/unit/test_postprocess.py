"""Bad completions the filters must reject or shorten (Continue keeps such tests too)."""
from lsp_server.completion.complete import cursor_context
from lsp_server.completion.postprocess import postprocess, should_stop


def pp(raw, prefix, suffix="", mode="auto"):
    return postprocess(raw, cursor_context(prefix, suffix, mode))


def test_single_line_stops_at_newline():
    assert pp("fib(n - 1) + fib(n - 2)\n\nprint(1)", "def f(n):\n    return ") == "fib(n - 1) + fib(n - 2)"


def test_chatty_output_is_dropped():
    assert pp("Here is the completed code:", "x = ") == ""
    assert pp("Sure! The answer", "x = ") == ""


def test_code_fence_is_cut():
    assert pp("1\n```\nexplanation", "x = ", mode="always") == "1"


def test_whitespace_only_is_dropped():
    assert pp("   \n  ", "x = ") == ""


def test_never_repeats_rest_of_line():
    assert pp("a, b)", "foo(", ")") == "a, b"
    assert pp("a, b):", "def foo(", "):") == "a, b"


def test_never_repeats_following_line():
    prefix = "def f():\n    x = 1\n"
    assert pp("return x", prefix, "\n    return x\n") == ""


def test_unbalanced_closer_is_cut():
    assert pp("b) + c)", "x = f(a, ") == "b) + c"
    assert pp("1]", "x = ") == "1"


def test_brackets_inside_strings_do_not_count():
    assert pp('print(")")', "    ") == 'print(")")'


def test_multiline_after_block_opener_stops_at_dedent():
    prefix = "def area(r):\n    "
    raw = "pi = 3.14\n    return pi * r * r\n\ndef other():\n    pass"
    ctx = cursor_context(prefix, "", "auto")
    assert ctx.multiline
    assert postprocess(raw, ctx) == "pi = 3.14\n    return pi * r * r"


def test_not_multiline_inside_a_line():
    assert not cursor_context("def f():\n    x = ", "", "auto").multiline


def test_should_stop_single_line():
    ctx = cursor_context("x = ", "", "auto")
    assert not should_stop("foo(", ctx)
    assert should_stop("foo()\n", ctx)


def test_should_stop_on_a_run_of_spaces():
    ctx = cursor_context("def f():\n        ", "", "auto")
    assert should_stop("    ", ctx)
    assert not should_stop("  ", ctx)
    assert not should_stop("\n    ", cursor_context("def f():\n    ", "", "always"))
