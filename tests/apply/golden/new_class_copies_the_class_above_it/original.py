import threading


class Lock:
    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __enter__(self) -> "Lock":
        self._lock.acquire()
        return self

    def __exit__(self, *args) -> None:
        self._lock.release()


class Event:
    def __init__(self) -> None:
        self._event = threading.Event()
