"""The diff expander: a frontier model's sketch + the original file → the exact new text."""
from lsp_server.apply.expander import ApplyError, Expansion, expand

__all__ = ["ApplyError", "Expansion", "expand"]
