"""Math in IR: bit tests on floats and helper functions that both renderers can emit.

Bit tests (isnan, signbit, copysign...) read the float's bits, so they hold even where the
compiler assumes no NaN or infinity (WGSL allows that). Helpers (``Function``) are built once
per (name, type) and rendered once per module by the renderer that calls them.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import mathlib
    >>> x = ir.Var("x", ir.F32)
    >>> mathlib.isnan(x).type
    Type(name='bool')
"""

from __future__ import annotations

from functools import cache

from .. import ir
from ..ir import F32, F64, U32, U64, Assign, For, If, Let, Return, Var

_LN2 = 0.6931471805599453
_LOG2E = 1.4426950408889634


def _f(v: float, t: ir.Type) -> ir.Const:
    return ir.Const(v, t)


# -- bits of floats (f32 as one u32 word; f64 as hi/lo words: no int64 needed) ---------------
def _wide(x: ir.Expr) -> ir.Expr:
    # f16 bits are not addressable in WGSL: f32(x) keeps sign, inf and nan exactly
    return ir.cast(x, F32) if x.type.is_half else x


def hi(x: ir.Expr) -> ir.Expr:
    """The word holding sign and exponent (f32: the only word; f16: its f32 value's)."""
    x = _wide(x)
    return ir.Bitcast(x, U32) if x.type is F32 else ir.Call("hiword", (x,), U32)


def lo(x: ir.Expr) -> ir.Expr:
    return ir.Call("loword", (x,), U32)


def from_words(lo_: ir.Expr, hi_: ir.Expr) -> ir.Expr:
    return ir.Call("from_words", (lo_, hi_), F64)


def with_hi(x: ir.Expr, h: ir.Expr) -> ir.Expr:
    """``x`` with its high word replaced (f32: the whole float)."""
    return ir.Bitcast(h, F32) if x.type is F32 else from_words(lo(x), h)


def from_hi(t: ir.Type, h: ir.Expr) -> ir.Expr:
    """The f32 or f64 whose high word is ``h`` (f64: low word 0): floats built from bits,
    which a compiler cannot fold the way it folds arithmetic on known values."""
    return ir.Bitcast(h, F32) if t is F32 else from_words(ir.Const(0, U32), h)


def exp_mask(t: ir.Type) -> int:
    """The exponent bits of ``t``'s high word (f32 or f64)."""
    return 0x7F800000 if t is F32 else 0x7FF00000


def isnan(x: ir.Expr) -> ir.Expr:
    x = _wide(x)
    h = hi(x) & 0x7FFFFFFF
    if x.type is F32:
        return h > exp_mask(F32)
    m = exp_mask(F64)
    return ir.Binary("lor", h > m, ir.Binary("land", h.eq(m), lo(x).ne(0), ir.BOOL), ir.BOOL)


def isinf(x: ir.Expr) -> ir.Expr:
    x = _wide(x)
    h = hi(x) & 0x7FFFFFFF
    if x.type is F32:
        return h.eq(exp_mask(F32))
    return ir.Binary("land", h.eq(exp_mask(F64)), lo(x).eq(0), ir.BOOL)


def isfinite(x: ir.Expr) -> ir.Expr:
    x = _wide(x)
    return (hi(x) & 0x7FFFFFFF) < exp_mask(x.type)


def signbit(x: ir.Expr) -> ir.Expr:
    return (hi(x) >> 31).ne(0)


