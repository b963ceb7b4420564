"""Inline completion pipeline: context window → prompt format (data) → engine → postprocess."""

from lsp_server.completion.complete import CompletionRequest, CompletionResult, complete

__all__ = ["CompletionRequest", "CompletionResult", "complete"]
