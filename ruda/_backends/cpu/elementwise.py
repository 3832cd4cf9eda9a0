"""CPU elementwise functions where NumPy's special cases differ from the standard's.

Each computes NumPy's result, then repairs only the special-case elements, so ordinary data
pays one cheap check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dispatch import register


def _finish(r: np.ndarray, fixed: np.ndarray, mask: np.ndarray, out: Any) -> np.ndarray:
    if out is None and r.ndim == 0:
        return np.asarray(np.where(mask, fixed, r))
    np.copyto(r, fixed, where=mask)
    return r


@register("floor_divide", "cpu")
def floor_divide(a: Any, b: Any, out: Any = None, **kw: Any) -> np.ndarray:
    # The standard: floor_divide(±inf, finite) is ±inf and floor_divide(finite, ±inf) is ±0,
    # where NumPy gives NaN and -1 (its floor of the exact quotient).
    an, bn = np.asarray(a), np.asarray(b)
    fix = None
    if "where" not in kw and (an.dtype.kind == "f" or bn.dtype.kind == "f"):
        ia, ib = np.isinf(an), np.isinf(bn)
        if ia.any() or ib.any():
            with np.errstate(all="ignore"):  # before the call: out may be a's own buffer
                q = np.true_divide(an, bn)
                fa = ia & np.isfinite(bn) & (bn != 0)
                mask = fa | (ib & np.isfinite(an))
                fix = (np.where(fa, q, np.floor(q)), mask)
    r = np.floor_divide(a, b, out=out, **kw)
    if fix is None:
        return r
    return _finish(r, fix[0].astype(r.dtype, copy=False), fix[1], out)


@register("expm1", "cpu")
def expm1(x: Any, out: Any = None, **kw: Any) -> np.ndarray:
    # For complex infinities and NaNs the standard follows C99's exp, minus one, and
    # expm1(±0 + 0j) is +0 + 0j (NumPy keeps the -0).
    xn = np.asarray(x)
    if xn.dtype.kind != "c" or "where" in kw:
        return np.expm1(x, out=out, **kw)
    bad = ~np.isfinite(xn)
    zero = xn == 0
    if not (bad.any() or zero.any()):
        return np.expm1(x, out=out, **kw)
    with np.errstate(all="ignore"):
        fixed = np.exp(xn) - np.asarray(1, dtype=xn.dtype)
    fixed = np.broadcast_to(fixed, xn.shape).copy()
    fixed.real[zero] = 0.0
    fixed.imag[zero] = xn.imag[zero]
    r = np.expm1(x, out=out, **kw)
    return _finish(r, fixed.astype(r.dtype, copy=False), bad | zero, out)


@register("tanh", "cpu")
def tanh(x: Any, out: Any = None, **kw: Any) -> np.ndarray:
    # tanh(±inf + bj) for finite b is ±1 ± 0j (sign of b); NumPy's sign of zero varies.
    r = np.tanh(x, out=out, **kw)
    if r.dtype.kind != "c" or "where" in kw:
        return r
    x = np.asarray(x)
    bad = np.isinf(x.real) & np.isfinite(x.imag)
    if not bad.any():
        return r
    fixed = np.empty(x.shape, r.dtype)  # parts set apart: 1j * -0.0 would give a +0 part
    fixed.real, fixed.imag = np.sign(x.real), np.copysign(0.0, x.imag)
    return _finish(r, fixed, bad, out)


@register("log1p", "cpu")
def log1p(x: Any, out: Any = None, **kw: Any) -> np.ndarray:
    # Note: NumPy's complex log1p is log(1 + z), which loses every digit for |z| < 1e-16; near
    # 0 the real part is 0.5 log1p(2x + x^2 + y^2) (that is |1 + z|^2 - 1), the imaginary atan2.
    xn = np.asarray(x)
    if xn.dtype.kind != "c" or "where" in kw:
        return np.log1p(x, out=out, **kw)
    near = np.abs(xn) < 0.5
    if not near.any():
        return np.log1p(x, out=out, **kw)
    with np.errstate(all="ignore"):  # before the call: out may be x's own buffer
        a, b = xn.real.astype(np.float64), xn.imag.astype(np.float64)
        fixed = 0.5 * np.log1p(2 * a + a * a + b * b) + 1j * np.arctan2(b, 1 + a)
    r = np.log1p(x, out=out, **kw)
    return _finish(r, fixed.astype(r.dtype, copy=False), near, out)


@register("sign", "cpu")
def sign(x: Any, out: Any = None, **kw: Any) -> np.ndarray:
    # Note: NumPy's complex sign divides by |z| in the input's precision, so subnormal parts give
    # 1+1j for (t+tj); scaling z by a power of two first keeps the direction exact.
    r = np.sign(x, out=out, **kw)
    xn = np.asarray(x)
    if r.dtype.kind != "c" or "where" in kw:
        return r
    info = np.finfo(xn.dtype)
    tiny = np.maximum(np.abs(xn.real), np.abs(xn.imag)) < info.tiny
    if not (tiny & (xn != 0)).any():
        return r
    with np.errstate(all="ignore"):
        fixed = np.sign(xn * xn.real.dtype.type(2.0 ** (info.nmant + 1)))
    return _finish(r, fixed, tiny, out)
