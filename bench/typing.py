"""Replay a person typing real source code through the real server over stdio, as VS Code drives
it: didChange for every keystroke, then textDocument/inlineCompletion, cancelling the previous
request ($/cancelRequest) when it is still pending. ~8 characters/s, a pause at each line end;
Enter inserts the newline plus the next line's indentation in one change (auto-indent).

The typed text is taken from modules of installed packages (not written for this project): in
each, a stretch in the middle of the file is removed and typed back.

Side by side in one run: the shipped settings, and the same server with the cache,
typing-through, prefix reuse (and idle prefill) and speculation switched off.

    python bench/typing.py [--chars 400] [--files textwrap,shlex] [--backend KIND[:URL]]

--backend: instead, the same trace through Tandem's local engine and through a remote backend
(KIND:URL, or openai / llamacpp to start llama.cpp's server on the same GGUF for the run), side by
side, with the ratios of keystroke latency and of characters saved.

Prints one JSON object.
"""
from __future__ import annotations

import os
import sys

# This file is named like the stdlib module; when run as a script its folder comes first on
# sys.path, so take it off before anything imports `typing`.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository (bench.engines)

import argparse
import asyncio
import importlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

KEY_INTERVAL = 0.125   # 8 characters per second
LINE_PAUSE = 0.6       # extra pause after a line end
FAST = {"threads": 0}
SLOW = {"threads": 0, "cache": False, "typingThrough": False, "reusePrefix": False, "speculate": False}


@dataclass
class Keystroke:
    sent: float
    answered: float | None = None
    text: str = ""
    cancelled: bool = False
    next_sent: float | None = None
    pos: int = 0          # index in the typed stretch after this keystroke


@dataclass
class Run:
    keys: list[Keystroke] = field(default_factory=list)


