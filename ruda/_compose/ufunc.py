"""NumPy's ufunc methods (``ruda.add.reduce``, ``multiply.accumulate``, ``subtract.outer``) on
the GPU backends: the device reductions, scans and broadcasting elementwise ops they amount to.

``at`` beyond add/subtract with one index array, ``reduceat``, and reduce/accumulate of
ufuncs without a device reduction or scan are not composed yet (the dispatch table raises
NotImplementedError naming the method).
"""

from __future__ import annotations

from typing import Any

from .._ops import ELEMENTWISE
from .common import (
    Array,
    composition,
    rd,
)

# ufunc -> the ruda reduction it amounts to (NumPy's identity-free ones need no initial=).
_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}  # fmt: skip
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}


def _out(r: Any, out: Any) -> Any:
    if isinstance(out, tuple):
        out = out[0]
    if out is None:
        return r
    out[...] = r
    return out


def _reduce(name: str) -> Any:
    def fn(x: Any, axis: Any = 0, dtype: Any = None, out: Any = None, keepdims: bool = False,
           **kw: Any) -> Any:  # fmt: skip
        a = x
        red = _REDUCE[name]
        if dtype is not None:
            kw["dtype"] = dtype
        if red in ("max", "min", "all", "any"):
            kw.pop("dtype", None)
            a = a if dtype is None else rd.astype(a, dtype)
        r = getattr(rd, red)(a, axis=axis, keepdims=keepdims, **kw)
        return _out(r, out)

    fn.__name__ = f"{name}.reduce"
    return fn


def _accumulate(name: str) -> Any:
    def fn(x: Any, axis: int = 0, dtype: Any = None, out: Any = None) -> Any:
        a = x
        scan = _ACCUMULATE[name]
        r = getattr(rd, scan)(a, axis=axis, dtype=dtype)  # NumPy 2 widens small ints alike
        return _out(r, out)

    fn.__name__ = f"{name}.accumulate"
    return fn


def _outer(name: str) -> Any:
    def fn(x: Any, y: Any, out: Any = None, **kw: Any) -> Any:
        a = x
        b = y if isinstance(y, Array) else rd.asarray(y, device=a.device)
        r = getattr(rd, name)(rd.reshape(a, a.shape + (1,) * b.ndim), b, **kw)
        return _out(r, out)

    fn.__name__ = f"{name}.outer"
    return fn


def _at(name: str) -> Any:
    def fn(x: Any, indices: Any, b: Any = None) -> None:
        a = x
        if isinstance(indices, tuple) or isinstance(indices, slice) or b is None or a.ndim == 0:
            raise NotImplementedError(f"ruda.{name}.at: only one integer index array (along the "
                                      f"first axis) is implemented on {a.device} yet")  # fmt: skip
        idx = indices if isinstance(indices, Array) else rd.asarray(indices, device=a.device)
        if not rd.isdtype(idx.dtype, "integral"):
            raise IndexError(f"ruda.{name}.at: indices must be integers, got {idx.dtype}")
        n = a.shape[0]
        idx = rd.reshape(idx, (-1,))
        if bool(rd.any((idx < -n) | (idx >= n)).to_device("cpu")):  # one read-back: IndexError
            raise IndexError(f"ruda.{name}.at: index out of bounds for axis 0 with size {n}")
        idx = rd.where(idx < 0, idx + n, idx)
        v = b if isinstance(b, Array) else rd.asarray(b, device=a.device)
        v = rd.broadcast_to(v, (idx.shape[0],) + a.shape[1:])
        # Repeated indices accumulate: a one-hot (n, k) matrix times the k updates.
        hot = rd.astype(rd.arange(n, device=a.device)[:, None] == idx[None, :], v.dtype)
        delta = rd.reshape(rd.matmul(hot, rd.reshape(v, (idx.shape[0], -1))), a.shape)
        # Note: the updates to one element are summed first, then applied once (NumPy: in turn).
        a[...] = getattr(rd, name)(a, delta)

    fn.__name__ = f"{name}.at"
    return fn


# ``<ufunc>.reduce`` / ``.accumulate`` / ``.outer`` (``.at``: add, subtract) by ufunc
for _op in ELEMENTWISE:
    if _op.ufunc and _op.arity == 2:
        composition(f"{_op.name}.outer")(_outer(_op.name))
        if _op.name in _REDUCE:
            composition(f"{_op.name}.reduce")(_reduce(_op.name))
        if _op.name in _ACCUMULATE:
            composition(f"{_op.name}.accumulate")(_accumulate(_op.name))
        if _op.name in ("add", "subtract"):
            composition(f"{_op.name}.at")(_at(_op.name))
del _op


__all__: list[str] = []
