"""pow, cbrt (f64) and the hyperbolic functions (f32, f64) in IR: ports of fdlibm / FreeBSD msun.

``pow_core`` is fdlibm's e_pow.c: log2(x) in extra precision (t1 + t2, about 2**-64 relative),
times y split in two, then 2**z with the same rational approximation as exp: a few ulp even
where y * log(x) is near the overflow threshold. ``pow_float`` wraps it with C99's
special cases. The hyperbolic functions are fdlibm's formulas over ``libm``'s exp, expm1, log
and log1p.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import libm_pow
    >>> libm_pow.tanh(ir.F64).name
    'ruda_tanh_f64'
"""

from __future__ import annotations

from functools import cache

from .. import ir
from ..ir import F64, I32, U32, If, Let, Return, Var
from . import libm
from .libm import LN2, Builder, absf, c, low_zero, params, poly, scalbn
from .mathlib import (
    copysign,
    from_words,
    hi,
    inf,
    is_zero,
    isinf,
    isnan,
    land,
    lo,
    lor,
    nan,
    signbit,
    with_hi,
)

_L = (5.99999999999994648725e-01, 4.28571428578550184252e-01, 3.33333329818377432918e-01,
      2.72728123808534006489e-01, 2.30660745775561754067e-01,
      2.06975017800338417784e-01)  # fmt: skip
# x, its head (low bits zero: exact products) and the tail x - head
_IVLN2, _IVLN2_H, _IVLN2_L = (1.44269504088896338700e00, 1.44269502162933349609e00,
                              1.92596299112661746887e-08)  # fmt: skip
_CP, _CP_H, _CP_L = (9.61796693925975554329e-01, 9.61796700954437255859e-01,
                     -7.02846165095275826516e-09)  # fmt: skip
_LG2, _LG2_H, _LG2_L = (6.93147180559945286227e-01, 6.93147182464599609375e-01,
                        -1.90465429995776804525e-09)  # fmt: skip
_OVT = 8.0085662595372944372e-17