def stretch(module: str, chars: int) -> tuple[str, int, int]:
    """A file's text and the [start, end) of whole lines to type, from the middle of the file."""
    text = Path(importlib.import_module(module).__file__).read_text()
    import re

    mid = re.compile(r"^[ \t]*def ", re.M).search(text, len(text) // 3).start()
    end = mid
    while end - mid < chars:
        end = text.index("\n", end) + 1
    return text, mid, end


def position(text: str, index: int) -> types.Position:
    line = text.count("\n", 0, index)
    col = index - (text.rfind("\n", 0, index) + 1)
    return types.Position(line, col)


async def replay(settings: dict, files: list[str], chars: int, key_interval: float = KEY_INTERVAL) -> dict:
    client = LanguageClient("tandem-bench", "1")
    await client.start_io(sys.executable, "-m", "lsp_server", "serve")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         initialization_options={"tandem": settings}))
    client.initialized(types.InitializedParams())
    while (await client.workspace_execute_command_async(types.ExecuteCommandParams("tandem.status")))["engine"] != "ready":
        await asyncio.sleep(0.2)
    runs, saved_total, typed_total = [], 0, 0
    typing_started = asyncio.get_running_loop().time()
    for n, module in enumerate(files):
        full, start, end = stretch(module, chars)
        target = full[start:end]
        # the user writes new lines on an empty line above the code that follows (which keeps
        # its line break: the cursor line never has text of another line to its right)
        full = full[:end] + "\n" + full[end:]
        uri = f"file:///bench/{module}.py"
        doc = full[:start] + full[end:]
        version = 1
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=doc)))
        run = Run()
        pending: tuple[str, asyncio.Future] | None = None
        i = 0
        loop = asyncio.get_running_loop()
        next_time = loop.time() + 1.0
        while i < len(target):
            await asyncio.sleep(max(0.0, next_time - loop.time()))
            piece = target[i]
            if piece == "\n":  # Enter + auto-indent
                nxt = target[i + 1:]
                piece += nxt[: len(nxt) - len(nxt.lstrip(" "))]
            at = start + i
            pos = position(full[:start] + target[:i], at)
            version += 1
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [types.TextDocumentContentChangePartial(range=types.Range(pos, pos), text=piece)]))
            i += len(piece)
            if pending and not pending[1].done():
                client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=pending[0]))
            cur = position(full[:start] + target[:i], start + i)
            key = Keystroke(sent=loop.time(), pos=i)
            if run.keys:
                run.keys[-1].next_sent = key.sent
            run.keys.append(key)
            msg_id = f"{n}-{version}"
            fut = asyncio.wrap_future(client.protocol.send_request(types.TEXT_DOCUMENT_INLINE_COMPLETION,
                types.InlineCompletionParams(text_document=types.TextDocumentIdentifier(uri), position=cur,
                                             context=types.InlineCompletionContext(types.InlineCompletionTriggerKind.Automatic)),
                msg_id=msg_id))

            def done(f, key=key):
                key.answered = loop.time()
                if f.cancelled() or f.exception() is not None:
                    key.cancelled = True
                else:
                    items = f.result() or []
                    key.text = items[0].insert_text if items else ""
            fut.add_done_callback(done)
            pending = (msg_id, fut)
            next_time += key_interval + (LINE_PAUSE if piece.startswith("\n") else 0)
        if pending:
            try:
                await asyncio.wait_for(pending[1], 30)
            except Exception:
                pass
        # characters a user would have saved by accepting (Tab) every shown suggestion that
        # matches what they typed next
        p, saved = 0, 0
        for k in run.keys:
            if k.pos < p or not _on_screen(k) or not k.text:
                continue
            if target.startswith(k.text, k.pos) and k.text.strip():
                saved += len(k.text)
                p = k.pos + len(k.text)
        saved_total += saved
        if os.environ.get("TANDEM_BENCH_DEBUG"):
            for k in run.keys:
                if k.answered and not k.cancelled and (k.answered - k.sent) > 0.3:
                    line = target[:k.pos].rsplit("\n", 1)[-1]
                    print(f"slow {1000 * (k.answered - k.sent):.0f} ms at {line!r} -> {k.text!r}", file=sys.stderr)
        typed_total += len(target)
        runs.append(run)
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    typing_seconds = asyncio.get_running_loop().time() - typing_started
    status = await client.workspace_execute_command_async(types.ExecuteCommandParams("tandem.status"))
    pid = client._server.pid
    rss = _peak_rss_mb(pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    keys = [k for r in runs for k in r.keys]
    answered = sorted((k.answered - k.sent) * 1000 for k in keys if k.answered and not k.cancelled)
    q = lambda p: round(answered[min(len(answered) - 1, int(p * len(answered)))], 1) if answered else None  # noqa: E731
    st = status["stats"]
    served = st["cache_hits"] + st["typing_through"] + st["model_calls"]
    return {
        "keystrokes": len(keys),
        "latency_ms": {"p50": q(0.5), "p95": q(0.95), "p99": q(0.99), "max": round(answered[-1], 1) if answered else None},
        "answered": len(answered), "cancelled": sum(k.cancelled for k in keys),
        "suggestion_on_screen": round(sum(_on_screen(k) and bool(k.text) for k in keys) / max(len(keys), 1), 3),
        "cache_hit_rate": round(st["cache_hits"] / served, 3) if served else None,
        "typing_through_rate": round(st["typing_through"] / served, 3) if served else None,
        "chars_saved": saved_total, "chars_typed": typed_total,
        "chars_saved_share": round(saved_total / max(typed_total, 1), 3),
        "server_peak_rss_mb": rss,
        # the load one typist puts on an engine (docs/deploy.md sizes a shared server from it)
        "model_calls": st["model_calls"], "model_calls_per_second": round(st["model_calls"] / max(typing_seconds, 1e-6), 2),
    }


def _on_screen(k: Keystroke) -> bool:
    return k.answered is not None and not k.cancelled and (k.next_sent is None or k.answered <= k.next_sent)


def _peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def compare_backend(arg: str, files: list[str], chars: int, key_interval: float = KEY_INTERVAL) -> dict:
    """The shipped local engine and a remote backend on the same typing trace, one after the other."""
    from bench.engines import backend
    from lsp_server.config import parse_backend

    with backend(arg) as spec:
        local = asyncio.run(replay(FAST, files, chars, key_interval))
        remote = asyncio.run(replay({**FAST, "backend": spec}, files, chars, key_interval))
    ratio = lambda a, b: round(a / b, 2) if a is not None and b else None  # noqa: E731
    return {"benchmark": "typing-backend", "files": files, "chars_per_file": chars,
            "chars_per_second": round(1 / key_interval, 1), "backend": parse_backend(spec).shown(),
            "local": local, "remote": remote,
            "remote_over_local": {"latency_p50": ratio(remote["latency_ms"]["p50"], local["latency_ms"]["p50"]),
                                  "latency_p95": ratio(remote["latency_ms"]["p95"], local["latency_ms"]["p95"]),
                                  "chars_saved": ratio(remote["chars_saved"], local["chars_saved"])}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chars", type=int, default=400, help="characters typed per file")
    # a stdlib module (the model has surely seen it) and a 2025 one (pygls 2: after its training data)
    ap.add_argument("--files", default="textwrap,pygls.workspace.text_document", help="modules whose source is typed")
    ap.add_argument("--backend", default=None, help="compare the local engine with this backend (KIND:URL, openai, llamacpp)")
    ap.add_argument("--cps", type=float, default=1 / KEY_INTERVAL, help="typing speed, characters per second")
    args = ap.parse_args()
    files = args.files.split(",")
    t = time.time()
    if args.backend:
        print(json.dumps(compare_backend(args.backend, files, args.chars, 1 / args.cps) | {"seconds": round(time.time() - t, 1)}))
        return
    fast = asyncio.run(replay(FAST, files, args.chars, 1 / args.cps))
    slow = asyncio.run(replay(SLOW, files, args.chars, 1 / args.cps))
    print(json.dumps({"benchmark": "typing", "files": files, "chars_per_file": args.chars,
                      "chars_per_second": round(args.cps, 1), "shipped": fast,
                      "without_cache_typing_through_reuse_speculation": slow,
                      "p50_speedup": round(slow["latency_ms"]["p50"] / max(fast["latency_ms"]["p50"], 0.1), 1)
                      if fast["latency_ms"]["p50"] and slow["latency_ms"]["p50"] else None,
                      "seconds": round(time.time() - t, 1)}))


if __name__ == "__main__":
    main()
