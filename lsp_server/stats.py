"""Local, in-memory usage counters for `tandem.status`. Nothing here ever leaves the machine."""
from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass, field


@dataclass
class Stats:
    requests: int = 0
    model_calls: int = 0
    cache_hits: int = 0
    typing_through: int = 0
    skipped: int = 0
    cancelled: int = 0
    stale: int = 0
    shown: int = 0
    accepted: int = 0
    partially_accepted: int = 0  # the next word or line of a suggestion taken (each time)
    rejected: int = 0
    latencies_ms: deque = field(default_factory=lambda: deque(maxlen=200))

    def feedback(self, event: str, args: tuple = ()) -> None:
        """What the editor did with a suggestion: "shown", "rejected" or "accepted" — with no
        argument for the whole suggestion, or {"partial": "word" | "line"} for its next word or
        line (partial accept)."""
        first = args[0] if args and isinstance(args[0], dict) else {}
        if event == "accepted" and first.get("partial") in ("word", "line"):
            self.partially_accepted += 1
        elif event in ("shown", "accepted", "rejected"):
            setattr(self, event, getattr(self, event) + 1)

    def report(self) -> dict:
        lat = sorted(self.latencies_ms)
        served = self.cache_hits + self.typing_through + self.model_calls
        return {
            "requests": self.requests, "model_calls": self.model_calls, "cache_hits": self.cache_hits,
            "typing_through": self.typing_through, "skipped": self.skipped, "cancelled": self.cancelled,
            "stale": self.stale,
            "cache_hit_rate": round((self.cache_hits + self.typing_through) / served, 3) if served else None,
            "recent_latency_ms": {"p50": round(statistics.median(lat), 1) if lat else None,
                                  "p95": round(lat[int(0.95 * (len(lat) - 1))], 1) if lat else None,
                                  "last": round(self.latencies_ms[-1], 1) if lat else None},
            "shown": self.shown, "accepted": self.accepted, "partially_accepted": self.partially_accepted,
            "rejected": self.rejected,
            "acceptance_rate": round(self.accepted / self.shown, 3) if self.shown else None,
        }


@dataclass
class NextEditStats:
    requests: int = 0
    predicted: int = 0  # answers given (patterns and model)
    model_predicted: int = 0
    model_cancelled: int = 0  # model runs stopped by the next keystroke
    shown: int = 0
    accepted: int = 0
    rejected: int = 0

    def feedback(self, event: str, args: tuple = ()) -> None:
        """What the editor did with a next edit: "shown", "accepted" or "rejected"."""
        if event in ("shown", "accepted", "rejected"):
            setattr(self, event, getattr(self, event) + 1)

    def report(self) -> dict:
        return dict(vars(self))