@cache
def pow_core(t: ir.Type = F64) -> ir.Function:
    """x**y for finite x > 0, x != 1, and y not 0 or nan (y may be infinite).

    A difference that a later step subtracts from again is opaque (``Builder.exact``): NVIDIA's
    Vulkan compiler turns ``(u - s_h * t_h) - s_h * t_l`` into ``u - (s_h * t_h + s_h * t_l)``,
    which rounds where fdlibm's order is exact (1.01**62873 came out 329 ulp off)."""
    x, y = params(t, "x y")
    b = Builder(t)
    zero, big = c(0.0, t), inf(t)
    ix = b.let(hi(x))
    iy = b.let(hi(y) & 0x7FFFFFFF)
    t1, t2 = b.var(c(0.0, t)), b.var(c(0.0, t))
    ypos = y > 0.0
    # |y| > 2**31: over/underflow unless x is within 2**-20 of 1; then log(x) by its series
    h = b.branch()
    h.add(If(iy > 0x43F00000, (
        If(ix <= 0x3FEFFFFF, (ir.Return(ir.select(ypos, zero, big)),)),
        If(ix >= 0x3FF00000, (ir.Return(ir.select(ypos, big, zero)),)),
    )))  # fmt: skip
    h.ret_if(ix < 0x3FEFFFFF, ir.select(ypos, zero, big))
    h.ret_if(ix > 0x3FF00000, ir.select(ypos, big, zero))
    tt = h.let(x - 1.0)
    w = h.let((tt * tt) * (0.5 - tt * (0.3333333333333333333333 - tt * 0.25)))
    u = h.let(_IVLN2_H * tt)
    v = h.let(tt * _IVLN2_L - w * _IVLN2)
    h.add(ir.Assign(t1, low_zero(u + v)), ir.Assign(t2, v - (t1 - u)))
    # otherwise log2(x) = n + dp_h + z_h + z_l from s = (x - bp) / (x + bp), bp = 1 or 1.5
    g = b.branch()
    sub = ix < 0x00100000
    ax = g.let(ir.select(sub, x * 9007199254740992.0, x))
    i0 = g.let(hi(ax))
    j = g.let(i0 & 0x000FFFFF)
    k = g.let(ir.select(land(j > 0x3988E, j < 0xBB67A), ir.Const(1, U32), ir.Const(0, U32)))
    up = g.let(j >= 0xBB67A)
    ixn = g.let((j | 0x3FF00000) - ir.select(up, ir.Const(0x00100000, U32), ir.Const(0, U32)))
    n = ir.cast(i0 >> 20, I32) - 0x3FF + ir.select(up, ir.Const(1, I32), ir.Const(0, I32))
    n = g.let(n - ir.select(sub, ir.Const(53, I32), ir.Const(0, I32)))
    axn = g.let(with_hi(ax, ixn))
    k1 = k.eq(1)
    bp = g.let(ir.select(k1, c(1.5, t), c(1.0, t)))
    dp_h = g.let(ir.select(k1, c(5.84962487220764160156e-01, t), zero))
    dp_l = g.let(ir.select(k1, c(1.35003920212974897128e-08, t), zero))
    u = g.let(axn - bp)
    v = g.let(1.0 / (axn + bp))
    ss = g.let(u * v)
    s_h = g.let(low_zero(ss))
    t_h = g.let(from_words(ir.Const(0, U32), ((ixn >> 1) | 0x20000000) + 0x00080000 + (k << 18)))
    t_l = g.let(axn - (t_h - bp))
    s_l = g.let(v * (g.exact(u - s_h * t_h) - s_h * t_l))
    s2 = g.let(ss * ss)
    r = g.let(s2 * s2 * poly(s2, _L) + s_l * (s_h + ss))
    s2 = g.let(s_h * s_h)
    t_h = g.let(low_zero(3.0 + s2 + r))
    t_l = g.let(r - (g.exact(t_h - 3.0) - s2))
    u = g.let(s_h * t_h)
    v = g.let(s_l * t_h + t_l * ss)
    p_h = g.let(low_zero(u + v))
    p_l = g.let(v - (p_h - u))
    z_h = g.let(_CP_H * p_h)
    z_l = g.let(_CP_L * p_h + p_l * _CP + dp_l)
    tn = g.let(ir.cast(n, t))
    g.add(ir.Assign(t1, low_zero(((z_h + z_l) + dp_h) + tn)))
    g.add(ir.Assign(t2, z_l - (g.exact(g.exact(t1 - tn) - dp_h) - z_h)))
    b.add(If(iy > 0x41E00000, tuple(h.body), tuple(g.body)))
    # (y1 + y2) * (t1 + t2), then 2**z
    y1 = b.let(low_zero(y))
    p_l = b.let((y - y1) * t1 + y * t2)
    p_h = b.let(y1 * t1)
    z = b.exact(p_l + p_h)
    b.ret_if(lor(z > 1024.0, land(z.eq(1024.0), p_l + _OVT > z - p_h)), big)
    b.ret_if(lor(z < -1075.0, land(z.eq(-1075.0), p_l <= z - p_h)), zero)
    nf = b.let(ir.select(absf(z) > 0.5, ir.call("floor", z + 0.5), zero))
    p_h = b.let(p_h - nf)
    tt = b.let(low_zero(p_l + p_h))
    u = b.let(tt * _LG2_H)
    v = b.let((p_l - (tt - p_h)) * _LG2 + tt * _LG2_L)
    z = b.exact(u + v)
    w = b.let(v - (z - u))
    t3 = b.let(z * z)
    t4 = b.let(z - t3 * poly(t3, libm._P))
    r = b.let((z * t4) / (t4 - 2.0) - (w + z * w))
    b.ret(scalbn(1.0 - (r - z), ir.cast(nf, I32)))
    return b.function("ruda_pow_core", (x, y))


def _pow_core(t: ir.Type, ax: ir.Expr, y: ir.Expr) -> ir.Expr:
    if t is F64:
        return pow_core(t)(ax, y)
    return ir.call("exp2", y * ir.call("log2", ax))


