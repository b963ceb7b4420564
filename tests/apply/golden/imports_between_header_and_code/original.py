from __future__ import annotations


class IfRange:
    """Very simple object that represents the `If-Range` header."""

    def __init__(self, etag=None, date=None):
        self.etag = etag
