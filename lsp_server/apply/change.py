"""Sketches → a checked set of whole-file changes inside the workspace (nothing written here).

Every path from the model is resolved against the workspace root and must stay inside it (no absolute paths, no `..`, no
symlink leading out, nothing under .git, no secret files). A sketch for a file that does not exist creates it (then it
may not contain markers). Each file either expands with confidence or fails with a reason; the caller applies all the
successful ones as one edit, or none."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable

from lsp_server.apply.expander import ApplyError, Chooser, expand
from lsp_server.apply.markers import is_marker
from lsp_server.errors import TandemError
from lsp_server.secrets import REDACTED, is_secret_path, restore


@dataclass(frozen=True)
class FileSketch:
    """What the planner proposes for one file: a path relative to the workspace and a sketch."""
    path: str
    sketch: str
    summary: str = ""


@dataclass
class FileChange:
    path: str            # relative, posix
    target: Path         # absolute, resolved
    old: str | None      # None: the file is created
    new: str
    summary: str = ""
    confidence: float = 1.0
    notes: list[str] = field(default_factory=list)


@dataclass
class Failure:
    path: str
    reason: str
    sketch_fault: bool = False  # the sketch could not be placed (the planner may write it again), not the path or file


def resolve_inside(root: Path, rel: str) -> Path:
    """The absolute path for a model- or user-supplied relative path, or ApplyError if it leaves
    root (the one check the CLI and the language server share)."""
    if "\0" in rel or any(ord(c) < 32 for c in rel):
        raise ApplyError(f"refusing {rel!r}: the path holds control characters")
    p = PurePosixPath(rel.replace("\\", "/"))
    if not p.parts or p.is_absolute() or rel.startswith("~") or ":" in p.parts[0]:
        raise ApplyError(f"refusing {rel!r}: paths must be relative to the workspace")
    if ".." in p.parts:
        raise ApplyError(f"refusing {rel!r}: the path leaves the workspace")
    # case-insensitive: on macOS and Windows `.GIT/config` is the real .git/config
    if any(part.casefold() == ".git" for part in p.parts):
        raise ApplyError(f"refusing {rel!r}: Tandem does not write inside .git")
    if is_secret_path(rel):
        raise ApplyError(f"refusing {rel!r}: Tandem does not write secret files")
    root = root.resolve()
    target = (root / Path(*p.parts)).resolve()  # follows symlinks: a link out of the root is caught here
    if not target.is_relative_to(root):
        raise ApplyError(f"refusing {rel!r}: it resolves outside the workspace ({target})")
    return target


def expand_one(root: Path, sketch: FileSketch, read: Callable[[Path], str | None],
               chooser: Chooser | None = None) -> FileChange | Failure:
    """read(path) → current text (the editor's buffer when open), None if the file does not
    exist; it raises OSError/UnicodeError for unreadable files."""
    try:
        target = resolve_inside(root, sketch.path)
    except ApplyError as exc:
        return Failure(sketch.path, str(exc))
    try:
        old = read(target)
    except TandemError as exc:
        return Failure(sketch.path, f"cannot read the file: {str(exc).split(': ', 1)[-1]}")
    except (OSError, UnicodeError) as exc:
        return Failure(sketch.path, f"cannot read the file ({exc.__class__.__name__})")
    # the planner saw credential values as REDACTED: lines it copied get the file's values back
    text = restore(sketch.sketch.replace("\r\n", "\n"), old or "")
    if REDACTED in text and _writes_redacted(text, old or ""):
        return Failure(sketch.path, f"the sketch writes {REDACTED} where the file holds a credential the planner was "
                                    "not shown; keep that line as it is", True)
    if old is None:
        if target.exists() and target.is_dir():
            return Failure(sketch.path, "it is a directory")
        if any(is_marker(x) for x in text.split("\n")):
            return Failure(sketch.path, "the file does not exist but the sketch elides existing code", True)
        return FileChange(sketch.path, target, None, text.rstrip("\n") + "\n", sketch.summary)
    try:
        result = expand(old, text, sketch.path, chooser=chooser)
    except ApplyError as exc:
        return Failure(sketch.path, str(exc), True)
    return FileChange(sketch.path, target, old, result.text, sketch.summary, result.confidence, result.notes)


def _writes_redacted(text: str, old: str) -> bool:
    """A sketch line holds REDACTED that is not a line of the file (which may say it itself)."""
    own = {x.strip() for x in old.split("\n") if REDACTED in x}
    return any(REDACTED in x and x.strip() not in own for x in text.split("\n"))


def refusal(outcomes: list[FileChange | Failure]) -> str | None:
    """Why a plan's outcomes may not be applied (all or nothing), or None when they may."""
    if not outcomes:
        return "the planner proposed no edits"
    failures = sum(isinstance(o, Failure) for o in outcomes)
    if failures:
        return f"{failures} of {len(outcomes)} sketches could not be applied with confidence; nothing was changed"
    return None

