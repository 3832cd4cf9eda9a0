"""sort and argsort on cuda through CuPy's Thrust binding (``cupy.cuda.thrust``).

CuPy exposes no CUB radix sort directly; its Thrust binding is the CCCL sort, which for 1-D
arithmetic keys with the default order runs CUB's onesweep radix sort, and for rows (a sorted
axis with more than one row) a stable merge sort keyed by (row, value) with NaNs last. The
sorted axis is moved last and copied into a fresh buffer (sorted in place), floats through
``_key_kernel``: -0.0 becomes 0.0 and every NaN the one positive NaN, so the radix order
matches NumPy's (NaNs last and equal, zeros equal). ``x + 0.0`` does not do it: NVIDIA's
float64 arithmetic passes a NaN's sign bit through, and the radix sort puts negative NaNs
first. ``descending`` sorts the reversed axis and reverses back, which keeps equal elements
in their order (the CPU row's rule). Complex arrays (NumPy's lexicographic order, values with
a NaN part last) sort through ruda's radix sort instead (``sets.SORTING``, ``gpu.sorting``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ..._dtypes import kind_of
from ..._kernels import ir
from ..._kernels.math.mathlib import isnan
from ..._ops import OPS
from ..gpu.kernels import map_layout
from ..gpu.operands import typed
from . import ops as _ops
from .array import CudaArray
from .library_blas import contiguous, copy_into, moved_last, new, on
from .sets import SORTING

# Thrust has no bfloat16: its keys sort as float32 (exact), the values come back narrowed.
_SORTED_AS = {ir.BF16: ir.F32}
_ROWS_PER_CALL = 1 << 22  # elements per Thrust call when sorting rows (CuPy's chunking)
_WG = 256


@cache
def _key_kernel(t: ir.Type, ndim: int | None) -> ir.Kernel:
    """``dst = src`` with -0.0 as 0.0 and every NaN the positive NaN: float sort keys in
    NumPy's order.

    The layouts of ``gpu.kernels.cast`` (``map_layout``; ``ops.launch_map`` runs it): ``ndim=None``
    contiguous, an int strided (``s{d}``, ``st0_{d}``, ``off0``, ``sto_{d}``, ``offo``).

        >>> from ruda._kernels import ir
        >>> from ruda._kernels.render import cuda
        >>> "0x7ff8000000000000" in cuda.render(_key_kernel(ir.F64, None))
        True
    """
    src = ir.Buffer("src", t, 0)
    dst = ir.Buffer("dst", _SORTED_AS.get(t, t), 1, "read_write")
    n = ir.Param("n", ir.U32)
    i = ir.Var("i", ir.U32)
    body: list[Any] = [ir.Let(i, ir.Builtin("gid", 0)), ir.If(i >= n.var, (ir.Return(),))]
    strided, at_src, at_dst = map_layout(i, ndim)
    params = [n, *strided]
    work = ir.F32 if t.is_half else t  # float16 and bfloat16 compute in float32
    v = ir.Var("v", work)
    body.append(ir.Let(v, ir.cast(src[at_src], work)))
    zero, nan = ir.Const(0.0, work), ir.Const(float("nan"), work)
    key = ir.select(isnan(v), nan, ir.select(v.eq(0.0), zero, v))  # -0.0 -> 0.0 too
    body.append(ir.store(dst, at_dst, ir.cast(key, dst.elem)))
    return ir.Kernel(f"sort_key_{t.name}_{'c' if ndim is None else ndim}", (src, dst),
                     tuple(params), tuple(body), (_WG, 1, 1))  # fmt: skip


def _prepare(x: CudaArray, axis: int | None, descending: bool) -> tuple[CudaArray, Any]:
    """A fresh contiguous (rows, n) buffer of ``x`` with ``axis`` last (reversed if
    ``descending``), and the inverse permutation that puts the axis back."""
    if axis is None:
        x = contiguous(x)
        x = x.reshape((x.size,))
        axis = 0
    xt, inv = moved_last(x, [axis % x.ndim])
    if descending and xt.ndim:
        xt = xt[..., ::-1]
    t = ir.type_of(x.dtype)
    y = new(x.ctx, xt.shape, ir.numpy_of(_SORTED_AS.get(t, t)))
    if y.size:
        if kind_of(x.dtype) == "f":  # one NaN, one zero
            t = ir.type_of(x.dtype)
            _ops.launch_map(x.ctx, lambda nd: _key_kernel(t, nd), [xt], y)
        else:
            copy_into(y, xt)
    return y, inv


def _thrust(y: CudaArray, idx: CudaArray | None) -> None:
    """Sort each row of the contiguous ``y`` in place (and ``idx`` with the row indices)."""
    from cupy.cuda import thrust

    n = y.shape[-1] if y.ndim else 1
    if y.size == 0:
        return
    if n == 1:
        if idx is not None:
            _ops.assign(idx, 0)
        return
    dtype = np.dtype(np.uint8) if y.dtype == np.bool_ else y.dtype  # same order, 1 byte
    ctx = y.ctx
    rows = y.size // n
    isz = y.dtype.itemsize
    with on(ctx):
        if rows == 1:
            if idx is None:
                thrust.sort(dtype, y.ptr, 0, (n,))
            else:
                thrust.argsort(dtype, idx.ptr, y.ptr, 0, (n,))
            return
        per = max(min(_ROWS_PER_CALL, y.size) // n, 1)
        keys = new(ctx, (per * n,), np.uint64)
        for r0 in range(0, rows, per):
            r = min(per, rows - r0)
            if idx is None:
                thrust.sort(dtype, y.ptr + r0 * n * isz, keys.ptr, (r, n))
            else:
                thrust.argsort(dtype, idx.ptr + r0 * n * 8, y.ptr + r0 * n * isz, keys.ptr,
                               (r, n))  # fmt: skip


def _back(y: CudaArray, inv: Any, descending: bool) -> CudaArray:
    if descending and y.ndim:
        y = y[..., ::-1]
    if list(inv) != list(range(y.ndim)):
        y = y.transpose(tuple(inv))
    return contiguous(y)


def _check(order: Any, name: str) -> None:
    if order is not None:
        raise NotImplementedError(f"ruda.{name}: order= (structured arrays) is not implemented "
                                  "on cuda")  # fmt: skip


def sort(x: CudaArray, axis: int | None = -1, descending: bool = False, stable: bool = True,
         kind: Any = None, order: Any = None) -> CudaArray:  # fmt: skip
    # Note: every sort here is stable; ``kind`` and ``stable=False`` change nothing.
    if kind_of(x.dtype) == "c":  # NumPy's complex order: ruda's radix sort (``gpu.sorting``)
        return SORTING.sort(x, axis, descending, order=order)
    _check(order, "sort")
    y, inv = _prepare(x, axis, descending)
    _thrust(y, None)
    y = _back(y, inv, descending)
    return y if y.dtype == x.dtype else _ops.astype(y, x.dtype)


def argsort(x: CudaArray, axis: int | None = -1, descending: bool = False, stable: bool = True,
            kind: Any = None, order: Any = None) -> CudaArray:  # fmt: skip
    if kind_of(x.dtype) == "c":
        return SORTING.argsort(x, axis, descending, order=order)
    _check(order, "argsort")
    y, inv = _prepare(x, axis, descending)
    idx = new(x.ctx, y.shape, np.int64)  # Thrust writes size_t: the same bits for n < 2^63
    _thrust(y, idx)
    if descending and idx.ndim and idx.size:
        n = idx.shape[-1]
        # Indices into the reversed axis, reversed back: n - 1 - i, a stable descending order.
        idx = _ops.apply(OPS["subtract"], (typed(n - 1, idx), idx[..., ::-1]))
    return _back(idx, inv, False)


LIBRARY: dict[str, Any] = {"sort": sort, "argsort": argsort}
__all__ = ["LIBRARY", "argsort", "sort"]