def copysign(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    if a.type.is_half:
        return ir.cast(copysign(_wide(a), _wide(b)), a.type)
    h = (hi(a) & 0x7FFFFFFF) | (hi(b) & 0x80000000)
    return with_hi(a, h)


def is_zero(x: ir.Expr) -> ir.Expr:
    x = _wide(x)
    h = hi(x) & 0x7FFFFFFF
    return h.eq(0) if x.type is F32 else ir.Binary("land", h.eq(0), lo(x).eq(0), ir.BOOL)


def lor(*xs: ir.Expr) -> ir.Expr:
    out = xs[0]
    for x in xs[1:]:
        out = ir.Binary("lor", out, x, ir.BOOL)
    return out


def land(*xs: ir.Expr) -> ir.Expr:
    out = xs[0]
    for x in xs[1:]:
        out = ir.Binary("land", out, x, ir.BOOL)
    return out


def nan(t: ir.Type) -> ir.Const:
    return ir.Const(float("nan"), t)


def inf(t: ir.Type) -> ir.Const:
    return ir.Const(float("inf"), t)


def _fn(name: str, t: ir.Type, params: str) -> tuple[str, tuple]:
    return f"{name}_{t.name}", tuple(Var(p, t) for p in params.split())


# -- helper functions -----------------------------------------------------------------------
@cache
def f32_odd() -> ir.Function:
    """f64 -> f32 rounded to odd: an inexact result is truncated and gets its last bit set.
    Rounding that to a format of 22 bits or fewer (f16's 11) gives what rounding once from f64
    would; rounding to nearest twice can land on the wrong side of a tie (-55.2656251 gave
    -55.25 in float16, not -55.28125)."""
    v, r, w, b = Var("v", F64), Var("r", F32), Var("w", F64), Var("b", U32)
    below = ir.call("fabs", w) > ir.call("fabs", v)  # r's magnitude past v's: one step back
    body = (
        Let(r, ir.cast(v, F32)),
        If(isnan(v), (Return(r),)),
        Let(w, ir.cast(r, F64)),
        If(w.ne(v), (
            Let(b, ir.Bitcast(r, U32)),
            Return(ir.Bitcast(ir.select(below, b - 1, b) | 1, F32)),
        )),
        Return(r),
    )  # fmt: skip
    return ir.Function("ruda_f32_odd", (v,), F32, body)


@cache
def log1p(t: ir.Type) -> ir.Function:
    """log(1 + x) to full precision (Goldberg: log(u) * x / (u - 1) with u = 1 + x)."""
    name, (x,) = _fn("ruda_log1p", t, "x")
    u = Var("u", t)
    body = (
        Let(u, 1.0 + x),
        If(u.eq(1.0), (Return(x),)),
        If(land(isinf(x), x > 0.0), (Return(x),)),
        If(x < -1.0, (Return(nan(t)),)),
        Return(ir.call("log", u) * (x / (u - 1.0))),
    )
    return ir.Function(name, (x,), t, body)


@cache
def expm1(t: ir.Type) -> ir.Function:
    """exp(x) - 1 to full precision (Kahan: (u - 1) * x / log(u) with u = exp(x))."""
    name, (x,) = _fn("ruda_expm1", t, "x")
    u, um1 = Var("u", t), Var("um1", t)
    body = (
        Let(u, ir.call("exp", x)),
        If(u.eq(1.0), (Return(x),)),
        Let(um1, u - 1.0),
        If(um1.eq(-1.0), (Return(_f(-1.0, t)),)),
        If(isinf(u), (Return(u),)),
        Return(um1 * x / ir.call("log", u)),
    )
    return ir.Function(name, (x,), t, body)


@cache
def hypot(t: ir.Type) -> ir.Function:
    """sqrt(a*a + b*b) without overflow or underflow; inf wins over nan (C99)."""
    name, (a, b) = _fn("ruda_hypot", t, "a b")
    x, y, m, r = Var("x", t), Var("y", t), Var("m", t), Var("r", t)
    body = (
        If(lor(isinf(a), isinf(b)), (Return(inf(t)),)),
        If(lor(isnan(a), isnan(b)), (Return(nan(t)),)),
        Let(x, ir.call("abs", a)),
        Let(y, ir.call("abs", b)),
        Let(m, ir.call("max", x, y)),
        If(m.eq(0.0), (Return(_f(0.0, t)),)),
        Let(r, ir.call("min", x, y) / m),
        Return(m * ir.call("sqrt", 1.0 + r * r)),
    )
    return ir.Function(name, (a, b), t, body)


@cache
def cbrt(t: ir.Type) -> ir.Function:
    """Real cube root: pow on |x| and one Newton step; keeps -0, inf, nan."""
    name, (x,) = _fn("ruda_cbrt", t, "x")
    ax, y = Var("ax", t), Var("y", t)
    body = (
        If(lor(is_zero(x), ir.Unary("not", isfinite(x), ir.BOOL)), (Return(x),)),
        Let(ax, ir.call("abs", x)),
        Let(y, ir.call("pow", ax, _f(1.0 / 3.0, t)), mutable=True),
        Assign(y, y + (ax / (y * y) - y) / 3.0),
        Return(copysign(y, x)),
    )
    return ir.Function(name, (x,), t, body)


@cache
def logaddexp(t: ir.Type, base2: bool = False) -> ir.Function:
    """log(exp(a) + exp(b)) (or the base-2 form) without overflow; NaN propagates."""
    name, (a, b) = _fn("ruda_logaddexp2" if base2 else "ruda_logaddexp", t, "a b")
    d = Var("d", t)
    if base2:

        def tail(z: ir.Expr) -> ir.Expr:
            return ir.Call("log1p", (ir.call("exp2", z),), t) * _LOG2E

        same = a + 1.0
    else:

        def tail(z: ir.Expr) -> ir.Expr:
            return ir.Call("log1p", (ir.call("exp", z),), t)

        same = a + _LN2
    body = (
        If(lor(isnan(a), isnan(b)), (Return(nan(t)),)),
        If(a.eq(b), (Return(same),)),  # also +-inf == +-inf, where a - b is nan
        Let(d, a - b),
        If(d > 0.0, (Return(a + tail(-d)),)),
        Return(b + tail(d)),
    )
    return ir.Function(name, (a, b), t, body)


def _ilogb(x: ir.Expr) -> ir.Expr:
    """floor(log2(x)) for finite x > 0 (subnormals scaled into the normal range first)."""
    t = x.type
    mh, bias, up = (20, 1023, 54) if t is F64 else (23, 127, 25)
    sub = (hi(x) & 0x7FFFFFFF) < (1 << mh)
    h = hi(ir.select(sub, x * 2.0**up, x)) & 0x7FFFFFFF
    return ir.cast(h >> mh, ir.I32) - ir.select(sub, ir.Const(bias + up, ir.I32),
                                                ir.Const(bias, ir.I32))  # fmt: skip


def _pow2(k: ir.Expr, t: ir.Type) -> ir.Expr:
    mh, bias = (20, 1023) if t is F64 else (23, 127)
    e = ir.Bitcast(k + bias, U32) << mh
    return from_words(ir.Const(0, U32), e) if t is F64 else ir.Bitcast(e, F32)


@cache
def fmod(t: ir.Type) -> ir.Function:
    """C's fmod, exact for all inputs: subtract |b| * 2**e with e chosen so the subtraction is
    exact (Sterbenz), once per binade of the quotient (at most ~2100 steps for f64)."""
    name, (a, b) = _fn("ruda_fmod", t, "a b")
    r, ab, bb, e, e3 = Var("r", t), Var("ab", t), Var("bb", t), Var("e", ir.I32), Var("e3", ir.I32)
    k = Var("k", U32)
    limit = ir.Const(2200 if t is F64 else 300, U32)
    body = (
        If(lor(isnan(a), isnan(b), isinf(a), is_zero(b)), (Return(nan(t)),)),
        If(isinf(b), (Return(a),)),
        Let(ab, ir.call("abs", b)),
        Let(r, ir.call("abs", a), mutable=True),
        For(k, ir.Const(0, U32), ir.select(r >= ab, limit, ir.Const(0, U32)), ir.Const(1, U32), (
            Let(e, _ilogb(r) - _ilogb(ab)),
            Let(e3, ir.Binary("div", e, ir.Const(3, ir.I32), ir.I32)),
            # |b| * 2**e in three exact steps (2**e alone can overflow), then below r
            Let(bb, ab * _pow2(e3, t) * _pow2(e3, t) * _pow2(e - e3 - e3, t), mutable=True),
            If(bb > r, (Assign(bb, bb * 0.5),)),
            Assign(r, r - bb),
        )),
        Return(copysign(r, a)),
    )  # fmt: skip
    return ir.Function(name, (a, b), t, body)


@cache
def nextafter(t: ir.Type, half: ir.Type | None = None) -> ir.Function:
    """The next float after a toward b, by stepping the bit pattern (a 16-bit float ``half``,
    held in f32, by its own 16 bits)."""
    fname = {None: "ruda_nextafter", ir.F16: "ruda_nextafter16", ir.BF16: "ruda_nextafter_bf16"}
    name, (a, b) = _fn(fname[half], t, "a b")
    body: list = [
        If(lor(isnan(a), isnan(b)), (Return(a + b),)),
        # NumPy's float16 loop returns x, C (and ml_dtypes' bfloat16) returns y
        If(a.eq(b), (Return(a if half is ir.F16 else b),)),
    ]
    away = ir.Var("away", ir.BOOL)  # moving away from zero: bits + 1
    body.append(Let(away, (b > a).ne(signbit(a))))
    if half is ir.BF16:  # bfloat16 is f32's top half: step there
        h = Var("h", U32)
        tiny = ir.select(signbit(b), ir.Const(0x80010000, U32), ir.Const(0x10000, U32))
        body += [
            Let(h, ir.Bitcast(a, U32) >> 16),
            If((h & 0x7FFF).eq(0), (Return(ir.Bitcast(tiny, F32)),)),
            Return(ir.Bitcast(ir.select(away, h + 1, h - 1) << 16, F32)),
        ]
    elif half is not None:  # a and b are f16 values held in f32
        h = Var("h", U32)
        body += [
            Let(h, ir.Call("f16_bits", (a,), U32)),
            If((h & 0x7FFF).eq(0), (Return(ir.Call("f16_from_bits", (
                ir.select(signbit(b), ir.Const(0x8001, U32), ir.Const(1, U32)),), t)),)),
            Return(ir.Call("f16_from_bits", (ir.select(away, h + 1, h - 1),), t)),
        ]  # fmt: skip
    elif t is F32:
        h = Var("h", U32)
        body += [
            Let(h, ir.Bitcast(a, U32)),
            If((h & 0x7FFFFFFF).eq(0), (Return(copysign(ir.Bitcast(ir.Const(1, U32), F32), b)),)),
            Return(ir.Bitcast(ir.select(away, h + 1, h - 1), F32)),
        ]
    else:  # f64 as two words, with carry / borrow
        h, lw = Var("h", U32), Var("l", U32)
        nh, nl = Var("nh", U32), Var("nl", U32)
        tiny = from_words(ir.Const(1, U32), hi(b) & 0x80000000)
        body += [
            Let(h, hi(a)),
            Let(lw, lo(a)),
            If(is_zero(a), (Return(tiny),)),
            Let(nl, ir.select(away, lw + 1, lw - 1)),
            Let(
                nh,
                ir.select(
                    away, ir.select(lw.eq(0xFFFFFFFF), h + 1, h), ir.select(lw.eq(0), h - 1, h)
                ),
            ),  # fmt: skip
            Return(from_words(nl, nh)),
        ]
    return ir.Function(name, (a, b), t, tuple(body))


@cache
def ipow(t: ir.Type) -> ir.Function:
    """Integer power by repeated squaring, wrapping like NumPy's; a negative exponent gives
    C's truncated result (1, +-1 or 0) because a kernel cannot raise.

    # Note: NumPy raises ValueError for negative integer exponents; the namespace checks that.
    """
    name, (a, b) = _fn("ruda_ipow", t, "a b")
    ut = U64 if t.bits == 64 else U32
    r, base, e = Var("r", ut), Var("base", ut), Var("e", ut)
    k = Var("k", U32)
    body: list = []
    if t.kind == "i":
        neg = ir.select(
            a.eq(1), ir.Const(1, t),
            ir.select(a.eq(-1), ir.select((b & 1).ne(0), ir.Const(-1, t), ir.Const(1, t)),
                      ir.Const(0, t)),
        )  # fmt: skip
        body.append(If(b < 0, (Return(neg),)))
    body += [
        Let(r, ir.Const(1, ut), mutable=True),
        Let(base, ir.cast(a, ut), mutable=True),
        Let(e, ir.cast(b, ut), mutable=True),
        For(k, ir.Const(0, U32), ir.Const(t.bits, U32), ir.Const(1, U32), (
            If((e & 1).ne(0), (Assign(r, r * base),)),
            Assign(base, base * base),
            Assign(e, e >> 1),
        )),
        Return(ir.cast(r, t)),
    ]  # fmt: skip
    return ir.Function(name, (a, b), t, tuple(body))


@cache
def gcd(t: ir.Type) -> ir.Function:
    """Greatest common divisor of |a| and |b| (Euclid; at most 94 steps for 64 bits).

    Signed operands run on -|a|, -|b| with the truncating remainder: every magnitude stays
    representable (|min| is not), and only the final negation wraps, as NumPy's abs does
    (int8 gcd(2, -128) is 2, gcd(0, -128) is -128)."""
    name, (a, b) = _fn("ruda_gcd", t, "a b")
    x, y, tmp = Var("x", t), Var("y", t), Var("tmp", t)
    k = Var("k", U32)
    signed = t.kind == "i"
    start = (lambda v: -ir.call("abs", v)) if signed else (lambda v: v)
    # min % -1 overflows in C: the remainder by -1 is 0 anyway
    rem = ir.select(y.eq(-1), ir.Const(0, t), x % y) if signed else x % y
    body = (
        Let(x, start(a), mutable=True),
        Let(y, start(b), mutable=True),
        For(k, ir.Const(0, U32), ir.Const(100, U32), ir.Const(1, U32), (
            If(y.ne(0), (Let(tmp, rem), Assign(x, y), Assign(y, tmp))),
        )),
        Return(-x if signed else x),
    )  # fmt: skip
    return ir.Function(name, (a, b), t, body)


@cache
def lcm(t: ir.Type) -> ir.Function:
    """NumPy's |a| / gcd * |b|, wrapping where the product overflows (0 if either is 0)."""
    name, (a, b) = _fn("ruda_lcm", t, "a b")
    g = Var("g", t)
    absf = (lambda v: ir.call("abs", v)) if t.kind == "i" else (lambda v: v)
    body = (
        Let(g, gcd(t)(a, b)),
        If(g.eq(0), (Return(ir.Const(0, t)),)),
        Return(absf(a) / g * absf(b)),
    )
    return ir.Function(name, (a, b), t, body)


@cache
def float_divmod(t: ir.Type, remainder: bool) -> ir.Function:
    """NumPy's npy_divmod: floor division (or the remainder) from fmod, exact where
    floor(a / b) is not (1 // 0.1 is 9); floor division takes the standard's infinities."""
    name, (a, b) = _fn("ruda_remainder" if remainder else "ruda_floordiv", t, "a b")
    m0, div, fl = Var("m0", t), Var("div", t), Var("fl", t)
    flip = Var("flip", ir.BOOL)
    zero = ir.Const(0.0, t)
    body: list = [
        Let(m0, ir.Call("fmod", (a, b), t)),
        If(is_zero(b), (Return(m0 if remainder else a / b),)),
        Let(flip, land(m0.ne(0.0), (b < 0.0).ne(m0 < 0.0))),
    ]
    if remainder:
        body += [
            If(m0.eq(0.0), (Return(copysign(zero, b)),)),
            Return(ir.select(flip, m0 + b, m0)),
        ]
    else:
        body += [
            # The standard: ±inf // finite is ±inf and finite // ±inf is ±0 (NumPy: NaN, -1).
            If(isinf(a).ne(isinf(b)), (Return(a / b),)),
            Let(div, (a - m0) / b, mutable=True),
            If(flip, (Assign(div, div - 1.0),)),
            If(div.eq(0.0), (Return(copysign(zero, a / b)),)),
            Let(fl, ir.call("floor", div)),
            Return(ir.select(div - fl > 0.5, fl + 1.0, fl)),
        ]
    return ir.Function(name, (a, b), t, tuple(body))
