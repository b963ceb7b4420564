"""The language server's side of retrieval: one CodeIndex per workspace folder, built in the
background on its own thread after initialize, kept current from didChange (debounced) and
didSave, and asked for completion snippets without ever waiting for it."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsp_server.protocol import uri_to_path
from lsp_server.retrieval.context import Snippet, choose_snippets
from lsp_server.retrieval.index import CodeIndex
from lsp_server.retrieval.walker import is_private

log = logging.getLogger(__name__)

CHANGE_DEBOUNCE_S = 1.5
REGION_LINES = 16  # snippets are chosen again only when the cursor moves to another region


class IndexService:
    def __init__(self, embeddings: bool = True) -> None:
        self.embeddings = embeddings
        self.indexes: dict[Path, CodeIndex] = {}
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tandem-index")
        self._snippets: dict[str, tuple[tuple, tuple[Snippet, ...]]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self.state = "idle"
        self.last_summary: dict | None = None
        self._private: dict[str, bool] = {}  # uri → is_private (bounded; cleared when ignore files change)

    def add_roots(self, roots: list[Path]) -> None:
        for root in roots:
            root = root.resolve()
            if root.is_dir() and root not in self.indexes and root != Path.home() and root != Path("/"):
                # one embedding thread: the other core stays free for completions
                self.indexes[root] = CodeIndex(root, use_embeddings=self.embeddings, embed_threads=1)

    def locate(self, uri: str) -> tuple[CodeIndex, str] | None:
        path = uri_to_path(uri)
        if path is None:
            return None
        for root, index in self.indexes.items():
            try:
                return index, path.resolve().relative_to(root).as_posix()
            except ValueError:
                continue
        return None

    async def build(self, progress: Callable[[str], None] | None = None) -> dict:
        loop = asyncio.get_running_loop()
        self.state = "indexing"
        files = chunks = 0
        seconds = 0.0
        try:
            for root, index in list(self.indexes.items()):
                def report(n, total, rel, root=root):
                    if progress and (n % 50 == 0 or n == total):
                        loop.call_soon_threadsafe(progress, f"{root.name}: {n}/{total} files")
                s = await loop.run_in_executor(self.executor, index.build, report)
                files, chunks, seconds = files + s.files, chunks + s.chunks, seconds + s.seconds
                log.info("indexed %s: %d files, %d chunks in %.1fs (%d embedded)", root, s.files, s.chunks, s.seconds, s.embedded)
        finally:
            self.state = "ready"
        self._snippets.clear()
        self.last_summary = {"files": files, "chunks": chunks, "seconds": round(seconds, 2)}
        return self.last_summary

    def _update(self, uri: str, text: str | None) -> None:
        found = self.locate(uri)
        if found is None:
            return
        index, rel = found
        try:
            if text is None:
                index.update_file(rel)
            elif len(text) <= 512_000:
                index.update_file(rel, text)
        except Exception as exc:  # a bad file must not take indexing down
            log.warning("re-indexing %s failed: %s", rel, exc)

    def file_changed(self, uri: str, text: str) -> None:
        if self.locate(uri) is None:
            return
        loop = asyncio.get_running_loop()
        if uri in self._timers:
            self._timers[uri].cancel()
        self._timers[uri] = loop.call_later(CHANGE_DEBOUNCE_S, lambda: self.executor.submit(self._update, uri, text))

    def is_private(self, uri: str, roots: list[Path]) -> bool:
        """A file whose text never goes to a remote backend (walker.is_private), cached per
        document (bounded; cleared when an ignore file is saved)."""
        if uri not in self._private:
            path = uri_to_path(uri)
            if len(self._private) >= 512:
                self._private.clear()
            self._private[uri] = path is not None and is_private(path, roots)
        return self._private[uri]

    def file_saved(self, uri: str) -> None:
        if uri.endswith((".gitignore", ".tandemignore")):
            self._private.clear()
        if self.locate(uri) is not None:
            self.executor.submit(self._update, uri, None)

    def snippets_for(self, uri: str, prefix: str) -> tuple[str, tuple[Snippet, ...]]:
        """(relative path, snippets) for a completion; () while the index is busy or absent."""
        found = self.locate(uri)
        if found is None:
            return "", ()
        index, rel = found
        key = (rel, prefix.count("\n") // REGION_LINES)
        cached = self._snippets.get(uri)
        if cached and cached[0] == key:
            return rel, cached[1]
        if not index.lock.acquire(blocking=False):
            return rel, ()
        try:
            snippets = choose_snippets(index, rel, prefix)
        finally:
            index.lock.release()
        self._snippets[uri] = (key, snippets)
        return rel, snippets

    def shutdown(self) -> None:
        for t in self._timers.values():
            t.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)
        for index in self.indexes.values():
            index.close()
