"""CUDA arrays through NCCL (CuPy's ``cupy.cuda.nccl``): one NCCL communicator per (Comm, GPU).

A Comm's first CUDA collective makes its NCCL communicator: the ranks share which GPU each
drives (two ranks on one GPU is an error, not a hang), rank 0 draws the unique id and MPI
broadcasts it. MPI stays the bootstrap and the argument cross-check; NCCL moves the data.
Calls are queued on the device's current stream, in order with ruda's kernels. With a
timeout the host polls the stream and aborts the NCCL communicator at the deadline, so a
dead or absent peer becomes an error instead of a hang.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtypes import kind_of
from ._comm import Comm
from ._errors import CommTimeoutError, DistributedError
from ._wait import run, sends_pending

__all__ = ["NcclComm", "nccl_comm", "nccl_module", "reduce_plan", "byte_view", "draw_uid",
           "make_communicator", "POLL_S"]  # fmt: skip

# NCCL's element types by NumPy name; 16-bit integers, bool and complex are mapped below.
_TYPES = {
    "int8": "NCCL_INT8", "uint8": "NCCL_UINT8", "int32": "NCCL_INT32", "uint32": "NCCL_UINT32",
    "int64": "NCCL_INT64", "uint64": "NCCL_UINT64", "float16": "NCCL_FLOAT16",
    "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64",
}  # fmt: skip
_OPS = {"sum": "NCCL_SUM", "prod": "NCCL_PROD", "min": "NCCL_MIN", "max": "NCCL_MAX",
        "avg": "NCCL_AVG"}  # fmt: skip
# Bools are 0/1 bytes: NumPy's sum/max of bools is logical or, prod/min logical and.
_BOOL_OPS = {"sum": "max", "max": "max", "prod": "min", "min": "min"}
# NCCL has no 16-bit integers: reduce in 32 bits (wrap-around survives the cast back).
WIDEN = {"int16": "int32", "uint16": "uint32"}
POLL_S = 20e-6


def nccl_module(fname: str) -> Any:
    try:
        from cupy.cuda import nccl
    except ImportError as e:  # CuPy built without NCCL, or libnccl missing
        raise DistributedError(
            f"ruda.distributed.{fname}: cuda arrays go through NCCL, which CuPy cannot load "
            f"here ({e}); install the nvidia-nccl wheel matching your CUDA"
        ) from e
    if not nccl.available:
        raise DistributedError(f"ruda.distributed.{fname}: CuPy was built without NCCL")
    return nccl


class NcclComm:
    """An NCCL communicator over the ranks of a Comm, driving one GPU (``ctx``) here."""

    def __init__(self, comm: Comm, ctx: Any, nccl: Any, handle: Any, *, side: Any = None,
                 on_poll: Callable[[], None] | None = None) -> None:  # fmt: skip
        self.comm, self.ctx, self.nccl, self.handle = comm, ctx, nccl, handle
        # Point-to-point pairs run on their own stream (``side``), so a receive waiting for its
        # peer never holds up a send queued after it; the device's stream waits for them.
        self.side = side
        self.on_poll = on_poll  # called while the host waits (answers clear-to-sends)

    def dtype_code(self, name: str) -> int:
        return getattr(self.nccl, _TYPES[name])

    def op_code(self, op: str) -> int:
        return getattr(self.nccl, _OPS[op])

    def stream(self) -> int:
        return (self.side or self.ctx.allocator.stream()).ptr

    def launch(self, fname: str, timeout: float | None, calls: Callable[[], None], *,
               ready: Any = None, join: bool = True) -> Any:  # fmt: skip
        """Queue ``calls()`` (NCCL calls, grouped) on the stream; with a timeout, wait for them.

        On a pair's own stream the calls first wait for ``ready`` (an event: the data exists;
        default: all work queued so far), and with ``join`` the device's stream then waits for
        them. Returns the event marking their end (None where nothing needs it).
        """
        import cupy

        nccl = self.nccl
        main = self.ctx.allocator.stream()
        with self.ctx.device:
            if self.side is not None:
                self.side.wait_event(main.record() if ready is None else ready)
            try:
                nccl.groupStart()
                try:
                    calls()
                finally:
                    nccl.groupEnd()
            except nccl.NcclError as e:
                raise self._failed(fname, f"NCCL error: {e}") from e
            if self.side is None and timeout is None:
                return None  # stream-ordered: nothing to wait for on the host
            done = cupy.cuda.Event(block=False, disable_timing=True)
            done.record(self.side or main)
            if self.side is not None and join:
                main.wait_event(done)  # later kernels (and the pool) see the message finished
            if timeout is not None:
                self._wait(fname, timeout, done)
            return done

    def send(self, fname: str, timeout: float | None, x: Any, peer: int, **kw: Any) -> Any:
        """Queue the bytes of contiguous ``x`` to ``peer`` (one NCCL send, in its own group)."""
        u8 = self.dtype_code("uint8")

        def call() -> None:
            self.handle.send(x.ptr, x.nbytes, u8, peer, self.stream())

        return self.launch(fname, timeout, call, **kw)

    def recv(self, fname: str, timeout: float | None, out: Any, peer: int) -> Any:
        """Queue receiving ``out.nbytes`` bytes from ``peer`` into contiguous ``out``."""
        u8 = self.dtype_code("uint8")

        def call() -> None:
            self.handle.recv(out.ptr, out.nbytes, u8, peer, self.stream())

        return self.launch(fname, timeout, call)

    def wait_done(self, fname: str, timeout: float, done: Any) -> None:
        """Poll ``done`` until the deadline (answering clear-to-sends meanwhile)."""
        with self.ctx.device:
            self._wait(fname, timeout, done)

    def _wait(self, fname: str, timeout: float, done: Any) -> None:
        deadline = time.monotonic() + timeout
        while not done.done:
            try:
                self.handle.check_async_error()
            except self.nccl.NcclError as e:
                raise self._failed(fname, f"NCCL error: {e}") from e
            if self.on_poll is not None:
                self.on_poll()
            if time.monotonic() > deadline:
                self.handle.abort()  # frees the stream: the queued kernels return
                c = self.comm
                c.mark_broken(f"{fname} timed out after {timeout:g} s")
                raise CommTimeoutError(
                    f"ruda.distributed.{fname}: rank {c.rank} of {c.size} waited {timeout:g} s "
                    "for the other ranks' GPUs; one may have died, or called a different function"
                )
            time.sleep(POLL_S)

    def _failed(self, fname: str, why: str) -> DistributedError:
        self.comm.mark_broken(f"{fname}: {why}")
        return DistributedError(f"ruda.distributed.{fname}: rank {self.comm.rank}: {why}")


def _answer_sends(c: Comm) -> None:
    # While a collective waits, peers may be waiting for this rank's cuda isends to go out.
    if sends_pending(c):
        c.p2p.service()


def _gpu_label(ctx: Any) -> str:
    import cupy

    bus = cupy.cuda.runtime.deviceGetPCIBusId(ctx.index)
    return f"{socket.gethostname()}/{bus}"


def nccl_comm(c: Comm, ctx: Any, fname: str, timeout: float | None) -> NcclComm:
    """The NCCL communicator of ``c`` for this rank's GPU ``ctx`` (made collectively once)."""
    nc = c.nccl.get(ctx.index)
    if nc is not None:
        return nc
    nccl = nccl_module(fname)
    # Which GPU each rank drives: NCCL hangs or fails obscurely when two ranks share one.
    label = np.zeros(128, np.uint8)
    raw = _gpu_label(ctx).encode()[:128]
    label[: len(raw)] = np.frombuffer(raw, np.uint8)
    table = np.empty((c.size, 128), np.uint8)
    run(c, fname, timeout, "Allgather", label, table)
    labels = [bytes(row).rstrip(b"\0").decode() for row in table]
    if len(set(labels)) != len(labels):
        shared = {lab: [r for r, x in enumerate(labels) if x == lab] for lab in labels}
        who = "; ".join(f"ranks {r} share GPU {lab}" for lab, r in shared.items() if len(r) > 1)
        raise DistributedError(
            f"ruda.distributed.{fname}: NCCL needs one GPU per rank ({who}); put each rank's "
            "arrays on dist.local_device('cuda') (local rank modulo the GPUs of its host)"
        )
    # Word 0 says whether rank 0 could draw an id, so a failure there is an error everywhere.
    uid, why = np.zeros(1 + UID_WORDS, np.int64), ""
    if c.rank == 0:
        try:
            uid[1:], uid[0] = draw_uid(nccl), 1
        except nccl.NcclError as e:
            why = str(e)
    run(c, fname, timeout, "Bcast", uid, 0)
    if not uid[0]:
        c.mark_broken(f"{fname}: no NCCL unique id")
        raise DistributedError(
            f"ruda.distributed.{fname}: rank 0 could not start NCCL"
            + (f": {why}" if c.rank == 0 else " (its error says why)")
        )
    with ctx.device:
        try:
            handle = make_communicator(nccl, c.size, uid[1:], c.rank)
        except nccl.NcclError as e:
            c.mark_broken(f"{fname}: NCCL initialisation failed")
            raise DistributedError(
                f"ruda.distributed.{fname}: NCCL initialisation failed on rank {c.rank}: {e}"
            ) from e
    nc = c.nccl[ctx.index] = NcclComm(c, ctx, nccl, handle, on_poll=lambda: _answer_sends(c))
    return nc


