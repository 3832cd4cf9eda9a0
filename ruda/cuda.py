"""CUDA streams and events for ``cuda:N`` devices, as CuPy and PyTorch users know them.

ruda's kernels, copies and library calls (cuBLAS, cuSOLVER, cuFFT, Thrust) on a cuda device
are queued on that device's current stream and return before the GPU has run them.
``with ruda.cuda.Stream():`` makes another stream current for the block (in this thread);
``Event`` marks a point on a stream, and ``start.elapsed_time(end)`` gives the GPU's
milliseconds between two of them. Both wrap CuPy's objects (``Stream.cupy``, ``Event.cupy``).

This module imports without CuPy; using it where there is no cuda device raises
DeviceUnavailableError with the reason.

>>> import ruda
>>> ruda.cuda.is_available() in (True, False)
True
"""

from __future__ import annotations

from typing import Any

from ._devices import Device, kind_device


def is_available() -> bool:
    """True when CuPy and a CUDA GPU can run ruda's ``cuda`` devices here.

    >>> import ruda
    >>> isinstance(ruda.cuda.is_available(), bool)
    True
    """
    from ._backends import probe

    return probe("cuda") is None


def synchronize(device: Any = None) -> None:
    """Wait until every stream of ``device`` has finished its work (default: the default
    device if it is a cuda device, else ``cuda:0``), as ``torch.cuda.synchronize()``.

    >>> import ruda
    >>> if ruda.cuda.is_available():
    ...     ruda.cuda.synchronize()
    """
    kind_device(device, "cuda", "ruda.cuda.synchronize").synchronize()


def current_stream(device: Any = None) -> Stream:
    """The stream ruda queues ``device``'s work on now, in this thread (CuPy's current stream;
    the legacy default stream unless a ``with stream:`` block or CuPy said otherwise).

    >>> import ruda
    >>> if ruda.cuda.is_available():
    ...     s = ruda.cuda.Stream()
    ...     with s:
    ...         assert ruda.cuda.current_stream() == s
    """
    dev = kind_device(device, "cuda", "ruda.cuda.current_stream")
    ctx = dev.backend.ctx
    import cupy

    with ctx.device:  # CuPy keeps a current stream per device and thread
        return Stream._wrap(cupy.cuda.get_current_stream(), dev)


