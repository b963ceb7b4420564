"""`tandem apply` and `tandem plan` as a user runs them (the planner against the fake API)."""
import json

from tests.conftest import run_cli
from tests.fakes.anthropic_api import FakeAnthropic
from tests.integration.test_cli import one_line_error

ORIGINAL = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
SKETCH = "# ... existing code ...\ndef b():\n    return 3\n"


def test_apply_prints_the_new_text(tmp_path):
    (tmp_path / "m.py").write_text(ORIGINAL)
    (tmp_path / "s.py").write_text(SKETCH)
    res = run_cli("apply", str(tmp_path / "m.py"), str(tmp_path / "s.py"), "--no-model")
    assert res.returncode == 0, res.stderr
    assert res.stdout == ORIGINAL.replace("return 2", "return 3")


def test_apply_refuses_with_exit_3(tmp_path):
    (tmp_path / "m.py").write_text(ORIGINAL)
    (tmp_path / "s.py").write_text("# ... existing code ...\nnowhere()\n# ... existing code ...\n")
    line = one_line_error(run_cli("apply", str(tmp_path / "m.py"), str(tmp_path / "s.py"), "--no-model"), code=3)
    assert "cannot apply" in line
    assert "usage" in one_line_error(run_cli("apply", str(tmp_path / "m.py")))


def test_apply_batch(tmp_path):
    lines = [{"id": 1, "path": "m.py", "original": ORIGINAL, "sketch": SKETCH},
             {"id": 2, "path": "m.py", "original": ORIGINAL, "sketch": "# ...\nnowhere()\n# ...\n"}]
    inp = tmp_path / "in.jsonl"
    inp.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    res = run_cli("apply", "--batch", str(inp), "--no-model")
    assert res.returncode == 0, res.stderr
    out = [json.loads(x) for x in res.stdout.splitlines()]
    assert out[0]["id"] == 1 and out[0]["result"].endswith("return 3\n") and out[0]["latency_ms"] >= 0
    assert out[1]["id"] == 2 and "error" in out[1]
    assert out[2]["id"] is None and "line 3" in out[2]["error"]


PRICES = "def total_price(items):\n    return sum(items)\n\n\ndef discount(price):\n    return price * 0.9\n"
PRICE_SKETCH = "# ... existing code ...\ndef discount(price):\n    return price * 0.8\n"


