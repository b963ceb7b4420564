"""Which files of a workspace get indexed: .gitignore (nested too) and .tandemignore respected;
version-control, dependency, build and generated folders skipped; symlinks never followed (no
loops, nothing outside the workspace); binaries and files over the size limit skipped."""
from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pathspec

from lsp_server.secrets import is_secret_path
from lsp_server.syntax.languages import indexable

log = logging.getLogger(__name__)

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache", "dist", "build", "target", "vendor",
                       "third_party", "site-packages", ".idea", ".vscode", ".next", ".cache", "coverage"})
GENERATED_SUFFIXES = (".min.js", ".min.css", "_pb2.py", "_pb2_grpc.py", ".pb.go", ".generated.ts", ".bundle.js")
GENERATED_NAMES = frozenset({"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Cargo.lock", "go.sum"})
MAX_FILE_BYTES = 512_000
MAX_FILES = 20_000


def _spec(path: Path) -> pathspec.PathSpec | None:
    try:
        return pathspec.GitIgnoreSpec.from_lines(path.read_text(errors="replace").splitlines())
    except OSError:
        return None


def is_binary(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return b"\x00" in fh.read(8192)
    except OSError:
        return True


def ignored_name(name: str) -> bool:
    return name in GENERATED_NAMES or name.endswith(GENERATED_SUFFIXES)


class IgnoreRules:
    """Ignore specs by directory (relative posix path → spec), checked from the root down."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.specs: dict[str, pathspec.PathSpec] = {}
        for name in (".gitignore", ".tandemignore"):
            spec = _spec(root / name) if (root / name).is_file() else None
            if spec:
                self.specs[""] = self.specs[""] + spec if "" in self.specs else spec

    def load_dir(self, rel_dir: str) -> None:
        if rel_dir and (self.root / rel_dir / ".gitignore").is_file():
            spec = _spec(self.root / rel_dir / ".gitignore")
            if spec:
                self.specs[rel_dir] = spec

    def ignored(self, rel: str, is_dir: bool = False) -> bool:
        probe = rel + "/" if is_dir else rel
        for base, spec in self.specs.items():
            if base == "":
                if spec.match_file(probe):
                    return True
            elif rel.startswith(base + "/") and spec.match_file(probe[len(base) + 1:]):
                return True
        return False


def wanted(root: Path, rel: str, rules: IgnoreRules | None = None) -> bool:
    """Should this single file (relative path) be indexed? Used for incremental updates."""
    parts = rel.split("/")
    if any(p in SKIP_DIRS for p in parts[:-1]) or ignored_name(parts[-1]) or not indexable(rel):
        return False
    path = root / rel
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return False
    except OSError:
        return False
    rules = rules or IgnoreRules(root)
    return not rules.ignored(rel) and not is_binary(path)


def is_private(path: Path, roots: list[Path]) -> bool:
    """A file whose text never leaves the machine for a remote backend: a secret file by its
    name, or one its workspace ignores (.gitignore at any depth, .tandemignore, version-control
    and dependency folders) — what the index never holds either."""
    if is_secret_path(path.as_posix()):
        return True
    for root in roots:
        try:
            parts = path.resolve().relative_to(root.resolve()).parts
        except (ValueError, OSError):
            continue
        rules = IgnoreRules(root)
        for depth, name in enumerate(parts):
            is_dir = depth < len(parts) - 1
            rules.load_dir("/".join(parts[:depth]))
            if (is_dir and name in SKIP_DIRS) or rules.ignored("/".join(parts[:depth + 1]), is_dir=is_dir):
                return True
    return False


def iter_files(root: Path, max_files: int = MAX_FILES) -> Iterator[str]:
    rules = IgnoreRules(root)
    count = 0

    def onerror(exc: OSError) -> None:
        log.warning("cannot list %s: %s", exc.filename, exc.strerror)

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=onerror):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        rules.load_dir(rel_dir)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not os.path.islink(os.path.join(dirpath, d))
                             and not rules.ignored(f"{rel_dir}/{d}".lstrip("/"), is_dir=True))
        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}".lstrip("/")
            if not wanted(root, rel, rules):
                continue
            count += 1
            if count > max_files:
                log.warning("workspace has more than %d indexable files; the rest is not indexed", max_files)
                return
            yield rel
