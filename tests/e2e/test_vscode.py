"""A real VS Code (code-server) in headless Chromium, with the packaged extension and the real
local model: type, see ghost text, Tab, save, and Tandem: Show status. Screenshots land in
tests/e2e/artifacts/ (kept by CI)."""
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from lsp_server.config import SCHEMA
from tests.conftest import ROOT

pytestmark = pytest.mark.model

CACHE = Path.home() / ".cache" / "tandem-ci"
CODE_SERVER = CACHE / "code-server-4.100.3" / "node_modules" / ".bin" / "code-server"
VSIX = ROOT / "client-vscode" / "tandem.vsix"
E2E = ROOT / "tests" / "e2e"
ARTIFACTS = E2E / "artifacts"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


needs_editors = pytest.mark.skipif(
    not (CODE_SERVER.exists() and VSIX.exists() and (E2E / "node_modules").exists()) and not os.environ.get("CI"),
    reason="editors not installed: bash .ci/install-editors")


def run_vscode(tmp_path, server_command, scenario="", server_env=None, content=None, settings=None):
    ARTIFACTS.mkdir(exist_ok=True)
    work = tmp_path / "project"
    work.mkdir()
    f = work / "fib.py"
    f.write_text(content or "def fib(n):\n    if n < 2:\n        return n\n")
    user, exts = tmp_path / "user", tmp_path / "extensions"
    (user / "User").mkdir(parents=True)
    (user / "User" / "settings.json").write_text(json.dumps({
        "tandem.serverCommand": server_command,
        "tandem.threads": 2,
        "tandem.latencyBudgetMs": 0,  # whole suggestions, so the assertions do not depend on CI speed
        "workbench.startupEditor": "none",
        "security.workspace.trust.enabled": False,
        "telemetry.telemetryLevel": "off",
        "extensions.ignoreRecommendations": True,
        # keep IntelliSense's own widget away so Tab goes to the inline suggestion
        "editor.quickSuggestions": {"other": "off", "comments": "off", "strings": "off"},
        "editor.suggestOnTriggerCharacters": False,
        "editor.wordBasedSuggestions": "off",
        "editor.inlineSuggest.enabled": True,
        **(settings or {}),
    }))
    base = [str(CODE_SERVER), "--user-data-dir", str(user), "--extensions-dir", str(exts)]
    subprocess.run(base + ["--install-extension", str(VSIX)], check=True, capture_output=True, timeout=300)
    port = free_port()
    log = open(tmp_path / "code-server.log", "w")
    server = subprocess.Popen(base + ["--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry",
                                      "--disable-update-check", "--disable-workspace-trust", str(work)],
                              stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(server_env or {})})
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        env = {**os.environ, "URL_TO_OPEN": f"http://127.0.0.1:{port}/?folder={work}", "FILE": str(f),
               "ARTIFACTS": str(ARTIFACTS), "SCENARIO": scenario}
        proc = subprocess.run(["node", str(E2E / "vscode_e2e.mjs")], cwd=E2E, env=env, capture_output=True,
                              text=True, timeout=600)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        assert lines, f"driver printed nothing: {proc.stderr[-3000:]}"
        out = json.loads(lines[-1])
        assert out["ok"], f"{out}\n{proc.stderr[-3000:]}\n(screenshot: {ARTIFACTS / 'failure.png'})"
        return out, f
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def server_log(tmp_path) -> str:
    """The "Tandem" output channel (the server's stderr), as code-server writes it to disk."""
    logs = sorted((tmp_path / "user" / "logs").rglob("*Tandem*.log"))
    assert logs, f"no Tandem output log under {tmp_path / 'user' / 'logs'}"
    return "\n".join(p.read_text(errors="replace") for p in logs)