@cache
def pow_float(t: ir.Type) -> ir.Function:
    """C99 pow for WGSL, whose pow is exp2(y * log2(x)) and undefined for x < 0."""
    name, (x, y) = f"ruda_pow_{t.name}", (Var("x", t), Var("y", t))
    ax, r, yint, odd = Var("ax", t), Var("r", t), Var("yint", ir.BOOL), Var("odd", ir.BOOL)
    body = (
        If(lor(is_zero(y), x.eq(1.0)), (Return(ir.Const(1.0, t)),)),
        If(lor(isnan(x), isnan(y)), (Return(nan(t)),)),
        If(y.eq(1.0), (Return(x),)),
        Let(ax, ir.call("abs", x)),
        If(land(ax.eq(1.0), isinf(y)), (Return(ir.Const(1.0, t)),)),
        # exp2(y * log2(0)) needs inf arithmetic, which drivers may assume away; f64 has no
        # exp2/log2 builtins: fdlibm's pow (log2 in extra precision), pow_core above
        Let(
            r,
            ir.select(
                lor(is_zero(x), isinf(x)),
                ir.select((y < 0.0).ne(isinf(x)), inf(t), ir.Const(0.0, t)),
                ir.select(ax.eq(1.0), ir.Const(1.0, t), _pow_core(t, ax, y)),  # (-1)**y
            ),
        ),  # fmt: skip
        Let(yint, ir.call("floor", y).eq(y)),
        Let(odd, land(yint, ir.call("abs", y) < 2.0**53, ir.call("fract", y * 0.5).ne(0.0))),
        If(lor(is_zero(x), isinf(x)), (Return(ir.select(odd, copysign(r, x), r)),)),
        If(
            signbit(x),
            (
                If(ir.Unary("not", yint, ir.BOOL), (Return(nan(t)),)),
                If(odd, (Return(-r),)),
            ),
        ),
        Return(r),
    )
    return ir.Function(name, (x, y), t, body)


@cache
def cbrt(t: ir.Type = F64) -> ir.Function:
    """Real cube root (FreeBSD s_cbrt.c): a bit-level estimate, a polynomial to 23 bits, then
    one Newton step rounded to 53 bits (under 0.667 ulp)."""
    (x,) = params(t, "x")
    b = Builder(t)
    h = b.let(hi(x))
    hx = b.let(h & 0x7FFFFFFF)
    sign = b.let(h & 0x80000000)
    b.ret_if(hx >= 0x7FF00000, x + x)
    b.ret_if(is_zero(x), x)
    sub = hx < 0x00100000
    hs = b.let(hi(x * 18014398509481984.0) & 0x7FFFFFFF)
    est = ir.select(sub, hs / 3 + 696219795, hx / 3 + 715094163)
    tt = b.let(from_words(ir.Const(0, U32), sign | est))
    r = b.let((tt * tt) * (tt / x))
    p = (1.87595182427177009643, -1.88497979543377169875, 1.621429720105354466140)
    tt = b.let(
        tt * (poly(r, p) + ((r * r) * r) * (-0.758397934778766047437 + r * 0.145996192886612446982))
    )
    # round t away from zero to 23 bits: add 2**31 to the 64-bit pattern, clear 30 low bits
    lw = b.let(lo(tt))
    carry = ir.select(lw >= 0x80000000, ir.Const(1, U32), ir.Const(0, U32))
    tt = b.let(from_words((lw + 0x80000000) & 0xC0000000, hi(tt) + carry))
    s = b.let(tt * tt)
    r = b.let(x / s)
    w = b.let(tt + tt)
    r = b.let((r - tt) / (w + r))
    b.ret(tt + tt * r)
    return b.function("ruda_cbrt", (x,))


# -- hyperbolic (f32 and f64: fdlibm's thresholds per type) -----------------------------------
def _f(name: str, t: ir.Type):  # the exp/log family, as calls of their IR functions
    return getattr(libm, name)(t)


def _lim(t: ir.Type) -> tuple[float, float, float, float]:
    """(tiny, mid, log of the largest finite, overflow threshold) of sinh/cosh/tanh."""
    if t is F64:
        return 2.0**-28, 22.0, 709.7822265625, 710.4758600739439
    return 2.0**-12, 9.0, 88.7216796875, 89.41598510742188  # 0x42b2d4fc


