"""Work over arrays larger than one storage binding, split into pieces that each fit.

A WebGPU adapter binds at most ``max-storage-buffer-binding-size`` bytes of a buffer per
binding (128 MiB on lavapipe, 2 GiB on an H200), at offsets that are multiples of
``min-storage-buffer-offset-alignment``. A context with such a limit has ``max_binding`` and
``storage_align``; a CUDA context has neither and never takes these paths.

* Elementwise launches: ``pieces`` splits operands of one shape (inputs already broadcast)
  into sub-views whose byte windows (span from its start rounded down to the alignment) each
  fit; the launcher binds every piece's window and passes element offsets into it.
* Reductions and scans: the ``[rows, cols]`` input is cut into tiles that fit (whole rows
  when a row fits, else row segments), each tile is reduced or scanned by the ordinary plan
  (a tile at an offset the plan cannot bind is copied first), and partials are combined:
  reductions reduce the partials again with the combining op, scans add (multiply) each
  segment's carried prefix, argmax/argmin pick the best tile by value.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..._kernels import ir
from ..._ops import OPS
from .layout import span
from .operands import typed


def limit_of(ctx: Any) -> int | None:
    """The largest binding of ``ctx``'s device in bytes, whole 16-byte vectors (None:
    unlimited, as on CUDA): binding sizes are rounded up to words or vectors."""
    lim = getattr(ctx, "max_binding", None)
    return None if lim is None else lim // 16 * 16


def too_big(ctx: Any, *xs: Any) -> bool:
    """Whether any of the contiguous arrays ``xs`` spans more than one binding of ``ctx``."""
    lim = limit_of(ctx)
    return lim is not None and any(x.nbytes > lim for x in xs)


def window(x: Any, align: int) -> tuple[int, int]:
    """(first byte, one past the last byte) that a binding of view ``x`` must cover; the first
    byte rounded down to ``align``."""
    lo, hi = span(x.offset, x.shape, x._strides, x.dtype.itemsize)
    return lo // align * align, hi


def pieces(views: list[Any], limit: int, align: int) -> Iterator[list[Any]]:
    """Sub-views of ``views`` (one shape) covering it, each operand's window within ``limit``.

    The dimension split is the one contributing most to an oversized operand's span, into
    runs short enough for that operand (the other dimensions still count); a piece that still
    does not fit is split again along another dimension.
    """
    sizes = [(v, *window(v, align)) for v in views]
    over = [(v, hi - lo) for v, lo, hi in sizes if hi - lo > limit]
    if not over:
        yield views
        return
    shape = views[0].shape
    best, dim = -1, -1
    for v, _ in over:
        for d, n in enumerate(shape):
            c = (n - 1) * abs(v._strides[d]) * v.dtype.itemsize
            if n > 1 and c > best:
                best, dim = c, d
    if dim < 0:
        raise ValueError(f"ruda: one element does not fit a binding of {limit} bytes")
    n = shape[dim]
    run = n
    for v, size in over:
        step = abs(v._strides[dim]) * v.dtype.itemsize
        if step:
            rest = size - (n - 1) * step + align  # the other dimensions, and alignment slack
            run = min(run, max(1, (limit - rest) // step + 1))
    run = min(run, max(1, n // 2))
    lead = (slice(None),) * dim
    for i in range(0, n, run):
        key = (*lead, slice(i, i + run))
        yield from pieces([v[key] for v in views], limit, align)


def tile_steps(
    rows: int, cols: int, isz: int, limit: int, align: int, down: bool = False
) -> tuple[int, int]:
    """(rows, cols) of the tiles of a C-ordered ``[rows, cols]`` array of ``isz``-byte items
    that fit ``limit`` bytes: whole rows (a multiple of the rows that keep tile starts
    aligned, when that many fit), else aligned segments of one row. ``down``: the work runs
    down the columns, so a tile keeps several rows (narrower, strided tiles are copied)."""
    row = cols * isz
    if down and rows > 1 and 2 * row > limit:
        tr = min(rows, 64)
        return tr, max(1, limit // (isz * tr))
    if row <= limit:
        tr = limit // row
        unit = align // math.gcd(align, row)
        if tr >= unit:
            tr = tr // unit * unit
        return min(tr, rows), cols
    per = limit // isz
    tc = per // align * align or per
    return 1, min(tc, cols)


def _tiles(rows: int, cols: int, tr: int, tc: int) -> Iterator[tuple[int, int, int, int]]:
    """(tile row index, tile col index, first row, first col) of every tile."""
    for i, r0 in enumerate(range(0, rows, tr)):
        for j, c0 in enumerate(range(0, cols, tc)):
            yield i, j, r0, c0


def _bindable(ops: Any, x: Any) -> Any:
    """``x`` itself when a plan can bind it, else a contiguous copy."""
    return x if ops.plan_ready(x) else ops.copy(x)


# -- reductions ------------------------------------------------------------------------------------
def reduce_layout(lay: Any, op: str, out_t: ir.Type, mean: Any = None) -> Any:
    """``Layout.run`` for an input larger than one binding: ``op`` into a new ``(nout,)``."""
    x = lay.x
    if lay.family == "cols":
        x2, axis = x.reshape(lay.count, lay.nout), 0
    else:
        x2, axis = x.reshape(lay.nout, lay.count), 1
    if mean is not None:
        mean = _bindable(lay.red.ops, mean.reshape(-1))
    return reduce2(lay.red, x2, axis, op, out_t, mean)


def reduce2(red: Any, x: Any, axis: int, op: str, out_t: ir.Type, mean: Any = None) -> Any:
    """``op`` over ``axis`` of the contiguous 2-d ``x`` (centred on ``mean`` when given) into a
    new 1-d array of ``out_t``: one plan when ``x`` fits a binding, else tile by tile."""
    ops, ctx = red.ops, x.ctx
    rows, cols = x.shape
    kept = cols if axis == 0 else rows
    center = mean is not None
    out_np = ir.numpy_of(out_t)
    if not too_big(ctx, x) and ops.plan_ready(x):
        in_t = ir.type_of(x.dtype)
        out = ctx.allocator.empty((kept,), out_np)
        if kept == 1:
            p = red.plan("full", op, in_t, out_t, x.size, 0, center, ctx)
        elif axis == 1:
            p = red.plan("rows", op, in_t, out_t, rows, cols, center, ctx)
        else:
            p = red.plan("cols", op, in_t, out_t, rows, cols, center, ctx)
        arrays = {"x": x, "out": out}
        if center:
            arrays["mean"] = mean
        ops.run_plan(ctx, p, arrays)
        return out
    tr, tc = tile_steps(rows, cols, x.dtype.itemsize, limit_of(ctx), ctx.storage_align,
                        axis == 0)  # fmt: skip
    nparts = -(-cols // tc) if axis == 1 else -(-rows // tr)
    parts = ctx.allocator.empty((rows, nparts) if axis == 1 else (nparts, cols), out_np)
    for i, j, r0, c0 in _tiles(rows, cols, tr, tc):
        t = _bindable(ops, x[r0 : r0 + tr, c0 : c0 + tc])
        m = None
        if center:
            m = _bindable(ops, mean[r0 : r0 + tr] if axis == 1 else mean[c0 : c0 + tc])
        r = reduce2(red, t, axis, op, out_t, m)
        ops.assign(parts[r0 : r0 + tr, j] if axis == 1 else parts[i, c0 : c0 + tc], r)
    if nparts == 1:
        return parts.reshape(-1)
    # the partials of a centred pass are sums of squares: they add up
    return reduce2(red, parts, axis, "sum" if center else op, out_t)


# -- scans -----------------------------------------------------------------------------------------
def scan_layout(scans: Any, op: str, x: Any, y: Any, out_t: ir.Type, initial: bool) -> None:
    """The ``[rows, n]`` scan of the contiguous ``x`` into the contiguous ``y`` (``[rows, n +
    initial]``) tile by tile, each segment after the first of a row offset by the row's
    running total so far (the last element written before it)."""
    ops, ctx = scans.ops, x.ctx
    n = x.shape[-1]
    rows = x.size // n
    x2, y2 = x.reshape(rows, n), y.reshape(rows, n + int(initial))
    if initial:
        ops.assign(y2[:, 0], 0 if op == "sum" else 1)
    core = y2[:, int(initial) :]
    in_t = ir.type_of(x.dtype)
    out_np = ir.numpy_of(out_t)
    isz = max(x.dtype.itemsize, out_np.itemsize)
    tr, tc = tile_steps(rows, n, isz, limit_of(ctx), ctx.storage_align)
    combine = OPS["add" if op == "sum" else "multiply"]
    for _, _, r0, c0 in _tiles(rows, n, tr, tc):
        t = _bindable(ops, x2[r0 : r0 + tr, c0 : c0 + tc])
        rr, cc = t.shape
        seg = ctx.allocator.empty((rr, cc), out_np)
        ops.run_plan(ctx, scans.plan(op, in_t, out_t, rr, cc, False, ctx), {"x": t, "out": seg})
        if c0:
            ops.apply(combine, (seg, core[r0 : r0 + rr, c0 - 1 : c0]), seg)
        ops.assign(core[r0 : r0 + rr, c0 : c0 + cc], seg)


# -- argmax / argmin -------------------------------------------------------------------------------
def arg_layout(search: Any, op: str, x: Any, rows: int, cols: int) -> Any:
    """``op`` (argmax/argmin) along the rows of the contiguous ``[rows, cols]`` ``x`` into a new
    ``(rows,)`` int64, tile by tile: a row split into segments keeps each segment's winner and
    its value, and the first segment holding the best value wins (NaN first, as NumPy)."""
    ops, ctx = search.ops, x.ctx
    x2 = x.reshape(rows, cols)
    tr, tc = tile_steps(rows, cols, x.dtype.itemsize, limit_of(ctx), ctx.storage_align)
    nseg = -(-cols // tc)
    out = ctx.allocator.empty((rows,), np.int64)
    idx = out.reshape(rows, 1) if nseg == 1 else ctx.allocator.empty((rows, nseg), np.int64)
    vals = None if nseg == 1 else ctx.allocator.empty((rows, nseg), x.dtype)
    best = "max" if op == "argmax" else "min"
    for _, j, r0, c0 in _tiles(rows, cols, tr, tc):
        t = _bindable(ops, x2[r0 : r0 + tr, c0 : c0 + tc])
        rr, cc = t.shape
        r = search.arg(op, t, axis=1)
        if nseg == 1:
            ops.assign(idx[r0 : r0 + rr, 0], r)
            continue
        ops.apply(OPS["add"], (r, typed(c0, r)), r)  # the segment's index in the whole row
        ops.assign(idx[r0 : r0 + rr, j], r)
        ops.assign(vals[r0 : r0 + rr, j], search.reductions.reducer(best)(t, axis=1))
    if nseg == 1:
        return out
    # the winning segment per row, then its index: sum over segments of idx * (seg == win)
    win = search.arg(op, vals, axis=1)
    segs = ctx.allocator.empty((nseg,), np.int64)
    ops.arange_into(segs, 0, 1)
    hit = ops.apply(OPS["equal"], (segs.reshape(1, nseg), win.reshape(rows, 1)))
    picked = ops.apply(OPS["multiply"], (idx, ops.astype(hit, np.int64)))
    ops.assign(out, search.reductions.reducer("sum")(picked, axis=1))
    return out


__all__ = ["arg_layout", "limit_of", "pieces", "reduce2", "reduce_layout", "scan_layout",
           "tile_steps", "too_big", "window"]  # fmt: skip
