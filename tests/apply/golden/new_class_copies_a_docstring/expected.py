class BlockingPortal:
    def wrap(self, cm):
        """Wrap a context manager."""
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
def start_blocking_portal(
    backend: str = "asyncio", backend_options: dict | None = None
):
    """
    Start a new event loop in a new thread and run a blocking portal in its main task.

    The parameters are the same as for :func:`~anyio.run`.

    :param backend: name of the backend
    :param backend_options: backend options
    :return: a context manager that yields a blocking portal
    """
    yield run(backend, backend_options)
