"""Progress of a run on stderr: games done, rate and estimated time left. On a terminal one
line is redrawn; otherwise a line is printed at most every few seconds (and at the end)."""
from __future__ import annotations

import time

__all__ = ["Progress"]


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    def __init__(self, stream, label: str, total: int, already: int = 0, enabled: bool = True):
        self.stream = stream
        self.label = label
        self.total = total
        self.done = already
        self.already = already
        self.started = time.monotonic()
        self.last = 0.0
        self.enabled = enabled and total > 0
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.errors = 0

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        played = self.done - self.already
        rate = played / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else None
        eta = _clock(left) if left is not None else "?"
        failed = f", {self.errors} failed" if self.errors else ""
        return (f"{self.label}: {self.done}/{self.total} games{failed}, {rate:.1f} games/s, "
                f"elapsed {_clock(elapsed)}, ETA {eta}")

    def step(self, record=None) -> None:
        self.done += 1
        if record is not None and record.get("error"):
            self.errors += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < (0.2 if self.tty else 5.0) and self.done < self.total:
            return
        self.last = now
        if self.tty:
            self.stream.write("\r" + self.line() + ("\n" if self.done >= self.total else ""))
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled and self.already < self.done < self.total:
            self.stream.write(("\n" if self.tty else "") + self.line() + " (stopped)\n")
            self.stream.flush()
