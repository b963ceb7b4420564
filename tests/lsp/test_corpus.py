"""A generated corpus of bad input over raw JSON-RPC (issue 20): positions, UTF-16, line ends, sizes,
URIs, wrong types, stale versions and garbage frames, 300+ cases from a fixed seed, all sent to
one server process. After every case the server must answer a normal request (no hang), stay
alive (no crash) and put no traceback on the wire; the summary is printed
(`pytest -s tests/lsp/test_corpus.py`). No model is loaded: what is tested is everything in front
of it."""
from __future__ import annotations

import json
import queue
import random
import subprocess
import sys
import threading

from tests.lsp.test_framing import BAD_FRAMES
from tests.lsp.test_raw_protocol import frame

SEED = 20261201
TEXTS = ["def f(x):\n    return x\n", "a = 1\r\nb = 2\r\n", "x = 1\ry = 2\r", "s = '😀😀'\nt = 'é'\n",
         "page\x0cbreak\nline\u2028sep\n", "", "\n\n\n", "x" * 5000, "def g():\n\treturn '\\ud800'\n",
         "tab\there\x85next\n"]
POSITIONS = [(0, 0), (1, 4), (-1, 0), (0, -1), (99, 0), (0, 99999), (2**31, 2**31), (0, 1), (0, 7), (1, 0),
             (0.5, 1), ("1", "2"), (None, 0), (True, False)]
URIS = ["file:///tmp/corpus/a.py", "file:///tmp/corpus/%zz.py", "untitled:Untitled-1", "", "file://", "http://x/y.py",
        "file:///tmp/corpus/" + "d/" * 300 + "x.py", "file:///tmp/corpus/a\u0000b.py", "vscode-notebook-cell:/x#1",
        "file:///tmp/corpus/é 😀.py", 42, None]


class Server:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "lsp_server", "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr: list[bytes] = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = b""
            while not headers.endswith(b"\r\n\r\n"):
                ch = out.read(1)
                if not ch:
                    self.messages.put(None)
                    return
                headers += ch
            n = int([h for h in headers.split(b"\r\n") if h.lower().startswith(b"content-length")][0].split(b":")[1])
            self.messages.put(json.loads(out.read(n)))

    def send(self, data: bytes) -> bool:
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def until(self, msg_id, timeout: float, seen: list) -> dict | None:
        while True:
            try:
                msg = self.messages.get(timeout=timeout)
            except queue.Empty:
                return None
            if msg is None:
                return None
            seen.append(msg)
            if msg.get("id") == msg_id and ("result" in msg or "error" in msg):
                return msg


def notification(method: str, params) -> bytes:
    return frame({"jsonrpc": "2.0", "method": method, "params": params})


def request(msg_id: int, method: str, params) -> bytes:
    return frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})


