"""NumPy's tests and repairs of special values (nan_to_num, isposinf, isneginf, iscomplex,
isreal, real_if_close) on the GPU backends: compositions of ruda's device ops.

Each takes NumPy's arguments with native arrays in place of ndarrays and returns a native array
(``real_if_close`` and ``nan_to_num(copy=False)`` return their argument itself, as NumPy).
"""

from __future__ import annotations

from typing import Any

from .._dtypes import float_info, kind_of
from .common import (
    complex_of,
    compositions,
    rd,
)


def _out(r: Any, out: Any) -> Any:
    if out is None:
        return r
    out[...] = r
    return out


def _finite(rd: Any, d: Any, nan: Any, posinf: Any, neginf: Any) -> Any:
    """``d`` (real) with NaN, +inf and -inf replaced; the masks are all taken from ``d``."""
    isnan, pos, neg = rd.isnan(d), d == rd.inf, d == -rd.inf
    return rd.where(neg, neginf, rd.where(pos, posinf, rd.where(isnan, nan, d)))


def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:  # fmt: skip
    """NaN -> ``nan``, +-inf -> ``posinf``/``neginf`` (default: the dtype's largest finite
    values), complex parts each; other dtypes unchanged. ``copy=False`` writes ``x`` in place."""
    a = x
    if kind_of(x.dtype) not in "fc":
        return x if not copy else rd.astype(a, a.dtype, copy=True)
    info = float_info(x.dtype)  # of the parts, for complex
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    if kind_of(x.dtype) == "c":
        re, im = (_finite(rd, p, nan, hi, lo) for p in (rd.real(a), rd.imag(a)))
        r = complex_of(re, im)
    else:
        r = _finite(rd, a, nan, hi, lo)
    if copy:
        return r
    a[...] = r
    return x


def _inf_test(name: str, positive: bool) -> Any:
    def fn(x: Any, out: Any = None) -> Any:
        a = x
        return _out(rd.isinf(a) & ((a > 0) if positive else (a < 0)), out)

    fn.__name__ = name
    fn.__doc__ = f"Whether each element is {'+' if positive else '-'}inf (real input)."
    return fn


def iscomplex(x: Any) -> Any:
    """Whether each imaginary part is nonzero (all False for a real dtype)."""
    a = x
    if kind_of(x.dtype) == "c":
        return rd.imag(a) != 0
    return rd.zeros(a.shape, dtype=rd.bool, device=a.device)


def isreal(x: Any) -> Any:
    """Whether each imaginary part is zero (all True for a real dtype)."""
    a = x
    if kind_of(x.dtype) == "c":
        return rd.imag(a) == 0
    return rd.ones(a.shape, dtype=rd.bool, device=a.device)


def real_if_close(a: Any, tol: float = 100) -> Any:
    """The real part if every imaginary part is below ``tol`` (in machine epsilons when
    ``tol > 1``), else ``a`` itself."""
    if kind_of(a.dtype) != "c":
        return a
    z = a
    if tol > 1:
        tol = float(float_info(a.dtype).eps) * tol
    # One read-back: the result's dtype depends on the data, as in NumPy.
    if bool(rd.all(rd.abs(rd.imag(z)) < tol).to_device("cpu")):
        return rd.real(z)
    return a


compositions({"nan_to_num": nan_to_num, "isposinf": _inf_test("isposinf", True),
            "isneginf": _inf_test("isneginf", False), "iscomplex": iscomplex,
            "isreal": isreal, "real_if_close": real_if_close})  # fmt: skip


__all__ = ["iscomplex", "isreal", "nan_to_num", "real_if_close"]