@needs_editors
def test_clean_start_ghost_text_partial_accept_save_status_and_restart(tmp_path):
    """A fresh profile with only the extension and the server command (plus a setting the
    extension once forgot to send): no notification at start, no error in the server's log;
    then type, see ghost text, take its next word (Ctrl+Right), Tab the rest, save, status."""
    out, f = run_vscode(tmp_path, [sys.executable, "-m", "lsp_server", "serve"], settings={"tandem.maxFileBytes": 500000})
    assert out["start_notifications"] == [], out["start_notifications"]  # artifacts/vscode-clean-start.png
    log = server_log(tmp_path)
    assert "Traceback" not in log and not re.search(r"tandem (ERROR|WARNING)", log), log[-3000:]
    settings_line = re.search(r"settings from initialize: (\d+) received; not the default: (.*)", log)
    assert settings_line and int(settings_line.group(1)) == len(SCHEMA), log[-3000:]  # every declared setting
    assert "maxFileBytes=500000" in settings_line.group(2)
    ghost = out["ghost"].replace("\u00a0", " ")
    assert ghost.strip(), out
    # the next word went into the line and left the rest of the suggestion on screen
    typed = out["line_after_word"].replace("\u00a0", " ")
    assert typed.startswith("    return ") and len(typed.strip()) > len("return"), out
    assert out["ghost_after_word"].strip() and ghost.strip().endswith(out["ghost_after_word"].replace("\u00a0", " ").strip()), out
    saved = f.read_text()
    assert "    return " + ghost.strip() in saved.replace("\u00a0", " "), (saved, ghost)
    assert "fib(n" in saved
    assert "qwen2.5-coder-0.5b" in out["notification"], out["notification"]
    assert "1 accepted, 1 partly accepted" in out["notification"], out["notification"]
    assert out["ghost_after_restart"].strip(), out  # the killed server came back and answers


@needs_editors
def test_missing_server_command_gives_one_clear_notification(tmp_path):
    out, _ = run_vscode(tmp_path, [str(tmp_path / "no-such-tandem"), "serve"], scenario="bad-command")
    tandem = [n for n in out["notifications"] if "Tandem" in n]
    assert len(tandem) == 1, [n[:300] for n in out["notifications"]]
    assert "could not start the language server" in tandem[0] and "tandem.serverCommand" in tandem[0]


@needs_editors
def test_plan_a_change_lands_as_one_edit(tmp_path):
    """Tandem: Plan a change… from the command palette; the planner is the fake Messages API."""
    from tests.fakes.anthropic_api import FakeAnthropic

    sketch = 'def fib(n):\n    """The n-th Fibonacci number."""\n    # ... existing code ...\n'
    with FakeAnthropic() as api:
        api.default = {"tool_input": {"edits": [{"path": "fib.py", "sketch": sketch, "summary": "docstring"}]}}
        env = {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": api.api_key}
        out, f = run_vscode(tmp_path, [sys.executable, "-m", "lsp_server", "serve"], scenario="plan", server_env=env,
                            settings={"tandem.plannerModel": "claude-e2e-model"})
        assert f.read_text() == 'def fib(n):\n    """The n-th Fibonacci number."""\n    if n < 2:\n        return n\n'
        assert "add a docstring to fib" in api.requests[-1]["body"]["messages"][0]["content"][0]["text"]
        assert api.requests[-1]["body"]["model"] == "claude-e2e-model"  # the user's setting reached the server at start
        assert "changed 1 file" in out["notification"], out


@needs_editors
def test_next_edit_rename_tab_jump_tab_apply(tmp_path):
    """A rename at one call site: the next call site is suggested (inline diff + Tab hint);
    Tab jumps there, Tab applies, and the chain goes on to the third call."""
    content = "def fib(n):\n    a = compute(n)\n    b = compute(n + 1)\n    c = compute(n + 2)\n    return a + b + c\n"
    out, f = run_vscode(tmp_path, [sys.executable, "-m", "lsp_server", "serve"], scenario="next-edit", content=content)
    assert f.read_text() == content.replace("compute", "calculate"), (f.read_text(), out)
    assert "Tab to jump" in out["hint"], out
