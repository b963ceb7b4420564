"""The persisted index under the user cache (diskcache: SQLite, so a process killed mid-write
leaves the last committed state, never a torn file). Keyed by workspace root; entries are
versioned so an old or unreadable store is rebuilt instead of failing.

    file:REL     -> {"hash": sha1 of the text, "chunks": [Chunk fields…]}
    vec:HASH     -> float32 bytes of the embedding of a chunk's text (shared by identical chunks)
    meta         -> {"version": FORMAT_VERSION}
"""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
from dataclasses import asdict
from pathlib import Path

import diskcache

from lsp_server.errors import TandemError
import numpy as np

from lsp_server.model_store.paths import tandem_home
from lsp_server.retrieval.chunker import Chunk

log = logging.getLogger(__name__)

FORMAT_VERSION = 3  # 2: embeddings without fixed-length padding; 3: 64 tokens


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def store_dir(root: Path) -> Path:
    base = Path(os.environ["TANDEM_INDEX_HOME"]) if os.environ.get("TANDEM_INDEX_HOME") else tandem_home() / "index"
    return base / hashlib.sha1(str(root.resolve()).encode()).hexdigest()[:16]


class Store:
    def __init__(self, root: Path) -> None:
        self.path = store_dir(root)
        self.cache = self._open()

    def _open(self) -> diskcache.Cache:
        meta = {"version": FORMAT_VERSION}
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a read-only or missing home: say where, and what to do
            raise TandemError(f"cannot write the index in {self.path} ({exc.__class__.__name__}: "
                              f"{exc.strerror or exc}); set TANDEM_INDEX_HOME to a writable folder") from None
        try:
            cache = diskcache.Cache(str(self.path), size_limit=2**31)
            if cache.get("meta") != meta:
                if len(cache):
                    log.info("index store %s has another format version; rebuilding", self.path)
                cache.clear()
                cache.set("meta", meta)
            return cache
        except Exception as exc:  # corrupt database: start over rather than fail
            log.warning("index store %s unreadable (%s); rebuilding", self.path, exc)
            shutil.rmtree(self.path, ignore_errors=True)
            try:
                cache = diskcache.Cache(str(self.path), size_limit=2**31)
                cache.set("meta", meta)
            except Exception as again:  # a read-only or missing home: say where, and what to do
                raise TandemError(f"cannot write the index in {self.path} ({again.__class__.__name__}: "
                                  f"{str(again).splitlines()[0][:160]}); set TANDEM_INDEX_HOME to a writable "
                                  "folder") from None
            return cache

    def get_file(self, rel: str) -> tuple[str, list[Chunk]] | None:
        entry = self.cache.get("file:" + rel)
        if not entry:
            return None
        return entry["hash"], [Chunk(**c) for c in entry["chunks"]]

    def put_file(self, rel: str, digest: str, chunks: list[Chunk]) -> None:
        self.cache.set("file:" + rel, {"hash": digest, "chunks": [asdict(c) for c in chunks]})

    def delete_file(self, rel: str) -> None:
        self.cache.delete("file:" + rel)

    def files(self) -> list[str]:
        return [k[5:] for k in self.cache.iterkeys() if isinstance(k, str) and k.startswith("file:")]

    def get_vector(self, digest: str) -> np.ndarray | None:
        raw = self.cache.get("vec:" + digest)
        return None if raw is None else np.frombuffer(raw, dtype=np.float32)

    def put_vectors(self, items: dict[str, np.ndarray]) -> None:
        with self.cache.transact():
            for digest, vec in items.items():
                self.cache.set("vec:" + digest, vec.astype(np.float32).tobytes())

    def close(self) -> None:
        self.cache.close()
