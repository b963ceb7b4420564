"""The planner through the real `anthropic` client against the fake Messages API (real HTTP)."""
import json

import pytest

from lsp_server.planner.client import PlannerConfig, PlannerError, SketchStream, plan
from lsp_server.planner.context import gather
from lsp_server.planner.prompt import ContextFile, PlanRequest, build_prompt
from tests.fakes.anthropic_api import FakeAnthropic

EDITS = {"edits": [
    {"path": "app.py", "sketch": "# ... existing code ...\ndef b():\n    return 3\n", "summary": "b returns 3"},
    {"path": "new_mod.py", "sketch": "X = 1\n", "summary": "new module"},
]}


@pytest.fixture
def api():
    with FakeAnthropic() as fake:
        yield fake


def cfg(api, **kw) -> PlannerConfig:
    return PlannerConfig(api_key=api.api_key, base_url=api.url, **{"max_retries": 2, "timeout_s": 10, **kw})


REQ = PlanRequest("make b return 3", current=ContextFile("app.py", "def a():\n    return 1\n\n\ndef b():\n    return 2\n"))


def test_streamed_sketches_arrive_one_by_one(api):
    api.script = [{"tool_input": EDITS, "chunk": 5}]
    seen = []
    result = plan(REQ, cfg(api), on_sketch=seen.append)
    assert [s.path for s in seen] == ["app.py", "new_mod.py"]
    assert result.sketches[0].sketch.startswith("# ... existing code ...")
    body = api.requests[0]["body"]
    assert body["stream"] is True
    assert body["tool_choice"] == {"type": "tool", "name": "propose_edits"}
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}  # the stable part is cached
    assert "make b return 3" in body["messages"][0]["content"][0]["text"]
    assert "def b():" in body["messages"][0]["content"][0]["text"]


def test_sketch_stream_parser_handles_any_split():
    doc = json.dumps(EDITS)
    for size in (1, 2, 3, 7, 50):
        parser, got = SketchStream(), []
        for i in range(0, len(doc), size):
            got += parser.feed(doc[i:i + size])
        assert got == EDITS["edits"]


@pytest.mark.parametrize("status", [429, 500, 529])
def test_retries_transient_errors(api, status):
    api.script = [{"status": status, "retry_after": "0"}, {"tool_input": EDITS}]
    result = plan(REQ, cfg(api))
    assert len(result.sketches) == 2
    assert len(api.requests) == 2


def test_gives_up_after_retries_with_a_clear_message(api):
    api.script = [{"status": 529, "retry_after": "0"}] * 3
    with pytest.raises(PlannerError, match="overloaded"):
        plan(REQ, cfg(api))
    assert len(api.requests) == 3


def test_rejected_key(api):
    with pytest.raises(PlannerError, match="rejected the key") as err:
        plan(REQ, PlannerConfig(api_key="sk-ant-wrong", base_url=api.url, max_retries=0))
    assert "sk-ant-wrong" not in str(err.value)


