"""The JSON-RPC framing a broken or hostile client might send (lsp_server/jsonrpc.py): after each
case the server still answers a normal request, the answers to bad bodies are the JSON-RPC 2.0
errors, nothing carries a traceback, and a body too large to trust ends the process cleanly.
No model is loaded (the client never sends `initialized`)."""
import json
import random
import subprocess
import sys

import pytest

from tests.lsp.test_raw_protocol import frame, read_message

STATUS = {"jsonrpc": "2.0", "method": "workspace/executeCommand", "params": {"command": "tandem.status", "arguments": []}}


def started():
    proc = subprocess.Popen([sys.executable, "-m", "lsp_server", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    send(proc, frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
    assert "capabilities" in until_id(proc, 1)["result"]
    return proc


def send(proc, data: bytes) -> None:
    proc.stdin.write(data)
    proc.stdin.flush()


def until_id(proc, msg_id, seen=None):
    """The next message answering msg_id; every message read on the way is kept in `seen`."""
    while True:
        msg = read_message(proc, timeout=60)
        if seen is not None:
            seen.append(msg)
        if msg.get("id") == msg_id and ("result" in msg or "error" in msg):
            return msg


def answers_normally(proc, msg_id, seen=None) -> None:
    send(proc, frame({**STATUS, "id": msg_id}))
    assert "engine" in until_id(proc, msg_id, seen)["result"]


def finish(proc) -> str:
    proc.kill()
    proc.wait()
    return proc.stderr.read().decode(errors="replace")


BAD_FRAMES = {
    "lowercase header": lambda body: b"content-length: %d\r\n\r\n" % len(body) + body,
    "LF-only lines": lambda body: b"Content-Length: %d\n\n" % len(body) + body,
    "missing Content-Length": lambda body: b"Content-Type: application/json\r\n\r\n" + body + b"\r\n",
    "negative Content-Length": lambda body: b"Content-Length: -5\r\n\r\n" + body + b"\r\n",
    "non-numeric Content-Length": lambda body: b"Content-Length: twelve\r\n\r\n" + body + b"\r\n",
    "two different Content-Lengths": lambda body: b"Content-Length: 3\r\nContent-Length: %d\r\n\r\n" % len(body) + body + b"\r\n",
    "64 kB of noise": lambda body: bytes(random.Random(7).getrandbits(8) for _ in range(65536)) + b"\r\n",
    "a body shorter than its header says": lambda body: b"Content-Length: 10\r\n\r\n{\"jsonrpc\"",
}


@pytest.mark.parametrize("case", sorted(BAD_FRAMES))
def test_bad_framing_then_a_normal_request_is_answered(case):
    proc = started()
    try:
        body = json.dumps({**STATUS, "id": 50}).encode()
        send(proc, BAD_FRAMES[case](body))
        seen = []
        answers_normally(proc, 51, seen)
        # the lenient frames (lowercase, LF-only) were read as what they are
        if case in ("lowercase header", "LF-only lines"):
            assert any(m.get("id") == 50 for m in seen), seen
        assert all("data" not in m.get("error", {}) for m in seen)
        assert proc.poll() is None
    finally:
        err = finish(proc)
    assert "Traceback" not in err, err


def test_bad_bodies_get_json_rpc_errors_and_nested_messages_are_not_requests():
    proc = started()
    try:
        send(proc, frame(b"{this is not json"))
        assert until_id(proc, None) == {"jsonrpc": "2.0", "id": None,
                                        "error": {"code": -32700, "message": "parse error: the message is not valid JSON"}}
        send(proc, frame([{**STATUS, "id": 60}]))
        assert until_id(proc, None)["error"]["code"] == -32600  # a batch
        send(proc, frame({"id": 61, "method": "workspace/executeCommand", "params": {}}))
        assert until_id(proc, 61)["error"]["code"] == -32600  # no "jsonrpc"
        send(proc, frame({"jsonrpc": "1.0", "id": 62, "method": "x"}))
        assert until_id(proc, 62)["error"]["code"] == -32600
        # a JSON-RPC-shaped object inside a command's arguments is data, never a request
        nested = {"jsonrpc": "2.0", "id": 777, "method": "textDocument/inlineCompletion", "params": {"bad": 1}}
        seen = []
        send(proc, frame({"jsonrpc": "2.0", "id": 63, "method": "workspace/executeCommand",
                          "params": {"command": "tandem.didShowCompletion", "arguments": [nested]}}))
        until_id(proc, 63, seen)
        answers_normally(proc, 64, seen)
        assert not any(m.get("id") == 777 for m in seen), seen
    finally:
        err = finish(proc)
    assert "Traceback" not in err, err


def test_a_lone_surrogate_gives_an_error_without_a_traceback():
    proc = started()
    try:
        uri = "file:///tmp/tandem-surrogate.py"
        send(proc, frame(b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": '
                         b'{"uri": "%s", "languageId": "python", "version": 1, "text": "x = \'\\ud800\'\\ny = "}}}'
                         % uri.encode()))
        send(proc, frame({"jsonrpc": "2.0", "id": 70, "method": "tandem/nextEdit",
                          "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 4}}}))
        got = until_id(proc, 70)
        assert "data" not in got.get("error", {}), got  # an answer or a plain error, never internals
        answers_normally(proc, 71)
    finally:
        finish(proc)


def test_a_body_too_large_to_trust_ends_the_server_cleanly():
    proc = started()
    send(proc, b"Content-Length: 1000000000000\r\n\r\n{}")
    try:
        code = proc.wait(timeout=60)
    finally:
        err = finish(proc)
    assert code == 1  # the editor restarts a server that exits
    assert "Traceback" not in err and "MemoryError" not in err, err
    assert "cannot be trusted" in err
