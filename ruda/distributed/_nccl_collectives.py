"""The collectives for cuda arrays: NCCL calls on device buffers, no host copies.

Each function takes the communicator, timeout and the (validated, cross-checked) native
CUDA array and returns a native result; ``_collectives.py`` routes cuda arrays here. Block
layouts along an axis other than 0 are rearranged on the device with ruda's copy kernels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtypes import kind_of
from ._comm import Comm
from ._nccl import byte_view, nccl_comm, reduce_plan

__all__ = [
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce",
    "gather", "scatter",
]  # fmt: skip


def _contiguous(x: Any) -> Any:
    return x if x.is_contiguous else x.copy()


def _empty(x: Any, shape: tuple[int, ...], dtype: Any = None) -> Any:
    return x.ctx.allocator.empty(shape, x.dtype if dtype is None else dtype)


def _nc(c: Comm, x: Any, fname: str, t: float | None) -> Any:
    return nccl_comm(c, x.ctx, fname, t)


def split_blocks(x: Any, ax: int, n: int) -> Any:
    """(n, *block) contiguous on the device: block i is the i-th slice of ``x`` along ``ax``."""
    x = _contiguous(x)
    if ax == 0:
        return x.reshape((n, x.shape[0] // n) + x.shape[1:])
    s = x.shape
    split = x.reshape(s[:ax] + (n, s[ax] // n) + s[ax + 1 :])
    order = (ax,) + tuple(i for i in range(split.ndim) if i != ax)
    return split.transpose(order).copy()


def concat_blocks(buf: Any, ax: int) -> Any:
    """(n, *block) -> the blocks concatenated along ``ax`` (a view when ``ax`` is 0)."""
    n, shape = buf.shape[0], buf.shape[1:]
    joined = shape[:ax] + (n * shape[ax],) + shape[ax + 1 :]
    if ax == 0:
        return buf.reshape(joined)
    order = tuple(range(1, ax + 1)) + (0,) + tuple(range(ax + 1, buf.ndim))
    return buf.transpose(order).reshape(joined)


def _reduced(c: Comm, t: Any, x: Any, op: str, fname: str, launch) -> Any:
    """Run a reduction collective on ``x`` mapped to NCCL's types; ``launch(nc, send, type, op)``
    queues the call and returns the raw result."""
    if kind_of(x.dtype) == "c" and op == "prod":
        return None  # complex multiplication is not elementwise on (re, im): the caller gathers
    send, tname, nop, finish = reduce_plan(_contiguous(x), op)
    nc = _nc(c, x, fname, t)
    return finish(launch(nc, send, tname, nop))


def all_reduce(c: Comm, t: Any, x: Any, op: str) -> Any:
    def launch(nc, send, tname, nop):
        out = _empty(send, send.shape)
        nc.launch(
            "all_reduce",
            t,
            lambda: nc.handle.allReduce(
                send.ptr, out.ptr, send.size, nc.dtype_code(tname), nc.op_code(nop), nc.stream()
            ),
        )
        return out

    r = _reduced(c, t, x, op, "all_reduce", launch)
    return r if r is not None else _complex_prod(c, t, x, "all_reduce")


def _complex_prod(c: Comm, t: Any, x: Any, fname: str) -> Any:
    # Note: NCCL multiplies (re, im) pairs elementwise, which is not complex multiplication;
    # gather every rank's array and multiply on the device instead.
    from .. import prod
    from .._array import _wrap

    stacked = _gathered(c, t, x, fname)
    return prod(_wrap(stacked, _device_of(x)), axis=0)._data.reshape(x.shape)


def _device_of(x: Any) -> Any:
    from .._devices import Device

    return Device("cuda", x.ctx.index)


def _gathered(c: Comm, t: Any, x: Any, fname: str) -> Any:
    """(n, *shape) on every rank: row i is rank i's ``x`` (a 0-d ``x`` counts as shape (1,))."""
    x = _contiguous(x)
    buf = _empty(x, (c.size,) + (x.shape or (1,)))
    nc = _nc(c, x, fname, t)
    ptr, nbytes = byte_view(x)
    nc.launch(fname, t, lambda: nc.handle.allGather(
        ptr, buf.ptr, nbytes, nc.dtype_code("uint8"), nc.stream()))  # fmt: skip
    return buf


def all_gather(c: Comm, t: Any, x: Any, ax: int) -> Any:
    return concat_blocks(_gathered(c, t, x, "all_gather"), ax)