def test_plan_dry_run_and_write(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "m.py").write_text(PRICES)
    with FakeAnthropic() as api:
        api.default = {"tool_input": {"edits": [{"path": "m.py", "sketch": PRICE_SKETCH, "summary": "20% off"}]}}
        env = {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": api.api_key, "TANDEM_INDEX_HOME": str(tmp_path / "idx")}
        res = run_cli("plan", str(root), "make the discount 20%", "--dry-run", "--lexical-only", "--no-model", env=env)
        assert res.returncode == 0, res.stderr
        assert "-    return price * 0.9\n+    return price * 0.8\n" in res.stdout
        assert (root / "m.py").read_text() == PRICES  # dry run writes nothing
        assert "def discount(price):" in api.requests[-1]["body"]["messages"][0]["content"][0]["text"]  # retrieved, sent
        res = run_cli("plan", str(root), "make the discount 20%", "--lexical-only", "--no-model", env=env)
        assert res.returncode == 0, res.stderr
        assert (root / "m.py").read_text() == PRICES.replace("0.9", "0.8")
        res = run_cli("plan", str(root), "again", "--lexical-only", "--no-model", env={**env, "ANTHROPIC_API_KEY": "nope"})
        assert res.returncode == 2 and "Traceback" not in res.stderr
        assert res.stderr.strip().splitlines()[-1] == "tandem: error: the Anthropic API rejected the key (401): check ANTHROPIC_API_KEY"
        assert "nope" not in res.stderr


def test_plan_sends_a_refused_sketch_back_once(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "m.py").write_text(PRICES)
    unplaced = "# ... existing code ...\n    log(\"discount applied\")\n# ... existing code ...\n"  # which function?
    with FakeAnthropic() as api:
        api.script = [{"tool_input": {"edits": [{"path": "m.py", "sketch": unplaced}]}},
                      {"tool_input": {"edits": [{"path": "m.py", "sketch": PRICE_SKETCH}]}}]
        env = {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": api.api_key, "TANDEM_INDEX_HOME": str(tmp_path / "idx")}
        res = run_cli("plan", str(root), "make the discount 20%", "--lexical-only", "--no-model", env=env)
        assert res.returncode == 0, res.stderr
        assert (root / "m.py").read_text() == PRICES.replace("0.9", "0.8")
        assert "to rewrite 1 sketch(es) Tandem could not place: m.py" in res.stderr
        reply = api.requests[-1]["body"]["messages"][-1]["content"][0]
        assert reply["type"] == "tool_result" and reply["is_error"] is True and "m.py: " in reply["content"]


SECRETS = {
    "settings.py": 'aws_access_key_id = "AKIAIOSFODNN7EXAMPLE"\n'
                   'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"\n'
                   'DB_PASSWORD = "correct-horse-battery"\n'
                   'DATABASE_URL = "postgres://app:Sup3rS3cret@db.internal/app"\n\n\n'
                   'def discount(price):\n    return price * 0.9\n',
    "db.py": 'password = "hunter2-hunter2"\n\n\ndef connect(host):\n    return open_db(host, password)\n',
    ".env": "API_TOKEN=tok-0123456789abcdef\n",
}
SECRET_VALUES = ["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "correct-horse-battery",
                 "Sup3rS3cret", "hunter2-hunter2", "tok-0123456789abcdef"]


def test_a_plan_never_sends_a_credential_value_and_keeps_them_in_the_file(tmp_path):
    """Whichever file the plan starts from: secret files are withheld, credential values inside
    code are redacted (the request log of the fake API holds none), and a sketch that copies a
    redacted line leaves the file's value in place."""
    root = tmp_path / "ws"
    root.mkdir()
    for name, text in SECRETS.items():
        (root / name).write_text(text)
    sketch = ('aws_access_key_id = "<redacted>"\naws_secret_access_key = "<redacted>"\n# ... existing code ...\n'
              "def discount(price):\n    return price * 0.8\n")
    with FakeAnthropic() as api:
        api.default = {"tool_input": {"edits": [{"path": "settings.py", "sketch": sketch, "summary": "20%"}]}}
        env = {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": api.api_key, "TANDEM_INDEX_HOME": str(tmp_path / "idx")}
        for start in ("settings.py", "db.py", None):
            args = ["plan", str(root), "make the discount 20% and use the database password", "--lexical-only",
                    "--no-model"] + (["--file", start] if start else [])
            res = run_cli(*args, env=env)
            assert res.returncode == 0, res.stderr
            assert "settings.py (4 credential values)" in res.stderr, res.stderr
        sent = json.dumps([r["body"] for r in api.requests])
        assert len(api.requests) == 3 and "def discount(price)" in sent and "<redacted>" in sent
        for value in SECRET_VALUES:
            assert value not in sent, value
    assert (root / "settings.py").read_text() == SECRETS["settings.py"].replace("0.9", "0.8")


def test_a_sketch_that_writes_a_redacted_value_is_refused(tmp_path):
    from lsp_server.apply.change import Failure, expand_one
    from lsp_server.files import read_if_exists as read_disk
    from lsp_server.apply.change import FileSketch

    (tmp_path / "db.py").write_text(SECRETS["db.py"])
    got = expand_one(tmp_path, FileSketch("db.py", 'password = "<redacted>-2"\n# ... existing code ...\n'), read_disk)
    assert isinstance(got, Failure) and "<redacted>" in got.reason and got.sketch_fault


def test_plan_file_outside_the_workspace_is_refused_before_anything_is_sent(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside.py").write_text('SECRET_PLAN = "outside the workspace"\n')
    (root / "link.py").symlink_to(tmp_path / "outside.py")
    with FakeAnthropic() as api:
        env = {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": api.api_key, "TANDEM_INDEX_HOME": str(tmp_path / "idx")}
        for bad in ("link.py", "../outside.py", str(tmp_path / "outside.py"), "a\0b.py"):
            res = run_cli("plan", str(root), "change it", "--lexical-only", "--no-model", "--file", bad, env=env) \
                if "\0" not in bad else None
            if res is None:  # a NUL cannot pass through argv: the shared check refuses it
                from lsp_server.apply.change import resolve_inside
                from lsp_server.apply.errors import ApplyError
                import pytest
                with pytest.raises(ApplyError, match="control characters"):
                    resolve_inside(root, bad)
                continue
            assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
            assert "refusing" in res.stderr or "not inside" in res.stderr, res.stderr
        assert api.requests == []


def test_sketch_paths_into_git_are_refused_whatever_their_case(tmp_path):
    from lsp_server.apply.change import resolve_inside
    from lsp_server.apply.errors import ApplyError
    import pytest

    for bad in (".GIT/config", ".Git/hooks/pre-commit", "sub/.git/config"):
        with pytest.raises(ApplyError, match=".git"):
            resolve_inside(tmp_path, bad)
    assert resolve_inside(tmp_path, "src/.gitignore") == (tmp_path / "src" / ".gitignore").resolve()
