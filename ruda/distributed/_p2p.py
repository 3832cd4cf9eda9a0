"""Point-to-point messages: send/recv and their non-blocking forms isend/irecv.

With the cross-check on (the default), a 528-byte header (dtype, shape) precedes the data on
the same tag, so the receiver can check ``like=`` or allocate without one; MPI's
non-overtaking rule keeps header and data in order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._array import Array, _wrap
from .._devices import resolve
from .._validation import as_array
from ._comm import Comm, resolve_comm
from ._errors import MismatchError
from ._mpi import mpi
from ._nccl_p2p import state
from ._paths import path_for
from ._signature import DTYPES
from ._wait import effective_timeout, wait_request

__all__ = ["Handle", "send", "recv", "isend", "irecv"]

_HDR = 2 + 64
# Header slots past the shape (so at most 62 dimensions): cuda messages' data goes by NCCL.
_VIA_NCCL, _MSG_ID = 64, 65


class Handle:
    """A message in flight: ``wait()`` completes it (returning the array for irecv)."""

    __slots__ = ("_comm", "_fname", "_reqs", "_finish", "_keep", "_done", "_value")

    def __init__(self, comm: Comm, fname: str, reqs: list, finish: Callable | None, keep: Any):
        self._comm, self._fname, self._reqs = comm, fname, reqs
        self._finish = finish
        self._keep = keep  # the buffers MPI is reading or writing stay alive until done
        self._done = False
        self._value = None

    def wait(self, timeout: float | None = None) -> Array | None:
        """Block until the message is complete; irecv's handle returns the received array.

        >>> from ruda import distributed as dist
        >>> dist.barrier()   # (handles come from isend/irecv)
        """
        if not self._done:
            t = effective_timeout(self._comm, timeout, self._fname)
            for r in self._reqs:
                wait_request(self._comm, self._fname, r, t)
            self._value = self._finish(t) if self._finish is not None else None
            self._done, self._keep = True, None
        return self._value

    def test(self) -> bool:
        """Whether ``wait()`` would return without waiting for other ranks."""
        return self._done or all(r.Test() for r in self._reqs)


def _bytes(host: np.ndarray) -> np.ndarray:
    return host.reshape(-1).view(np.uint8)  # contiguous: a view, no copy


def _header(host: np.ndarray) -> np.ndarray:
    h = np.zeros(_HDR, dtype=np.int64)
    h[0] = DTYPES.index(host.dtype.name)
    h[1] = host.ndim
    h[2 : 2 + host.ndim] = host.shape
    return h


def _read_header(h: np.ndarray) -> tuple[tuple[int, ...], np.dtype]:
    return tuple(int(s) for s in h[2 : 2 + int(h[1])]), np.dtype(DTYPES[int(h[0])])


def isend(x: Array, dest: int, *, tag: int = 0, comm: Comm | None = None) -> Handle:
    """Start sending ``x`` to rank ``dest``; ``x`` must not change until ``wait()``.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> h = dist.isend(np.asarray([1, 2]), dest=0)
    >>> dist.recv(source=0)
    array([1, 2])
    >>> h.wait()
    """
    c = resolve_comm(comm, "isend")
    x = as_array(x, "distributed.isend")
    if x._device.kind == "cuda":
        return _isend_cuda(c, x._data, dest, tag)
    host = path_for(x._device, "isend").send_buffer(x._data)
    reqs = []
    if c.check:
        hdr = _header(host)
        reqs.append(c._mpi.Isend(hdr, dest, tag))
    else:
        hdr = None
    reqs.append(c._mpi.Isend(_bytes(host), dest, tag))
    return Handle(c, "isend", reqs, None, (host, hdr))


def _isend_cuda(c: Comm, x: Any, dest: int, tag: int) -> Handle:
    # The header always goes (it carries the message id the receiver's clear-to-send names).
    st = state(c)
    data = x if x.is_contiguous else x.copy()
    hdr = _header(data)
    hdr[_VIA_NCCL], hdr[_MSG_ID] = 1, st.post(data, dest)
    req = c._mpi.Isend(hdr, dest, tag)
    return Handle(c, "send", [req], lambda t: st.progress(dest, int(hdr[_MSG_ID]), "send", t),
                  (hdr, data))  # fmt: skip


def irecv(
    like: Array | None = None,
    source: int | None = None,
    *,
    tag: int = 0,
    comm: Comm | None = None,
) -> Handle:
    """Start receiving an array from ``source`` (None: any rank); ``wait()`` returns it.

    ``like`` gives the expected shape, dtype and device; without it (cross-check on) the
    sender's shape and dtype are used, on the default device.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> h = dist.irecv(like=np.zeros(1, dtype=np.int64), source=0)
    >>> dist.send(np.asarray([3]), dest=0)   # to itself: the receive is already posted
    >>> h.wait()
    array([3])
    """
    c = resolve_comm(comm, "irecv")
    MPI = mpi()
    src = MPI.ANY_SOURCE if source is None else source
    if like is not None:
        like = as_array(like, "distributed.irecv", "like")
    elif not c.check:
        raise ValueError(
            "ruda.distributed.irecv: like=None needs the cross-check (init(check=True)): "
            "the sender's header carries the shape and dtype"
        )
    dev = like._device if like is not None else resolve(None)
    status = MPI.Status()
    if dev.kind == "cuda":
        return _irecv_cuda(c, dev, like, src, tag, status)
    p = path_for(dev, "irecv")
    if not c.check:
        out = p.empty(like._data.shape, like._data.dtype)
        req = c._mpi.Irecv(_bytes(out), src, tag)

        def finish_raw(t):
            if status.Get_count(MPI.BYTE) != out.nbytes:
                raise MismatchError(
                    f"ruda.distributed.recv: got {status.Get_count(MPI.BYTE)} bytes from rank "
                    f"{status.Get_source()}, like= expects {out.nbytes}"
                )
            return p.result(out)

        h = Handle(c, "recv", [], finish_raw, out)
        h._reqs = [_StatusReq(req, status)]
        return h
    hdr = np.empty(_HDR, dtype=np.int64)
    hreq = _StatusReq(c._mpi.Irecv(hdr, src, tag), status)
    # With a known sender and shape, post the data receive now so it lands without waiting.
    early = None
    if like is not None and src != MPI.ANY_SOURCE:
        early = p.empty(like._data.shape, like._data.dtype)
        dreq = c._mpi.Irecv(_bytes(early), src, tag)

    def finish(t):
        shape, dtype = _read_header(hdr)
        if hdr[_VIA_NCCL]:
            if early is not None:
                dreq.Cancel()
                _drain(dreq)
            if like is None:  # a cuda array, sent through NCCL: it lands on this rank's GPU
                cuda = c.local_device("cuda")
                out = cuda.backend.allocator.empty(shape, dtype)
                got = state(c).take(status.Get_source(), int(hdr[_MSG_ID]), out, "recv", t)
                return _wrap(got, cuda)
            state(c).refuse(status.Get_source(), int(hdr[_MSG_ID]))
            raise MismatchError(
                f"ruda.distributed.recv: rank {status.Get_source()} sent a cuda array (through "
                f"NCCL); receive it on a cuda device (like= on cuda), not on {dev}"
            )
        if like is not None and (shape != like._data.shape or dtype != like._data.dtype):
            if early is not None:
                _drain(dreq)
            raise MismatchError(
                f"ruda.distributed.recv: rank {status.Get_source()} sent shape {shape} "
                f"{dtype.name}, like= expects shape {like._data.shape} {like._data.dtype.name}"
            )
        if early is not None:
            wait_request(c, "recv", dreq, t)
            return p.result(early)
        out = p.empty(shape, dtype)
        wait_request(c, "recv", c._mpi.Irecv(_bytes(out), status.Get_source(), tag), t)
        return p.result(out)

    return Handle(c, "recv", [hreq], finish, hdr)


def _irecv_cuda(c: Comm, dev: Any, like: Any, src: int, tag: int, status: Any) -> Handle:
    hdr = np.empty(_HDR, dtype=np.int64)
    hreq = _StatusReq(c._mpi.Irecv(hdr, src, tag), status)

    def finish(t):
        shape, dtype = _read_header(hdr)
        source = status.Get_source()
        st = state(c)
        if like is not None and (shape != like._data.shape or dtype != like._data.dtype):
            if hdr[_VIA_NCCL]:
                st.refuse(source, int(hdr[_MSG_ID]))
            else:
                _drain(c._mpi.Irecv(np.empty(0, np.uint8), source, tag))
            raise MismatchError(
                f"ruda.distributed.recv: rank {source} sent shape {shape} {dtype.name}, like= "
                f"expects shape {like._data.shape} {like._data.dtype.name}"
            )
        alloc = dev.backend.allocator
        if not hdr[_VIA_NCCL]:
            # A host array sent over MPI: received on the host, then one upload (explicit).
            host = np.empty(shape, dtype)
            wait_request(c, "recv", c._mpi.Irecv(_bytes(host), source, tag), t)
            return _wrap(alloc.from_host(host), dev)
        out = alloc.empty(shape, dtype)
        return _wrap(st.take(source, int(hdr[_MSG_ID]), out, "recv", t), dev)

    return Handle(c, "recv", [hreq], finish, hdr)


def _drain(req: Any) -> None:
    # The mismatched data message was sent with the header: consume it (truncated or not).
    try:
        req.Wait()
    except mpi().Exception:
        pass


class _StatusReq:
    """A request that fills a Status when it completes (Handle waits on plain objects)."""

    __slots__ = ("req", "status")

    def __init__(self, req: Any, status: Any):
        self.req, self.status = req, status

    def Wait(self, status: Any = None) -> None:
        self.req.Wait(self.status)

    def Test(self, status: Any = None) -> bool:
        return self.req.Test(self.status)


def send(
    x: Array,
    dest: int,
    *,
    tag: int = 0,
    comm: Comm | None = None,
    timeout: float | None = None,
) -> None:
    """Send ``x`` to rank ``dest`` (returns when ``x`` may be reused).

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> h = dist.irecv(like=np.zeros(1), source=0)
    >>> dist.send(np.asarray([1.5]), dest=0)
    >>> h.wait()
    array([1.5])
    """
    isend(x, dest, tag=tag, comm=comm).wait(timeout)


def recv(
    like: Array | None = None,
    source: int | None = None,
    *,
    tag: int = 0,
    comm: Comm | None = None,
    timeout: float | None = None,
) -> Array:
    """Receive an array from ``source`` (None: any rank), shaped like ``like``.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> h = dist.isend(np.asarray([1, 2]), dest=0)
    >>> dist.recv(like=np.zeros(2, dtype=np.int64), source=0)
    array([1, 2])
    >>> h.wait()
    """
    return irecv(like, source, tag=tag, comm=comm).wait(timeout)
