"""Bytes a broken client might send, written straight to the server's stdin."""
import json
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.model


def frame(obj) -> bytes:
    body = json.dumps(obj).encode() if not isinstance(obj, bytes) else obj
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(proc, timeout=120):
    deadline = time.time() + timeout
    headers = b""
    while not headers.endswith(b"\r\n\r\n"):
        ch = proc.stdout.read(1)
        if not ch:
            raise EOFError("server closed stdout")
        headers += ch
        if time.time() > deadline:
            raise TimeoutError
    length = int([h for h in headers.split(b"\r\n") if h.lower().startswith(b"content-length")][0].split(b":")[1])
    return json.loads(proc.stdout.read(length))


def read_response(proc, msg_id):
    while True:
        msg = read_message(proc)
        if msg.get("id") == msg_id and ("result" in msg or "error" in msg):
            return msg


def start():
    proc = subprocess.Popen([sys.executable, "-m", "lsp_server", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": {"processId": None, "rootUri": None, "capabilities": {},
                                       "initializationOptions": {"tandem": {"threads": 2}}}}))
    proc.stdin.flush()
    assert "inlineCompletionProvider" in read_response(proc, 1)["result"]["capabilities"]
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    proc.stdin.flush()
    return proc


def test_malformed_messages_do_not_kill_the_server():
    proc = start()
    try:
        proc.stdin.write(frame(b"{this is not json"))
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/inlineCompletion",
                                "params": {"textDocument": 5}}))  # wrong shape
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 3, "method": "tandem/unknown", "params": {}}))
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 4, "method": "workspace/executeCommand",
                                "params": {"command": "tandem.status", "arguments": []}}))
        proc.stdin.flush()
        assert "error" in read_response(proc, 2)
        assert read_response(proc, 3)["error"]["code"] == -32601  # method not found
        assert read_response(proc, 4)["result"]["engine"] in ("loading", "ready", "not loaded")
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
    err = proc.stderr.read().decode()
    assert "Traceback" not in err, err
    assert "invalid params for textDocument/inlineCompletion" in err


def test_client_disconnect_mid_request_ends_the_server():
    proc = start()
    uri = "file:///tmp/x.py"
    text = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(100)) + "def g(x):\n    return \n"
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}}))
    for k in range(50):  # wait for the model, then leave mid-request
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 100 + k, "method": "workspace/executeCommand",
                                "params": {"command": "tandem.status", "arguments": []}}))
        proc.stdin.flush()
        if read_response(proc, 100 + k)["result"]["engine"] == "ready":
            break
        time.sleep(0.5)
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 999, "method": "textDocument/inlineCompletion", "params": {
        "textDocument": {"uri": uri}, "position": {"line": text.count("\n") - 1, "character": 11},
        "context": {"triggerKind": 1}}}))
    proc.stdin.flush()
    time.sleep(0.2)
    proc.stdin.close()
    assert proc.wait(timeout=30) is not None  # exits promptly: no generation left running
    err = proc.stderr.read().decode()
    assert "Traceback" not in err, err