def test_missing_key(api, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(PlannerError, match="no Anthropic API key"):
        plan(REQ, PlannerConfig(base_url=api.url))
    assert api.requests == []


def test_timeout(api):
    api.script = [{"delay": 2.0, "tool_input": EDITS}]
    with pytest.raises(PlannerError, match="did not answer within 0.5 s"):
        plan(REQ, cfg(api, timeout_s=0.5, max_retries=0))


def test_refusal_and_text_only_answers(api):
    api.script = [{"stop_reason": "refusal", "tool_input": None, "text": "I can't help with that."}]
    with pytest.raises(PlannerError, match="declined"):
        plan(REQ, cfg(api))
    api.script = [{"tool_input": None, "text": "Which function do you mean?"}]
    with pytest.raises(PlannerError, match="Which function do you mean"):
        plan(REQ, cfg(api))


def test_malformed_tool_input(api):
    api.script = [{"tool_input": {"edits": [{"path": "a.py"}]}}]
    with pytest.raises(PlannerError, match="malformed"):
        plan(REQ, cfg(api))
    api.script = [{"tool_input": {"files": []}}]
    with pytest.raises(PlannerError, match="malformed"):
        plan(REQ, cfg(api))


def test_cut_off_plan_is_not_used(api):
    api.script = [{"tool_input": EDITS, "stop_reason": "max_tokens"}]
    with pytest.raises(PlannerError, match="cut off"):
        plan(REQ, cfg(api))


def test_a_plan_whose_stream_closes_early_is_not_used(api):
    api.script = [{"tool_input": EDITS, "close_after_chars": 10, "chunk": 5}]
    with pytest.raises(PlannerError, match="ended before it was complete"):
        plan(REQ, cfg(api))


def test_overloaded_mid_answer_is_not_reported_as_retried(api):
    api.script = [{"tool_input": EDITS, "error_after_chars": 20, "chunk": 5}]
    with pytest.raises(PlannerError) as err:
        plan(REQ, cfg(api))
    assert "in the middle of its answer" in str(err.value) and "retries" not in str(err.value)
    assert len(api.requests) == 1


def test_budget_keeps_instruction_and_current_file_drops_related():
    related = tuple(ContextFile(f"m{i}.py", "x = 1\n" * 400, (1, 400)) for i in range(10))
    req = PlanRequest("do it", current=ContextFile("app.py", "def a():\n    pass\n"), related=related)
    prompt = build_prompt(req, budget_tokens=2000)
    text = prompt.messages[0]["content"][0]["text"]
    assert "<instruction>\ndo it" in text and "def a():" in text
    assert prompt.dropped and len(text) < 2000 * 4


def test_secrets_and_ignored_files_are_never_sent(tmp_path):
    (tmp_path / ".gitignore").write_text("private/\n")
    (tmp_path / "private").mkdir()

    class Chunk:
        def __init__(self, path, text):
            self.path, self.text, self.start_line, self.end_line = path, text, 1, 1

    class Hit:
        def __init__(self, path, text):
            self.chunk = Chunk(path, text)

    hits = [Hit(".env", "API_KEY=abc"), Hit("private/notes.py", "x = 1"),
            Hit("cfg.py", 'token = "ghp_' + "a" * 36 + '"'), Hit("ok.py", "def ok(): pass")]
    got = gather(tmp_path, "refactor", current=("keys/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----"),
                 search=lambda q, k: hits)
    assert got.request.current is None
    # secret files and ignored ones are withheld whole; a token inside code is redacted
    assert [f.path for f in got.request.related] == ["cfg.py", "ok.py"]
    assert got.request.related[0].text == 'token = "<redacted>"'
    assert {w.split(" ")[0] for w in got.withheld} == {"keys/id_rsa", ".env", "private/notes.py"}
    assert got.redacted == ["cfg.py (1 credential value)"] and "redacted cfg.py" in got.announce("m")


def test_api_key_is_not_logged(api, caplog):
    api.script = [{"tool_input": EDITS}]
    with caplog.at_level("DEBUG"):
        plan(REQ, cfg(api))
    assert api.api_key not in caplog.text


def test_repair_rounds_only_for_sketch_faults(api, tmp_path):
    from lsp_server.apply.change import Failure, expand_one
    from lsp_server.files import read_if_exists as read_disk
    from lsp_server.planning import repair_failures

    (tmp_path / "app.py").write_text(REQ.current.text)
    bad = {"path": "app.py", "sketch": "# ... existing code ...\n    return 9\n# ... existing code ...\n"}
    good = {"path": "app.py", "sketch": "# ... existing code ...\ndef b():\n    return 3\n"}
    expand = lambda s: expand_one(tmp_path, s, read_disk)  # noqa: E731

    def run(edits, rounds):
        api.requests.clear()
        api.script = [{"tool_input": {"edits": edits}}, {"tool_input": {"edits": [good]}}]
        result = plan(REQ, cfg(api))
        outcomes = [expand(s) for s in result.sketches]
        repaired = repair_failures(result, list(result.sketches), outcomes, cfg(api, repair_rounds=rounds), expand)
        return repaired, outcomes

    repaired, outcomes = run([bad], 1)
    assert repaired == ["app.py"] and outcomes[0].new == "def a():\n    return 1\n\n\ndef b():\n    return 3\n"
    assert len(api.requests) == 2
    assert api.requests[1]["body"]["messages"][2]["content"][0]["is_error"] is True
    repaired, outcomes = run([bad], 0)  # plannerRepairRounds 0: the failure stands, nothing asked
    assert repaired == [] and isinstance(outcomes[0], Failure) and len(api.requests) == 1
    # the repair request failing (the API down) leaves the first failure standing, with its reason
    api.requests.clear()
    api.script = [{"tool_input": {"edits": [bad]}}] + [{"status": 500, "retry_after": "0"}] * 3
    result = plan(REQ, cfg(api))
    outcomes = [expand(s) for s in result.sketches]
    assert repair_failures(result, list(result.sketches), outcomes, cfg(api), expand) == []
    assert isinstance(outcomes[0], Failure) and "places fit the new lines" in outcomes[0].reason
    # a refused path fails the plan whatever comes back: no round trip
    repaired, outcomes = run([bad, {"path": "../x.py", "sketch": "x = 1\n"}], 1)
    assert repaired == [] and len(api.requests) == 1 and not outcomes[1].sketch_fault
