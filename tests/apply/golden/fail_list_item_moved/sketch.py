# ... rest of the code unchanged ...
    def _acquire(self) -> None:
        fd = os.open(self.lock_file, os.O_RDWR | os.O_TRUNC)
        self._context.lock_file_fd = fd
# ... rest of the code unchanged ...
    "UnixFileLock",
    "has_fcntl",
]
