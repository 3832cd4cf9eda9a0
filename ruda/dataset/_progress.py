"""A tiny progress bar on stderr for long imports (no dependency)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """``Progress(total, "import")``; ``update(n)``; ``close()``.

    ``enabled=None`` shows the bar only on a terminal and only once the work has run for half a
    second (short imports stay quiet); ``True`` always shows it; ``False`` never.
    """

    def __init__(
        self,
        total: int,
        desc: str,
        enabled: bool | None = None,
        stream: TextIO | None = None,
        unit: str = "records",
    ):
        self.unit = unit
        self.total, self.desc, self.done = max(0, int(total)), desc, 0
        self.stream = stream or sys.stderr
        self.enabled = (
            enabled
            if enabled is not None
            else bool(getattr(self.stream, "isatty", lambda: False)())
        )
        self.auto = enabled is None
        self.t0 = self.last = time.perf_counter()
        self.shown = False

    def update(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if self.enabled and now - self.last >= 0.1 and (not self.auto or now - self.t0 >= 0.5):
            self.last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(frac * 30)
        rate = self.done / max(now - self.t0, 1e-9)
        self.stream.write(
            f"\r{self.desc} {frac * 100:5.1f}% |{bar:<30}| "
            f"{min(self.done, self.total):,}/{self.total:,} {self.unit} {rate:,.0f}/s"
        )
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.enabled and (self.shown or not self.auto):
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()
