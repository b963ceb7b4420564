"""The persisted index: ignore rules, persistence and invalidation, incremental updates, faults."""
import json
import os

import pytest

from lsp_server.retrieval.index import CodeIndex
from lsp_server.retrieval.store import store_dir
from lsp_server.retrieval.walker import iter_files
from tests.conftest import run_cli

pytestmark = pytest.mark.model  # the embedding model


@pytest.fixture
def home(tmp_path, monkeypatch):
    # the real models stay where they are; only the index store goes to a temporary home
    import lsp_server.retrieval.store as store

    monkeypatch.setattr(store, "tandem_home", lambda: tmp_path / "home")
    return tmp_path / "home"


def make_project(root):
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "urls.py").write_text("def split_url(url):\n    '''Split a URL into scheme, host and path.'''\n"
                                          "    scheme, rest = url.split('://', 1)\n    host, _, path = rest.partition('/')\n"
                                          "    return scheme, host, '/' + path\n")
    (root / "pkg" / "config.py").write_text("import json\n\n\ndef load_settings(path):\n    with open(path) as fh:\n"
                                            "        return json.load(fh)\n")
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "index.js").write_text("function secret() {}\n")
    (root / ".gitignore").write_text("generated/\n*.log\n")
    (root / "generated").mkdir()
    (root / "generated" / "big.py").write_text("def generated(): pass\n")
    (root / "debug.log").write_text("x\n")
    (root / ".tandemignore").write_text("private.py\n")
    (root / "private.py").write_text("API_KEY = 'x'\n")
    (root / "sub").mkdir()
    (root / "sub" / ".gitignore").write_text("local_only.py\n")
    (root / "sub" / "local_only.py").write_text("x = 1\n")
    (root / "sub" / "kept.py").write_text("def kept(): pass\n")
    (root / "blob.py").write_bytes(b"\x00\x01binary")
    (root / "latin1.py").write_bytes(b"x = '\xe9'\n")
    os.symlink(root, root / "sub" / "loop")  # a symlink loop


def test_ignore_rules_and_skips(tmp_path):
    make_project(tmp_path)
    files = set(iter_files(tmp_path))
    assert files == {"pkg/urls.py", "pkg/config.py", "sub/kept.py", "latin1.py"}


def test_build_search_persist_and_incremental(tmp_path, home):
    root = tmp_path / "proj"
    make_project(root)
    idx = CodeIndex(root)
    s = idx.build()
    assert s.files == 3  # latin1.py is not UTF-8: skipped with a log line
    hits = idx.search("split a url into host and path", k=3)
    assert hits[0].chunk.path == "pkg/urls.py" and hits[0].chunk.symbol == "split_url"
    idx.close()
    # a restart re-embeds nothing unchanged
    idx = CodeIndex(root)
    s = idx.build()
    assert s.embedded == 0 and s.reused_files == 3
    # one touched file: only its changed chunk is embedded again
    (root / "pkg" / "config.py").write_text("import json\n\n\ndef load_settings(path):\n    with open(path) as fh:\n"
                                            "        return json.load(fh)\n\n\ndef save_settings(path, data):\n"
                                            "    json.dump(data, open(path, 'w'))\n")
    before = idx.embedder.embed
    calls = []
    idx.embedder.embed = lambda texts: calls.append(len(texts)) or before(texts)
    idx.update_file("pkg/config.py")
    assert calls == [1]
    assert idx.search("save_settings", k=1, mode="lexical")[0].chunk.symbol == "save_settings"
    # a deleted file disappears at the next build
    (root / "pkg" / "urls.py").unlink()
    idx.build()
    assert all(h.chunk.path != "pkg/urls.py" for h in idx.search("split url", k=5))
    assert idx.definitions("load_settings")[0].path == "pkg/config.py"
    idx.close()


def test_old_version_or_corrupt_store_is_rebuilt(tmp_path, home):
    root = tmp_path / "proj"
    make_project(root)
    idx = CodeIndex(root)
    idx.build()
    idx.store.cache.set("meta", {"version": -1})
    idx.close()
    idx = CodeIndex(root)
    assert idx.build().reused_files == 0  # old format: rebuilt, not fatal
    idx.close()
    for f in store_dir(root).glob("*.db"):
        f.write_bytes(b"this is not sqlite" * 100)
    idx = CodeIndex(root)
    assert idx.build().files == 3
    idx.close()


def test_file_deleted_while_indexing(tmp_path, home, monkeypatch):
    root = tmp_path / "proj"
    make_project(root)
    import lsp_server.retrieval.index as index_mod

    real = index_mod.read_text

    def vanish(path):
        if path.name == "config.py":
            path.unlink()
        return real(path)

    monkeypatch.setattr(index_mod, "read_text", vanish)
    idx = CodeIndex(root)
    assert idx.build().files == 2
    idx.close()


def test_cli_index_and_search_json(tmp_path):
    root = tmp_path / "proj"
    make_project(root)
    env = {"TANDEM_INDEX_HOME": str(tmp_path / "ih")}
    res = run_cli("index", str(root), "--json", env=env)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["files"] == 3
    res = run_cli("search", str(root), "load json settings from a file", "--k", "2", "--json", env=env)
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)
    assert rows[0]["path"] == "pkg/config.py" and set(rows[0]) == {"path", "start_line", "end_line", "score"}
    assert rows[0]["start_line"] == 4 and rows[0]["end_line"] == 6
    assert "not a directory" in run_cli("index", str(root / "nope")).stderr


def test_embeddings_rank_by_meaning_and_ignore_batch_padding():
    import numpy as np

    from lsp_server.retrieval.embeddings import Embedder

    e = Embedder(threads=1)
    texts = ["split a url into scheme, host and path", "def parse_url(url): return urlsplit(url)",
             "def load_json(path): return json.load(open(path))"]
    v = e.embed(texts)
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2]
    # a vector must not depend on what else is in its batch (padding is masked out)
    alone = e.embed(texts[:1])[0]
    assert np.allclose(alone, v[0], atol=1e-4)


def test_completion_snippets(tmp_path, home):
    """Similar code from other files (its best-matching window), the signature of a function used
    nearby, and the file's own imports when they are far above the cursor."""
    from lsp_server.retrieval.context import IMPORTS_FAR, choose_snippets

    root = tmp_path / "proj"
    make_project(root)
    idx = CodeIndex(root, use_embeddings=False)
    idx.build()
    prefix = ("from pkg.urls import split_url\n" + "x = 1\n" * (IMPORTS_FAR + 5)
              + "def show(url):\n    scheme, host, path = split_url(url)\n    ")
    snippets = choose_snippets(idx, "app.py", prefix)
    texts = {s.path: s.text for s in snippets}
    assert texts["pkg/urls.py"].startswith("def split_url(url):")
    assert texts["app.py"] == "from pkg.urls import split_url"  # the imports, repeated
    assert sum(len(s.text) for s in snippets) <= 1600 + len(texts["app.py"])
    near = choose_snippets(idx, "app.py", "from pkg.urls import split_url\n\ndef show(url):\n    split_url(url)\n")
    assert all(s.path != "app.py" for s in near)  # imports in view: not repeated
    idx.close()
