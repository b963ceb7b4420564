"""Faults of the machine rather than the client: an index home that cannot be written is one
clear message (CLI and server), never a traceback or a silent failure."""
import subprocess
import sys

from tests.conftest import ROOT, run_cli
from tests.integration.test_cli import one_line_error
from tests.lsp.test_framing import finish, send, until_id
from tests.lsp.test_raw_protocol import frame

SAMPLE = ROOT / "tests" / "fixtures" / "sample_project"


def test_an_unwritable_index_home_is_one_clear_error_in_the_cli(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    env = {"TANDEM_INDEX_HOME": str(blocker / "index")}
    for args in (["index", str(SAMPLE)], ["search", str(SAMPLE), "area", "--json"]):
        line = one_line_error(run_cli(*args, env=env))
        assert "cannot write the index" in line and "TANDEM_INDEX_HOME" in line


def test_an_unwritable_index_home_is_reported_by_the_server(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    proc = subprocess.Popen([sys.executable, "-m", "lsp_server", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**__import__("os").environ, "TANDEM_INDEX_HOME": str(blocker / "index")})
    try:
        send(proc, frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": SAMPLE.as_uri(), "capabilities": {},
            "workspaceFolders": [{"uri": SAMPLE.as_uri(), "name": "sample"}]}}))
        until_id(proc, 1)
        send(proc, frame({"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
                          "params": {"command": "tandem.indexWorkspace", "arguments": []}}))
        seen = []
        result = until_id(proc, 2, seen)["result"]
        assert result["files"] == 0 and "indexing is off: cannot write the index" in result["message"]
        shown = [m for m in seen if m.get("method") == "window/showMessage"]
        assert len(shown) == 1 and "TANDEM_INDEX_HOME" in shown[0]["params"]["message"]
    finally:
        err = finish(proc)
    assert "Traceback" not in err and "never retrieved" not in err, err


def test_an_unwritable_model_home_is_one_clear_error(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    line = one_line_error(run_cli("models", "install", "minilm-l6-v2", env={"TANDEM_HOME": str(blocker / "home")}))
    assert "cannot write models" in line and "TANDEM_HOME" in line
