import pytest

from lsp_server.retrieval.chunker import MAX_LINES, chunk_file
from lsp_server.retrieval.lexical import Bm25, tokenize


def spans(path, src):
    return [(c.start_line, c.end_line, c.kind, c.symbol) for c in chunk_file(path, src)]


def test_python_functions_classes_statements_and_decorators():
    src = "import os\n\nX = 1\n\n\n@dataclass\nclass Shape:\n    '''A shape.'''\n\n    def area(self):\n        return 0\n\n\ndef helper(a, b):\n    return a + b\n"
    assert spans("a.py", src) == [(1, 3, "statements", ""), (6, 11, "class", "Shape"), (14, 15, "function", "helper")]


def test_large_class_becomes_header_plus_methods():
    src = "class Big:\n    '''doc'''\n" + "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(30))
    chunks = chunk_file("b.py", src)
    assert (chunks[0].kind, chunks[0].symbol, chunks[0].text) == ("class", "Big", "class Big:\n    '''doc'''")
    assert [c.symbol for c in chunks[1:4]] == ["Big.m0", "Big.m1", "Big.m2"] and chunks[1].kind == "method"
    assert len(chunks) == 31


def test_large_function_split_at_statement_boundaries():
    body = "".join(f"    x{i} = {i}\n" for i in range(150))
    chunks = chunk_file("f.py", "def long():\n" + body)
    assert len(chunks) >= 3 and all(c.symbol == "long" for c in chunks)
    assert chunks[0].text.startswith("def long():")
    assert all(c.end_line - c.start_line + 1 <= 2 * MAX_LINES for c in chunks)
    assert chunks[-1].end_line == 151


@pytest.mark.parametrize("path,src,expected", [
    ("a.js", "class A { foo() { return 1; } }\nconst bar = (a) => a * 2;\nfunction baz() {}\n",
     [("class", "A"), ("function", "bar"), ("function", "baz")]),
    ("a.ts", "interface I { x: number }\ntype T = string;\nexport function f(): void {}\n",
     [("interface", "I"), ("type", "T"), ("function", "f")]),
    ("a.go", "package main\n\ntype T struct{}\n\nfunc (t T) M() int { return 1 }\n\nfunc F() {}\n",
     [("statements", ""), ("type", "T"), ("method", "M"), ("function", "F")]),
    ("a.rs", "struct S {}\nfn g() {}\n", [("class", "S"), ("function", "g")]),
    ("A.java", "class A {\n  void f() {}\n}\n", [("class", "A")]),
    ("a.c", "int f(int x) { return x; }\nstruct P { int x; };\n", [("function", "f"), ("class", "P")]),
    ("a.cpp", "int C::f() { return 1; }\n", [("method", "C::f")]),
])
def test_languages(path, src, expected):
    assert [(c.kind, c.symbol) for c in chunk_file(path, src)] == expected


def test_line_windows_without_grammar():
    chunks = chunk_file("notes.md", "".join(f"line {i}\n" for i in range(100)))
    assert [(c.start_line, c.end_line, c.kind) for c in chunks] == [(1, 40, "window"), (41, 80, "window"), (81, 100, "window")]


def test_code_aware_tokens():
    toks = tokenize("parseHttpURL snake_case_name")
    for t in ("parsehttpurl", "parse", "http", "url", "snake_case_name", "snake", "case", "name"):
        assert t in toks


def test_bm25_incremental():
    bm = Bm25()
    bm.add(1, "def read_config(path): load the configuration file")
    bm.add(2, "def draw_circle(radius): render a circle")
    assert bm.search("configuration")[0][0] == 1
    bm.remove(1)
    assert bm.search("configuration") == []
    assert bm.search("circle")[0][0] == 2