UID_WORDS = 16  # NCCL's 128-byte unique id, as int64 words for MPI


def draw_uid(nccl: Any) -> np.ndarray:
    """A fresh NCCL unique id as 16 int64 words (CuPy gives bytes, older CuPy a tuple)."""
    uid = nccl.get_unique_id()
    raw = bytes(uid) if isinstance(uid, (bytes, bytearray)) else np.asarray(uid).astype(np.int8)
    return np.frombuffer(bytes(raw), np.int64).copy()


def make_communicator(nccl: Any, size: int, words: np.ndarray, rank: int) -> Any:
    """``NcclCommunicator`` from an id in words; blocks until all ``size`` ranks have joined."""
    raw = np.ascontiguousarray(words, np.int64).tobytes()
    try:
        return nccl.NcclCommunicator(size, raw, rank)
    except (TypeError, OverflowError):  # CuPy before 13 takes the id as a tuple of chars
        return nccl.NcclCommunicator(size, tuple(np.frombuffer(raw, np.int8).tolist()), rank)


def byte_view(x: Any) -> tuple[int, int]:
    """(device address, byte count) of a contiguous native array: NCCL moves it as uint8."""
    return x.ptr, x.nbytes


def reduce_plan(x: Any, op: str) -> tuple[Any, str, str, Callable[[Any], Any]]:
    """How NCCL reduces ``x``: (array to send, NCCL type name, NCCL op, finish(result)).

    ``x`` is a contiguous native cuda array; complex prod is handled by the caller.
    """
    name = x.dtype.name
    if name == "bool":
        flat = x.view_of(x.offset, x.shape, x._strides)
        flat.dtype = np.dtype(np.uint8)
        return flat, "uint8", _BOOL_OPS[op], _retype(np.dtype(bool))
    if name in WIDEN:
        return x.astype(np.dtype(WIDEN[name])), WIDEN[name], op, lambda r: r.astype(x.dtype)
    if kind_of(x.dtype) == "c":
        part = np.dtype(f"float{x.dtype.itemsize * 4}")
        pairs = x.view_of(x.offset, x.shape + (2,), tuple(2 * s for s in x._strides) + (1,))
        pairs.dtype = part
        return pairs, part.name, op, _retype(x.dtype, drop_last=True)
    return x, name, op, lambda r: r


def _retype(dtype: np.dtype, drop_last: bool = False) -> Callable[[Any], Any]:
    def finish(r: Any) -> Any:
        shape = r.shape[:-1] if drop_last else r.shape
        strides = tuple(s // 2 for s in r._strides[:-1]) if drop_last else r._strides
        out = r.view_of(r.offset, shape, strides)
        out.dtype = dtype
        return out

    return finish
