"""The workspace index: chunks from every indexable file, a BM25 index and an embedding matrix,
persisted in the Store and updated one file at a time. Search fuses the two rankings with
reciprocal-rank fusion and falls back to lexical-only when the embedding step would exceed the
time budget (or the embedding model is not installed)."""
from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lsp_server.retrieval.chunker import Chunk, chunk_file
from lsp_server.retrieval.lexical import Bm25
from lsp_server.retrieval.store import Store, text_hash
from lsp_server.retrieval.walker import iter_files, wanted

log = logging.getLogger(__name__)

RRF_K = 60
EMBED_CHARS = 1500  # the text embedded per chunk (MiniLM reads 256 tokens anyway)


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    score: float

    def as_dict(self) -> dict:
        c = self.chunk
        return {"path": c.path, "start_line": c.start_line, "end_line": c.end_line, "score": round(self.score, 5),
                "symbol": c.symbol, "kind": c.kind}


@dataclass(frozen=True)
class Summary:
    files: int
    chunks: int
    embedded: int
    reused_files: int
    seconds: float


def embed_text(c: Chunk) -> str:
    return f"{c.path} {c.symbol}\n{c.text}"[:EMBED_CHARS]


def read_text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc.strerror or exc)
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        log.info("skipping %s: not UTF-8", path)
        return None


