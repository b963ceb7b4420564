# ... existing code ...
        return Wrapped(cm, self)


@dataclass
class BlockingPortalProvider:
    """
    A manager for a blocking portal.

    The parameters are the same as for :func:`~anyio.run`.

    :param backend: name of the backend
    :param backend_options: backend options
    """

    backend: str = "asyncio"
    backend_options: dict | None = None


@contextmanager
# ... existing code ...
