"""Complex arithmetic as IR functions: the componentwise ops, +, -, *, / (Smith's algorithm),
comparisons, square, reciprocal, abs (NumPy's scaled loop), sign and C99's csqrt.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import cmath_arith
    >>> cmath_arith._divide(ir.C64).name
    'ruda_cdiv_c64'
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from .. import ir
from ..ir import BOOL, U32, Assign, If, Let, Return, Var
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
from .mathlib import copysign, exp_mask, from_hi, hi, isinf, isnan, land, lor


def _componentwise(fn: str) -> Callable[[ir.Type], ir.Function]:
    @cache
    def build(t: ir.Type) -> ir.Function:
        z = Var("z", t)
        return _function(fn, t, (z,), t, [Return(make(ir.call(fn, re(z)), ir.call(fn, im(z)), t))])

    return build


@cache
def _negative(t: ir.Type) -> ir.Function:
    z = Var("z", t)
    return _function("neg", t, (z,), t, [Return(make(-re(z), -im(z), t))])


@cache
def _conj(t: ir.Type) -> ir.Function:
    z = Var("z", t)
    return _function("conj", t, (z,), t, [Return(make(re(z), -im(z), t))])


@cache
def _add(t: ir.Type) -> ir.Function:
    a, b = Var("a", t), Var("b", t)
    return _function("add", t, (a, b), t, [Return(make(re(a) + re(b), im(a) + im(b), t))])


@cache
def _subtract(t: ir.Type) -> ir.Function:
    a, b = Var("a", t), Var("b", t)
    return _function("sub", t, (a, b), t, [Return(make(re(a) - re(b), im(a) - im(b), t))])


@cache
def _multiply(t: ir.Type) -> ir.Function:
    a, b = Var("a", t), Var("b", t)
    ar, ai, br, bi = re(a), im(a), re(b), im(b)
    return _function("mul", t, (a, b), t,
                     [Return(make(ar * br - ai * bi, ar * bi + ai * br, t))])  # fmt: skip


def _times_inf(v: ir.Expr) -> ir.Expr:
    """inf * v built from bits (+-inf with v's sign, NaN for 0 or NaN): NVIDIA's Vulkan
    compiler gave NaN for products with an infinite constant (complex pow at infinities)."""
    h = ir.select(lor(isnan(v), v.eq(0.0)), ir.Const(0x7FF80000, U32),
                  (hi(v) & 0x80000000) | exp_mask(v.type))  # fmt: skip
    return from_hi(v.type, h)


@cache
def _multiply_c99(t: ir.Type) -> ir.Function:
    """C99 Annex G's product (``__muldc3``): an infinite factor gives an infinite product where
    the plain formula gives NaN (cpow computes exp(b * log a) with it)."""
    a, b = Var("a", t), Var("b", t)
    f = t.part
    p, q, r, s = (Var(n, f) for n in ("p", "q", "r", "s"))  # a = p + qi, b = r + si
    ac, bd, ad, bc, x, y = (Var(n, f) for n in ("ac", "bd", "ad", "bc", "x", "y"))
    rec = Var("rec", BOOL)
    zero, one = _f(0.0, f), _f(1.0, f)

    def box(v: Var) -> Assign:  # an infinite part becomes +-1, a finite one +-0
        return Assign(v, copysign(_sel(isinf(v), one, zero), v))

    def unnan(*vs: Var) -> tuple[If, ...]:
        return tuple(If(isnan(v), (Assign(v, copysign(zero, v)),)) for v in vs)

    body: list[Any] = [
        Let(p, re(a), mutable=True), Let(q, im(a), mutable=True),
        Let(r, re(b), mutable=True), Let(s, im(b), mutable=True),
        Let(ac, p * r), Let(bd, q * s), Let(ad, p * s), Let(bc, q * r),
        Let(x, ac - bd, mutable=True), Let(y, ad + bc, mutable=True),
        If(land(isnan(x), isnan(y)), (
            Let(rec, ir.Const(False, BOOL), mutable=True),
            If(lor(isinf(p), isinf(q)), (box(p), box(q), *unnan(r, s),
                                         Assign(rec, ir.Const(True, BOOL)))),
            If(lor(isinf(r), isinf(s)), (box(r), box(s), *unnan(p, q),
                                         Assign(rec, ir.Const(True, BOOL)))),
            If(land(ir.Unary("not", rec, BOOL),
                    lor(isinf(ac), isinf(bd), isinf(ad), isinf(bc))),
               (*unnan(p, q, r, s), Assign(rec, ir.Const(True, BOOL)))),
            If(rec, (Assign(x, _times_inf(p * r - q * s)), Assign(y, _times_inf(p * s + q * r)))),
        )),
        Return(make(x, y, t)),
    ]  # fmt: skip
    return _function("mul_c99", t, (a, b), t, body)


@cache
def _divide(t: ir.Type, scaled: bool = True) -> ir.Function:
    """Smith's algorithm, as NumPy's loop (no overflow of |b|^2; x / 0 gives inf or nan); for
    a divisor with only subnormal parts both operands are scaled up first (NumPy's 1 / b
    overflows there: 0 / 1e-45j is NaN, and a tiny dividend's parts lose bits). ``scaled``
    False: NumPy's loop exactly (pow's 1 / z^n, which NumPy's power takes so)."""
    a, b = Var("a", t), Var("b", t)
    f = t.part
    ar, ai, br, bi, k = (Var(n, f) for n in ("ar", "ai", "br", "bi", "k"))
    abr, abi, rat, scl = (Var(n, f) for n in ("abr", "abi", "rat", "scl"))
    tiny, up, _ = _subnormal_scale(f)
    body: list[Any] = [
        Let(k, _sel(ir.call("max", _abs(re(b)), _abs(im(b))) < tiny, up, _f(1.0, f))
            if scaled else _f(1.0, f)),
        Let(ar, re(a) * k), Let(ai, im(a) * k), Let(br, re(b) * k), Let(bi, im(b) * k),
        Let(abr, _abs(br)), Let(abi, _abs(bi)),
    ]  # fmt: skip
    rat2, scl2 = Var("rat2", f), Var("scl2", f)
    body += [
        If(abr >= abi, (
            If(land(abr.eq(0.0), abi.eq(0.0)), (Return(make(ar / abr, ai / abr, t)),)),
            Let(rat, bi / br), Let(scl, 1.0 / (br + bi * rat)),
            Return(make((ar + ai * rat) * scl, (ai - ar * rat) * scl, t)),
        )),
        Let(rat2, br / bi), Let(scl2, 1.0 / (bi + br * rat2)),
        Return(make((ar * rat2 + ai) * scl2, (ai * rat2 - ar) * scl2, t)),
    ]  # fmt: skip
    return _function("div" if scaled else "div_smith", t, (a, b), t, body)


@cache
def _equal(t: ir.Type) -> ir.Function:
    a, b = Var("a", t), Var("b", t)
    return _function("eq", t, (a, b), BOOL, [Return(land(re(a).eq(re(b)), im(a).eq(im(b))))])


@cache
def _not_equal(t: ir.Type) -> ir.Function:
    a, b = Var("a", t), Var("b", t)
    return _function("ne", t, (a, b), BOOL, [Return(lor(re(a).ne(re(b)), im(a).ne(im(b))))])


@cache
def _square(t: ir.Type) -> ir.Function:
    z = Var("z", t)
    x, y, body = _parts(t, z)
    # x^2 - y^2 with one rounding of y^2, as NumPy's (FMA) loop; 2xy doubles the smaller part:
    # drivers reassociate xy + yx (or 2(xy)) into (x + x)y, which overflows past max/2
    m, big = Var("m", t.part), Var("big", t.part)
    body += [Let(m, _sel(_abs(x) <= _abs(y), x, y)), Let(big, _sel(_abs(x) <= _abs(y), y, x))]
    re_ = ir.call("fma", x, x, -(y * y))
    return _function("square", t, (z,), t, [*body, Return(make(re_, (m + m) * big, t))])


@cache
def _reciprocal(t: ir.Type) -> ir.Function:
    """NumPy's loop: 1 / z scaled by the larger part."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    r, d, r2, d2 = (Var(n, t.part) for n in ("r", "d", "r2", "d2"))
    body += [
        If(_abs(y) <= _abs(x), (Let(r, y / x), Let(d, x + y * r),
                                Return(make(1.0 / d, -r / d, t)))),
        Let(r2, x / y), Let(d2, x * r2 + y),
        Return(make(r2 / d2, -1.0 / d2, t)),
    ]  # fmt: skip
    return _function("recip", t, (z,), t, body)


@cache
def _abs_fn(t: ir.Type) -> ir.Function:
    """NumPy's absolute loop (its SIMD kernel, not ``hypot``): ``big * sqrt(fma(r, r, 1))``
    with ``r = small / big``, so the same roundings give the same bits; an infinite part gives
    inf, else a NaN part NaN."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    f = t.part
    big, small, r = Var("big", f), Var("small", f), Var("r", f)
    body += [
        If(lor(isinf(x), isinf(y)), (Return(ir.Const(float("inf"), f)),)),
        If(lor(isnan(x), isnan(y)), (Return(_nan(f)),)),
        Let(big, ir.call("max", _abs(x), _abs(y))),
        Let(small, ir.call("min", _abs(x), _abs(y))),
        If(big.eq(0.0), (Return(_f(0.0, f)),)),
        Let(r, small / big),
        Return(ir.call("sqrt", ir.call("fma", r, r, _f(1.0, f))) * big),
    ]  # fmt: skip
    return _function("abs", t, (z,), f, body)


@cache
def _sign(t: ir.Type) -> ir.Function:
    """NumPy 2: z / |z| (scaled, so without NumPy's overflow and underflow); 0 for 0; an
    infinite part gives its unit direction."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    f = t.part
    h, s, xs, ys = (Var(n, f) for n in ("h", "s", "xs", "ys"))
    one = _f(1.0, f)
    tiny, scale, _ = _subnormal_scale(f)
    big, m = _f(_hypot_big(f), f), ir.call("max", _abs(x), _abs(y))
    body += [
        # an infinite part first, by its bits (NVIDIA's Vulkan compiler lost hypot's inf in
        # complex128 when the other part was NaN)
        If(lor(isinf(x), isinf(y)), (
            If(land(isinf(x), isinf(y)), (Return(make(_nan(f), _nan(f), t)),)),
            If(isinf(x), (Return(make(copysign(one, x), 0.0, t)),)),
            Return(make(0.0, copysign(one, y), t)),
        )),
        # subnormal parts scaled up, parts whose |z| may overflow down
        Let(s, ir.select(m < tiny, scale, ir.select(m >= big, _f(0.25, f), one))),
        Let(xs, x * s), Let(ys, y * s),
        Let(h, ir.call("hypot", xs, ys)),
        If(isnan(h), (Return(make(_nan(f), _nan(f), t)),)),
        If(h.eq(0.0), (Return(make(0.0, 0.0, t)),)),
        Return(make(xs / h, ys / h, t)),
    ]  # fmt: skip
    return _function("sign", t, (z,), t, body)


@cache
def _sqrt(t: ir.Type) -> ir.Function:
    """C99 csqrt: the principal root, branch cut on the negative reals (continuous from the
    side of the imaginary part's sign); scaled so that large parts do not overflow."""
    z = Var("z", t)
    x, y, body = _parts(t, z)
    f = t.part
    big = _hypot_big(f)
    s, k, a, b, h, r = (Var(n, f) for n in ("s", "k", "a", "b", "h", "r"))
    inf = ir.Const(float("inf"), f)
    scaled = lor(_abs(x) >= big, _abs(y) >= big)
    tiny, up, _ = _subnormal_scale(f)
    small = ir.call("max", _abs(x), _abs(y)) < tiny
    root = 2.0 ** -(27 if f is ir.F64 else 12)  # sqrt of 1/up
    body += [
        If(land(x.eq(0.0), y.eq(0.0)), (Return(make(_f(0.0, f), y, t)),)),
        If(isinf(y), (Return(make(inf, y, t)),)),
        If(isnan(x), (Return(make(x, _nan(f), t)),)),
        If(isinf(x), (
            If(x < 0.0, (Return(make(_sel(isnan(y), y, _f(0.0, f)), copysign(inf, y), t)),)),
            Return(make(x, _sel(isnan(y), y, copysign(_f(0.0, f), y)), t)),
        )),
        # scale z by 1/4 where |x| + hypot could overflow, the root back by 2; subnormal parts up
        Let(s, _sel(scaled, _f(0.25, f), _sel(small, up, _f(1.0, f)))),
        Let(k, _sel(scaled, _f(2.0, f), _sel(small, _f(root, f), _f(1.0, f)))),
        Let(a, x * s), Let(b, y * s),
        Let(h, ir.call("hypot", a, b)),
        If(a >= 0.0, (
            Let(r, ir.call("sqrt", (a + h) * 0.5)),
            Return(make(r * k, b / (2.0 * r) * k, t)),
        )),
        Let(r, ir.call("sqrt", (h - a) * 0.5)),  # x < 0: the root's larger part is imaginary
        Return(make(_abs(b) / (2.0 * r) * k, copysign(r, b) * k, t)),
    ]  # fmt: skip
    return _function("sqrt", t, (z,), t, body)