class CodeIndex:
    def __init__(self, root: Path, embedder=None, use_embeddings: bool = True, embed_threads: int = 0) -> None:
        self.root = root.resolve()
        self.embed_threads = embed_threads
        self.store = Store(self.root)
        self._embedder = embedder
        self.use_embeddings = use_embeddings
        self.lock = threading.RLock()
        self.chunks: dict[int, Chunk] = {}
        self.by_file: dict[str, list[int]] = {}
        self.bm25 = Bm25()
        self.vectors: dict[int, np.ndarray] = {}
        self.names: dict[str, set[int]] = defaultdict(set)
        self._next = 0
        self._matrix: tuple[np.ndarray, list[int]] | None = None

    # -- embedding model (optional) ---------------------------------------------------------
    @property
    def embedder(self):
        if self._embedder is None and self.use_embeddings:
            try:
                from lsp_server.retrieval.embeddings import Embedder

                self._embedder = Embedder(self.embed_threads)
            except Exception as exc:
                log.warning("embeddings off: %s", exc)
                self.use_embeddings = False
        return self._embedder

    # -- building -------------------------------------------------------------------------
    def _forget(self, rel: str) -> None:
        for cid in self.by_file.pop(rel, []):
            c = self.chunks.pop(cid)
            self.bm25.remove(cid)
            self.vectors.pop(cid, None)
            if c.name:
                self.names[c.name].discard(cid)
        self._matrix = None

    def _add(self, rel: str, chunks: list[Chunk]) -> list[int]:
        ids = []
        for c in chunks:
            cid = self._next
            self._next += 1
            self.chunks[cid] = c
            self.bm25.add(cid, f"{c.path} {c.symbol} {c.text}")
            if c.name:
                self.names[c.name].add(cid)
            ids.append(cid)
        self.by_file[rel] = ids
        self._matrix = None
        return ids

    def _embed(self, ids: list[int]) -> int:
        """Vectors for these chunks: from the store when the text was embedded before."""
        if not ids or self.embedder is None:
            return 0
        missing: dict[str, list[int]] = defaultdict(list)
        for cid in ids:
            if self.chunks[cid].kind == "statements":
                continue  # imports and constants: BM25 finds them; embedding them is most of the build time
            digest = text_hash(embed_text(self.chunks[cid]))
            vec = self.store.get_vector(digest)
            if vec is not None:
                self.vectors[cid] = vec
            else:
                missing[digest].append(cid)
        if not missing:
            return 0
        digests = list(missing)
        vecs = self.embedder.embed([embed_text(self.chunks[missing[d][0]]) for d in digests])
        self.store.put_vectors(dict(zip(digests, vecs)))
        for d, v in zip(digests, vecs):
            for cid in missing[d]:
                self.vectors[cid] = v
        return len(digests)

    def update_file(self, rel: str, text: str | None = None) -> int:
        """(Re)index one file from `text` or from disk; returns the number of chunks."""
        with self.lock:
            path = self.root / rel
            if text is None:
                if not wanted(self.root, rel):
                    self.remove_file(rel)
                    return 0
                text = read_text(path)
                if text is None:
                    self.remove_file(rel)
                    return 0
            digest = text_hash(text)
            stored = self.store.get_file(rel)
            if stored and stored[0] == digest and rel in self.by_file:
                return len(self.by_file[rel])
            chunks = stored[1] if stored and stored[0] == digest else chunk_file(rel, text)
            self._forget(rel)
            ids = self._add(rel, chunks)
            self._embed(ids)
            if not (stored and stored[0] == digest):
                self.store.put_file(rel, digest, chunks)
            return len(ids)

    def remove_file(self, rel: str) -> None:
        with self.lock:
            self._forget(rel)
            self.store.delete_file(rel)

    def build(self, progress: Callable[[int, int, str], None] | None = None) -> Summary:
        started = time.perf_counter()
        files = list(iter_files(self.root))
        seen = set(files)
        reused = embedded = 0
        pending: list[int] = []
        with self.lock:
            for stale in [f for f in self.store.files() if f not in seen]:
                self.remove_file(stale)
            for n, rel in enumerate(files, 1):
                text = read_text(self.root / rel)
                if text is None:  # unreadable, deleted meanwhile, not UTF-8
                    self.remove_file(rel)
                    continue
                digest = text_hash(text)
                stored = self.store.get_file(rel)
                if stored and stored[0] == digest:
                    chunks = stored[1]
                    reused += 1
                else:
                    chunks = chunk_file(rel, text)
                    self.store.put_file(rel, digest, chunks)
                self._forget(rel)
                pending += self._add(rel, chunks)
                if len(pending) >= 256:
                    embedded += self._embed(pending)
                    pending = []
                if progress:
                    progress(n, len(files), rel)
            embedded += self._embed(pending)
        return Summary(len(self.by_file), len(self.chunks), embedded, reused, time.perf_counter() - started)

    # -- searching ------------------------------------------------------------------------
    def _matrix_rows(self) -> tuple[np.ndarray, list[int]]:
        if self._matrix is None:
            ids = [cid for cid in self.chunks if cid in self.vectors]
            mat = np.stack([self.vectors[c] for c in ids]) if ids else np.zeros((0, 384), np.float32)
            self._matrix = (mat, ids)
        return self._matrix

    def search(self, query: str, k: int = 10, budget_ms: float = 50.0, mode: str = "hybrid") -> list[Hit]:
        started = time.perf_counter()
        with self.lock:
            pool = max(k * 5, 50)
            lexical = self.bm25.search(query, pool) if mode in ("hybrid", "lexical") else []
            semantic: list[tuple[int, float]] = []
            spent = (time.perf_counter() - started) * 1000
            if mode in ("hybrid", "embedding") and self.embedder is not None and spent < budget_ms / 2:
                mat, ids = self._matrix_rows()
                if len(ids):
                    qv = self.embedder.embed([query])[0]
                    sims = mat @ qv
                    top = np.argsort(-sims)[:pool]
                    semantic = [(ids[i], float(sims[i])) for i in top]
            if mode == "lexical" or not semantic:
                ranked = lexical
            elif mode == "embedding" or not lexical:
                ranked = semantic
            else:
                fused: dict[int, float] = defaultdict(float)
                for ranking in (lexical, semantic):
                    for rank, (cid, _) in enumerate(ranking):
                        fused[cid] += 1.0 / (RRF_K + rank + 1)
                ranked = sorted(fused.items(), key=lambda kv: -kv[1])
            return [Hit(self.chunks[cid], score) for cid, score in ranked[:k]]

    def definitions(self, name: str, exclude_path: str | None = None) -> list[Chunk]:
        with self.lock:
            return [self.chunks[c] for c in self.names.get(name, ()) if self.chunks[c].path != exclude_path]

    def close(self) -> None:
        self.store.close()
