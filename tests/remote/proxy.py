"""A small HTTP front for a real llama-server, for the remote-backend tests (the network edge):

- forwards every request as it is, streaming, and records what was sent (to check what leaves
  the machine);
- `delay_s`: answers only after that long (a slow engine);
- `ollama=True`: speaks Ollama's API (GET /api/tags, POST /api/generate with prompt + suffix,
  NDJSON stream) by asking the real llama-server's /infill — what Ollama's FIM template does
  for Qwen2.5-Coder — so the text is real model output.

A client that goes away closes the upstream stream too, as an engine would stop generating."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

OLLAMA_MODEL = "qwen2.5-coder:0.5b"


class Proxy:
    def __init__(self, upstream: str, delay_s: float = 0.0, ollama: bool = False) -> None:
        self.upstream, self.delay_s, self.ollama = upstream, delay_s, ollama
        self.requests: list[tuple[str, str, bytes]] = []  # (method, path, body)
        self.headers: list[dict[str, str]] = []            # each request's headers (lower-case names)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Proxy":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def sent(self) -> str:
        """Everything the backend was sent, as text."""
        return "\n".join(body.decode("utf-8", "replace") for _, _, body in self.requests)

    def _handler(self):
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                self._serve(b"")

            def do_POST(self) -> None:
                self._serve(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def _serve(self, body: bytes) -> None:
                proxy.requests.append((self.command, self.path, body))
                proxy.headers.append({k.lower(): v for k, v in self.headers.items()})
                if proxy.delay_s:
                    time.sleep(proxy.delay_s)
                try:
                    if proxy.ollama:
                        self._ollama(body)
                    else:
                        self._forward(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client went away: the upstream stream was closed with the `with`

            def _start(self, status: int, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()

            def _end(self) -> None:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _forward(self, body: bytes) -> None:
                headers = {"Content-Type": self.headers.get("Content-Type", "application/json")}
                with httpx.stream(self.command, proxy.upstream + self.path, content=body or None, headers=headers,
                                  timeout=None) as r:
                    self._start(r.status_code, r.headers.get("content-type", "application/json"))
                    for data in r.iter_raw():
                        self._chunk(data)
                    self._end()

            def _json(self, status: int, obj) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _ollama(self, body: bytes) -> None:
                if self.command == "GET" and self.path == "/api/tags":
                    return self._json(200, {"models": [{"name": OLLAMA_MODEL, "model": OLLAMA_MODEL}]})
                if self.command != "POST" or self.path != "/api/generate":
                    return self._json(404, {"error": "404 page not found"})
                req = json.loads(body or b"{}")
                if req.get("model") not in (OLLAMA_MODEL, OLLAMA_MODEL.split(":")[0]):
                    return self._json(404, {"error": f"model '{req.get('model')}' not found"})
                opts = req.get("options") or {}
                infill = {"input_prefix": req.get("prompt", ""), "input_suffix": req.get("suffix", ""),
                          "n_predict": opts.get("num_predict", -1), "temperature": opts.get("temperature", 0.8),
                          "top_k": 1 if opts.get("temperature") == 0 else 40, "stop": opts.get("stop") or [],
                          "stream": True, "cache_prompt": True}
                with httpx.stream("POST", proxy.upstream + "/infill", json=infill, timeout=None) as r:
                    if r.status_code != 200:
                        r.read()
                        return self._json(500, {"error": r.text[:200]})
                    self._start(200, "application/x-ndjson")
                    for line in r.iter_lines():
                        if not line.startswith("data:"):
                            continue
                        data = json.loads(line[5:])
                        done = bool(data.get("stop"))
                        out = {"model": req["model"], "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ"),
                               "response": data.get("content", ""), "done": done}
                        if done:
                            out["done_reason"] = "stop"
                        self._chunk(json.dumps(out).encode() + b"\n")
                        if done:
                            break
                    self._end()

        return Handler
