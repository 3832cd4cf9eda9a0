"""Complex exp and log family, the hyperbolic functions, the trig functions as rotations of
them (sin z = -i sinh(iz)...) and pow, with C99 Annex G's special values.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import cmath_exp_log
    >>> cmath_exp_log._exp(ir.C128).name
    'ruda_cexp_c128'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

from .. import ir
from ..ir import BOOL, I32, Assign, If, Let, Return, Var, While
from .cmath_arith import _divide, _multiply, _multiply_c99
from .cmath_parts import (
    _abs,
    _f,
    _function,
    _hypot_big,
    _nan,
    _parts,
    _sel,
    _subnormal_scale,
    im,
    make,
    re,
)
from .mathlib import copysign, from_hi, hi, isfinite, isinf, isnan, land, lor, with_hi


def _exp_cutoff(f: ir.Type) -> float:
    # exp(x) overflows above this: compute exp(x/2)^2 times the trig factor instead
    return 709.0 if f is ir.F64 else 88.0


@cache
def _exp(t: ir.Type) -> ir.Function:
    """C99 cexp: exp(x) * cis(y); exact for y == 0; no early overflow of exp(x) * cos(y)."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    f = t.part
    e, h = Var("e", f), Var("h", f)
    zero, nan = _f(0.0, f), _nan(f)
    body += [
        If(y.eq(0.0), (Return(make(ir.call("exp", x), y, t)),)),
        If(isinf(x), (  # y is not zero here
            # +0 cis(y) (copysign: compilers may fold 0 * v to +0)
            If(x < 0.0, (Return(_sel(isfinite(y), make(copysign(zero, ir.call("cos", y)),
                                                       copysign(zero, ir.call("sin", y)), t),
                                     make(zero, _sel(isinf(y), copysign(zero, y), zero), t))),)),
            If(lor(isinf(y), isnan(y)), (Return(make(x, nan, t)),)),
        )),
        If(x > _exp_cutoff(f), (
            Let(h, ir.call("exp", x * 0.5)),
            Return(make(h * ir.call("cos", y) * h, h * ir.call("sin", y) * h, t)),
        )),
        Let(e, ir.call("exp", x)),
        Return(make(e * ir.call("cos", y), e * ir.call("sin", y), t)),
    ]  # fmt: skip
    return _function("exp", t, (z,), t, body)


@cache
def _log(t: ir.Type) -> ir.Function:
    """C99 clog: log|z| + i arg z (branch cut on the negative reals); log1p near |z| = 1."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    f = t.part
    ax, ay, h, hi, lo = (Var(n, f) for n in ("ax", "ay", "h", "hi", "lo"))
    tiny, scale, log_scale = _subnormal_scale(f)
    big = _f(_hypot_big(f), f)
    body += [
        # an infinite part first, by its bits: NVIDIA's Vulkan compiler lost hypot's inf here
        # (log(nan + inf j) came out nan + nan j in complex128, right in complex64)
        If(lor(isinf(x), isinf(y)), (Return(make(_f(math.inf, f), ir.call("atan2", y, x), t)),)),
        Let(ax, _abs(x)), Let(ay, _abs(y)),
        Let(h, ir.call("hypot", x, y)),
        Let(hi, ir.call("max", ax, ay)), Let(lo, ir.call("min", ax, ay)),
        If(land(h > 0.71, h < 1.73), (  # |z| near 1: log|z| = log1p((hi-1)(hi+1) + lo^2) / 2
            Return(make(0.5 * ir.call("log1p", (hi - 1.0) * (hi + 1.0) + lo * lo),
                        ir.call("atan2", y, x), t)),
        )),
        If(hi < tiny, (  # subnormal parts: hypot has too few bits, so scale up by 2^k first
            Return(make(ir.call("log", ir.call("hypot", x * scale, y * scale)) - log_scale,
                        ir.call("atan2", y, x), t)),
        )),
        If(hi >= big, (  # |z| may overflow: scale down by 4 (exact) first
            Return(make(ir.call("log", ir.call("hypot", x * 0.25, y * 0.25)) + math.log(4.0),
                        ir.call("atan2", y, x), t)),
        )),
        Return(make(ir.call("log", h), ir.call("atan2", y, x), t)),
    ]  # fmt: skip
    return _function("log", t, (z,), t, body)


def _scaled_log(base: float, tag: str) -> Callable[[ir.Type], ir.Function]:
    @cache
    def build(t: ir.Type) -> ir.Function:
        z, w = Var("z", t), Var("w", t)
        k = 1.0 / math.log(base)
        body = [Let(w, _log(t)(z)), Return(make(re(w) * k, im(w) * k, t))]
        return _function(tag, t, (z,), t, body)

    return build


@cache
def _log1p(t: ir.Type) -> ir.Function:
    """log|1 + z| + i arg(1 + z), as NumPy's loop; for small z, log|1 + z| is
    log1p(2x + x^2 + y^2) / 2, without the cancellation of 1 + x."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    u = Var("u", t.part)
    small = land(_abs(x) < 0.5, _abs(y) < 0.5)
    body += [
        Let(u, x + 1.0),
        If(
            small,
            (
                Return(
                    make(0.5 * ir.call("log1p", x * (2.0 + x) + y * y), ir.call("atan2", y, u), t)
                ),
            ),
        ),
        Return(_log(t)(make(u, y, t))),  # log(1 + z): scaled where |1 + z| would overflow
    ]
    return _function("log1p", t, (z,), t, body)


