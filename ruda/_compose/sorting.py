"""partition, argpartition, lexsort and sort_complex on the GPU backends, composed of ruda's
device sorts (stable radix/merge sorts) and gathers.
"""

from __future__ import annotations

import math
from typing import Any

from .common import (
    Array,
    compositions,
    rd,
)


def _kth_ok(rd: Any, a: Any, kth: Any, axis: Any, name: str) -> None:
    n = a.size if axis is None else a.shape[axis]
    ks = [kth] if isinstance(kth, int) else list(kth) if not isinstance(kth, Array) else []
    for k in ks:
        if not -n <= int(k) < n:
            raise ValueError(f"ruda.{name}: kth(={k}) out of bounds ({n})")


def partition(x: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
              order: Any = None) -> Any:  # fmt: skip
    """Elements ``kth`` in their sorted places, smaller before, larger after."""
    # Note: a full (stable) sort: it meets NumPy's contract, whose other orders are undefined.
    a = x
    _kth_ok(rd, a, kth, axis, "partition")
    if axis is None:
        return rd.sort(rd.reshape(a, (-1,)))
    return rd.sort(a, axis=axis)


def argpartition(x: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
                 order: Any = None) -> Any:  # fmt: skip
    """Indices that partition ``x`` around ``kth`` (a stable argsort; see ``partition``)."""
    a = x
    _kth_ok(rd, a, kth, axis, "argpartition")
    if axis is None:
        return rd.argsort(rd.reshape(a, (-1,)))
    return rd.argsort(a, axis=axis)


def _lexsort(rd: Any, keys: list[Any]) -> Any:
    # The last key is the primary one: stable sorts from the first key to the last.
    idx = rd.argsort(keys[0], stable=True)
    for k in keys[1:]:
        idx = rd.take(idx, rd.argsort(rd.take(k, idx), stable=True))
    return idx


def lexsort(keys: Any, axis: int = -1) -> Any:
    """Indices sorting by the last key, ties by the one before, ... (1-D keys)."""
    if isinstance(keys, tuple):
        ks = [k for k in keys]
    else:
        k2 = keys
        ks = [k2[i] for i in range(k2.shape[0])]
    if not ks:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if any(k.ndim != 1 for k in ks):
        raise NotImplementedError("ruda.lexsort: only 1-D keys are implemented on GPU yet")
    if len({k.shape for k in ks}) != 1:
        raise ValueError("all keys need to be the same shape")
    return _lexsort(rd, ks)


def sort_complex(x: Any) -> Any:
    """``x`` as complex, sorted by real part, then imaginary part."""
    a = x
    if not rd.isdtype(a.dtype, "complex floating"):
        ct = rd.complex64 if a.dtype == rd.float32 else rd.complex128
        a = rd.astype(a, ct)
    return rd.sort(a, axis=-1)  # NumPy's complex order, values with a NaN part last


def _unique_rows(rd: Any, a: Any, axis: int) -> Any:
    """The distinct slices of ``a`` along ``axis``, in lexicographic order."""
    m = rd.moveaxis(a, axis, 0)
    rows = rd.reshape(m, (m.shape[0], math.prod(m.shape[1:])))  # not -1: m may be empty
    if rows.shape[0] == 0 or rows.shape[1] == 0:
        return rd.moveaxis(m[:1] if rows.shape[0] else m, 0, axis)
    s = rd.take(rows, _lexsort(rd, [rows[:, j] for j in range(rows.shape[1] - 1, -1, -1)]), axis=0)
    first = rd.ones(1, dtype=rd.bool, device=a.device)
    keep = rd.concat([first, rd.any(s[1:] != s[:-1], axis=1)])
    u = rd.take(s, rd.nonzero(keep)[0], axis=0)
    return rd.moveaxis(rd.reshape(u, (u.shape[0],) + m.shape[1:]), 0, axis)


