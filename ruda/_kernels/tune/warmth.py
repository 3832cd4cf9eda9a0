"""Keeping a discrete GPU's clocks up while the autotuner compiles and times (WebGPU).

The H200 through Vulkan drops its SM clock to idle (345 MHz) within a second or two without
work, and raises it only after about 0.25 s of sustained work. The tuner compiles a pipeline
(0.5-1 s) before each candidate, so every timing landed on an idle card: a 4096 x 4096 x 128
product timed 1064-1085 us there and 208-213 us warm, a GEMV 66-68 us against 26
(benchmarks/RESULTS.md, 2026-12-02). Even 10-30 ms of idleness slowed the GEMV's next runs by
20-50%. The tuner then ranks candidates by how they run on an idle card.

``Warmth`` keeps copy work queued on the device so that it never idles between timings:
``cover()`` before a compile queues about as much as the last compiles took, and ``before()``
a timing queues a short top-up (a ramp after a longer idle), in front of the timed passes.
The first timing of a runner first copies for ``WARM_SECONDS`` and measures the copy rate. CUDA
needs none of it: its timings stayed warm through the same pauses. Adapters that are not discrete
GPUs (lavapipe on CI) start at full speed and get no copies.

    >>> from ruda._kernels.tune import warmth
    >>> warmth.Warmth(None, active=False).before()  # inactive: nothing queued, nothing waited
    0.0
"""

from __future__ import annotations

import math
import time
from typing import Any

WARM_SECONDS = 1.0  # sustained copies before a runner's first timing
WARM_BYTES = 1 << 26  # one copy's size (about 0.15 ms at the H200's 850 GB/s of copies)
TOP_UP_SECONDS = 0.02  # queued ahead of every timing: the timed passes never follow an idle gap
RAMP_SECONDS = 0.3  # the most queued after an idle gap (the H200 needs ~0.25 s from idle)
COMPILE_GUESS = 0.5  # seconds of a compile before one has been measured
COMPILE_MOST = 2.0  # the most copy work queued to cover one compile
SAFETY = 1.25  # copies queued per second wanted: too many cost a wait, too few an idle card
_BATCH = 16  # copies per wait in the first warm-up


class Warmth:
    """Copy work queued on ``device`` so that its clocks stay up (see the module docstring)."""

    def __init__(self, device: Any, active: bool) -> None:
        self.device, self.active = device, active
        self.rate = 0.0  # bytes per second of the copies (measured by the first warm-up)
        self.busy_until = 0.0  # host clock when the queued work should be done
        self.compile_s = COMPILE_GUESS  # a running estimate of one compile
        self._bufs: tuple[Any, Any] | None = None

    def _buffers(self) -> tuple[Any, Any]:
        if self._bufs is None:
            import wgpu

            use = wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
            self._bufs = tuple(self.device.create_buffer(size=WARM_BYTES, usage=use)
                               for _ in range(2))  # type: ignore[assignment]  # fmt: skip
        return self._bufs  # type: ignore[return-value]

    def _submit(self, copies: int) -> None:
        a, b = self._buffers()
        enc = self.device.create_command_encoder()
        for _ in range(copies):
            enc.copy_buffer_to_buffer(a, 0, b, 0, WARM_BYTES)
        self.device.queue.submit([enc.finish()])

    def _warm_up(self) -> None:
        """Copy for ``WARM_SECONDS``, waiting on each batch; the copy rate from the fastest
        batch of the second half (the card warm, the host's round trip least in it: a rate
        too low would queue too little and let the card idle before a timing)."""
        start = time.perf_counter()
        while (t := time.perf_counter()) < start + WARM_SECONDS:
            self._submit(_BATCH)
            self.device.queue.read_buffer(self._buffers()[1], 0, 4)  # waits for the copies
            took = time.perf_counter() - t
            if t >= start + WARM_SECONDS / 2 or not self.rate:
                self.rate = max(self.rate, _BATCH * WARM_BYTES / max(took, 1e-6))
        self.busy_until = time.perf_counter()

    def queue(self, seconds: float) -> None:
        """Queue about ``seconds`` of copies behind what is queued (no wait)."""
        if seconds <= 0 or not self.rate:
            return
        copies = max(1, math.ceil(seconds * SAFETY * self.rate / WARM_BYTES))
        self._submit(copies)
        start = max(time.perf_counter(), self.busy_until)
        self.busy_until = start + seconds

    def cover(self) -> float:
        """Before a compile: queue work for about as long as compiles take; returns the host
        clock to pass to ``compiled``."""
        if self.active and self.rate:
            self.queue(time.perf_counter() + self.compile_s - self.busy_until)
        return time.perf_counter()

    def compiled(self, t0: float) -> None:
        """After a compile that began at ``t0``: update the estimate of a compile's length."""
        took = time.perf_counter() - t0
        self.compile_s = min(COMPILE_MOST, max(0.05, (self.compile_s + took) / 2))

    def before(self) -> float:
        """Before a timing: warm up once, then queue a top-up, or a ramp as long as the idle
        gap (at most ``RAMP_SECONDS``) when the queue ran dry; returns the seconds queued."""
        if not self.active:
            return 0.0
        if not self.rate:
            self._warm_up()
        now = time.perf_counter()
        idle = now - self.busy_until
        ahead = TOP_UP_SECONDS + (min(RAMP_SECONDS, idle) if idle > 0 else 0.0)
        need = now + ahead - max(now, self.busy_until)
        self.queue(need)
        return max(0.0, need)

    def idle_from_now(self) -> None:
        """The host just waited for all queued work: the device is idle from now."""
        if self.active:
            self.busy_until = time.perf_counter()


__all__ = ["Warmth"]