@cache
def _expm1(t: ir.Type) -> ir.Function:
    """NumPy's loop: expm1(x) cos y - 2 sin^2(y/2) + i exp(x) sin y; the standard's special
    values: expm1(x) + 0j on the real axis (+0 for ±0), C99's cexp(z) - 1 off the finite."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    a, e = Var("a", t.part), Var("e", t)
    body += [If(y.eq(0.0), (Return(make(_sel(x.eq(0.0), _f(0.0, t.part), ir.call("expm1", x)),
                                        y, t)),)),
             If(ir.Unary("not", land(isfinite(x), isfinite(y)), BOOL), (
                 Let(e, _exp(t)(z)), Return(make(re(e) - 1.0, im(e), t)))),
             Let(a, ir.call("sin", y * 0.5)),
             Return(make(ir.call("expm1", x) * ir.call("cos", y) - 2.0 * a * a,
                         ir.call("exp", x) * ir.call("sin", y), t))]  # fmt: skip
    return _function("expm1", t, (z,), t, body)


@cache
def _exp2(t: ir.Type) -> ir.Function:
    """exp(z ln 2), a non-finite part passed on unscaled: NVIDIA's Vulkan compiler takes a
    product for finite, so exp's bit tests missed the scaled infinity (exp2(inf j) came out
    finite there)."""
    z = Var("z", t)
    k = math.log(2.0)

    def scaled(v: ir.Expr) -> ir.Expr:
        return _sel(isfinite(v), v * k, v)

    return _function("exp2", t, (z,), t, [Return(_exp(t)(make(scaled(re(z)), scaled(im(z)), t)))])


def _zero_product(x: ir.Expr, y: ir.Expr) -> ir.Expr:
    """The zero x * y is for y == 0 (finite x), its sign from the sign bits: NVIDIA's Vulkan
    compiler may fold a product with a known zero to +0 (cos(0j) gave 1+0j in complex64)."""
    return from_hi(x.type, (hi(x) ^ hi(y)) & 0x80000000)


def _hyperbolic(cosh: bool) -> Callable[[ir.Type], ir.Function]:
    """csinh/ccosh with C99's special values; large |x| computes exp(|x|/2)^2 scaled."""

    @cache
    def build(t: ir.Type) -> ir.Function:
        z = Var("z", t)
        x, y, body = _parts(t, z)
        f = t.part
        nan, zero, inf = _nan(f), _f(0.0, f), ir.Const(float("inf"), f)
        big = 22.0 if f is ir.F64 else 9.0
        h, s = Var("h", f), Var("s", f)
        ch, sh = ir.call("cosh", x), ir.call("sinh", x)
        cy, sy = ir.call("cos", y), ir.call("sin", y)
        if cosh:
            at_zero = make(ch, _zero_product(x, y), t)  # sinh(x) * 0 without inf * 0
            bad_y = (If(x.eq(0.0), (Return(make(nan, zero, t)),)),
                     If(isinf(x), (Return(make(inf, nan, t)),)))  # fmt: skip
            small = make(ch * cy, sh * sy, t)
            large = make(0.5 * h * cy * h, s * (0.5 * h * sy) * h, t)
        else:
            at_zero = make(sh, y, t)
            bad_y = (If(x.eq(0.0), (Return(make(x, nan, t)),)),
                     If(isinf(x), (Return(make(x * x, nan, t)),)))  # fmt: skip
            small = make(sh * cy, ch * sy, t)
            large = make(s * (0.5 * h * cy) * h, 0.5 * h * sy * h, t)
        body += [
            If(y.eq(0.0), (Return(at_zero),)),
            If(ir.Unary("not", isfinite(y), BOOL), (*bad_y, Return(make(nan, nan, t)))),
            If(_abs(x) < big, (Return(small),)),
            Let(h, ir.call("exp", _abs(x) * 0.5)),
            Let(s, _sel(x < 0.0, _f(-1.0, f), _f(1.0, f))),
            Return(large),
        ]  # fmt: skip
        return _function("cosh" if cosh else "sinh", t, (z,), t, body)

    return build


_sinh, _cosh = _hyperbolic(False), _hyperbolic(True)


