"""Complex numbers in IR: c64/c128 values (a pair of floats) and the helper functions of NumPy's
complex loops, which both renderers emit.

A complex value renders as ``vec2<f32>``/``vec2<f64>`` (WGSL) or ``float2``/``double2`` (CUDA):
exactly NumPy's bytes, so buffers need no conversion. The IR keeps complex ``Binary``, ``Unary``
and ``Cast`` nodes (reductions build ``a + b`` on any type); the renderers call ``lower`` on
every node, which rewrites those into calls of the helpers here, built from real math on the
parts (``re``, ``im``, ``make``). Special values and branch cuts follow C99 Annex G (NumPy's
complex loops call the C library), division is Smith's algorithm as in NumPy's loop and ``abs``
is NumPy's scaled ``big * sqrt(1 + (small/big)^2)``, so neither overflows early.

    >>> from ruda._kernels import cmath, ir
    >>> z = ir.Var("z", ir.C64)
    >>> cmath.re(z).type, cmath.unary("exp", z).type
    (Type(name='f32'), Type(name='c64'))
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from functools import cache
from typing import Any

from . import ir
from .ir import BOOL, I32, Assign, If, Let, Return, Var, While
from .mathlib import copysign, from_words, hi, isfinite, isinf, isnan, land, lo, lor


# -- parts and values -----------------------------------------------------------------------
def re(z: ir.Expr) -> ir.Expr:
    """The real part (rendered ``z.x``)."""
    if isinstance(z, ir.Call) and z.fn == "complex":
        return z.args[0]
    return ir.Call("creal", (z,), z.type.part)


def im(z: ir.Expr) -> ir.Expr:
    """The imaginary part (rendered ``z.y``)."""
    if isinstance(z, ir.Call) and z.fn == "complex":
        return z.args[1]
    return ir.Call("cimag", (z,), z.type.part)


def make(r: Any, i: Any, t: ir.Type) -> ir.Expr:
    """The complex value ``r + i*j`` of type ``t`` (parts: expressions or numbers)."""
    return ir.Call("complex", (ir.lift(r, t.part), ir.lift(i, t.part)), t)


def _f(v: float, t: ir.Type) -> ir.Const:
    return ir.Const(v, t)


def _nan(t: ir.Type) -> ir.Const:
    return ir.Const(float("nan"), t)


def _abs(x: ir.Expr) -> ir.Expr:
    return ir.call("abs", x)


def _sel(c: ir.Expr, a: Any, b: Any) -> ir.Expr:
    return ir.select(c, a, b)


def _function(name: str, t: ir.Type, params: tuple[Var, ...], ret: ir.Type,
              body: list[Any]) -> ir.Function:  # fmt: skip
    return ir.Function(f"ruda_c{name}_{t.name}", params, ret, tuple(body))


def _parts(t: ir.Type, z: Var, names: str = "x y") -> tuple[Var, Var, list[Any]]:
    x, y = Var(names.split()[0], t.part), Var(names.split()[1], t.part)
    return x, y, [Let(x, re(z)), Let(y, im(z))]


# -- lowering of complex IR nodes (called by the renderers on every node) -------------------
def lower(e: ir.Expr) -> ir.Expr | None:
    """``e`` rewritten without complex operators and casts, or None when it has none."""
    if isinstance(e, ir.Binary) and (e.a.type.is_complex or e.b.type.is_complex):
        return binary_op(e.op, e.a, e.b)
    if isinstance(e, ir.Unary) and e.a.type.is_complex:
        if e.op == "neg":
            return unary("negative", e.a)
        if e.op == "not":
            return ir.Unary("not", truth(e.a), BOOL)
        raise TypeError(f"ruda kernels: no {e.op} on complex values")
    if isinstance(e, ir.Cast) and (e.a.type.is_complex or e.type.is_complex):
        return cast(e.a, e.type)
    if isinstance(e, ir.Call) and e.fn in ("shuffle_xor", "shuffle_up") and e.type.is_complex:
        z, d = e.args
        return make(ir.Call(e.fn, (re(z), d), e.type.part),
                    ir.Call(e.fn, (im(z), d), e.type.part), e.type)  # fmt: skip
    return None


def _complex(a: ir.Expr, t: ir.Type) -> ir.Expr:
    return a if a.type == t else cast(a, t)


def binary_op(op: str, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """IR operator ``op`` (add, sub, mul, div, eq, ne, land, lor) on complex operands."""
    if op in ("land", "lor"):
        ta = truth(a) if a.type.is_complex else a
        tb = truth(b) if b.type.is_complex else b
        return ir.Binary(op, ta, tb, BOOL)
    t = a.type if a.type.is_complex else b.type
    a, b = _complex(a, t), _complex(b, t)
    name = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide",
            "eq": "equal", "ne": "not_equal"}.get(op)  # fmt: skip
    if name is None:  # orderings, bitwise operators, remainders
        what = "complex is not ordered" if op in ("lt", "le", "gt", "ge") else "not defined"
        raise TypeError(f"ruda kernels: no {op} on complex values ({what})")
    return binary(name, a, b)


def truth(z: ir.Expr) -> ir.Expr:
    """``z != 0`` (either part nonzero; NaN is true)."""
    return lor(re(z).ne(0.0), im(z).ne(0.0))


def cast(a: ir.Expr, t: ir.Type) -> ir.Expr:
    """NumPy's conversion of ``a`` to ``t`` where either is complex (to real: the real part)."""
    s = a.type
    if s == t:
        return a
    if s.is_complex and t.is_complex:
        return make(ir.cast(re(a), t.part), ir.cast(im(a), t.part), t)
    if t.is_complex:  # real (bool, int, float) to complex
        src = ir.cast(a, ir.F32) if s is ir.F16 and t.part is ir.F64 else a
        return make(ir.cast(src, t.part), 0.0, t)
    if t is BOOL:
        return truth(a)
    return ir.cast(re(a), t)


