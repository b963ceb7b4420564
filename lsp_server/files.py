"""Reading a source file from disk as an editor would show it (the CLI, and files a plan touches
that are not open in the editor). One place for what is refused and how it is said."""
from __future__ import annotations

from pathlib import Path

from lsp_server.errors import TandemError


def read_text(path: Path, strip_bom: bool = False) -> str:
    """UTF-8 text; a directory, a binary (NUL bytes) or another encoding is a TandemError that
    says which. A BOM is kept unless `strip_bom` (writing the text back then keeps it too)."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise TandemError(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise TandemError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if b"\x00" in data[:8192]:
        raise TandemError(f"{path}: looks like a binary file (NUL bytes)")
    try:
        return data.decode("utf-8-sig" if strip_bom else "utf-8")
    except UnicodeDecodeError as exc:
        raise TandemError(f"{path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_if_exists(path: Path) -> str | None:
    """read_text, or None when there is no such file."""
    return read_text(path) if path.exists() else None
