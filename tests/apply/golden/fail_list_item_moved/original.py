import fcntl


class UnixFileLock:
    def _acquire(self) -> None:
        fd = os.open(self.lock_file, os.O_RDWR)
        self._context.lock_file_fd = fd


__all__ = [
    "has_fcntl",
    "UnixFileLock",
]
