"""Complex arc functions (Kahan's asin, acos, acosh, atanh; asinh through asin) and their C99
special values; far from the origin they come from ``log 2z``, as Kahan's products overflow.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import cmath_arc
    >>> cmath_arc._acosh(ir.C64).name
    'ruda_cacosh_c64'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

from .. import ir
from ..ir import If, Let, Return, Var
from .cmath_arith import _sqrt
from .cmath_exp_log import _log
from .cmath_parts import _abs, _f, _function, _nan, _parts, _sel, im, make, re
from .mathlib import copysign, isinf, isnan, land, lor


def _huge(f: ir.Type) -> float:
    # squares of larger parts overflow
    return 2.0**500 if f is ir.F64 else 2.0**60


def _far(t: ir.Type, x: Var, y: Var, result: Callable[[ir.Expr, ir.Expr], ir.Expr]) -> If:
    """For |z| past ``_huge`` (Kahan's products overflow near the largest float), the arc
    functions' result from ``L = log|2z|`` (asinh z = log 2z + O(1/z^2)) and ``z``'s parts."""
    w = Var("w", t)
    big = ir.call("max", _abs(x), _abs(y)) > _huge(t.part)
    return If(big, (Let(w, _log(t)(make(x, y, t))),
                    Return(result(re(w) + math.log(2.0), im(w)))))  # fmt: skip


def _arc_specials(t: ir.Type, x: Var, y: Var, acos: bool) -> list[Any]:
    """C99's values of casinh (``acos`` False) or cacos for an infinite or NaN part."""
    f = t.part
    pi = math.pi
    nan, inf, zero = _nan(f), ir.Const(float("inf"), f), _f(0.0, f)
    xi, yi, xn, yn = isinf(x), isinf(y), isnan(x), isnan(y)
    if acos:  # cacos(conj z) = conj(cacos z); the imaginary part has the sign of -y
        ninf = -copysign(inf, y)
        both = _sel(x > 0.0, _f(pi / 4, f), _f(3 * pi / 4, f))
        only_x = _sel(x > 0.0, zero, _f(pi, f))
        infinite = (
            If(lor(xn, yn), (Return(make(nan, _sel(xn, ninf, -inf), t)),)),
            Return(make(_sel(xi, _sel(yi, both, only_x), _f(pi / 2, f)), ninf, t)),
        )
        nans = If(land(x.eq(0.0), yn), (Return(make(_f(pi / 2, f), y, t)),))
    else:  # casinh: odd, conj-symmetric: the parts have the signs of x and y
        arg = _sel(xi, _sel(yi, _f(pi / 4, f), zero), _f(pi / 2, f))
        infinite = (
            If(lor(xn, yn), (Return(make(copysign(inf, x), nan, t)),)),
            Return(make(copysign(inf, x), copysign(arg, y), t)),
        )
        nans = If(land(xn, y.eq(0.0)), (Return(make(x, y, t)),))
    return [If(lor(xi, yi), infinite), If(lor(xn, yn), (nans, Return(make(nan, nan, t))))]


@cache
def _asinh(t: ir.Type) -> ir.Function:
    """asinh w = i asin(-i w) (Kahan's asin) with C99's special values."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    w = Var("w", t)
    body += [*_arc_specials(t, x, y, False),
             _far(t, x, y, lambda r, a: make(copysign(r, x), ir.call("atan2", y, _abs(x)), t)),
             Let(w, _asin(t)(make(y, -x, t))), Return(make(-im(w), re(w), t))]  # fmt: skip
    return _function("asinh", t, (z,), t, body)


@cache
def _asin(t: ir.Type) -> ir.Function:
    """Kahan: asin z = atan2(x, Re(sqrt(1-z) sqrt(1+z)))
    + i asinh(Im(conj(sqrt(1-z)) sqrt(1+z))) (finite z: asinh handles the special values)."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    p, q = Var("p", t), Var("q", t)
    sq = _sqrt(t)
    small = _f(2.0**-28 if t.part is ir.F64 else 2.0**-13, t.part)
    body += [  # asin z = z + z^3/6 + ...: below sqrt(eps) z itself (Kahan's form loses tiny parts)
        If(ir.call("max", _abs(x), _abs(y)) < small, (Return(z),)),
        Let(p, sq(make(1.0 - x, -y, t))), Let(q, sq(make(1.0 + x, y, t))),
        Return(make(ir.call("atan2", x, re(p) * re(q) - im(p) * im(q)),
                    ir.call("asinh", re(p) * im(q) - im(p) * re(q)), t)),
    ]  # fmt: skip
    return _function("asin_core", t, (z,), t, body)


@cache
def _acos(t: ir.Type) -> ir.Function:
    """Kahan: acos z = 2 atan2(Re sqrt(1-z), Re sqrt(1+z))
    + i asinh(Im(conj(sqrt(1+z)) sqrt(1-z))), with C99's special values."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    p, q = Var("p", t), Var("q", t)
    sq = _sqrt(t)
    body += [
        *_arc_specials(t, x, y, True),
        _far(t, x, y, lambda r, a: make(ir.call("atan2", _abs(y), x), -copysign(r, y), t)),
        Let(p, sq(make(1.0 - x, -y, t))), Let(q, sq(make(1.0 + x, y, t))),
        Return(make(2.0 * ir.call("atan2", re(p), re(q)),
                    ir.call("asinh", re(q) * im(p) - im(q) * re(p)), t)),
    ]  # fmt: skip
    return _function("acos", t, (z,), t, body)


@cache
def _acosh(t: ir.Type) -> ir.Function:
    """Kahan: acosh z = asinh(Re(conj(sqrt(z-1)) sqrt(z+1)))
    + 2i atan2(Im sqrt(z-1), Re sqrt(z+1)), with C99's special values."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    p, q = Var("p", t), Var("q", t)
    sq = _sqrt(t)
    f, pi = t.part, math.pi
    nan, inf = _nan(f), ir.Const(float("inf"), f)
    arg = _sel(isinf(y), _sel(isinf(x), _sel(x > 0.0, _f(pi / 4, f), _f(3 * pi / 4, f)),
                              _f(pi / 2, f)),
               _sel(x > 0.0, _f(0.0, f), _f(pi, f)))  # fmt: skip
    body += [  # C99's values for an infinite or NaN part (conj-symmetric)
        If(lor(isinf(x), isinf(y)), (
            If(lor(isnan(x), isnan(y)), (Return(make(inf, nan, t)),)),
            Return(make(inf, copysign(arg, y), t)),
        )),
        If(lor(isnan(x), isnan(y)), (
            If(x.eq(0.0), (Return(make(nan, _f(pi / 2, f), t)),)),
            Return(make(nan, nan, t)),
        )),
        _far(t, x, y, lambda r, a: make(r, a, t)),
        Let(p, sq(make(x - 1.0, y, t))), Let(q, sq(make(x + 1.0, y, t))),
        Return(make(ir.call("asinh", re(p) * re(q) + im(p) * im(q)),
                    2.0 * ir.call("atan2", im(p), re(q)), t)),
    ]  # fmt: skip
    return _function("acosh", t, (z,), t, body)


@cache
def _atanh(t: ir.Type) -> ir.Function:
    """Kahan: atanh z = log1p(4x / ((1-x)^2 + y^2)) / 4 + i atan2(2y, (1-x)(1+x) - y^2) / 2."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    f = t.part
    half_pi = _f(math.pi / 2, f)
    zero = _f(0.0, f)
    ax, h, d = Var("ax", f), Var("h", f), Var("d", f)
    near = _f(2.0**-28 if f is ir.F64 else 2.0**-13, f)  # there log1p(v) = log(v) to eps
    body += [
        If(isinf(y), (Return(make(copysign(zero, x), copysign(half_pi, y), t)),)),
        If(isinf(x), (Return(make(copysign(zero, x),
                                  _sel(isnan(y), y, copysign(half_pi, y)), t)),)),
        If(land(x.eq(0.0), isnan(y)), (Return(make(x, y, t)),)),
        If(lor(isnan(x), isnan(y)), (Return(make(_nan(f), _nan(f), t)),)),
        # atanh(-z) = -atanh(z): log1p of a positive argument, never near -1
        Let(ax, _abs(x)),
        If(ir.call("max", ax, _abs(y)) > _huge(f), (  # |z|^2 would overflow: 1/z's real part
            Let(h, ir.call("hypot", x * 0.25, y * 0.25)),  # |z|/4: no overflow at the largest
            Return(make(x * 0.25 / h / h * 0.25, copysign(half_pi, y), t)),
        )),
        If(ir.call("max", _abs(1.0 - ax), _abs(y)) < near, (  # (1-|x|)^2 + y^2 may underflow:
            Let(h, ir.call("hypot", 1.0 - ax, y)),  # log1p(4|x| / h^2) is log(4|x|) - 2 log h
            Return(make(copysign(0.25 * ir.call("log", 4.0 * ax) - 0.5 * ir.call("log", h), x),
                        0.5 * ir.call("atan2", 2.0 * y, (1.0 - x) * (1.0 + x) - y * y), t)),
        )),
        Let(d, (1.0 - ax) * (1.0 - ax) + y * y),
        Return(make(copysign(0.25 * ir.call("log1p", 4.0 * ax / d), x),
                    0.5 * ir.call("atan2", 2.0 * y, (1.0 - x) * (1.0 + x) - y * y), t)),
    ]  # fmt: skip
    return _function("atanh", t, (z,), t, body)