@cache
def sinh(t: ir.Type = F64) -> ir.Function:
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(lor(isnan(x), isinf(x)), x)
    ax = b.let(absf(x))
    tiny, mid, lmax, over = _lim(t)
    hh = b.let(copysign(c(0.5, t), x))
    b.ret_if(ax < tiny, x)
    tt = b.let(_f("expm1", t)(ir.call("min", ax, c(mid, t))))
    b.ret_if(ax < 1.0, hh * (2.0 * tt - tt * tt / (tt + 1.0)))
    b.ret_if(ax < mid, hh * (tt + tt / (tt + 1.0)))
    b.ret_if(ax < lmax, hh * _f("exp", t)(ax))
    b.ret_if(ax <= over, (hh * _f("exp", t)(0.5 * ax)) * _f("exp", t)(0.5 * ax))
    b.ret(copysign(inf(t), x))
    return b.function("ruda_sinh", (x,))


@cache
def cosh(t: ir.Type = F64) -> ir.Function:
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(isnan(x), x)
    ax = b.let(absf(x))
    b.ret_if(isinf(x), ax)
    _, mid, lmax, over = _lim(t)
    tt = b.let(_f("expm1", t)(ir.call("min", ax, c(1.0, t))))
    b.ret_if(ax < 0.5 * LN2, 1.0 + (tt * tt) / (2.0 * (1.0 + tt)))
    e = b.let(_f("exp", t)(ir.call("min", ax, c(mid, t))))
    b.ret_if(ax < mid, 0.5 * e + 0.5 / e)
    b.ret_if(ax < lmax, 0.5 * _f("exp", t)(ax))
    w = b.let(_f("exp", t)(0.5 * ax))
    b.ret_if(ax <= over, (0.5 * w) * w)
    b.ret(inf(t))
    return b.function("ruda_cosh", (x,))


@cache
def tanh(t: ir.Type = F64) -> ir.Function:
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(isnan(x), x)
    ax = b.let(absf(x))
    b.ret_if(ax < (2.0**-55 if t is F64 else 2.0**-12), x)
    b.ret_if(ax >= _lim(t)[1], copysign(c(1.0, t), x))
    em = _f("expm1", t)
    big = b.let(em(2.0 * ax))
    small = b.let(em(-2.0 * ax))
    z = ir.select(ax >= 1.0, 1.0 - 2.0 / (big + 2.0), -small / (small + 2.0))
    b.ret(copysign(z, x))
    return b.function("ruda_tanh", (x,))


@cache
def asinh(t: ir.Type = F64) -> ir.Function:
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(lor(isnan(x), isinf(x)), x)
    ax = b.let(absf(x))
    b.ret_if(ax < 2.0**-28, x)
    lg = _f("log", t)
    big = ir.select(ax > 2.0**28, ax, c(1.0, t))
    w = b.var(lg(big) + LN2)
    s = b.let(ir.call("sqrt", ax * ax + 1.0))
    mid = lg(2.0 * ax + 1.0 / (s + ax))
    tt = b.let(ax * ax)
    small = _f("log1p", t)(ax + tt / (1.0 + ir.call("sqrt", 1.0 + tt)))
    b.add(If(ax <= 2.0**28, (ir.Assign(w, ir.select(ax > 2.0, mid, small)),)))
    b.ret(copysign(w, x))
    return b.function("ruda_asinh", (x,))


@cache
def acosh(t: ir.Type = F64) -> ir.Function:
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(isnan(x), x)
    b.ret_if(x < 1.0, nan(t))
    b.ret_if(isinf(x), x)
    lg = _f("log", t)
    b.ret_if(x >= 2.0**28, lg(x) + LN2)
    b.ret_if(x.eq(1.0), c(0.0, t))
    b.ret_if(x > 2.0, lg(2.0 * x - 1.0 / (x + ir.call("sqrt", x * x - 1.0))))
    tt = b.let(x - 1.0)
    b.ret(_f("log1p", t)(tt + ir.call("sqrt", 2.0 * tt + tt * tt)))
    return b.function("ruda_acosh", (x,))


@cache
def atanh(t: ir.Type = F64) -> ir.Function:
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(isnan(x), x)
    ax = b.let(absf(x))
    b.ret_if(ax > 1.0, nan(t))
    b.ret_if(ax.eq(1.0), copysign(inf(t), x))
    b.ret_if(ax < 2.0**-28, x)
    l1p = _f("log1p", t)
    tt = b.let(ax + ax)
    small = 0.5 * l1p(tt + tt * ax / (1.0 - ax))
    big = 0.5 * l1p(tt / (1.0 - ax))
    b.ret(copysign(ir.select(ax < 0.5, small, big), x))
    return b.function("ruda_atanh", (x,))
