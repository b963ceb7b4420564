# ...
class Lock:
    """A standard lock."""

    def __init__(self) -> None:
    # ...
        self._lock.release()


class ThreadLock:
    """A threading-only lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> "ThreadLock":
        self._lock.acquire()
        return self

    def __exit__(self, *args) -> None:
        self._lock.release()


class Event:
# ...
