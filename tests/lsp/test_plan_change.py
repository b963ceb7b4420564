"""tandem.planChange through the real server over stdio: the real `anthropic` client talks to the
fake Messages API on 127.0.0.1, the sketches are expanded locally and arrive as one
workspace/applyEdit with versioned text-document edits (and a file creation)."""
import asyncio
import os
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.fakes.anthropic_api import FakeAnthropic
from tests.lsp.conftest import SERVER

pytestmark = [pytest.mark.asyncio(loop_scope="function")]

API = FakeAnthropic().__enter__()  # one fake for the module; the server's env points at it
WORK = Path(tempfile.mkdtemp(prefix="tandem-plan-ws-"))
APP = WORK / "app.py"
APP_TEXT = 'import os\n\n\ndef greet(name):\n    return "hello " + name\n\n\ndef main():\n    print(greet("world"))\n'
(WORK / ".env").write_text("ANTHROPIC_API_KEY=sk-ant-do-not-send-1234567890\n")
ENV = {**os.environ, "ANTHROPIC_BASE_URL": API.url, "ANTHROPIC_API_KEY": API.api_key,
       "TANDEM_INDEX_HOME": str(WORK / ".index-home"), "TANDEM_PLANNER_MODEL": "claude-test"}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, server_env=ENV))
async def plan_client(lsp_client: LanguageClient):
    APP.write_text(APP_TEXT)
    lsp_client.applied = []

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams):
        lsp_client.applied.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[types.WorkspaceFolder(uri=WORK.as_uri(), name="ws")],
        initialization_options={"tandem": {"threads": 1, "retrieval": False, "plannerTimeoutS": 20,
                                           "plannerMaxRetries": 2}}))
    lsp_client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=APP.as_uri(), language_id="python", version=1, text=APP_TEXT)))
    yield
    await lsp_client.shutdown_session()


SKETCH = ('# ... existing code ...\ndef greet(name, punctuation="!"):\n'
          '    return "hello " + name + punctuation\n\n\n# ... existing code ...\n')
EXPECTED = ('import os\n\n\ndef greet(name, punctuation="!"):\n    return "hello " + name + punctuation\n\n\n'
            'def main():\n    print(greet("world"))\n')


def run_plan(client, instruction="add a punctuation parameter to greet", **extra):
    return client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tandem.planChange", arguments=[{"instruction": instruction, "uri": APP.as_uri(), **extra}]))


def apply_text(original: str, edit: types.TextEdit) -> str:
    lines = original.splitlines(keepends=True)
    start = sum(len(x) for x in lines[:edit.range.start.line]) + edit.range.start.character
    end = sum(len(x) for x in lines[:edit.range.end.line]) + edit.range.end.character
    return original[:start] + edit.new_text + original[end:]


async def test_plan_lands_as_one_versioned_edit(plan_client: LanguageClient):
    API.script = [{"tool_input": {"edits": [
        {"path": "app.py", "sketch": SKETCH, "summary": "greet takes punctuation"},
        {"path": "docs/greeting.md", "sketch": "# Greeting\n\n`greet(name, punctuation)`\n", "summary": "doc"},
    ]}, "chunk": 9}]
    result = await run_plan(plan_client)
    assert result["applied"] is True, result
    assert result["changed"] == ["app.py"] and result["created"] == ["docs/greeting.md"]
    assert len(plan_client.applied) == 1  # one applyEdit for the whole change
    changes = plan_client.applied[0].edit.document_changes
    app_edit = next(c for c in changes if isinstance(c, types.TextDocumentEdit) and c.text_document.uri == APP.as_uri())
    assert app_edit.text_document.version == 1  # versioned: the client refuses it on newer text
    assert apply_text(APP_TEXT, app_edit.edits[0]) == EXPECTED
    create = next(c for c in changes if isinstance(c, types.CreateFile))
    assert create.uri == (WORK / "docs" / "greeting.md").as_uri()
    # what was sent: the instruction and the open file, never .env
    body = API.requests[-1]["body"]
    prompt = body["messages"][0]["content"][0]["text"]
    assert "add a punctuation parameter" in prompt and 'def greet(name):' in prompt
    assert "sk-ant-do-not-send" not in prompt and body["model"] == "claude-test"
    begins = [v.title for reports in plan_client.progress_reports.values() for v in reports
              if isinstance(v, types.WorkDoneProgressBegin)]
    reports = [v.message for reports in plan_client.progress_reports.values() for v in reports
               if isinstance(v, types.WorkDoneProgressReport)]
    assert "Tandem: planning a change" in begins
    assert any(r.startswith("asking claude-test; sending app.py") for r in reports), reports
    assert any(r.startswith("expanding file 1") for r in reports), reports


async def test_a_failed_sketch_applies_nothing(plan_client: LanguageClient):
    API.script = [{"tool_input": {"edits": [
        {"path": "app.py", "sketch": SKETCH},
        {"path": "app.py", "sketch": "# ... existing code ...\nnot_in_file()\n# ... existing code ...\n"},
        {"path": "../outside.py", "sketch": "x = 1\n"},
    ]}}]
    result = await run_plan(plan_client)
    assert result["applied"] is False and plan_client.applied == []
    reasons = {f["path"]: f["reason"] for f in result["failed"]}
    assert "leaves the workspace" in reasons["../outside.py"]
    assert "nothing was changed" in result["error"]
    assert not (WORK.parent / "outside.py").exists()


