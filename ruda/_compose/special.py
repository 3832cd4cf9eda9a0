"""The table's elementwise functions without a single kernel (``Op.native`` false: divmod,
modf, frexp, isnat) on the GPU backends, composed of ruda's device elementwise ops.
(gcd and lcm are single kernels: ``mathlib.gcd``'s Euclid loop runs on the device.)
"""

from __future__ import annotations

from typing import Any

from .._ops import OPS
from .._ufunc import loop_dtype
from .common import (
    compositions,
    rd,
)


def _loop(name: str, a: Any) -> Any:
    """``a`` in NumPy's loop dtype of ``name`` (int8 and bool: float16, int32: float64...)."""
    if rd.isdtype(a.dtype, "real floating"):
        return a
    return rd.astype(a, rd.dtype(loop_dtype(OPS[name], a.dtype.dtype)))


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
    a = _loop("modf", a)
    i = rd.trunc(a)
    f = rd.where(rd.isinf(a), rd.copysign(rd.zeros_like(a), a), a - i)
    return _out(rd, (f, i), out)


def frexp(x: Any, out: Any = None, **kw: Any) -> Any:
    """(mantissa in [0.5, 1), int32 exponent) with ``x == m * 2**e``; 0, inf, nan give e = 0."""
    _kw("frexp", kw)
    rd, a = _operands(x)
    a = _loop("frexp", a)
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


def isnat(x: Any, out: Any = None, **kw: Any) -> Any:
    """NumPy's ``isnat``: ruda has no datetime dtypes, so every input is a TypeError (as NumPy)."""
    raise TypeError("ufunc 'isnat' is only defined for np.datetime64 and np.timedelta64.")


compositions({"divmod": divmod_, "modf": modf, "frexp": frexp, "isnat": isnat})


__all__ = ["frexp", "modf"]
