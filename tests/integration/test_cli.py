"""`tandem complete` and `tandem models` as a user runs them."""
import json

import pytest

from tests.conftest import FIXTURES, run_cli


def one_line_error(res, code=2):
    assert res.returncode == code, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tandem: error:"), res.stderr
    assert "Traceback" not in res.stderr
    return lines[0]


def test_binary_file(tmp_path):
    f = tmp_path / "x.bin"
    f.write_bytes(b"\x00\x01\x02abc")
    assert "binary" in one_line_error(run_cli("complete", str(f), "--line", "0", "--character", "0"))


def test_non_utf8_file(tmp_path):
    f = tmp_path / "x.py"
    f.write_bytes(b"x = '\xff'\n")
    assert "UTF-8" in one_line_error(run_cli("complete", str(f), "--line", "0", "--character", "0"))


def test_missing_and_unreadable_file(tmp_path):
    assert "cannot read" in one_line_error(run_cli("complete", str(tmp_path / "nope.py"), "--line", "0", "--character", "0"))
    assert "directory" in one_line_error(run_cli("complete", str(tmp_path), "--line", "0", "--character", "0"))


def test_line_past_end_of_file(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("x = 1\n")
    assert "past the end" in one_line_error(run_cli("complete", str(f), "--line", "9", "--character", "0"))


def test_missing_model_says_how_to_install(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("x = 1\n")
    err = one_line_error(run_cli("complete", str(f), "--line", "0", "--character", "5", env={"TANDEM_HOME": str(tmp_path / "home")}))
    assert "tandem models install" in err


def test_corrupt_model_is_reported(tmp_path):
    from lsp_server.model_store.install import RECEIPT, RECEIPT_VERSION, VARIANT_FILES
    from lsp_server.model_store.manifest import load_manifest

    vdir = tmp_path / "home" / "models" / "qwen2.5-coder-0.5b" / "int8"
    vdir.mkdir(parents=True)
    files = {}
    for name in VARIANT_FILES:
        (vdir / name).write_bytes(b"garbage")
        files[name] = {"size": 7, "sha256": "0"}
    (vdir / "genai_config.json").write_text("{}")
    spec = load_manifest().get("qwen2.5-coder-0.5b")  # built with the manifest's adapter, as installed
    (vdir / RECEIPT).write_text(json.dumps({"version": RECEIPT_VERSION, "files": files,
                                            "adapter_sha256": spec.adapter.sha256 if spec.adapter else None}))
    f = tmp_path / "x.py"
    f.write_text("x = 1\n")
    err = one_line_error(run_cli("complete", str(f), "--line", "0", "--character", "5", env={"TANDEM_HOME": str(tmp_path / "home")}))
    assert "is corrupt" in err and "tandem models install" in err  # the sha256 check at load catches it first
    res = run_cli("models", "verify", "qwen2.5-coder-0.5b", env={"TANDEM_HOME": str(tmp_path / "home")})
    assert res.returncode == 1 and "sha256 mismatch" in res.stderr


@pytest.mark.model
def test_complete_fib_json():
    res = run_cli("complete", str(FIXTURES / "sample_project" / "fib.py"), "--line", "3", "--character", "11", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["completion"].replace(" ", "") in {"fib(n-1)+fib(n-2)", "fib(n-2)+fib(n-1)"}
    assert out["latency_ms"] > 0


@pytest.mark.model
def test_crlf_tabs_empty_and_past_line_end(tmp_path):
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(b"def add(a, b):\r\n\treturn \r\n")
    res = run_cli("complete", str(crlf), "--line", "1", "--character", "8", "--json")
    assert res.returncode == 0, res.stderr
    assert "a" in json.loads(res.stdout)["completion"] and "\r" not in json.loads(res.stdout)["completion"]
    # character past the end of the line clamps to the line end (LSP semantics)
    res = run_cli("complete", str(crlf), "--line", "1", "--character", "99", "--json")
    assert res.returncode == 0, res.stderr
    empty = tmp_path / "empty.py"
    empty.write_text("")
    res = run_cli("complete", str(empty), "--line", "0", "--character", "0", "--json")
    assert res.returncode == 0, res.stderr
    assert isinstance(json.loads(res.stdout)["completion"], str)


@pytest.mark.model
def test_batch(tmp_path):
    inp = tmp_path / "in.jsonl"
    items = [
        {"id": "a", "path": "fib.py", "prefix": "def fib(n):\n    if n < 2:\n        return n\n    return ", "suffix": "\n"},
        {"id": "b", "path": "sq.py", "prefix": "def square(x):\n    return x * ", "suffix": "\n"},
    ]
    inp.write_text("\n".join(json.dumps(i) for i in items) + "\nnot json\n")
    res = run_cli("complete", "--batch", str(inp))
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert res.returncode == 1  # one bad line
    assert [r.get("id") for r in rows] == ["a", "b", None]
    assert rows[1]["completion"].strip().startswith("x")
    assert set(rows[0]) == {"id", "completion", "latency_ms"}
    assert "error" in rows[2]