@cache
def _tanh(t: ir.Type, c99: bool = False) -> ir.Function:
    """Kahan's ctanh (as FreeBSD's): tan y and sinh x, no cancellation; C99 special values,
    but for tanh(+-inf + yj) with finite y: the standard's +-1 + 0j with y's sign (``c99``:
    sin(2y)'s sign, which ctan's values follow)."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    f = t.part
    nan, zero = _nan(f), _f(0.0, f)
    big = 22.0 if f is ir.F64 else 9.0
    tt, beta, s, rho, den, em = (Var(n, f) for n in ("tt", "beta", "s", "rho", "den", "em"))
    one = _f(1.0, f)
    sc = ir.call("sin", y) * ir.call("cos", y)
    body += [
        If(isnan(x), (Return(make(x, _sel(y.eq(0.0), y, nan), t)),)),
        If(isinf(x), (Return(make(copysign(one, x),
                                  copysign(zero, _sel(isfinite(y), sc if c99 else y, y)), t)),)),
        If(ir.Unary("not", isfinite(y), BOOL),
           (Return(make(_sel(x.eq(0.0), x, nan), nan, t)),)),
        If(_abs(x) >= big, (
            Let(em, ir.call("exp", -_abs(x))),
            Return(make(copysign(one, x), 4.0 * sc * em * em, t)),
        )),
        Let(tt, ir.call("tan", y)), Let(beta, 1.0 + tt * tt),
        Let(s, ir.call("sinh", x)), Let(rho, ir.call("sqrt", 1.0 + s * s)),
        Let(den, 1.0 + beta * s * s),
        Return(make(beta * rho * s / den, tt / den, t)),
    ]  # fmt: skip
    return _function("tanh_c99" if c99 else "tanh", t, (z,), t, body)


def _negated(v: ir.Expr) -> ir.Expr:
    """``-v`` as its sign bit flipped, a NaN's too (NVIDIA's float64 negation may leave it;
    C99's special values follow a NaN's sign through these rotations)."""
    return with_hi(v, hi(v) ^ 0x80000000)


def _times_i(z: ir.Expr) -> ir.Expr:
    return make(_negated(im(z)), re(z), z.type)


def _times_minus_i(z: ir.Expr) -> ir.Expr:
    return make(im(z), _negated(re(z)), z.type)


def _rotated(name: str, inner: Callable[[ir.Type], ir.Function],
             out: Callable[[ir.Expr], ir.Expr]) -> Callable[[ir.Type], ir.Function]:  # fmt: skip
    """f(z) = out(inner(i z)): sin = -i sinh(iz), cos = cosh(iz), tan = -i tanh(iz)..."""

    @cache
    def build(t: ir.Type) -> ir.Function:
        z, w = Var("z", t), Var("w", t)
        body = [Let(w, inner(t)(_times_i(z))), Return(out(w))]
        return _function(name, t, (z,), t, body)

    return build


@cache
def _pow(t: ir.Type) -> ir.Function:
    """NumPy's loop: 1 for b == 0; 0 ** b is 0 for Re b > 0, else NaN; small integer b by
    repeated squaring (then 1 / r for negative b); otherwise exp(b log a) (C's cpow)."""
    a, b = Var("a", t), Var("b", t)
    f = t.part
    ar, ai, br, bi = (Var(n, f) for n in ("ar", "ai", "br", "bi"))
    n, m = Var("n", I32), Var("m", I32)
    acc, p = Var("acc", t), Var("p", t)
    mul = _multiply(t)
    nan = _nan(f)
    body = [
        Let(ar, re(a)), Let(ai, im(a)), Let(br, re(b)), Let(bi, im(b)),
        If(land(br.eq(0.0), bi.eq(0.0)), (Return(make(1.0, 0.0, t)),)),
        If(land(ar.eq(0.0), ai.eq(0.0)), (
            If(br > 0.0, (Return(make(0.0, 0.0, t)),)),  # NumPy 2: 0 for Re b > 0
            Return(make(nan, nan, t)),
        )),
        If(land(bi.eq(0.0), _abs(br) < 100.0, ir.call("trunc", br).eq(br)), (
            Let(n, ir.cast(br, I32)),
            If(n.eq(1), (Return(a),)),
            If(n.eq(2), (Return(mul(a, a)),)),
            If(n.eq(3), (Return(mul(mul(a, a), a)),)),
            Let(m, ir.call("abs", n), mutable=True),
            Let(acc, make(1.0, 0.0, t), mutable=True), Let(p, a, mutable=True),
            While(ir.Const(True, BOOL), (
                If((m & 1).eq(1), (Assign(acc, mul(acc, p)),)),
                Assign(m, m >> 1),
                If(m.eq(0), (ir.Break(),)),
                Assign(p, mul(p, p)),
            )),
            If(land(n < 0, re(acc).eq(0.0), im(acc).eq(0.0)), (  # underflowed: NumPy's 1 / 0
                Return(make(ir.Const(float("inf"), f), nan, t)),  # (drivers fold 0 / x to 0)
            )),
            If(n < 0, (Return(_divide(t, False)(make(1.0, 0.0, t), acc)),)),
            Return(acc),
        )),
        Return(_exp(t)(_multiply_c99(t)(b, _log(t)(a)))),  # the C library's cpow
    ]  # fmt: skip
    return _function("pow", t, (a, b), t, body)
