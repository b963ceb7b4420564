"""A dependency-free progress bar for the command line (stderr). On a terminal it redraws one
line; elsewhere (CI logs) it prints one line per step so logs stay readable."""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, label: str, stream=None, unit: str = "") -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr
        self.unit = unit
        self.done = 0
        self.started = time.monotonic()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_pct = -1

    def update(self, n: int = 1, note: str = "") -> None:
        self.done = min(self.done + n, self.total)
        pct = int(100 * self.done / self.total)
        if self.tty:
            bar = "#" * (pct // 4) + "." * (25 - pct // 4)
            self.stream.write(f"\r{self.label} [{bar}] {pct:3d}% {note[:40]:<40}")
            self.stream.flush()
        elif pct // 10 != self._last_pct // 10 or note:
            self.stream.write(f"{self.label}: {pct}% {note}\n")
            self.stream.flush()
        self._last_pct = pct

    def close(self, note: str = "done") -> None:
        secs = time.monotonic() - self.started
        end = "\n" if self.tty else ""
        self.stream.write(f"{end}{self.label}: {note} ({secs:.1f}s)\n")
        self.stream.flush()
