"""Codebase retrieval: tree-sitter chunks, BM25 + MiniLM embeddings, a persisted incremental index."""

from lsp_server.retrieval.chunker import Chunk, chunk_file
from lsp_server.retrieval.index import CodeIndex, Hit, Summary

__all__ = ["Chunk", "chunk_file", "CodeIndex", "Hit", "Summary"]