class Stream:
    """A CUDA stream of a cuda device: ``with stream:`` queues ruda's work on that device on
    it (kernels, copies, library calls; this thread only, nested blocks restore the previous).

    ``Stream(device=None, *, non_blocking=False, priority=None)``: ``non_blocking`` streams do
    not wait for the legacy default stream; ``priority`` as CUDA's (lower runs first).

    >>> import ruda as np
    >>> if np.cuda.is_available():
    ...     s = np.cuda.Stream(non_blocking=True)
    ...     with s:
    ...         y = np.ones(1000, device="cuda") * 2
    ...     s.synchronize()
    """

    def __init__(self, device: Any = None, *, non_blocking: bool = False,
                 priority: int | None = None) -> None:  # fmt: skip
        dev = kind_device(device, "cuda", "ruda.cuda.Stream")
        ctx = dev.backend.ctx
        import cupy

        kw: dict[str, Any] = {"non_blocking": bool(non_blocking)}
        if priority is not None:
            kw["priority"] = int(priority)
        with ctx.device:  # CuPy's stream belongs to the device current at its creation
            cp = cupy.cuda.Stream(**kw)
        self._init(cp, dev)

    @classmethod
    def _wrap(cls, cp: Any, dev: Device) -> Stream:
        """A Stream for CuPy's stream ``cp`` of ``dev`` (not created here)."""
        s = object.__new__(cls)
        s._init(cp, dev)
        return s

    def _init(self, cp: Any, dev: Device) -> None:
        self._cp = cp
        self.device: Device = dev
        self._ctx = dev.backend.ctx

    @property
    def cupy(self) -> Any:
        """The ``cupy.cuda.Stream`` this wraps (for CuPy code that takes one)."""
        return self._cp

    @property
    def ptr(self) -> int:
        """The ``cudaStream_t`` handle as an int (0: the legacy default stream)."""
        return int(self._cp.ptr)

    def __cuda_stream__(self) -> tuple[int, int]:
        """The CUDA stream protocol: (version, handle)."""
        return (0, self.ptr)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Stream):
            return self.ptr == other.ptr and self.device is other.device
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.ptr, self.device))

    def __repr__(self) -> str:
        return f"<ruda.cuda.Stream {self.ptr:#x} on {self.device}>"

    def __enter__(self) -> Stream:
        if self._ctx.multi:  # CuPy wants the stream's device current when it is entered
            with self._ctx.device:
                self._cp.__enter__()
        else:
            self._cp.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._ctx.multi:  # CuPy restores the previous stream of the current device
            with self._ctx.device:
                self._cp.__exit__(*exc)
        else:
            self._cp.__exit__(*exc)

    def synchronize(self) -> None:
        """Wait until the work queued on this stream has finished."""
        self._cp.synchronize()

    def query(self) -> bool:
        """True when all work queued on this stream has finished (does not wait)."""
        return bool(self._cp.done)

    def record_event(self, event: Event | None = None) -> Event:
        """Record ``event`` (default: a new one with timing) on this stream; returns it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event: Event) -> None:
        """Make work queued on this stream from now on wait for ``event`` (the host does not
        wait; an event never recorded is no wait)."""
        if not isinstance(event, Event):
            raise TypeError(
                f"ruda.cuda.Stream.wait_event: expected a ruda.cuda.Event, got "
                f"{type(event).__name__}"
            )
        if event._cp is not None:
            self._cp.wait_event(event._cp)

    def wait_stream(self, stream: Stream) -> None:
        """Make work queued on this stream from now on wait for the work queued on ``stream``
        so far."""
        self.wait_event(stream.record_event(Event(enable_timing=False)))


class Event:
    """A point on a CUDA stream: ``record()`` it, ``synchronize()`` on it, and time between two
    with ``start.elapsed_time(end)`` (milliseconds, like CuPy's and PyTorch's).

    ``Event(enable_timing=True, blocking=False)``: ``blocking`` makes ``synchronize()`` sleep
    instead of spin. The CUDA event is made on the device of the stream it is first recorded on.

    >>> import ruda as np
    >>> if np.cuda.is_available():
    ...     x = np.ones((1024, 1024), device="cuda")
    ...     start, end = np.cuda.Event(), np.cuda.Event()
    ...     start.record()
    ...     y = x @ x
    ...     end.record()
    ...     ms = start.elapsed_time(end)  # waits for end; GPU time only
    """

    def __init__(self, enable_timing: bool = True, blocking: bool = False) -> None:
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self.device: Device | None = None  # set by the first record
        self._cp: Any = None

    @property
    def cupy(self) -> Any:
        """The ``cupy.cuda.Event`` this wraps (None until recorded)."""
        return self._cp

    def __repr__(self) -> str:
        where = f"on {self.device}" if self.device is not None else "not recorded"
        return f"<ruda.cuda.Event {where}>"

    def record(self, stream: Any = None) -> None:
        """Place the event after the work queued so far on ``stream`` (default: the current
        stream of the event's device, or of the default cuda device before its first record)."""
        where = "ruda.cuda.Event.record"
        if stream is None:
            s = current_stream(self.device)
        else:
            s = stream_arg(stream, self.device, where)
            if s is None:
                raise ValueError(f"{where}: stream -1 names no stream")
        if self._cp is None:
            import cupy

            with s._ctx.device:
                flags = {"block": self.blocking, "disable_timing": not self.enable_timing}
                self._cp = cupy.cuda.Event(**flags)
            self.device = s.device
        elif s.device is not self.device:
            raise ValueError(f"{where}: the event is on {self.device}, the stream on {s.device}")
        self._cp.record(s._cp)

    def synchronize(self) -> None:
        """Wait until the work before the event has finished (returns at once when the event
        was never recorded)."""
        if self._cp is not None:
            self._cp.synchronize()

    def query(self) -> bool:
        """True when the work before the event has finished (does not wait)."""
        return self._cp is None or bool(self._cp.done)

    def wait(self, stream: Any = None) -> None:
        """Make ``stream`` (default: the current stream) wait for this event."""
        if stream is None:
            s: Stream | None = current_stream(self.device)
        else:
            s = stream_arg(stream, self.device, "ruda.cuda.Event.wait")
        if s is not None:
            s.wait_event(self)

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds of GPU time from this event to ``end`` (both recorded with timing on
        one device; waits for ``end``)."""
        where = "ruda.cuda.Event.elapsed_time"
        if not isinstance(end, Event):
            raise TypeError(f"{where}: end must be a ruda.cuda.Event, got {type(end).__name__}")
        for e, name in ((self, "the start event"), (end, "end")):
            if not e.enable_timing:
                raise ValueError(f"{where}: {name} was made with enable_timing=False")
            if e._cp is None:
                raise ValueError(f"{where}: {name} has not been recorded")
        if end.device is not self.device:
            raise ValueError(f"{where}: the events are on {self.device} and {end.device}")
        import cupy

        end._cp.synchronize()
        return float(cupy.cuda.get_elapsed_time(self._cp, end._cp))


# -- the standard's ``stream=`` (Array.to_device, Array.__dlpack__) ---------------------------
_STREAM_VALUES = (
    "-1 (no synchronization), 1 (the legacy default stream), 2 (the per-thread default stream) "
    "or a stream's address; 0 is ambiguous and not allowed"
)


def stream_pointer(stream: Any, where: str) -> int:
    """The int the standard's ``stream=`` stands for on CUDA: ``stream`` itself (-1, 1, 2 or a
    handle above 2), or the handle of a ruda.cuda.Stream or of an object with
    ``__cuda_stream__`` (CuPy's, PyTorch's; the legacy default stream's 0 becomes 1)."""
    if isinstance(stream, Stream) or hasattr(type(stream), "__cuda_stream__"):
        ptr = int(stream.__cuda_stream__()[1])
        return ptr or 1
    if isinstance(stream, bool) or not isinstance(stream, int):
        raise TypeError(
            f"{where}: stream must be an int (a CUDA stream's address) or a ruda.cuda.Stream, "
            f"got {type(stream).__name__}"
        )
    if stream == 0 or stream < -1:
        raise ValueError(f"{where}: stream={stream} is not valid on CUDA: give {_STREAM_VALUES}")
    return stream


def stream_arg(stream: Any, dev: Device | None, where: str) -> Stream | None:
    """The ruda Stream ``stream`` names on cuda device ``dev`` (None: the stream's own, or the
    default cuda device's), or None for -1 (no synchronization: the current stream as it is)."""
    if isinstance(stream, Stream):
        if dev is not None and stream.device is not dev:
            raise ValueError(f"{where}: the stream is on {stream.device}, not {dev}")
        return stream
    ptr = stream_pointer(stream, where)
    if ptr == -1:
        return None
    dev = kind_device(dev, "cuda", where)
    import cupy

    ctx = dev.backend.ctx
    return Stream._wrap(cupy.cuda.ExternalStream(ptr, ctx.index), dev)


def transfer(x: Any, dev: Device, stream: Any) -> Any:
    """``x.to_device(dev, stream=stream)``'s native result, where ``x``'s device or ``dev`` is
    a cuda device: the copy on that device runs on ``stream``, ordered after the work queued on
    the current stream, which in turn waits for the copy (a read-back waits for the stream)."""
    where = "ruda.Array.to_device"
    src = x._device
    if isinstance(stream, Stream) and stream.device in (src, dev):
        side = stream.device
    else:
        side = dev if dev.kind == "cuda" else src
    s = stream_arg(stream, side, where)
    ctx = side.backend.ctx
    import cupy

    with ctx.device:
        cur = cupy.cuda.get_current_stream()
        if s is not None and s._cp != cur:
            s._cp.wait_event(cur.record())  # the copy sees the work queued before it
        else:
            s = None  # the current stream: no ordering to add
    if dev is src:
        return x._data
    alloc = ctx.allocator
    if src is side:
        host = alloc.to_host(x._data, stream=None if s is None else s._cp)
    else:
        host = src.backend.allocator.to_host(x._data)
    if dev is not side:
        return dev.backend.allocator.from_host(host)
    out = alloc.from_host(host, stream=None if s is None else s._cp)
    if s is not None:
        with ctx.device:
            cur.wait_event(s._cp.record())  # later work on the current stream sees the copy
    return out


__all__ = ["Event", "Stream", "current_stream", "is_available", "synchronize"]
