"""Collectives over MPI: every rank of the communicator calls the same function.

Each call: cross-check the arguments (``_signature.exchange``), validate (the same verdict on
every rank, since they now agree), hand the buffers to MPI (``_paths``), wrap the result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._array import Array, _wrap
from .._devices import resolve
from .._validation import as_array, normalize_axis
from . import _nccl_collectives as nccl
from ._comm import Comm, resolve_comm
from ._paths import HostPath, path_for
from ._reduce_ops import finish_avg, mpi_op
from ._signature import exchange, root_shape_dtype
from ._wait import effective_timeout, run

__all__ = [
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "all_to_all",
    "broadcast",
    "reduce",
    "gather",
    "scatter",
    "barrier",
]


def _start(fname, x, comm, timeout, *, root=0, op=None, axis=None, none_ok=False):
    """Communicator, timeout, the array (or None), and the signature table (or None)."""
    c = resolve_comm(comm, fname)
    t = effective_timeout(c, timeout, fname)
    if x is not None or not none_ok:
        x = as_array(x, f"distributed.{fname}")
    elif not c.check:
        raise ValueError(
            f"ruda.distributed.{fname}: x=None on a non-root rank needs the argument "
            "cross-check (init(check=True)): it tells this rank the root's shape and dtype"
        )
    table = None
    if c.check and c.size > 1:
        table = exchange(c, fname, x, timeout=t, root=_root_code(root), op=op, axis=axis)
    _check_root(fname, root, c)
    return c, t, x, table


def _root_code(root: Any) -> int:
    return root if isinstance(root, int) else -1


def _check_root(fname: str, root: Any, c: Comm) -> None:
    if not isinstance(root, (int, np.integer)) or isinstance(root, bool):
        raise TypeError(f"ruda.distributed.{fname}: root must be an int, got {root!r}")
    if not 0 <= root < c.size:
        raise ValueError(f"ruda.distributed.{fname}: root {root} is not a rank of {c.size}")


def _axis(fname: str, axis: Any, ndim: int) -> int:
    return normalize_axis(axis, ndim, f"distributed.{fname}")


def _blocks_shape(fname: str, shape: tuple, ax: int, n: int) -> tuple[int, ...]:
    """The shape of one of ``n`` equal blocks of ``shape`` along ``ax`` (ValueError if uneven)."""
    if shape[ax] % n:
        raise ValueError(
            f"ruda.distributed.{fname}: x.shape[{ax}] = {shape[ax]} does not split evenly "
            f"over {n} ranks"
        )
    return shape[:ax] + (shape[ax] // n,) + shape[ax + 1 :]


def _split_blocks(host: np.ndarray, ax: int, n: int) -> np.ndarray:
    """(n, *block) contiguous: block i is the i-th slice of ``host`` along ``ax``."""
    if ax == 0:
        return host  # already laid out block after block: no copy
    shape = host.shape
    split = host.reshape(shape[:ax] + (n, shape[ax] // n) + shape[ax + 1 :])
    return np.ascontiguousarray(np.moveaxis(split, ax, 0))


def _concat_blocks(buf: np.ndarray, ax: int) -> np.ndarray:
    """(n, *block) -> the blocks concatenated along ``ax`` (a view when ``ax`` is 0)."""
    n, shape = buf.shape[0], buf.shape[1:]
    joined = shape[:ax] + (n * shape[ax],) + shape[ax + 1 :]
    if ax == 0:
        return buf.reshape(joined)
    return np.moveaxis(buf, 0, ax).reshape(joined)


def all_reduce(
    x: Array, op: str = "sum", *, comm: Comm | None = None, timeout: float | None = None
) -> Array:
    """The elementwise reduction of ``x`` over all ranks, on every rank (a new array).

    ``op`` is "sum", "prod", "min", "max" or "avg" (floating-point dtypes).

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> dist.all_reduce(np.asarray([1.0, 2.0]))        # one rank: a copy of x
    array([1., 2.])
    """
    c, t, x, _ = _start("all_reduce", x, comm, timeout, op=op)
    mop = mpi_op("all_reduce", op, x._data.dtype)
    if x._device.kind == "cuda":
        return _wrap(nccl.all_reduce(c, t, x._data, op), x._device)
    p = path_for(x._device, "all_reduce")
    send = p.send_buffer(x._data)
    out = p.empty(send.shape, send.dtype)
    run(c, "all_reduce", t, "Allreduce", send, out, mop)
    if op == "avg":
        finish_avg(out, c.size)
    return p.result(out)


def all_gather(
    x: Array, axis: int = 0, *, comm: Comm | None = None, timeout: float | None = None
) -> Array:
    """Every rank's ``x`` concatenated along ``axis`` (rank order), on every rank.

    A 0-d ``x`` counts as shape (1,), so the result has one element per rank.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> dist.all_gather(np.asarray([[1, 2]]), axis=1)
    array([[1, 2]])
    """
    c, t, x, _ = _start("all_gather", x, comm, timeout, axis=axis)
    ax = _axis("all_gather", axis, max(x._data.ndim, 1))
    if x._device.kind == "cuda":
        return _wrap(nccl.all_gather(c, t, x._data, ax), x._device)
    p = path_for(x._device, "all_gather")
    send = p.send_buffer(x._data)
    shape = send.shape or (1,)
    buf = p.empty((c.size,) + shape, send.dtype)
    run(c, "all_gather", t, "Allgather", send, buf)
    return p.result(_concat_blocks(buf, ax))


def reduce_scatter(
    x: Array,
    op: str = "sum",
    axis: int = 0,
    *,
    comm: Comm | None = None,
    timeout: float | None = None,
) -> Array:
    """Reduce ``x`` over all ranks, then give rank i the i-th of equal blocks along ``axis``.

    ``x.shape[axis]`` must be a multiple of the number of ranks.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> dist.reduce_scatter(np.asarray([1, 2, 3]))
    array([1, 2, 3])
    """
    c, t, x, _ = _start("reduce_scatter", x, comm, timeout, op=op, axis=axis)
    mop = mpi_op("reduce_scatter", op, x._data.dtype)
    ax = _axis("reduce_scatter", axis, x._data.ndim)
    block = _blocks_shape("reduce_scatter", x._data.shape, ax, c.size)
    if x._device.kind == "cuda":
        return _wrap(nccl.reduce_scatter(c, t, x._data, op, ax), x._device)
    p = path_for(x._device, "reduce_scatter")
    send = _split_blocks(p.send_buffer(x._data), ax, c.size)
    out = p.empty(block, send.dtype)
    run(c, "reduce_scatter", t, "Reduce_scatter_block", send, out, mop)
    if op == "avg":
        finish_avg(out, c.size)
    return p.result(out)


def all_to_all(
    x: Array, axis: int = 0, *, comm: Comm | None = None, timeout: float | None = None
) -> Array:
    """Split ``x`` into equal blocks along ``axis``, send block j to rank j; concatenate the
    blocks received (rank order) along ``axis``. The result has x's shape.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> dist.all_to_all(np.asarray([4, 5]))
    array([4, 5])
    """
    c, t, x, _ = _start("all_to_all", x, comm, timeout, axis=axis)
    ax = _axis("all_to_all", axis, x._data.ndim)
    block = _blocks_shape("all_to_all", x._data.shape, ax, c.size)
    if x._device.kind == "cuda":
        return _wrap(nccl.all_to_all(c, t, x._data, ax), x._device)
    p = path_for(x._device, "all_to_all")
    send = _split_blocks(p.send_buffer(x._data), ax, c.size)
    buf = p.empty((c.size,) + block, send.dtype)
    run(c, "all_to_all", t, "Alltoall", send, buf)
    return p.result(_concat_blocks(buf, ax))


def _like_root(x: Any, c: Comm, table: Any, root: int):
    """The device, shape and dtype a non-root rank receives into (from x, else the root's)."""
    if x is not None:
        return x._device, x._data.shape, x._data.dtype
    shape, dtype, kind = root_shape_dtype(table, root)
    dev = resolve(None)
    if dev.kind != kind:
        # The root's kind of device: this rank's own GPU of that kind (see Comm.local_device).
        dev = c.local_device(kind)
    return dev, shape, dtype


def broadcast(
    x: Array | None,
    root: int = 0,
    *,
    comm: Comm | None = None,
    timeout: float | None = None,
) -> Array:
    """The root's ``x`` on every rank (a new array everywhere, the root included).

    Other ranks pass an array of the same shape and dtype, or None (the result then goes
    to the default device).

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> dist.broadcast(np.asarray([7, 8]), root=0)
    array([7, 8])
    """
    c, t, x, table = _start("broadcast", x, comm, timeout, root=root, none_ok=c_rank(comm) != root)
    dev, shape, dtype = _like_root(x, c, table, root)
    if dev.kind == "cuda":
        src = x._data if c.rank == root else nccl.empty_like_root(dev, shape, dtype)
        return _wrap(nccl.broadcast(c, t, src, root), dev)
    p = path_for(dev, "broadcast")
    if c.rank == root:
        send = p.send_buffer(x._data)
        run(c, "broadcast", t, "Bcast", send, root)
        return p.result(send.copy() if send is x._data else send)
    out = p.empty(shape, dtype)
    run(c, "broadcast", t, "Bcast", out, root)
    return p.result(out)


def reduce(
    x: Array,
    root: int = 0,
    op: str = "sum",
    *,
    comm: Comm | None = None,
    timeout: float | None = None,
) -> Array | None:
    """The elementwise reduction of ``x`` over all ranks, on ``root``; None on the others.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> dist.reduce(np.asarray([1, 2]), root=0, op="max")
    array([1, 2])
    """
    c, t, x, _ = _start("reduce", x, comm, timeout, root=root, op=op)
    mop = mpi_op("reduce", op, x._data.dtype)
    if x._device.kind == "cuda":
        r = nccl.reduce(c, t, x._data, op, root)
        return None if r is None else _wrap(r, x._device)
    p = path_for(x._device, "reduce")
    send = p.send_buffer(x._data)
    out = p.empty(send.shape, send.dtype) if c.rank == root else None
    run(c, "reduce", t, "Reduce", send, out, mop, root)
    if out is None:
        return None
    if op == "avg":
        finish_avg(out, c.size)
    return p.result(out)


def gather(
    x: Array,
    root: int = 0,
    axis: int = 0,
    *,
    comm: Comm | None = None,
    timeout: float | None = None,
) -> Array | None:
    """Every rank's ``x`` concatenated along ``axis`` (rank order) on ``root``; None elsewhere.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> dist.gather(np.asarray([1, 2]), root=0)
    array([1, 2])
    """
    c, t, x, _ = _start("gather", x, comm, timeout, root=root, axis=axis)
    ax = _axis("gather", axis, max(x._data.ndim, 1))
    if x._device.kind == "cuda":
        r = nccl.gather(c, t, x._data, ax, root)
        return None if r is None else _wrap(r, x._device)
    p = path_for(x._device, "gather")
    send = p.send_buffer(x._data)
    shape = send.shape or (1,)
    buf = p.empty((c.size,) + shape, send.dtype) if c.rank == root else None
    run(c, "gather", t, "Gather", send, buf, root)
    return None if buf is None else p.result(_concat_blocks(buf, ax))


def scatter(
    x: Array | None,
    root: int = 0,
    axis: int = 0,
    *,
    comm: Comm | None = None,
    timeout: float | None = None,
) -> Array:
    """Split the root's ``x`` into equal blocks along ``axis``; rank i gets block i.

    Other ranks pass an array of the root's shape and dtype, or None.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> dist.scatter(np.asarray([1, 2, 3]), root=0)
    array([1, 2, 3])
    """
    c, t, x, table = _start(
        "scatter", x, comm, timeout, root=root, axis=axis, none_ok=c_rank(comm) != root
    )
    dev, shape, dtype = _like_root(x, c, table, root)
    ax = _axis("scatter", axis, len(shape))
    block = _blocks_shape("scatter", shape, ax, c.size)
    if dev.kind == "cuda":
        like = x._data if x is not None else nccl.empty_like_root(dev, (0,), dtype)
        return _wrap(nccl.scatter(c, t, x._data if c.rank == root else None, like, ax, root,
                                  block), dev)  # fmt: skip
    p: HostPath = path_for(dev, "scatter")
    send = _split_blocks(p.send_buffer(x._data), ax, c.size) if c.rank == root else None
    out = p.empty(block, dtype)
    run(c, "scatter", t, "Scatter", send, out, root)
    return p.result(out)


def barrier(*, comm: Comm | None = None, timeout: float | None = None) -> None:
    """Wait until every rank of ``comm`` has called barrier.

    >>> from ruda import distributed as dist
    >>> dist.barrier()
    """
    c = resolve_comm(comm, "barrier")
    t = effective_timeout(c, timeout, "barrier")
    if c.check and c.size > 1:
        # The cross-check's Allgather is itself a barrier: no rank finishes it before all start.
        exchange(c, "barrier", None, timeout=t)
    else:
        run(c, "barrier", t, "Barrier")


def c_rank(comm: Comm | None) -> int:
    """This process's rank in ``comm`` (the world when None)."""
    return resolve_comm(comm, "rank").rank
