"""The CUDA event timer the CUDA benchmarks share (imported after their sys.path set-up)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cupy


def event_seconds(fn: Callable[[], Any], reps: int) -> float:
    """Seconds per call of ``fn`` on the current stream, from CUDA events (after a warm-up).

    The events see only the current CuPy device's stream: ruda's arrays must live there."""
    fn()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    for _ in range(reps):
        fn()
    stop.record()
    stop.synchronize()
    return cupy.cuda.get_elapsed_time(start, stop) / 1e3 / reps
