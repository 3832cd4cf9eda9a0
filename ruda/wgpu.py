"""WebGPU runtime controls for ``wgpu:N`` devices: ``synchronize()`` and timing events.

A WebGPU device has one queue, so there are no streams: work runs in the order it is recorded.
ruda records operations into batches and submits them later, so an operation returns before
the GPU has run it; ``synchronize()`` submits and waits. An ``Event`` puts a GPU timestamp into
that order (the adapter needs WebGPU's ``timestamp-query`` feature: ``has_timestamps()``), so
``start.elapsed_time(end)`` is the device's time between two points, without the host's.

This module imports without wgpu-py; using a device raises DeviceUnavailableError with the
reason where there is none.

>>> import ruda
>>> ruda.wgpu.is_available() in (True, False)
True
"""

from __future__ import annotations

from typing import Any

from ._devices import Device, kind_device

TIMESTAMP = "timestamp-query"


def is_available() -> bool:
    """True when a WebGPU adapter can run ruda's ``wgpu`` devices here.

    >>> import ruda
    >>> isinstance(ruda.wgpu.is_available(), bool)
    True
    """
    from ._backends import probe

    return probe("wgpu") is None


def synchronize(device: Any = None) -> None:
    """Submit the work recorded for ``device`` (default: the default device if it is a wgpu
    device, else ``wgpu:0``) and wait until the GPU has finished it.

    >>> import ruda
    >>> if ruda.wgpu.is_available():
    ...     ruda.wgpu.synchronize()
    """
    kind_device(device, "wgpu", "ruda.wgpu.synchronize").synchronize()


def has_timestamps(device: Any = None) -> bool:
    """Whether ``device``'s adapter has ``timestamp-query``, which timing events need.

    >>> import ruda
    >>> ruda.wgpu.has_timestamps() in (True, False) if ruda.wgpu.is_available() else True
    True
    """
    dev = kind_device(device, "wgpu", "ruda.wgpu.has_timestamps")
    return TIMESTAMP in dev.backend.ctx.features


class Event:
    """A point in a wgpu device's work; with timing, a GPU timestamp taken there.

    ``record()`` places it after everything queued so far; ``elapsed_time(end)`` gives the
    milliseconds between two recorded events (waiting for ``end``). Timing needs the adapter
    feature ``timestamp-query``; without it ``Event()`` raises RuntimeError saying so
    (``Event(enable_timing=False)`` still marks a point to ``synchronize()`` on).

    >>> import ruda as np
    >>> if np.wgpu.is_available() and np.wgpu.has_timestamps():
    ...     x = np.ones((256, 256), device="wgpu")
    ...     start, end = np.wgpu.Event(), np.wgpu.Event()
    ...     start.record()
    ...     y = x @ x
    ...     end.record()
    ...     assert start.elapsed_time(end) >= 0.0  # milliseconds of GPU time
    """

    def __init__(self, device: Any = None, *, enable_timing: bool = True) -> None:
        dev = kind_device(device, "wgpu", "ruda.wgpu.Event")
        ctx = dev.backend.ctx
        self.device: Device = dev
        self.enable_timing = bool(enable_timing)
        self._ctx = ctx
        self._recorded = False
        self._ticks: int | None = None
        self._query: Any = None
        if self.enable_timing:
            if TIMESTAMP not in ctx.features:
                raise RuntimeError(
                    f"ruda.wgpu.Event: timing needs the adapter feature {TIMESTAMP!r}, which "
                    f"{dev} ({ctx.description}) lacks; time with {dev}.synchronize() and a host "
                    "clock instead, or make Event(enable_timing=False)"
                )
            import wgpu

            self._query = ctx.device.create_query_set(type="timestamp", count=1)
            self._resolve = ctx.device.create_buffer(
                size=8, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC
            )

    def __repr__(self) -> str:
        state = "recorded" if self._recorded else "not recorded"
        return f"<ruda.wgpu.Event on {self.device}, {state}>"

    def record(self, stream: Any = None) -> None:
        """Place the event after all work queued on its device so far (``stream``: None only,
        as WebGPU has one queue per device)."""
        if stream is not None:
            raise ValueError(
                f"ruda.wgpu.Event.record: stream must be None (a WebGPU device has one queue), "
                f"got {stream!r}"
            )
        with self._ctx.lock:
            if self._query is not None:
                self._ctx.launcher.timestamp(self._query, self._resolve)
            self._recorded = True
            self._ticks = None

    def synchronize(self) -> None:
        """Wait until the work before the event has finished (nothing to wait for when it was
        never recorded)."""
        if not self._recorded:
            return
        if self._query is not None:
            self._timestamp()
        else:
            self._ctx.synchronize()

    def _timestamp(self) -> int:
        """The event's raw timestamp (reading it back waits for the work before it)."""
        if self._ticks is None:
            import numpy as np

            with self._ctx.lock:
                raw = self._ctx.allocator.read_bytes(self._resolve, 0, 8)
            self._ticks = int(np.frombuffer(raw, np.uint64)[0])
        return self._ticks

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds of GPU time from this event to ``end`` (both recorded on one device
        with timing; waits for ``end``)."""
        where = "ruda.wgpu.Event.elapsed_time"
        if not isinstance(end, Event):
            raise TypeError(f"{where}: end must be a ruda.wgpu.Event, got {type(end).__name__}")
        for e, name in ((self, "the start event"), (end, "end")):
            if e._query is None:
                raise ValueError(f"{where}: {name} was made with enable_timing=False")
            if not e._recorded:
                raise ValueError(f"{where}: {name} has not been recorded")
        if end.device is not self.device:
            raise ValueError(f"{where}: the events are on {self.device} and {end.device}")
        from ._kernels.tune.timing import timestamp_period

        ticks = end._timestamp() - self._timestamp()
        return ticks * timestamp_period(self._ctx.device) * 1e-6


__all__ = ["Event", "has_timestamps", "is_available", "synchronize"]
