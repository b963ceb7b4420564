"""The JSON-RPC framing loop: headers, body, top-level decode. It replaces pygls' `run_async`
(pygls 2.1), which a hostile or broken client could kill or silence:
- a huge Content-Length made it allocate the whole body (MemoryError);
- a lowercase or LF-only header, a missing, negative, non-numeric or duplicate Content-Length, or
  noise left it waiting forever for a header it would never match;
- invalid JSON, a batch array or a missing `jsonrpc` got no reply at all;
- its `object_hook` structured every nested object that looked like a message, so an object in a
  command's arguments could be answered as if it were a request.

Here header names are case-insensitive, lines may end in LF, unusable header blocks and noise are
skipped until the next `Content-Length` header (resync), a body over MAX_BODY ends the process
cleanly so the editor restarts it, and undecodable bodies get -32700 / -32600 replies with a null
id. Only the top-level object is structured. Each problem is one log line, never a traceback on
the wire. The patch is installed by `install()` (server.serve), for stdio and TCP alike.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any, Callable

log = logging.getLogger(__name__)

MAX_BODY = 64 << 20          # bytes; LSP messages are a few MB at most (a whole large document)
HEADER = re.compile(rb"^([!-9;-~]+):[ \t]*([^\r\n]*?)[ \t]*\r?\n?$")
CONTENT_LENGTH = re.compile(rb"content-length:", re.IGNORECASE)
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


exit_code = 0  # 1 once the loop gave up on the stream (server.serve returns it)


class TooLarge(SystemExit):
    """A body over MAX_BODY: the stream cannot be trusted any more; exit, and be restarted."""

    def __init__(self) -> None:
        global exit_code
        exit_code = 1
        super().__init__(1)


def body_error(data: Any) -> tuple[int, str, Any] | None:
    """What is wrong with a decoded message as JSON-RPC 2.0 (code, message, id to answer), or None."""
    if isinstance(data, list):
        return INVALID_REQUEST, "batch requests are not supported", None
    if not isinstance(data, dict):
        return INVALID_REQUEST, "a message must be a JSON object", None
    msg_id = data.get("id")
    if not (msg_id is None or isinstance(msg_id, (int, str))) or isinstance(msg_id, bool):
        msg_id = None
    if data.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, 'a message must say "jsonrpc": "2.0"', msg_id
    if "method" in data and not isinstance(data["method"], str):
        return INVALID_REQUEST, "method must be a string", msg_id
    return None


async def run_async(stop_event, reader, protocol, logger: logging.Logger | None = None,
                    error_handler: Callable[[Exception, type], Any] | None = None) -> None:
    """pygls' main loop, signature and all (see the module docstring)."""
    length: int | None = None
    unusable = False  # this header block's Content-Length cannot be trusted
    while not stop_event.is_set():
        line = await reader.readline()
        if not line:
            break  # the client closed the stream
        if not line.strip():  # the blank line that ends a header block
            if length is None or unusable:
                if unusable:
                    log.warning("skipped a message without one valid Content-Length header")
                length, unusable = None, False
                continue
            if length > MAX_BODY:
                log.error("a message of %d bytes (over %d): the stream cannot be trusted; exiting so the "
                          "editor restarts the server", length, MAX_BODY)
                raise TooLarge()
            body = await _read(reader, length)
            length = None
            if body is None:
                break
            _dispatch(protocol, body, error_handler)
            continue
        at = None if HEADER.match(line) else CONTENT_LENGTH.search(line)
        if at is not None:  # noise, then a header on the same line: resync at the header
            line = line[at.start():]
        m = HEADER.match(line)
        if m is None:
            log.warning("skipped %d bytes that are not a header", len(line))
            length, unusable = None, False
            continue
        if m.group(1).lower() != b"content-length":
            continue  # Content-Type and others
        value = m.group(2)
        if not value.isdigit() or (length is not None and int(value) != length):
            unusable = True
        else:
            length = int(value)


async def _read(reader, n: int) -> bytes | None:
    """Exactly n bytes, or None at the end of the stream."""
    try:
        data = await reader.readexactly(n)
    except asyncio.IncompleteReadError:
        return None
    return data if len(data) == n else None


def _dispatch(protocol, body: bytes, error_handler) -> None:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        log.warning("a message that is not JSON (%s)", str(exc).splitlines()[0][:120])
        _reply_error(protocol, None, PARSE_ERROR, "parse error: the message is not valid JSON")
        return
    problem = body_error(data)
    if problem is not None:
        code, message, msg_id = problem
        log.warning("invalid message: %s", message)
        _reply_error(protocol, msg_id, code, message)
        return
    try:
        message = protocol.structure_message(data)  # the top level only: arguments stay data
        protocol.handle_message(message)
    except Exception as exc:  # one log line; the request (if any) was answered by the protocol
        log.warning("could not handle %s: %s: %s", data.get("method", "a response"), exc.__class__.__name__,
                    str(exc).splitlines()[0][:200] if str(exc) else "")
        if error_handler:
            from pygls.exceptions import JsonRpcException

            error_handler(exc, JsonRpcException)


def _reply_error(protocol, msg_id, code: int, message: str) -> None:
    # a plain dict: pygls' serializer drops an id of None, which JSON-RPC requires as null
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


def install() -> None:
    """Use this loop for pygls' stdio and TCP servers."""
    import pygls.server

    pygls.server.run_async = run_async
