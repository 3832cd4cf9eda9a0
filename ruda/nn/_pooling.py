"""Pooling over 1 to 3 trailing spatial dims (layout (N, C, *spatial), PyTorch's semantics):
max_pool, avg_pool and adaptive_avg_pool.

max_pool and avg_pool take one strided view of every window (``sliding_window_view``, then
slices with the stride and the dilation) and one reduction over its window axes; the padded
input is the only copy. adaptive_avg_pool multiplies each spatial dim by its (out, in) bin
averaging matrix (bins as PyTorch's: floor(i * L / out) to ceil((i + 1) * L / out)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..lib.stride_tricks import sliding_window_view
from ._common import Array, arrays, as_int, check_float, ints, rd, to_acc

__all__ = ["adaptive_avg_pool", "avg_pool", "max_pool"]


def _dims(fname: str, x: Array, spec: Any) -> int:
    """The number of spatial dims: the length of a tuple ``spec``, else x.ndim - 2."""
    if isinstance(spec, Sequence) and not isinstance(spec, str):
        k = len(spec)
    else:
        k = x.ndim - 2
    if not 1 <= k <= 3 or x.ndim < k + 1:
        raise ValueError(
            f"ruda.nn.{fname}: x of shape {tuple(x.shape)} must be (N, C, *spatial) with 1 to 3 "
            f"spatial dims (a tuple kernel_size/output_size names how many)"
        )
    return k


def _geometry(
    fname: str,
    x: Array,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
) -> tuple[int, list[tuple[int, int, int, int, int, int]]]:
    """Per spatial dim: (size, kernel, stride, pad, dilation, out)."""
    k = _dims(fname, x, kernel_size)
    ks = ints(fname, "kernel_size", kernel_size, k, minimum=1)
    st = ks if stride is None else ints(fname, "stride", stride, k, minimum=1)
    pd = ints(fname, "padding", padding, k, minimum=0)
    dl = ints(fname, "dilation", dilation, k, minimum=1)
    dims = []
    for i in range(k):
        n, kk, s, p, d = x.shape[x.ndim - k + i], ks[i], st[i], pd[i], dl[i]
        if 2 * p > kk:
            raise ValueError(
                f"ruda.nn.{fname}: padding {pd} must be at most half of kernel_size {ks}"
            )
        span = d * (kk - 1) + 1
        if ceil_mode:
            out = -(-(n + 2 * p - span) // s) + 1
            if (out - 1) * s >= n + p:
                out -= 1
        else:
            out = (n + 2 * p - span) // s + 1
        if out < 1:
            raise ValueError(
                f"ruda.nn.{fname}: the window (kernel_size {ks}, dilation {dl}) does not fit "
                f"x's spatial shape {tuple(x.shape[x.ndim - k :])} with padding {pd}"
            )
        dims.append((n, kk, s, p, d, out))
    return k, dims


def _windows(x: Array, k: int, dims: list, fill: float) -> Array:
    """The view (..., *out, *kernel) of every window of ``x`` padded with ``fill``."""
    lead = x.ndim - k
    pads = [(0, 0)] * lead
    for n, kk, s, p, d, out in dims:
        need = (out - 1) * s + d * (kk - 1) + 1  # the padded length the windows reach
        pads.append((p, max(need - n - p, 0)))
    if any(lo or hi for lo, hi in pads):
        x = rd.pad(x, pads, mode="constant", constant_values=fill)
    spans = tuple(d * (kk - 1) + 1 for _, kk, _, _, d, _ in dims)
    v = sliding_window_view(x, spans, axis=tuple(range(lead, x.ndim)))
    index = (slice(None),) * lead
    index += tuple(slice(0, (out - 1) * s + 1, s) for _, _, s, _, _, out in dims)
    index += tuple(slice(None, None, d) for _, _, _, _, d, _ in dims)
    return v[index]


def max_pool(
    x: Array,
    /,
    kernel_size: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    padding: int | Sequence[int] = 0,
    *,
    dilation: int | Sequence[int] = 1,
    ceil_mode: bool = False,
) -> Array:
    """Maximum over windows of the trailing spatial dims (1 to 3; x is (N, C, *spatial), or
    any leading dims when ``kernel_size`` is a tuple, whose length is the spatial rank).
    ``stride`` defaults to ``kernel_size``; ``padding`` (at most half the kernel) pads with
    -inf; ``dilation`` and ``ceil_mode`` as PyTorch's ``max_pool1d/2d/3d``.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.max_pool(np.asarray([[[1.0, 3.0, 2.0, 5.0]]]), 2)
    array([[[3., 5.]]])
    """
    (x,) = arrays("max_pool", x=x)
    check_float("max_pool", "x", x)
    k, dims = _geometry("max_pool", x, kernel_size, stride, padding, dilation, ceil_mode)
    v = _windows(x, k, dims, -math.inf)
    return rd.max(v, axis=tuple(range(v.ndim - k, v.ndim)))


def _counts(dims: list, count_include_pad: bool) -> np.ndarray:
    """The divisor of every output position (PyTorch's avg_pool: the window cut at the padded
    edge, or at the input's edge without count_include_pad), separable over the dims."""
    total = np.ones((), dtype=np.float64)
    for n, kk, s, p, _, out in dims:
        start = np.arange(out) * s - p
        end = np.minimum(start + kk, n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        total = np.multiply.outer(total, (end - start).astype(np.float64))
    return total


def avg_pool(
    x: Array,
    /,
    kernel_size: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    padding: int | Sequence[int] = 0,
    *,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Array:
    """Mean over windows of the trailing spatial dims (1 to 3), PyTorch's ``avg_pool1d/2d/3d``:
    zero padding, counted in the divisor when ``count_include_pad`` (else only the input's
    elements count); ``divisor_override`` replaces the divisor. Summed in float32 for
    float16/bfloat16.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.avg_pool(np.asarray([[[1.0, 3.0, 2.0, 5.0]]]), 2)
    array([[[2. , 3.5]]])
    """
    (x,) = arrays("avg_pool", x=x)
    check_float("avg_pool", "x", x)
    k, dims = _geometry("avg_pool", x, kernel_size, stride, padding, 1, ceil_mode)
    v = _windows(to_acc(x), k, dims, 0.0)
    total = rd.sum(v, axis=tuple(range(v.ndim - k, v.ndim)))
    if divisor_override is not None:
        div = as_int("avg_pool", "divisor_override", divisor_override, minimum=1)
        r = total / float(div)
    else:
        counts = _counts(dims, count_include_pad)
        r = total / rd.asarray(counts, dtype=total.dtype, device=x.device)
    return rd.astype(r, x.dtype, copy=False)


def _bins(n: int, out: int) -> np.ndarray:
    """(out, n): row i averages PyTorch's adaptive bin floor(i n / out) .. ceil((i+1) n / out)."""
    i = np.arange(out)
    start = (i * n) // out
    end = -((-(i + 1) * n) // out)
    cols = np.arange(n)
    inside = (cols >= start[:, None]) & (cols < end[:, None])
    return inside / (end - start)[:, None].astype(np.float64)


def adaptive_avg_pool(x: Array, /, output_size: int | Sequence[int | None]) -> Array:
    """Average pooling to a fixed ``output_size`` over the trailing spatial dims (1 to 3; an int
    for every spatial dim of an (N, C, *spatial) x, or a tuple whose length is the spatial
    rank, None keeping a dim), with PyTorch's bins: output i of a dim of length L averages
    floor(i L / out) to ceil((i + 1) L / out).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.adaptive_avg_pool(np.asarray([[[1.0, 3.0, 2.0, 5.0, 4.0]]]), 2)
    array([[[2.        , 3.66666667]]])
    """
    (x,) = arrays("adaptive_avg_pool", x=x)
    fname = "adaptive_avg_pool"
    check_float(fname, "x", x)
    k = _dims(fname, x, output_size)
    if isinstance(output_size, Sequence) and not isinstance(output_size, str):
        sizes = [None if o is None else as_int(fname, "output_size", o, minimum=1)
                 for o in output_size]  # fmt: skip
    else:
        sizes = [as_int(fname, "output_size", output_size, minimum=1)] * k
    y = to_acc(x)
    for i, o in enumerate(sizes):
        ax = x.ndim - k + i
        n = x.shape[ax]
        if o is None or o == n:
            continue
        if n == 0:
            raise ValueError(f"ruda.nn.{fname}: x's spatial dim {ax} is empty")
        m = rd.asarray(_bins(n, o).T, dtype=y.dtype, device=x.device)  # (n, o)
        y = rd.moveaxis(rd.matmul(rd.moveaxis(y, ax, -1), m), -1, ax)
    return rd.astype(y, x.dtype, copy=False)