def corpus(rng: random.Random) -> list[tuple[str, list[bytes]]]:
    """(name, frames) cases; ids from 1000 up, unique."""
    ids = iter(range(1000, 10**6))
    cases: list[tuple[str, list[bytes]]] = []
    for u, uri in enumerate(URIS):
        for t, text in enumerate(TEXTS):
            opened = notification("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": rng.choice(["python", "javascript", "plaintext", 7]), "version": 1,
                "text": text}})
            line, ch = rng.choice(POSITIONS)
            pos = {"line": line, "character": ch}
            asks = [request(next(ids), "textDocument/inlineCompletion", {
                        "textDocument": {"uri": uri}, "position": pos, "context": {"triggerKind": 1}}),
                    request(next(ids), "tandem/nextEdit", {"textDocument": {"uri": uri}, "position": pos})]
            cases.append((f"open+ask uri{u} text{t} pos{line},{ch}", [opened] + asks))
    for k in range(80):  # changes: out of range, reversed, stale versions, mixed kinds, then asks
        uri = "file:///tmp/corpus/change.py"
        text = rng.choice(TEXTS)
        frames = [notification("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                                         "version": 1, "text": text}})]
        for v in range(rng.randint(1, 4)):
            a, b = rng.choice(POSITIONS), rng.choice(POSITIONS)
            change = rng.choice([
                {"range": {"start": {"line": a[0], "character": a[1]}, "end": {"line": b[0], "character": b[1]}},
                 "text": rng.choice(["x", "\n", "\r\n", "😀", "", "\x0c", "\u2028", "é" * 50])},
                {"text": rng.choice(TEXTS)},
                {"range": None, "text": "z"},
                "not a change"])
            frames.append(notification("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": rng.choice([v + 2, 1, -5, None])}, "contentChanges": [change]}))
        line, ch = rng.choice(POSITIONS)
        frames.append(request(next(ids), "textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": ch}, "context": {"triggerKind": 2}}))
        frames.append(notification("textDocument/didClose", {"textDocument": {"uri": uri}}))
        cases.append((f"changes {k}", frames))
    methods = ["textDocument/inlineCompletion", "tandem/nextEdit", "workspace/executeCommand", "textDocument/didOpen",
               "textDocument/didChange", "workspace/didChangeConfiguration", "$/cancelRequest", "shutdownish"]
    shapes = [None, [], [1, 2], "x", 5, {"textDocument": 5}, {"textDocument": {"uri": None}},
              {"command": "tandem.status", "arguments": "no"}, {"command": 5}, {"settings": {"tandem": {"maxTokens": "x"}}},
              {"settings": [1]}, {"id": "nope"}, {"command": "tandem.planChange", "arguments": [{"instruction": 5}]},
              {"command": "tandem.didAcceptCompletion", "arguments": [{"partial": {"x": 1}}]},
              {"command": "tandem.indexWorkspace", "arguments": [None]}]
    for method in methods:
        for s, params in enumerate(shapes):
            is_request = rng.random() < 0.7
            data = {"jsonrpc": "2.0", "method": method, "params": params}
            if is_request:
                data["id"] = next(ids)
            cases.append((f"wrong shape {method} {s}", [frame(data)]))
    body = json.dumps({"jsonrpc": "2.0", "id": 999999, "method": "workspace/executeCommand",
                       "params": {"command": "tandem.status", "arguments": []}}).encode()
    for name, make in sorted(BAD_FRAMES.items()):
        cases.append((f"frame: {name}", [make(body)]))
    for k in range(40):  # garbage: random bytes, truncated JSON, wrong JSON-RPC
        choice = rng.randrange(5)
        if choice == 0:
            data = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 3000)))
        elif choice == 1:
            data = frame(json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": "x"}).encode()[:rng.randint(1, 30)])
        elif choice == 2:
            data = frame(rng.choice([b"[]", b"null", b"3", b'"s"', b"{}", b'{"jsonrpc": "2.0"}', b'{"jsonrpc": 2}']))
        elif choice == 3:
            data = frame({"jsonrpc": "2.0", "id": rng.choice([[1], {"a": 1}, 1.5, True]), "method": "tandem/nextEdit"})
        else:
            data = frame({"jsonrpc": "2.0", "id": next(ids), "result": {"unexpected": "response"}})
        cases.append((f"garbage {k}", [data]))
    big = "x = 1\n" * 900_000  # 5.4 MB
    cases.append(("5 MB document", [notification("textDocument/didOpen", {"textDocument": {
        "uri": "file:///tmp/corpus/big.py", "languageId": "python", "version": 1, "text": big}}),
        request(next(ids), "textDocument/inlineCompletion", {"textDocument": {"uri": "file:///tmp/corpus/big.py"},
                                                             "position": {"line": 5, "character": 3}}),
        request(next(ids), "tandem/nextEdit", {"textDocument": {"uri": "file:///tmp/corpus/big.py"},
                                               "position": {"line": 5, "character": 3}})]))
    return cases


def run_corpus(cases) -> dict:
    server = Server()
    seen: list = []
    summary = {"cases": len(cases), "crashes": 0, "hangs": 0, "tracebacks_on_the_wire": 0, "answered_after_every_case": True}
    first = []
    server.send(request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}}))
    assert server.until(1, 60, first) is not None
    probe = 10**7
    for name, frames in cases:
        alive = all(server.send(f) for f in frames)
        probe += 1
        answer = server.until(probe, 30, seen) if alive and server.send(request(
            probe, "workspace/executeCommand", {"command": "tandem.status", "arguments": []})) else None
        if answer is None or "result" not in answer:
            summary["answered_after_every_case"] = False
            if server.proc.poll() is not None:
                summary["crashes"] += 1
                summary["first_failure"] = name
                break
            summary["hangs"] += 1
            summary.setdefault("first_failure", name)
            server.send(b"\r\n\r\n")  # a hang in a half-read frame: end it, go on
    summary["tracebacks_on_the_wire"] = sum(1 for m in seen if "error" in m and (
        "data" in m["error"] or "Traceback" in json.dumps(m["error"])))
    summary["replies"] = len(seen)
    server.proc.kill()
    server.proc.wait()
    summary["tracebacks_in_the_log"] = b"".join(server.stderr).count(b"Traceback")
    return summary


def test_the_bad_input_corpus_neither_crashes_nor_silences_the_server():
    cases = corpus(random.Random(SEED))
    assert len(cases) >= 300
    summary = run_corpus(cases)
    print(json.dumps(summary))
    assert summary["crashes"] == 0 and summary["hangs"] == 0, summary
    assert summary["tracebacks_on_the_wire"] == 0 and summary["answered_after_every_case"], summary
