class EnvironHeaders(Headers):
    """Read only version of the headers."""

    def __init__(self, environ):
        self.environ = environ

    def copy(self) -> t.NoReturn:
        raise TypeError(f"cannot create {type(self).__name__!r} copies")

    def __or__(self, other: t.Any) -> t.NoReturn:
        raise TypeError(f"cannot create {type(self).__name__!r} copies")


# circular dependencies
from .. import http
