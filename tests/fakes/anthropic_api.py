"""A protocol-faithful fake of the Anthropic Messages API on 127.0.0.1 (real HTTP).

POST /v1/messages answers like the real service: JSON, or server-sent events when the request
says `"stream": true` (message_start, content_block_start with a tool_use block, ping,
input_json_delta pieces, content_block_stop, message_delta with stop_reason, message_stop);
errors in the API's error shape with its status codes (401 authentication_error, 429
rate_limit_error with retry-after, 500 api_error, 529 overloaded_error). Behaviour is scripted:
`api.script` is a list of steps consumed one per request, `api.default` answers the rest.
A step is a dict:
  {"tool_input": {...}}                 answer with that propose_edits input
  {"raw_json": "..."}                   stream this exact (possibly malformed) tool JSON
  {"text": "...", "tool_input": None}   answer with text only (no tool call)
  {"stop_reason": "refusal"|"max_tokens"}
  {"status": 429, "retry_after": "0"}   an error response
  {"delay": 2.0}                        wait before answering (timeouts)
  {"close_after_chars": N}              end the stream after N characters of the tool JSON (a
                                        connection that closes early: no message_stop)
  {"error_after_chars": N}              an `error` event (overloaded_error) after N characters, then
                                        the end of the stream, as the API does mid-answer
or a callable(request_body) -> step. Every request is recorded in `api.requests`.
"""
from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ERRORS = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
          404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}


class FakeAnthropic:
    def __init__(self, api_key: str = "sk-ant-test-key") -> None:
        self.api_key = api_key
        self.script: list = []
        self.default = {"tool_input": {"edits": []}}
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> "FakeAnthropic":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def next_step(self, body: dict):
        with self.lock:
            step = self.script.pop(0) if self.script else self.default
        return step(body) if callable(step) else step

    def _handler(self):
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    return self.error(400, "request body is not JSON")
                with api.lock:
                    api.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if self.path.split("?")[0] != "/v1/messages":
                    return self.error(404, f"no route {self.path}")
                bearer = (self.headers.get("authorization") or "").removeprefix("Bearer ")
                if api.api_key not in (self.headers.get("x-api-key"), bearer):  # the SDK sends either
                    return self.error(401, "invalid x-api-key")
                if not self.headers.get("anthropic-version"):
                    return self.error(400, "anthropic-version header is required")
                step = api.next_step(body)
                if step.get("delay"):
                    time.sleep(step["delay"])
                if step.get("status"):
                    return self.error(step["status"], step.get("message", "scripted error"), step.get("retry_after"))
                message = api.message(body, step)
                if body.get("stream"):
                    self.stream(message, step)
                else:
                    self.send_json(200, message)

            def error(self, status: int, message: str, retry_after: str | None = None) -> None:
                payload = {"type": "error", "error": {"type": ERRORS.get(status, "api_error"), "message": message}}
                extra = {"retry-after": retry_after} if retry_after is not None else {}
                self.send_json(status, payload, extra)

            def send_json(self, status: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("request-id", "req_" + uuid.uuid4().hex[:20])
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def event(self, name: str, data: dict) -> None:
                chunk = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()

            def stream(self, message: dict, step: dict) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                start = {**message, "content": [], "stop_reason": None,
                         "usage": {**message["usage"], "output_tokens": 1}}
                self.event("message_start", {"type": "message_start", "message": start})
                self.event("ping", {"type": "ping"})
                for index, block in enumerate(message["content"]):
                    if block["type"] == "text":
                        self.event("content_block_start", {"type": "content_block_start", "index": index,
                                                           "content_block": {"type": "text", "text": ""}})
                        self.event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                           "delta": {"type": "text_delta", "text": block["text"]}})
                    else:
                        self.event("content_block_start", {"type": "content_block_start", "index": index,
                                                           "content_block": {**block, "input": {}}})
                        raw = step.get("raw_json") or json.dumps(block["input"])
                        size = step.get("chunk", 17)
                        for i in range(0, len(raw), size):
                            if "error_after_chars" in step and i >= step["error_after_chars"]:
                                self.event("error", {"type": "error", "error": {
                                    "type": "overloaded_error", "message": "Overloaded"}})
                                self.wfile.write(b"0\r\n\r\n")
                                self.wfile.flush()
                                return
                            if "close_after_chars" in step and i >= step["close_after_chars"]:
                                self.wfile.write(b"0\r\n\r\n")  # the body ends here, cleanly
                                self.wfile.flush()
                                return
                            self.event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                               "delta": {"type": "input_json_delta",
                                                                         "partial_json": raw[i:i + size]}})
                            if step.get("stream_delay"):
                                time.sleep(step["stream_delay"])
                    self.event("content_block_stop", {"type": "content_block_stop", "index": index})
                self.event("message_delta", {"type": "message_delta",
                                             "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                             "usage": {"output_tokens": message["usage"]["output_tokens"]}})
                self.event("message_stop", {"type": "message_stop"})
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

        return Handler

    def message(self, body: dict, step: dict) -> dict:
        content = []
        if step.get("text"):
            content.append({"type": "text", "text": step["text"]})
        tool_input = step.get("tool_input", {"edits": []} if "raw_json" not in step else None)
        if "raw_json" in step:
            try:
                tool_input = json.loads(step["raw_json"])
            except json.JSONDecodeError:
                tool_input = {}
        if tool_input is not None:
            content.append({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": "propose_edits",
                            "input": tool_input})
        stop = step.get("stop_reason") or ("tool_use" if tool_input is not None else "end_turn")
        prompt_chars = len(json.dumps(body.get("messages", [])))
        return {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
                "model": body.get("model", "claude"), "content": content, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": prompt_chars // 4, "output_tokens": 50,
                          "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
