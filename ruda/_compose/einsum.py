"""einsum and einsum_path on the GPU backends: NumPy's parser and path finder on shapes, the
contractions as ruda's device ops.

NumPy's ``einsum_path`` reads only shapes, so it gets zero-stride stand-ins (no data) in place
of the device arrays: it parses the subscripts ('...', implicit output, the interleaved form),
checks the sizes and picks the pairwise order (``optimize``). Each step then runs here as
diagonal views, sums over letters nothing else needs, transposes, and one batched product per
pair: ``matmul`` for floating dtypes; a broadcast multiply and a sum for integers and booleans,
so that they are exact (NumPy wraps integers modulo 2**bits; booleans are AND then OR) and need
no integer GEMM (cuBLAS has none).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .common import (
    Array,
    compositions,
    rd,
)

# Integer and boolean products: at most this many elements in one broadcast multiply.
INT_PRODUCT_ELEMENTS = 1 << 24
_SHAPE_ONLY = np.zeros((), np.uint8)
_KWARGS = ("dtype", "order", "casting")


def _standins(operands: tuple) -> tuple[list[Any], list[Any]]:
    """The operands with every device array replaced by a zero-stride host stand-in of its
    shape (what NumPy's parser reads), and the device arrays in order."""
    host, natives = [], []
    for o in operands:
        if isinstance(o, Array):  # a GPU backend's native array
            natives.append(o)
            host.append(np.broadcast_to(_SHAPE_ONLY, o.shape))
        else:
            host.append(o)
    return host, natives


def _npdt(d: Any) -> np.dtype:
    """NumPy's dtype for a ruda DType (or anything ``np.dtype`` takes)."""
    n = getattr(d, "_np", None)
    return np.dtype(d) if n is None else n


def _reduce(rd: Any, x: Any, axes: tuple[int, ...]) -> Any:
    """Sum over ``axes`` in ``x``'s own dtype (booleans: OR, as NumPy's einsum does)."""
    if not axes:
        return x
    if x.dtype == rd.bool:
        return rd.any(x, axis=axes)
    return rd.sum(x, axis=axes, dtype=x.dtype)


def _prepare(rd: Any, x: Any, s: str, keep: set[str]) -> tuple[Any, str]:
    """Diagonals for repeated letters, then sums over the letters not in ``keep``."""
    while len(set(s)) < len(s):
        c = next(c for c in s if s.count(c) > 1)
        i, j = s.index(c), s.index(c, s.index(c) + 1)
        if x.shape[i] != x.shape[j]:  # a size-1 label broadcasts against the other
            n = x.shape[i] if x.shape[j] == 1 else x.shape[j]
            x = rd.broadcast_to(x, tuple(n if k in (i, j) else d for k, d in enumerate(x.shape)))
        x = rd.diagonal(x, 0, i, j)  # the diagonal becomes the last axis
        s = s[:i] + s[i + 1 : j] + s[j + 1 :] + c
    drop = tuple(k for k, c in enumerate(s) if c not in keep)
    return _reduce(rd, x, drop), "".join(c for c in s if c in keep)


def _arrange(rd: Any, x: Any, s: str, order: list[str], size: dict[str, int]) -> Any:
    """``x`` with its letters permuted to ``order``, size-1 labels broadcast to ``size``."""
    x = rd.permute_dims(x, tuple(s.index(c) for c in order))
    shape = tuple(size[c] for c in order)
    return x if x.shape == shape else rd.broadcast_to(x, shape)


def _bmm(rd: Any, a: Any, b: Any) -> Any:
    """(nb, M, K) @ (nb, K, N): matmul for inexact dtypes, else a multiply and an exact sum,
    in blocks of rows so that no product exceeds INT_PRODUCT_ELEMENTS."""
    if rd.isdtype(a.dtype, ("real floating", "complex floating")):
        return rd.matmul(a, b)
    nb, m, k = a.shape
    n = b.shape[-1]
    bt = rd.matrix_transpose(b)[:, None, :, :]
    step = max(1, INT_PRODUCT_ELEMENTS // max(1, nb * n * k))
    parts = [_reduce(rd, a[:, r : r + step, None, :] * bt, (3,)) for r in range(0, m, step)]
    return parts[0] if len(parts) == 1 else rd.concat(parts, axis=1)


def _sizes(x: Any, s: str) -> dict[str, int]:
    return dict(zip(s, x.shape, strict=True))


def _pair(rd: Any, a: Any, sa: str, b: Any, sb: str, keep: set[str]) -> tuple[Any, str]:
    """Contract two prepared terms, keeping the letters in ``keep``."""
    size = _sizes(a, sa)
    for c, n in _sizes(b, sb).items():  # a size-1 label broadcasts (to 0 too)
        size[c] = n if size.get(c, 1) == 1 else size[c]
    batch = [c for c in sa if c in sb and c in keep]
    con = [c for c in sa if c in sb and c not in keep]
    fa = [c for c in sa if c not in sb]
    fb = [c for c in sb if c not in sa]
    out = "".join(batch + fa + fb)
    if not con:  # an outer (or elementwise) product: one broadcast multiply
        x = rd.permute_dims(a, tuple(sa.index(c) for c in batch + fa))
        y = rd.permute_dims(b, tuple(sb.index(c) for c in batch + fb))
        nb = len(batch)
        x = x[(slice(None),) * (nb + len(fa)) + (None,) * len(fb)]
        y = y[(slice(None),) * nb + (None,) * len(fa)]
        return x * y, out
    x = _arrange(rd, a, sa, batch + fa + con, size)
    y = _arrange(rd, b, sb, batch + con + fb, size)
    nb, m, k, n = (math.prod(size[c] for c in g) for g in (batch, fa, con, fb))
    z = _bmm(rd, rd.reshape(x, (nb, m, k)), rd.reshape(y, (nb, k, n)))
    return rd.reshape(z, tuple(size[c] for c in out)), out


def _step(rd: Any, terms: list[Any], subs: list[str], out: str) -> Any:
    """One contraction of the path: ``subs[0],subs[1],...->out`` over ``terms``."""
    keep_of = [set(out).union(*(subs[:i] + subs[i + 1 :])) for i in range(len(subs))]
    work = [_prepare(rd, x, s, k) for x, s, k in zip(terms, subs, keep_of, strict=True)]
    while len(work) > 1:
        (a, sa), (b, sb) = work[0], work[1]
        keep = set(out).union(*(s for _, s in work[2:]))
        work = [_pair(rd, a, sa, b, sb, keep), *work[2:]]
    x, s = work[0]
    return rd.permute_dims(x, tuple(s.index(c) for c in out)) if s != out else x


def _result_dtype(rd: Any, arrays: list[Any], dtype: Any, casting: str) -> Any:
    """NumPy's einsum dtype: the operands' result type, or ``dtype`` if they cast to it."""
    if dtype is None:
        return getattr(rd, np.result_type(*(_npdt(a.dtype) for a in arrays)).name)
    want = _npdt(dtype)
    for a in arrays:
        if not np.can_cast(_npdt(a.dtype), want, casting):
            raise TypeError(f"Cannot cast array data from {_npdt(a.dtype)!r} to {want!r} "
                            f"according to the rule {casting!r}")  # fmt: skip
    return getattr(rd, want.name)


def einsum(*operands: Any, out: Any = None, optimize: Any = False, **kwargs: Any) -> Any:
    """NumPy's einsum over device arrays (subscripts or interleaved form)."""
    unknown = [k for k in kwargs if k not in _KWARGS]
    if unknown:
        raise TypeError(f"Did not understand the following kwargs: {unknown}")
    host, natives = _standins(operands)
    # Note: optimize=False contracts pairwise too (greedy order), not in one nested loop.
    # Note: order= is accepted; GPU results are C-ordered.
    path = "greedy" if optimize is False or optimize is None else optimize
    _, steps = np.einsum_path(*host, optimize=path, einsum_call=True)
    casting = kwargs.get("casting", "safe")
    arrays = list(natives)
    r = _result_dtype(rd, arrays, kwargs.get("dtype"), casting)
    work = [rd.astype(a, r, copy=False) for a in arrays]
    for inds, eq, _rest in steps:
        terms = [work.pop(i) for i in inds]
        lhs, rhs = eq.split("->")
        work.append(_step(rd, terms, lhs.split(","), rhs))
    res = work[0]
    if out is None:
        return res
    o = out
    if not np.can_cast(_npdt(r), _npdt(o.dtype), casting):
        raise TypeError(f"Cannot cast einsum output from {_npdt(r)!r} to {_npdt(o.dtype)!r} "
                        f"according to the rule {casting!r}")  # fmt: skip
    if o.shape != res.shape:
        raise ValueError(f"out has shape {o.shape}, the result {res.shape}")
    o[...] = res
    return out


def einsum_path(*operands: Any, optimize: Any = "greedy", einsum_call: bool = False) -> Any:
    """NumPy's einsum_path (it reads shapes only): the path and its printable report."""
    host, natives = _standins(operands)
    res = np.einsum_path(*host, optimize=optimize, einsum_call=einsum_call)
    return (natives, res[1]) if einsum_call else res


compositions({"einsum": einsum, "einsum_path": einsum_path})


__all__ = ["INT_PRODUCT_ELEMENTS", "einsum", "einsum_path"]
