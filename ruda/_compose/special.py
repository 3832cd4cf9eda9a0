"""The table's elementwise functions without a single-kernel expression (divmod, modf, frexp,
heaviside, spacing, isnat) on the GPU backends, composed of ruda's device elementwise ops.
(gcd and lcm are single kernels: ``mathlib.gcd``'s Euclid loop runs on the device.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import (
    compositions,
    rd,
)


def _operands(*vs: Any) -> tuple[Any, ...]:
    """The ruda namespace and the operands as ruda arrays on the array operands' device."""
    return (rd, *vs)


def _out(rd: Any, rs: Any, out: Any) -> Any:
    if out is None:
        return tuple(r for r in rs) if isinstance(rs, tuple) else rs
    outs = out if isinstance(out, tuple) else (out,)
    for o, r in zip(outs, rs if isinstance(rs, tuple) else (rs,), strict=True):
        o[...] = r
    return out


def _kw(name: str, kw: dict) -> None:
    if kw:
        raise NotImplementedError(f"ruda.{name}: the keyword(s) {', '.join(sorted(kw))} are not "
                                  "implemented on this GPU backend yet")  # fmt: skip


def divmod_(x: Any, y: Any, out: Any = None, **kw: Any) -> Any:
    """(floor_divide, remainder), NumPy's ``divmod``."""
    _kw("divmod", kw)
    rd, a, b = _operands(x, y)
    return _out(rd, (rd.floor_divide(a, b), rd.remainder(a, b)), out)


def modf(x: Any, out: Any = None, **kw: Any) -> Any:
    """(fractional part, integral part), both with ``x``'s sign; inf gives (±0, ±inf)."""
    _kw("modf", kw)
    rd, a = _operands(x)
    if not rd.isdtype(a.dtype, "real floating"):
        a = rd.astype(a, rd.float64 if a.dtype.itemsize > 2 or a.dtype == rd.bool else rd.float32)
    i = rd.trunc(a)
    f = rd.where(rd.isinf(a), rd.copysign(rd.zeros_like(a), a), a - i)
    return _out(rd, (f, i), out)


def frexp(x: Any, out: Any = None, **kw: Any) -> Any:
    """(mantissa in [0.5, 1), int32 exponent) with ``x == m * 2**e``; 0, inf, nan give e = 0."""
    _kw("frexp", kw)
    rd, a = _operands(x)
    if not rd.isdtype(a.dtype, "real floating"):
        a = rd.astype(a, rd.float64)
    finite = rd.isfinite(a) & (a != 0)
    mag = rd.where(finite, rd.abs(a), 1.0)
    # log2 rounds near powers of two: one correction step each way makes it exact.
    e = rd.astype(rd.floor(rd.log2(rd.astype(mag, rd.float64))), rd.int32) + 1
    m = rd.ldexp(mag, -e)
    up, down = m >= 1, m < 0.5
    e = e + rd.astype(up, rd.int32) - rd.astype(down, rd.int32)
    m = rd.ldexp(mag, -e)
    m = rd.where(finite, rd.copysign(m, a), a)
    return _out(rd, (m, rd.where(finite, e, 0)), out)


def heaviside(x: Any, y: Any, out: Any = None, **kw: Any) -> Any:
    """0 where ``x < 0``, ``y`` where ``x == 0``, 1 where ``x > 0``; NaN stays NaN."""
    _kw("heaviside", kw)
    rd, a, b = _operands(x, y)
    dt = rd.result_type(a, b)
    if dt != rd.bfloat16:  # NumPy's loop, Python scalars weak: heaviside(int8, 0.5) is float16
        try:
            dt = rd.dtype(np.heaviside.resolve_dtypes((_weak(a), _weak(b), None))[-1].name)
        except TypeError as e:
            raise TypeError(f"ruda.heaviside: {e}") from None
    dt = dt if rd.isdtype(dt, "real floating") else rd.float64
    a = rd.astype(a, dt)
    r = rd.where(a < 0, 0.0, rd.where(a > 0, 1.0, b))
    return _out(rd, rd.astype(rd.where(rd.isnan(a), a, r), dt), out)


def _weak(v: Any) -> Any:
    """What ``ufunc.resolve_dtypes`` takes for an operand: a dtype, or a weak Python type."""
    if hasattr(v, "dtype"):
        return np.dtype(v.dtype.name) if not isinstance(v, np.generic) else v.dtype
    return np.dtype(np.bool_) if isinstance(v, bool) else type(v)


def spacing(x: Any, out: Any = None, **kw: Any) -> Any:
    """The gap from ``x`` to the next float away from zero, with ``x``'s sign (inf, nan: nan)."""
    _kw("spacing", kw)
    rd, a = _operands(x)
    if not rd.isdtype(a.dtype, "real floating"):  # NumPy's loop: int8 -> float16, ...
        loop = np.spacing.resolve_dtypes((np.dtype(a.dtype.name), None))[-1]
        a = rd.astype(a, rd.dtype(loop.name))
    m = rd.abs(a)
    g = rd.nextafter(m, rd.asarray(rd.inf, dtype=a.dtype, device=a.device)) - m
    # ml_dtypes' bfloat16 loop takes the sign bit's side (spacing(-0.0) is -tiny), NumPy's x < 0
    neg = rd.signbit(a) if a.dtype == rd.bfloat16 else a < 0
    return _out(rd, rd.where(neg, -g, g), out)


def isnat(x: Any, out: Any = None, **kw: Any) -> Any:
    """NumPy's ``isnat``: ruda has no datetime dtypes, so every input is a TypeError (as NumPy)."""
    raise TypeError("ufunc 'isnat' is only defined for np.datetime64 and np.timedelta64.")


compositions({"divmod": divmod_, "modf": modf, "frexp": frexp, "heaviside": heaviside,
            "isnat": isnat,
            "spacing": spacing})  # fmt: skip


__all__ = ["frexp", "heaviside", "modf"]
