"""Tandem: a local-first AI pair for code editors, shipped as a language server."""

__version__ = "0.1.0"