def reduce_scatter(c: Comm, t: Any, x: Any, op: str, ax: int) -> Any:
    blocks = split_blocks(x, ax, c.size)
    if kind_of(blocks.dtype) == "c" and op == "prod":
        full = all_reduce(c, t, blocks, op)
        return full[c.rank].copy()

    def launch(nc, send, tname, nop):
        per = send.size // c.size
        out = _empty(send, send.shape[1:])
        nc.launch(
            "reduce_scatter",
            t,
            lambda: nc.handle.reduceScatter(
                send.ptr, out.ptr, per, nc.dtype_code(tname), nc.op_code(nop), nc.stream()
            ),
        )
        return out

    return _reduced(c, t, blocks, op, "reduce_scatter", launch)


def _exchange(c: Comm, t: Any, fname: str, x: Any, sends: list, recvs: list) -> None:
    """Grouped point-to-point calls: ``sends``/``recvs`` are (peer, address, bytes)."""
    nc = _nc(c, x, fname, t)
    u8 = nc.dtype_code("uint8")

    def calls():
        for peer, ptr, nbytes in sends:
            nc.handle.send(ptr, nbytes, u8, peer, nc.stream())
        for peer, ptr, nbytes in recvs:
            nc.handle.recv(ptr, nbytes, u8, peer, nc.stream())

    nc.launch(fname, t, calls)


def _rows(buf: Any) -> list[tuple[int, int]]:
    """(address, bytes) of each block of a contiguous (n, *block) array."""
    step = buf.nbytes // buf.shape[0] if buf.shape[0] else 0
    return [(buf.ptr + i * step, step) for i in range(buf.shape[0])]


def all_to_all(c: Comm, t: Any, x: Any, ax: int) -> Any:
    blocks = split_blocks(x, ax, c.size)
    buf = _empty(blocks, blocks.shape)
    src, dst = _rows(blocks), _rows(buf)
    sends = [(j, *src[j]) for j in range(c.size)]
    recvs = [(j, *dst[j]) for j in range(c.size)]
    _exchange(c, t, "all_to_all", blocks, sends, recvs)
    return concat_blocks(buf, ax)


def broadcast(c: Comm, t: Any, x: Any, root: int) -> Any:
    """Root: ``x``; others: a fresh array of the root's shape and dtype, received into."""
    send = _contiguous(x)
    out = _empty(send, send.shape) if c.rank == root else send  # root keeps x unchanged
    nc = _nc(c, send, "broadcast", t)
    nc.launch("broadcast", t, lambda: nc.handle.broadcast(
        send.ptr, out.ptr, send.nbytes, nc.dtype_code("uint8"), root, nc.stream()))  # fmt: skip
    return out


def reduce(c: Comm, t: Any, x: Any, op: str, root: int) -> Any:
    def launch(nc, send, tname, nop):
        out = _empty(send, send.shape) if c.rank == root else send
        nc.launch("reduce", t, lambda: nc.handle.reduce(
            send.ptr, out.ptr, send.size, nc.dtype_code(tname), nc.op_code(nop), root,
            nc.stream()))  # fmt: skip
        return out

    if kind_of(x.dtype) == "c" and op == "prod":
        r = all_reduce(c, t, x, op)
    else:
        r = _reduced(c, t, x, op, "reduce", launch)
    return r if c.rank == root else None


def gather(c: Comm, t: Any, x: Any, ax: int, root: int) -> Any:
    x = _contiguous(x)
    shape = x.shape or (1,)
    ptr, nbytes = byte_view(x)
    sends = [(root, ptr, nbytes)]
    if c.rank != root:
        _exchange(c, t, "gather", x, sends, [])
        return None
    buf = _empty(x, (c.size,) + shape)
    recvs = [(j, *row) for j, row in enumerate(_rows(buf))]
    _exchange(c, t, "gather", x, sends, recvs)
    return concat_blocks(buf, ax)


def scatter(c: Comm, t: Any, x: Any, like: Any, ax: int, root: int,
            block: tuple[int, ...]) -> Any:  # fmt: skip
    """Root passes ``x``; every rank passes ``like`` (an array on its GPU) to allocate from."""
    out = _empty(like, block, like.dtype)
    recvs = [(root, out.ptr, out.nbytes)]
    sends: list = []
    if c.rank == root:
        blocks = split_blocks(x, ax, c.size)
        sends = [(j, *row) for j, row in enumerate(_rows(blocks))]
    else:
        blocks = None
    _exchange(c, t, "scatter", like, sends, recvs)
    del blocks  # queued work keeps the stream order; the pool reuses it only after
    return out


def empty_like_root(dev: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """A native array on cuda device ``dev`` for a rank that passed x=None."""
    return dev.backend.allocator.empty(shape, dtype)
