"""Layouts of elementwise launches: broadcast strides and the collapse to the lowest rank, C
strides and the byte span of a strided view.

All read only shapes and element strides, so every GPU backend's ``launch_map`` uses them.
"""

from __future__ import annotations

from typing import Any


def axis_last(x: Any, axis: int) -> Any:
    """A view of ``x`` with ``axis`` moved last (``x`` itself when it already is)."""
    if axis == x.ndim - 1:
        return x
    return x.transpose(tuple(d for d in range(x.ndim) if d != axis) + (axis,))


def axis_from_last(y: Any, axis: int) -> Any:
    """The inverse of ``axis_last``: ``y``'s last axis moved back to position ``axis``."""
    if axis == y.ndim - 1:
        return y
    order = list(range(y.ndim - 1))
    order.insert(axis, y.ndim - 1)
    return y.transpose(tuple(order))


def rows_last(ops: Any, x: Any, axis: int) -> Any:
    """``x`` with ``axis`` last, as a plan's kernels can read it (copied when they cannot)."""
    xt = axis_last(x, axis)
    return xt if ops.plan_ready(xt) else ops.copy(xt)


def bstrides(x: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """``x``'s element strides broadcast to ``shape`` (0 where it repeats)."""
    lead = len(shape) - x.ndim
    out = [0] * lead
    for n, s, target in zip(x.shape, x._strides, shape[lead:], strict=True):
        out.append(s if n == target else 0)
    return tuple(out)


def collapse(shape: tuple[int, ...], strides: list[tuple[int, ...]]) -> tuple[tuple, list]:
    """Drop length-1 dims and merge dims that are contiguous in every operand (lower rank)."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if not dims:
        return (), [() for _ in strides]
    new_shape = [shape[dims[0]]]
    new_st = [[s[dims[0]]] for s in strides]
    for d in dims[1:]:
        n = shape[d]
        if all(st[-1] == s[d] * n for st, s in zip(new_st, strides, strict=True)):
            new_shape[-1] *= n
            for st, s in zip(new_st, strides, strict=True):
                st[-1] = s[d]
        else:
            new_shape.append(n)
            for st, s in zip(new_st, strides, strict=True):
                st.append(s[d])
    return tuple(new_shape), [tuple(st) for st in new_st]


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a C-contiguous array of ``shape``."""
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


def span(
    offset: int, shape: tuple[int, ...], strides: tuple[int, ...], isz: int
) -> tuple[int, int]:
    """Lowest and one-past-highest byte of elements at ``offset`` with element ``strides``."""
    lo = hi = offset
    for n, s in zip(shape, strides, strict=True):
        if n == 0:
            return offset, offset
        if s > 0:
            hi += (n - 1) * s * isz
        else:
            lo += (n - 1) * s * isz
    return lo, hi + isz


__all__ = ["bstrides", "c_strides", "collapse", "span"]
