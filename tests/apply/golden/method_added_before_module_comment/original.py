class EnvironHeaders(Headers):
    """Read only version of the headers."""

    def __init__(self, environ):
        self.environ = environ

    def copy(self):
        raise TypeError(f"cannot create {type(self).__name__!r} copies")


# circular dependencies
from .. import http