async def test_a_stream_that_closes_after_the_first_file_applies_nothing(plan_client: LanguageClient):
    """Two files' edits; the connection closes (no message_stop) once the first is complete: the
    first expanded fine, but a plan is all or nothing."""
    import json

    edits = {"edits": [{"path": "app.py", "sketch": SKETCH}, {"path": "new.py", "sketch": "x = 1\n"}]}
    first = json.dumps(edits).index('{"path": "new.py"')
    API.script = [{"tool_input": edits, "close_after_chars": first + 5, "chunk": 5}]
    result = await run_plan(plan_client)
    assert result["applied"] is False and plan_client.applied == [], result
    assert "ended before it was complete" in result["error"]
    assert APP.read_text() == APP_TEXT and not (WORK / "new.py").exists()


async def test_planner_errors_are_reported(plan_client: LanguageClient):
    API.script = [{"status": 529, "retry_after": "0"}] * 3
    result = await run_plan(plan_client)
    assert result["applied"] is False and "overloaded" in result["error"]
    result = await plan_client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tandem.planChange", arguments=[{"uri": APP.as_uri()}]))
    assert result["applied"] is False and "instruction" in result["error"]


async def test_edit_made_while_planning_is_respected(plan_client: LanguageClient):
    API.script = [{"tool_input": {"edits": [{"path": "app.py", "sketch": SKETCH}]}, "delay": 1.5}]
    task = asyncio.ensure_future(run_plan(plan_client))
    await asyncio.sleep(0.5)  # the user types while the frontier model thinks
    newer = "# edited\n" + APP_TEXT
    plan_client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=APP.as_uri(), version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=newer)]))
    result = await task
    assert result["applied"] is True, result
    edit = plan_client.applied[0].edit.document_changes[0]
    assert edit.text_document.version == 2
    assert apply_text(newer, edit.edits[0]) == "# edited\n" + EXPECTED


async def test_a_closed_file_changed_on_disk_while_planning_is_expanded_again(plan_client: LanguageClient):
    """other.py is not open: its edit goes out without a version, so when it changes on disk after
    its sketch was expanded, the edit is made again from the new text (not at the old lines)."""
    other = WORK / "other.py"
    old = "def helper(x):\n    return x\n\n\ndef unused():\n    pass\n"
    other.write_text(old)
    sketch = "# ... existing code ...\ndef helper(x):\n    return x * 2\n# ... existing code ...\n"
    API.script = [{"tool_input": {"edits": [{"path": "other.py", "sketch": sketch},
                                            {"path": "app.py", "sketch": SKETCH, "summary": "s" * 3000}]},
                   "chunk": 17, "stream_delay": 0.02}]
    before = len(API.requests)
    task = asyncio.ensure_future(run_plan(plan_client))
    while len(API.requests) == before:  # the planner is asked ...
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # ... other.py's sketch is complete and expanded; the stream goes on
    newer = "import os\n\n\n" + old
    other.write_text(newer)
    result = await task
    assert result["applied"] is True, result
    edits = {c.text_document.uri: c for c in plan_client.applied[0].edit.document_changes}
    edit = edits[other.as_uri()]
    assert edit.text_document.version is None
    assert apply_text(newer, edit.edits[0]) == newer.replace("return x\n", "return x * 2\n")


AMBIGUOUS = "# ... existing code ...\n    log(name)\n# ... existing code ...\n"  # a new line that fits four places


async def test_a_sketch_the_expander_cannot_place_goes_back_to_the_planner(plan_client: LanguageClient):
    # the first sketch shows a line the file does not have with no context: the expander
    # refuses; the planner gets the reason in a tool_result and writes the sketch again
    API.script = [{"tool_input": {"edits": [{"path": "app.py", "sketch": "# ... existing code ...\n"
                                              "    punctuation = '!'\n# ... existing code ...\n"}]}},
                  {"tool_input": {"edits": [{"path": "app.py", "sketch": SKETCH}]}}]
    first = len(API.requests)
    result = await run_plan(plan_client)
    assert result["applied"] is True, result
    assert result["repaired"] == ["app.py"] and result["failed"] == []
    assert "the planner rewrote the sketch of app.py" in result["message"]
    assert apply_text(APP_TEXT, plan_client.applied[0].edit.document_changes[0].edits[0]) == EXPECTED
    ask, again = API.requests[first]["body"], API.requests[first + 1]["body"]
    assert again["messages"][:1] == ask["messages"] and again["system"] == ask["system"]  # the cached prefix
    answer, reply = again["messages"][1], again["messages"][2]
    tool_use = next(b for b in answer["content"] if b["type"] == "tool_use")
    assert answer["role"] == "assistant" and tool_use["input"]["edits"][0]["path"] == "app.py"
    result_block = reply["content"][0]
    assert result_block["type"] == "tool_result" and result_block["tool_use_id"] == tool_use["id"]
    assert result_block["is_error"] is True and "- app.py: " in result_block["content"]
    assert "places fit the new lines" in result_block["content"]
    reports = [v.message for reports in plan_client.progress_reports.values() for v in reports
               if isinstance(v, types.WorkDoneProgressReport)]
    assert any(r.startswith("asking claude-test to rewrite 1 sketch(es) Tandem could not place: app.py") for r in reports)


async def test_a_rewritten_sketch_that_fails_again_applies_nothing(plan_client: LanguageClient):
    API.script = [{"tool_input": {"edits": [{"path": "app.py", "sketch": AMBIGUOUS},
                                            {"path": "notes.md", "sketch": "# Notes\n"}]}},
                  {"tool_input": {"edits": [{"path": "app.py", "sketch": AMBIGUOUS}]}}]
    first = len(API.requests)
    result = await run_plan(plan_client)
    assert result["applied"] is False and plan_client.applied == [] and result["repaired"] == []
    assert [f["path"] for f in result["failed"]] == ["app.py"]
    assert len(API.requests) == first + 2  # one repair round (plannerRepairRounds defaults to 1)
    assert not (WORK / "notes.md").exists()
