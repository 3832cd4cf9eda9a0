"""Circular functions in IR: sin, cos, tan (f64) and atan, atan2, asin, acos (f32 and f64).

Ports of fdlibm (FreeBSD msun). Argument reduction for sin/cos/tan:

* |x| <= pi/4: none;
* |x| < 2**20 * pi/2: Cody-Waite with pi/2 in three 33-bit parts (each n * part exact), as in
  fdlibm's __ieee754_rem_pio2, about 118 bits of pi/2: the reduced argument is good to the last
  bit;
* beyond (up to the largest double): Payne-Hanek with 2/pi as 32-bit words and exact integer
  products (the mantissa times a 224-bit window of 2/pi), keeping 128 fraction bits; the reduced
  argument is then rounded to one double, so results are within a few ulp.

Results are within a few ulp of the correctly rounded value on every finite input
(tests/kernels measures them against NumPy).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import libm_trig
    >>> libm_trig.sin(ir.F64).name
    'ruda_sin_f64'
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .. import ir
from ..ir import BOOL, F32, F64, I32, U32, U64, If, Return, Var
from .libm import Builder, absf, c, low_zero, params, poly
from .mathlib import copysign, hi, is_zero, isinf, isnan, land, lo, lor, nan, signbit

_S = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
      2.75573137070700676789e-06, -2.50507602534068634195e-08,
      1.58969099521155010221e-10)  # fmt: skip
_C = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
      -2.75573143513906633035e-07, 2.08757232129817482790e-09,
      -1.13596475577881948265e-11)  # fmt: skip
_T = (3.33333333333334091986e-01, 1.33333333333201242699e-01, 5.39682539762260521377e-02,
      2.18694882948595424599e-02, 8.86323982359930005737e-03, 3.59207910759131235356e-03,
      1.45620945432529025516e-03, 5.88041240820264096874e-04, 2.46463134818469906812e-04,
      7.81794442939557092300e-05, 7.14072491382608190305e-05, -1.85586374855275456654e-05,
      2.59073051863633712884e-05)  # fmt: skip
_PIO4, _PIO4LO = 7.85398163397448278999e-01, 3.06161699786838301793e-17
_INVPIO2 = 6.36619772367581382433e-01
_PIO2 = ((1.57079632673412561417e00, 6.07710050650619224932e-11),
         (6.07710050630396597660e-11, 2.02226624879595063154e-21),
         (2.02226624871116645580e-21, 8.47842766036889956997e-32))  # fmt: skip
_MEDIUM = 1647099.3291652855  # 2**20 * pi/2: n * (33-bit part of pi/2) stays exact below
# 2/pi in 32-bit words, most significant first (1280 bits: enough for exponents up to 1023)
_TWO_OVER_PI = (
    0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0, 0xDB629599, 0x3C439041, 0xFE5163AB, 0xDEBBC561,
    0xB7246E3A, 0x424DD2E0, 0x06492EEA, 0x09D1921C, 0xFE1DEB1C, 0xB129A73E, 0xE88235F5, 0x2EBB4484,
    0xE99C7026, 0xB45F7E41, 0x3991D639, 0x835339F4, 0x9C845F8B, 0xBDF9283B, 0x1FF897FF, 0xDE05980F,
    0xEF2F118B, 0x5A0A6D1F, 0x6D367ECF, 0x27CB09B7, 0x4F463F66, 0x9E5FEA2D, 0x7527BAC7, 0xEBE5F17B,
    0x3D0739F7, 0x8A5292EA, 0x6BFB5FB1, 0x1F8D5D08, 0x56033046, 0xFC7B6BAB, 0xF0CFBC20, 0x9AF4361D,
)  # fmt: skip


def _u(v: int) -> ir.Const:
    return ir.Const(v, U32)


@cache
def _two_over_pi_word() -> ir.Function:
    (i,) = (Var("i", U32),)
    body = tuple(If(i.eq(k), (Return(_u(w)),)) for k, w in enumerate(_TWO_OVER_PI))
    return ir.Function("ruda_2_over_pi", (i,), U32, (*body, Return(_u(0))))


def _payne_hanek(b: Builder, x: ir.Expr) -> tuple[Var, Var]:
    """For finite x >= 2**20 pi/2: n mod 4 (u32) and y = x - n pi/2 in [-pi/4, pi/4]."""
    hx = b.let(hi(x) & 0x7FFFFFFF)
    e = b.let(ir.cast(hx >> 20, I32) - 1075)  # x = M * 2**e, M a 53-bit integer
    m1 = b.let((hx & 0x000FFFFF) | 0x00100000)
    m0 = b.let(lo(x))
    # drop the words of 2/pi whose products with M are multiples of 4
    s = b.let(ir.select(e >= 2, ir.Binary("div", e - 2, ir.Const(32, I32), I32), ir.Const(0, I32)))
    sh2 = b.let(ir.Bitcast(e - s * 32 + 32, U32))  # M << sh2 puts the binary point at bit 256
    q, r = b.let(sh2 >> 5), b.let(sh2 & 31)
    b0 = b.let(m0 << r)
    b1 = b.let((m1 << r) | ((m0 >> 1) >> (_u(31) - r)))
    b2 = b.let((m1 >> 1) >> (_u(31) - r))

    def pick(*by_q: ir.Expr) -> ir.Expr:
        return ir.select(q.eq(0), by_q[0], ir.select(q.eq(1), by_q[1], by_q[2]))

    z = _u(0)
    a = [b.let(pick(b0, z, z)), b.let(pick(b1, b0, z)), b.let(pick(b2, b1, b0)),
         b.let(pick(z, b2, b1))]  # fmt: skip
    word = _two_over_pi_word()
    su = b.let(ir.Bitcast(s, U32))
    v = [b.let(ir.cast(word(su + (6 - j)), U64)) for j in range(7)]  # limb j = T[s + 6 - j]
    au = [b.let(ir.cast(ai, U64)) for ai in a]
    prods = {(i, j): b.let(au[i] * v[j]) for i in range(4) for j in range(7)}
    limbs: list[ir.Expr] = []
    carry: ir.Expr = ir.Const(0, U64)
    for k in range(9):
        acc: ir.Expr = carry
        for (i, j), p in prods.items():
            if i + j == k:
                acc = acc + (p & 0xFFFFFFFF)
            if i + j == k - 1:
                acc = acc + (p >> 32)
        accv = b.let(acc)
        limbs.append(b.let(ir.cast(accv & 0xFFFFFFFF, U32)))
        carry = b.let(accv >> 32)
    n = b.let(limbs[8] & 3)
    up = b.let((limbs[7] >> 31).ne(0))  # fraction >= 1/2: round n up, take 1 - fraction
    fr = [b.let(ir.select(up, ~limbs[k], limbs[k])) for k in (7, 6, 5, 4)]
    f = b.let(((ir.cast(fr[3], F64) * 2.0**-96 + ir.cast(fr[2], F64) * 2.0**-64)
               + ir.cast(fr[1], F64) * 2.0**-32 + ir.cast(fr[0], F64)) * 2.0**-32)  # fmt: skip
    y = b.let(f * 1.5707963267948966)
    return b.let((n + ir.select(up, _u(1), _u(0))) & 3), b.let(ir.select(up, -y, y))


def _reduce(b: Builder, x: ir.Expr) -> tuple[Var, Var, Var]:
    """n (i32; only n mod 4 matters) and y0 + y1 = x - n pi/2, |y0| <= ~pi/4."""
    n = b.var(ir.Const(0, I32))
    y0, y1 = b.var(x), b.var(c(0.0, F64))
    ax = b.let(absf(x))
    med = b.branch()
    fn = med.let(ir.call("floor", x * _INVPIO2 + 0.5))
    rr = med.var(x - fn * _PIO2[0][0])
    w = med.var(c(0.0, F64))
    for part, tail in _PIO2[1:]:
        t = med.let(rr)
        med.add(ir.Assign(w, fn * part))
        med.add(ir.Assign(rr, med.exact(t - w)))
        med.add(ir.Assign(w, fn * tail - ((t - rr) - w)))
    y0m = med.exact(rr - w)
    med.add(ir.Assign(y0, y0m), ir.Assign(y1, (rr - y0m) - w), ir.Assign(n, ir.cast(fn, I32)))
    big = b.branch()
    nq, yr = _payne_hanek(big, ax)
    nqi = ir.Bitcast(nq, I32)
    big.add(ir.Assign(y0, ir.select(signbit(x), -yr, yr)), ir.Assign(y1, c(0.0, F64)))
    big.add(ir.Assign(n, ir.select(signbit(x), -nqi, nqi)))
    b.add(If(ax > _PIO4, (If(ax < _MEDIUM, tuple(med.body), tuple(big.body)),)))
    return n, y0, y1


def _ksin(x: ir.Expr, y: ir.Expr) -> ir.Expr:
    """sin(x + y), |x| <= pi/4, y a tail (fdlibm __kernel_sin with iy = 1)."""
    z = x * x
    v = z * x
    r = poly(z, _S[1:])
    return x - ((z * (0.5 * y - v * r) - y) - v * _S[0])


@cache
def _kernel_sin() -> ir.Function:
    x, y = params(F64, "x y")
    return ir.Function("ruda_ksin", (x, y), F64, (Return(_ksin(x, y)),))


@cache
def _kernel_cos() -> ir.Function:
    """cos(x + y), |x| <= pi/4 (fdlibm __kernel_cos)."""
    x, y = params(F64, "x y")
    b = Builder(F64)
    z = b.let(x * x)
    w = b.let(z * z)
    r = b.let(z * poly(z, _C[:3]) + w * w * poly(z, _C[3:]))
    hz = b.let(0.5 * z)
    w = b.exact(1.0 - hz)
    b.ret(w + (((1.0 - w) - hz) + (z * r - x * y)))
    return ir.Function("ruda_kcos", (x, y), F64, tuple(b.body))


@cache
def _kernel_tan() -> ir.Function:
    """tan(x + y) (odd = 0) or -1 / tan(x + y) (odd = 1), |x| <= pi/4 (fdlibm __kernel_tan)."""
    x, y, odd = Var("x", F64), Var("y", F64), Var("odd", BOOL)
    b = Builder(F64)
    ax = b.let(absf(x))
    b.ret_if(ax < 2.0**-28, ir.select(odd, -1.0 / x, x))
    big = b.let(ax >= 0.6743354797363281)  # fdlibm: high word 0x3FE59428
    neg = b.let(signbit(x))
    xs = b.let(ir.select(land(big, neg), -x, x))
    ys = b.let(ir.select(land(big, neg), -y, y))
    xx = b.let(ir.select(big, (_PIO4 - xs) + (_PIO4LO - ys), xs))
    yy = b.let(ir.select(big, c(0.0, F64), ys))
    z = b.let(xx * xx)
    w = b.let(z * z)
    r = b.let(poly(w, _T[1::2]))
    v = b.let(z * poly(w, _T[2::2]))
    s = b.let(z * xx)
    r = b.let(yy + z * (s * (r + v) + yy))
    r = b.let(r + _T[0] * s)
    w = b.let(xx + r)
    vv = ir.select(odd, c(-1.0, F64), c(1.0, F64))
    far = vv - 2.0 * (xx - (w * w / (w + vv) - r))
    b.ret_if(big, ir.select(neg, -far, far))
    b.ret_if(ir.Unary("not", odd, BOOL), w)
    zz = b.let(low_zero(w))
    v = b.let(r - (zz - xx))
    a = b.let(-1.0 / w)
    tt = b.let(low_zero(a))
    s = b.let(1.0 + tt * zz)
    b.ret(tt + a * (s + tt * v))
    return ir.Function("ruda_ktan", (x, y, odd), F64, tuple(b.body))


def _sincos(name: str, shift: int) -> ir.Function:
    (x,) = params(F64, "x")
    b = Builder(F64)
    b.ret_if(lor(isnan(x), isinf(x)), nan(F64))
    if shift == 0:  # fdlibm: sin x = x below 2^-27; x itself keeps -0 where a driver's
        b.ret_if(absf(x) < 2.0**-27, x)  # arithmetic ignores signed zeros (NVIDIA's Vulkan)
    n, y0, y1 = _reduce(b, x)
    q = b.let(ir.Bitcast(n + shift, U32) & 3)
    sv = b.let(_kernel_sin()(y0, y1))
    cv = b.let(_kernel_cos()(y0, y1))
    b.ret(ir.select(q.eq(0), sv, ir.select(q.eq(1), cv, ir.select(q.eq(2), -sv, -cv))))
    return ir.Function(f"ruda_{name}_f64", (x,), F64, tuple(b.body))


@cache
def sin(t: ir.Type = F64) -> ir.Function:
    return _sincos("sin", 0)


@cache
def cos(t: ir.Type = F64) -> ir.Function:
    return _sincos("cos", 1)


@cache
def tan(t: ir.Type = F64) -> ir.Function:
    (x,) = params(F64, "x")
    b = Builder(F64)
    b.ret_if(lor(isnan(x), isinf(x)), nan(F64))
    n, y0, y1 = _reduce(b, x)
    b.ret(_kernel_tan()(y0, y1, (n & 1).eq(1)))
    return ir.Function("ruda_tan_f64", (x,), F64, tuple(b.body))


# -- inverse functions --------------------------------------------------------------------------
_ATANHI = (4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01,
           1.57079632679489655800e00)  # fmt: skip
_ATANLO = (2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17,
           6.12323399573676603587e-17)  # fmt: skip
_AT = (3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
       -1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
       6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
       -3.65315727442169155270e-02, 1.62858201153657823623e-02)  # fmt: skip


def _split(v: float, t: ir.Type) -> tuple[float, float]:
    """v as hi + lo in type t (f32: the f64 hi + lo re-split around the f32 hi)."""
    return (v, 0.0) if t is F64 else (float(np.float32(v)), v - float(np.float32(v)))


@cache
def atan(t: ir.Type = F64) -> ir.Function:
    """fdlibm s_atan.c: atan(x) = atan(c) + atan((x - c) / (1 + x c)) for c in 0, 1/2, 1, 3/2,
    inf, then an odd polynomial on the remainder (f32: the same, in f32)."""
    (x,) = params(t, "x")
    b = Builder(t)
    hi_lo = [_split(h, t) for h in _ATANHI]
    ahi = tuple(h for h, _ in hi_lo)
    alo = tuple(l + l0 for (_, l), l0 in zip(hi_lo, _ATANLO, strict=True))
    b.ret_if(isnan(x), x)
    ax = b.let(absf(x))
    b.ret_if(ax >= (2.0**66 if t is F64 else 2.0**26), copysign(c(ahi[3] + alo[3], t), x))
    b.ret_if(ax < (2.0**-27 if t is F64 else 2.0**-12), x)
    i = b.let(ir.select(ax < 0.4375, ir.Const(-1, I32), ir.select(ax < 0.6875, ir.Const(0, I32),
              ir.select(ax < 1.1875, ir.Const(1, I32), ir.select(ax < 2.4375, ir.Const(2, I32),
              ir.Const(3, I32))))))  # fmt: skip
    r2 = ir.select(i.eq(2), (ax - 1.5) / (1.0 + 1.5 * ax), -1.0 / ax)
    red = ir.select(i.eq(0), (2.0 * ax - 1.0) / (2.0 + ax),
                    ir.select(i.eq(1), (ax - 1.0) / (ax + 1.0), r2))  # fmt: skip
    z0 = b.let(ir.select(i < 0, x, red))
    z = b.let(z0 * z0)
    w = b.let(z * z)
    s1 = b.let(z * poly(w, _AT[0::2]))
    s2 = b.let(w * poly(w, _AT[1::2]))
    b.ret_if(i < 0, z0 - z0 * (s1 + s2))

    def table(vals: tuple[float, ...]) -> ir.Expr:
        return ir.select(i.eq(0), c(vals[0], t), ir.select(i.eq(1), c(vals[1], t),
                         ir.select(i.eq(2), c(vals[2], t), c(vals[3], t))))  # fmt: skip

    r = b.let(table(ahi) - ((z0 * (s1 + s2) - table(alo)) - z0))
    b.ret(copysign(r, x))
    return b.function("ruda_atan", (x,))


def _atan_of(t: ir.Type):
    return atan(t)


@cache
def atan2(t: ir.Type) -> ir.Function:
    """fdlibm e_atan2.c with C99's special cases (atan2(+-0, -0) = +-pi, inf pairs...); the
    quotient is formed on scaled operands (drivers may divide as a * (1 / b))."""
    y, x = params(t, "y x")
    b = Builder(t)
    pi, pi_lo = (3.1415926535897931160e00, 1.2246467991473531772e-16) if t is F64 else (
        3.1415927410e00, -8.7422776573e-08)  # fmt: skip
    b.ret_if(lor(isnan(x), isnan(y)), nan(t))
    b.ret_if(x.eq(1.0), _atan_of(t)(y))
    b.ret_if(is_zero(y), ir.select(signbit(x), copysign(c(pi, t), y), y))
    b.ret_if(is_zero(x), copysign(c(pi / 2, t), y))
    b.ret_if(land(isinf(x), isinf(y)),
             copysign(ir.select(signbit(x), c(3 * pi / 4, t), c(pi / 4, t)), y))  # fmt: skip
    b.ret_if(isinf(x), copysign(ir.select(signbit(x), c(pi, t), c(0.0, t)), y))
    b.ret_if(isinf(y), copysign(c(pi / 2, t), y))
    mh, lim = (20, 60) if t is F64 else (23, 26)
    k = b.let(ir.Binary("shr", ir.cast(hi(y) & 0x7FFFFFFF, I32) - ir.cast(hi(x) & 0x7FFFFFFF, I32),
                        ir.Const(mh, U32), I32))  # fmt: skip
    b.ret_if(k > lim, copysign(c(pi / 2 + 0.5 * pi_lo, t), y))
    ax, ay = b.let(absf(x)), b.let(absf(y))
    scale = b.let(ir.select(ir.call("max", ax, ay) > (2.0**512 if t is F64 else 2.0**64),
                            c(2.0**-64 if t is F32 else 2.0**-512, t), c(1.0, t)))  # fmt: skip
    z = b.let(ir.select(land(signbit(x), k < -lim), c(0.0, t),
                        _atan_of(t)((ay * scale) / (ax * scale))))  # fmt: skip
    b.ret_if(ir.Unary("not", signbit(x), BOOL), copysign(z, y))
    b.ret(copysign(c(pi, t) - (z - pi_lo), y))
    return b.function("ruda_atan2", (y, x))


@cache
def asin(t: ir.Type) -> ir.Function:
    """asin(x) = atan2(x, sqrt((1 - x)(1 + x))) (both factors exact near +-1)."""
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(isnan(x), x)
    b.ret_if(absf(x) > 1.0, nan(t))
    b.ret(atan2(t)(x, ir.call("sqrt", (1.0 - x) * (1.0 + x))))
    return b.function("ruda_asin", (x,))


@cache
def acos(t: ir.Type) -> ir.Function:
    """acos(x) = 2 atan2(sqrt(1 - x), sqrt(1 + x))."""
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(isnan(x), x)
    b.ret_if(absf(x) > 1.0, nan(t))
    b.ret(2.0 * atan2(t)(ir.call("sqrt", 1.0 - x), ir.call("sqrt", 1.0 + x)))
    return b.function("ruda_acos", (x,))