def unique(x: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Any = None, equal_nan: bool = True,
           sorted: bool = True) -> Any:  # fmt: skip
    """NumPy's ``unique``: the sorted distinct values (NaNs as one when ``equal_nan``)."""
    a = x
    extra = return_index or return_inverse or return_counts
    if axis is not None:
        if extra:
            raise NotImplementedError(
                "ruda.unique: return_index/inverse/counts with axis= are not implemented on GPU yet"
            )
        return _unique_rows(rd, a, axis)
    flat = rd.reshape(a, (-1,))
    r = rd.unique_all(flat)
    vals, first, inv, cnt = r.values, r.indices, r.inverse_indices, r.counts
    if equal_nan and rd.isdtype(vals.dtype, ("real floating", "complex floating")):
        nans = int(rd.sum(rd.astype(rd.isnan(vals), rd.int64)).to_device("cpu"))  # a size
        if nans > 1:  # NaNs sort last: fold them into the first of them
            k = vals.shape[0] - nans
            if not extra and rd.isdtype(vals.dtype, "complex floating"):
                # NumPy's hashed unique (no indices asked) keeps the first NaN of the input,
                # its sorting one (indices asked) the first in sorted order, as below
                at = rd.min(first[k:], keepdims=True)
                vals = rd.concat([vals[:k], rd.take(flat, at)])
            vals, first = vals[: k + 1], first[: k + 1]
            cnt = rd.concat([cnt[:k], rd.sum(cnt[k:], keepdims=True)])
            inv = rd.where(inv > k, k, inv)
    if not extra:
        return vals
    out = [vals]
    out += [first] if return_index else []
    out += [rd.reshape(inv, a.shape)] if return_inverse else []
    out += [cnt] if return_counts else []
    return tuple(v for v in out)


def _pair1d(a: Any, b: Any) -> tuple[Any, Any, Any]:
    like = a if isinstance(a, Array) else b
    x = like
    wrap = lambda v: v if isinstance(v, Array) else rd.asarray(v, device=x.device)  # noqa: E731
    return rd, rd.reshape(wrap(a), (-1,)), rd.reshape(wrap(b), (-1,))


def _u(rd: Any, v: Any) -> Any:
    return unique(v)


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False,
                return_indices: bool = False) -> Any:  # fmt: skip
    """The sorted values in both (with their first indices in each when asked)."""
    rd, a, b = _pair1d(ar1, ar2)
    dt = rd.result_type(a, b)
    a, b = rd.astype(a, dt), rd.astype(b, dt)
    ia = ib = None
    if return_indices:
        ua, ub = rd.unique_all(a), rd.unique_all(b)
        a, ia, b, ib = ua.values, ua.indices, ub.values, ub.indices
    elif not assume_unique:
        a, b = _u(rd, a), _u(rd, b)
    aux = rd.concat([a, b])
    order = rd.argsort(aux, stable=True)
    s = rd.take(aux, order)
    hit = rd.nonzero(s[1:] == s[:-1])[0]
    vals = rd.take(s[:-1], hit)
    if not return_indices:
        return vals
    i1 = rd.take(ia, rd.take(order[:-1], hit))
    i2 = rd.take(ib, rd.take(order[1:], hit) - a.shape[0])
    return vals, i1, i2


def union1d(ar1: Any, ar2: Any) -> Any:
    """The sorted values in either."""
    rd, a, b = _pair1d(ar1, ar2)
    dt = rd.result_type(a, b)
    return unique(rd.concat([rd.astype(a, dt), rd.astype(b, dt)]))


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """The values of ``ar1`` not in ``ar2`` (sorted and unique unless ``assume_unique``)."""
    rd, a, b = _pair1d(ar1, ar2)
    a = a if assume_unique else _u(rd, a)
    return rd.take(a, rd.nonzero(~rd.isin(a, b))[0])


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """The sorted values in exactly one of the two."""
    rd, a, b = _pair1d(ar1, ar2)
    dt = rd.result_type(a, b)
    a, b = rd.astype(a, dt), rd.astype(b, dt)
    if not assume_unique:
        a, b = _u(rd, a), _u(rd, b)
    s = rd.sort(rd.concat([a, b]))
    if s.shape[0] == 0:
        return s
    t = rd.ones(1, dtype=rd.bool, device=s.device)
    flag = rd.concat([t, s[1:] != s[:-1], t])
    return rd.take(s, rd.nonzero(flag[1:] & flag[:-1])[0])


compositions({"partition": partition, "argpartition": argpartition, "lexsort": lexsort,
            "sort_complex": sort_complex, "unique": unique, "intersect1d": intersect1d,
            "union1d": union1d, "setdiff1d": setdiff1d, "setxor1d": setxor1d})  # fmt: skip


__all__ = ["argpartition", "lexsort", "partition", "sort_complex"]