# -- the op table's complex functions -------------------------------------------------------
def unary(name: str, z: ir.Expr) -> ir.Expr:
    """Op-table function ``name`` of complex ``z``: complex, or real (abs, real, imag) or bool
    (isnan, isinf, isfinite, logical_not) for the ``REAL_VALUED`` ones."""
    if name == "positive":
        return z
    if name in _REAL_VALUED:
        return _REAL_VALUED[name](z)
    return _UNARY[name](z.type)(z)


def binary(name: str, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """Op-table function ``name`` of complex ``a`` and ``b``."""
    return _BINARY[name](a.type)(a, b)


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

    inf = ir.Const(float("inf"), f)
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
            If(rec, (Assign(x, inf * (p * r - q * s)), Assign(y, inf * (p * s + q * r)))),
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


def _subnormal_scale(f: ir.Type) -> tuple[ir.Const, ir.Const, ir.Const]:
    """The smallest normal, a power of two lifting any subnormal part above it, and its log:
    hypot of subnormal parts keeps too few bits for log|z| or z / |z|."""
    bits = 54 if f is ir.F64 else 24
    tiny = _f(2.0 ** (-1022 if f is ir.F64 else -126), f)
    return tiny, _f(2.0**bits, f), _f(bits * math.log(2.0), f)


def _hypot_big(f: ir.Type) -> float:
    # parts from here on may overflow hypot (and |x| + hypot): scaled down by 4 first
    return 2.0**1020 if f is ir.F64 else 2.0**124


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
    body += [  # subnormal parts scaled up, parts whose |z| may overflow down (an inf stays inf)
        Let(s, ir.select(m < tiny, scale, ir.select(m >= big, _f(0.25, f), one))),
        Let(xs, x * s), Let(ys, y * s),
        Let(h, ir.call("hypot", xs, ys)),
        If(isnan(h), (Return(make(_nan(f), _nan(f), t)),)),
        If(isinf(h), (
            If(land(isinf(x), isinf(y)), (Return(make(_nan(f), _nan(f), t)),)),
            If(isinf(x), (Return(make(copysign(one, x), 0.0, t)),)),
            Return(make(0.0, copysign(one, y), t)),
        )),
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
    z = Var("z", t)
    k = math.log(2.0)
    return _function("exp2", t, (z,), t, [Return(_exp(t)(make(re(z) * k, im(z) * k, t)))])


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
            at_zero = make(ch, copysign(zero, x) * y, t)  # sinh(x) * 0 without inf * 0
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
    h = hi(v) ^ 0x80000000
    return ir.Bitcast(h, ir.F32) if v.type is ir.F32 else from_words(lo(v), h)


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


_REAL_VALUED: dict[str, Callable[[ir.Expr], ir.Expr]] = {
    "abs": lambda z: _abs_fn(z.type)(z),
    "real": re,
    "imag": im,
    "isnan": lambda z: lor(isnan(re(z)), isnan(im(z))),
    "isinf": lambda z: lor(isinf(re(z)), isinf(im(z))),
    "isfinite": lambda z: land(isfinite(re(z)), isfinite(im(z))),
    "logical_not": lambda z: ir.Unary("not", truth(z), BOOL),
}
_UNARY: dict[str, Callable[[ir.Type], ir.Function]] = {
    "negative": _negative, "conj": _conj, "square": _square, "reciprocal": _reciprocal,
    "sign": _sign, "sqrt": _sqrt, "exp": _exp, "exp2": _exp2, "expm1": _expm1, "log": _log,
    "log1p": _log1p, "log2": _scaled_log(2.0, "log2"), "log10": _scaled_log(10.0, "log10"),
    "sinh": _sinh, "cosh": _cosh, "tanh": _tanh,
    "sin": _rotated("sin", _sinh, _times_minus_i), "cos": _rotated("cos", _cosh, lambda w: w),
    "tan": _rotated("tan", functools.partial(_tanh, c99=True), _times_minus_i),
    "acos": _acos, "acosh": _acosh, "atanh": _atanh,
    "asinh": _asinh, "asin": _rotated("asin", _asinh, _times_minus_i),
    "atan": _rotated("atan", _atanh, _times_minus_i),
    "rint": _componentwise("rint"), "round": _componentwise("rint"),
}  # fmt: skip
_BINARY: dict[str, Callable[[ir.Type], ir.Function]] = {
    "add": _add, "subtract": _subtract, "multiply": _multiply, "divide": _divide,
    "equal": _equal, "not_equal": _not_equal, "pow": _pow, "float_power": _pow,
}  # fmt: skip
# Complex in, real or bool out.
REAL_VALUED = frozenset(_REAL_VALUED)
# Every op-table function with a complex kernel (logical ops take the truth value).
OPS = (frozenset(_UNARY) | REAL_VALUED | frozenset(_BINARY)
       | {"positive", "logical_and", "logical_or", "logical_xor"})  # fmt: skip
