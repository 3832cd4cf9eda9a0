"""CPU elementwise functions where NumPy's special cases differ from the standard's.

Each computes NumPy's result, then repairs only the special-case elements, so ordinary data
pays one cheap check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dispatch import register
from ..._dtypes import float_info, kind_of


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
    if "where" not in kw and (kind_of(an.dtype) == "f" or kind_of(bn.dtype) == "f"):
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


def _subnormal_divisors(b: Any) -> tuple[Any, float] | None:
    """The mask of divisors with only subnormal parts (not 0) and the power of two lifting them."""
    b = np.asarray(b)
    if kind_of(b.dtype) != "c":
        return None
    info = float_info(b.dtype)
    small = (np.maximum(np.abs(b.real), np.abs(b.imag)) < info.tiny) & (b != 0)
    return (small, 2.0 ** (info.nmant + 1)) if small.any() else None


@register("divide", "cpu")
def divide(a: Any, b: Any, out: Any = None, **kw: Any) -> np.ndarray:
    # Note: NumPy's complex division (Smith's) takes 1 / (c + d r), which overflows for a
    # divisor with only subnormal parts (complex64 0 / 1e-45j is NaN); a / b = ka / kb there.
    hot = out is None and not kw
    if hot:  # the hot path: one ufunc call and a dtype check
        r = np.divide(a, b)
        if kind_of(r.dtype) != "c":
            return r
    fix = None if "where" in kw else _subnormal_divisors(b)
    if fix is None:
        return r if hot else np.divide(a, b, out=out, **kw)
    with np.errstate(all="ignore"):  # before the call below: out may be b's own buffer
        q = _scaled_quotient(a, b, fix[1], kw)
    if not hot:
        r = np.divide(a, b, out=out, **kw)
    return _finish(r, q.astype(r.dtype, copy=False), fix[0], out)


def _scaled_quotient(a: Any, b: Any, k: float, kw: dict) -> np.ndarray:
    def scaled(v: Any) -> np.ndarray:
        v = np.asarray(v)
        if kind_of(v.dtype) != "c":
            return v * k
        w = v.copy()  # by parts: v * (k + 0j) would turn a -0 part into +0
        w.real, w.imag = v.real * k, v.imag * k
        return w

    return np.asarray(np.divide(scaled(a), scaled(b), **kw))


@register("expm1", "cpu")
def expm1(x: Any, out: Any = None, **kw: Any) -> np.ndarray:
    # For complex infinities and NaNs the standard follows C99's exp, minus one, and
    # expm1(±0 + 0j) is +0 + 0j (NumPy keeps the -0); on the real axis expm1(x) + 0j where
    # NumPy's exp(x) * sin(0) is inf * 0 = NaN once exp(x) overflows.
    xn = np.asarray(x)
    if kind_of(xn.dtype) != "c" or "where" in kw:
        return np.expm1(x, out=out, **kw)
    bad = ~np.isfinite(xn)
    zero = xn == 0
    axis = (xn.imag == 0) & (xn.real > np.log(float_info(xn.dtype).max)) & ~bad
    if not (bad.any() or zero.any() or axis.any()):
        return np.expm1(x, out=out, **kw)
    with np.errstate(all="ignore"):
        fixed = np.exp(xn) - np.asarray(1, dtype=xn.dtype)
    fixed = np.broadcast_to(fixed, xn.shape).copy()
    fixed.real[zero] = 0.0
    fixed.imag[zero] = xn.imag[zero]
    fixed.real[axis] = np.inf
    fixed.imag[axis] = xn.imag[axis]
    r = np.expm1(x, out=out, **kw)
    return _finish(r, fixed.astype(r.dtype, copy=False), bad | zero | axis, out)


@register("tanh", "cpu")
def tanh(x: Any, out: Any = None, **kw: Any) -> np.ndarray:
    # tanh(±inf + bj) for finite b is ±1 ± 0j (sign of b); NumPy's sign of zero varies.
    r = np.tanh(x, out=out, **kw)
    if kind_of(r.dtype) != "c" or "where" in kw:
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
    # Where |z| overflows NumPy's loop gives inf (its hypot is not scaled); log(1 + z) is exact
    # there (NumPy's complex log scales).
    xn = np.asarray(x)
    if kind_of(xn.dtype) != "c" or "where" in kw:
        return np.log1p(x, out=out, **kw)
    with np.errstate(all="ignore"):
        size = np.abs(xn)
    near = size < 0.5
    far = np.isinf(size) & np.isfinite(xn)
    if not (near.any() or far.any()):
        return np.log1p(x, out=out, **kw)
    with np.errstate(all="ignore"):  # before the call: out may be x's own buffer
        a, b = xn.real.astype(np.float64), xn.imag.astype(np.float64)
        fixed = np.empty(np.shape(xn), np.complex128)  # by parts: 1j * -0.0 has a +0 part
        fixed.real, fixed.imag = 0.5 * np.log1p(2 * a + a * a + b * b), np.arctan2(b, 1 + a)
        u = xn.copy()
        u.real += 1  # 1 + z keeping y's signed zero (1 + 0j would add +0)
        fixed = np.where(far, np.log(u), fixed)
    r = np.log1p(x, out=out, **kw)
    return _finish(r, fixed.astype(r.dtype, copy=False), near | far, out)


@register("sign", "cpu")
def sign(x: Any, out: Any = None, **kw: Any) -> np.ndarray:
    # Note: NumPy's complex sign divides by |z| in the input's precision, so subnormal parts give
    # 1+1j for (t+tj) and parts near the largest float (|z| overflows) 0+1j for (m+mj); scaling
    # z by a power of two first keeps the direction exact.
    xn = np.asarray(x)
    if kind_of(xn.dtype) != "c" or "where" in kw:
        return np.sign(x, out=out, **kw)
    info = float_info(xn.dtype)
    with np.errstate(all="ignore"):  # before the call: out may be x's own buffer
        tiny = (np.maximum(np.abs(xn.real), np.abs(xn.imag)) < info.tiny) & (xn != 0)
        huge = np.isinf(np.abs(xn)) & np.isfinite(xn)
        fix = tiny | huge
        if fix.any():
            scale = np.where(tiny, 2.0 ** (info.nmant + 1), 0.25)
            scaled = xn.copy()  # by parts: z * (s + 0j) would turn a -0 part into +0
            scaled.real, scaled.imag = xn.real * scale, xn.imag * scale
            fixed = np.sign(scaled)
    r = np.sign(x, out=out, **kw)
    if not fix.any():
        return r
    return _finish(r, fixed.astype(r.dtype, copy=False), fix, out)


@register("round_decimals", "cpu")
def round_decimals(x: Any, decimals: int = 0, out: Any = None) -> np.ndarray:
    """``round(x, decimals, out=)``: NumPy's own (the GPUs' is a composition, ``ruda._compose``)."""
    return np.round(x, decimals, out=out)
