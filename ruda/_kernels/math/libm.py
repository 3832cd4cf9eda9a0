"""exp/log family and pow in IR, for languages whose math is missing or inexact (WGSL: SPIR-V's
GLSL.std.450 has no f64 exp/log/pow at all, and lavapipe's f32 log is not accurate near 1).

Ports of fdlibm's algorithms (Sun's freely distributable libm, as in FreeBSD's msun): range
reduction by k * ln2 in two parts, then the same minimax polynomials; every function is under
1 ulp in fdlibm and stays within a few ulp here (measured against NumPy in tests/kernels).
Only float arithmetic, bit access through the words of a float (``mathlib.hi``/``lo``: u64 on
WGSL, so f64 needs shader-int64) and integer ops are used. The builders are generic over f32
and f64 where the bit layout is the only difference.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import libm
    >>> libm.exp(ir.F64).name
    'ruda_exp_f64'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import BOOL, F32, F64, I32, U32, Assign, If, Let, Return, Var
from .mathlib import copysign, from_words, hi, inf, isinf, isnan, lor, nan, with_hi

LN2 = 0.6931471805599453
# fdlibm's splits of ln2 (hi has trailing zero bits, so k * hi is exact) and 1/ln2
_LN2_HI = {F64: 6.93147180369123816490e-01, F32: 6.9313812256e-01}
_LN2_LO = {F64: 1.90821492927058770002e-10, F32: 9.0580006145e-06}
_INVLN2 = 1.44269504088896338700e00
_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
       2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
       1.479819860511658591e-01)  # fmt: skip
_P = (1.66666666666666019037e-01, -2.77777777770155933842e-03, 6.61375632143793436117e-05,
      -1.65339022054652515390e-06, 4.13813679705723846039e-08)  # fmt: skip
_Q = (-3.33333333333331316428e-02, 1.58730158725481460165e-03, -7.93650757867487942473e-05,
      4.00821782732936239552e-06, -2.01099218183624371326e-07)  # fmt: skip


class Builder:
    """Statements of a helper function, with fresh variable names."""

    def __init__(self, t: ir.Type, counter: list[int] | None = None) -> None:
        self.t, self.body, self.counter = t, [], counter if counter is not None else [0]

    def branch(self) -> Builder:
        """A builder for an ``If`` arm (names stay unique across arms)."""
        return Builder(self.t, self.counter)

    def let(self, value: Any, t: ir.Type | None = None, mut: bool = False) -> Var:
        value = ir.lift(value, t or self.t)
        self.counter[0] += 1
        v = Var(f"v{self.counter[0]}", t or value.type)
        self.body.append(Let(v, value if value.type == v.type else ir.cast(value, v.type), mut))
        return v

    def exact(self, value: Any) -> Var:
        """A value that compensated arithmetic reads back (``(a + b) - a``): hidden from the
        driver's algebraic simplifier, which assumes float addition is associative (Mesa's
        NIR folds ``(a + b) - a`` to ``b`` unless ops are marked exact, and WGSL cannot)."""
        v = ir.lift(value, self.t)
        # a NaN pattern gives -v (still NaN): the same value for every input, yet not provable
        return self.let(ir.select(hi(v).eq(0xFFFFFFFF), -v, v))

    def var(self, value: Any, t: ir.Type | None = None) -> Var:
        return self.let(value, t, mut=True)

    def ret_if(self, cond: ir.Expr, value: Any) -> None:
        self.body.append(If(cond, (Return(ir.lift(value, self.t)),)))

    def ret(self, value: Any) -> None:
        self.body.append(Return(ir.lift(value, self.t)))

    def add(self, *stmts: Any) -> None:
        self.body.extend(stmts)

    def function(
        self, name: str, params: tuple[Var, ...], ret: ir.Type | None = None
    ) -> ir.Function:
        return ir.Function(f"{name}_{self.t.name}", params, ret or self.t, tuple(self.body))


def params(t: ir.Type, names: str) -> tuple[Var, ...]:
    return tuple(Var(n, t) for n in names.split())


def c(v: float, t: ir.Type) -> ir.Const:
    return ir.Const(v, t)


def i32(v: Any) -> ir.Expr:
    return ir.cast(ir.lift(v, I32), I32)


def absf(x: ir.Expr) -> ir.Expr:
    return ir.call("abs", x)


def poly(x: ir.Expr, coefs: tuple[float, ...]) -> ir.Expr:
    """coefs[0] + x * (coefs[1] + x * (...)) (Horner)."""
    out: ir.Expr = c(coefs[-1], x.type)
    for k in reversed(coefs[:-1]):
        out = k + x * out
    return out


# -- bit layout --------------------------------------------------------------------------------
def _mh(t: ir.Type) -> int:
    """Mantissa bits in the high word (f64: 20 of 52; f32: all 23)."""
    return 20 if t is F64 else 23


def _bias(t: ir.Type) -> int:
    return 1023 if t is F64 else 127


def low_zero(x: ir.Expr) -> ir.Expr:
    """``x`` with its low word cleared (f64: at most 21 significant bits; f32: 12 bits)."""
    if x.type is F32:
        return ir.Bitcast(ir.Bitcast(x, U32) & 0xFFFFF000, F32)
    return from_words(ir.Const(0, U32), hi(x))


def pow2(k: ir.Expr, t: ir.Type) -> ir.Expr:
    """2**k for k (i32) in the normal range of ``t``."""
    e = ir.Bitcast(ir.cast(k, I32) + _bias(t), U32) << _mh(t)
    return from_words(ir.Const(0, U32), e) if t is F64 else ir.Bitcast(e, F32)


def scalbn(y: ir.Expr, k: ir.Expr) -> ir.Expr:
    """y * 2**k in two exact steps (f64: |k| < 2044), so a subnormal result rounds once."""
    k1 = ir.Binary("shr", k, ir.Const(1, U32), I32)
    return y * pow2(k1, y.type) * pow2(k - k1, y.type)


# -- exp ----------------------------------------------------------------------------------------
def _exp_tail(b: Builder, hi_: ir.Expr, lo_: ir.Expr, k: ir.Expr) -> None:
    """Return exp(hi - lo) * 2**k for |hi - lo| <= ln2 / 2 (fdlibm's rational form)."""
    r = b.let(hi_ - lo_)
    t = b.let(r * r)
    cc = b.let(r - t * poly(t, _P))
    y = b.let(1.0 - ((lo_ - (r * cc) / (2.0 - cc)) - hi_))
    b.ret(scalbn(y, k))


def _reduce_ln2(b: Builder, x: ir.Expr) -> tuple[Var, Var, Var]:
    """k, hi, lo with x = k * ln2 + (hi - lo), |hi - lo| <= ln2 / 2 (k * ln2_hi exact)."""
    t = b.t
    k = b.let(ir.cast(x * _INVLN2 + copysign(c(0.5, t), x), I32))
    dk = b.let(ir.cast(k, t))
    hi_ = b.let(x - dk * _LN2_HI[t])
    lo_ = b.let(dk * _LN2_LO[t])
    return k, hi_, lo_


@cache
def exp(t: ir.Type) -> ir.Function:
    """e**x (fdlibm e_exp.c): x = k ln2 + r, exp(r) by a rational approximation, times 2**k."""
    (x,) = params(t, "x")
    b = Builder(t)
    big, small = (709.782712893383973096, -745.13321910194110842) if t is F64 else (
        88.72283935546875, -103.97208404541015625)  # fmt: skip
    b.ret_if(isnan(x), x)
    b.ret_if(x > big, inf(t))
    b.ret_if(x < small, c(0.0, t))
    b.ret_if(absf(x) < 2.0**-28, 1.0 + x)
    k, hi_, lo_ = _reduce_ln2(b, x)
    _exp_tail(b, hi_, lo_, k)
    return b.function("ruda_exp", (x,))


@cache
def exp2(t: ir.Type) -> ir.Function:
    """2**x: x = k + f exactly, then e**(f ln2) with f ln2 in two parts (split f)."""
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(isnan(x), x)
    b.ret_if(x >= 1024.0, inf(t))
    b.ret_if(x < -1075.0, c(0.0, t))
    kf = b.let(ir.call("floor", x + 0.5))
    f = b.let(x - kf)
    fh = b.let(low_zero(f))  # fh * ln2_hi is exact (21 + 32 bits)
    hi_ = b.let(fh * _LN2_HI[F64])
    lo_ = b.let(-((f - fh) * _LN2_HI[F64] + f * _LN2_LO[F64]))
    _exp_tail(b, hi_, lo_, ir.cast(kf, I32))
    return b.function("ruda_exp2", (x,))


@cache
def expm1(t: ir.Type) -> ir.Function:
    """e**x - 1 to full precision (fdlibm s_expm1.c), f32 and f64."""
    (x,) = params(t, "x")
    b = Builder(t)
    big, minus1, tiny, nbits = (
        (709.782712893383973096, -38.816242111356935, 2.0**-54, 20) if t is F64
        else (88.7216796875, -17.328679513998633, 2.0**-25, 23))  # fmt: skip
    b.ret_if(isnan(x), x)
    b.ret_if(x > big, inf(t))
    b.ret_if(x < minus1, c(-1.0, t))
    ax = b.let(absf(x))
    b.ret_if(ax < tiny, x)
    k = b.var(ir.Const(0, I32))
    r = b.var(x)
    cc = b.var(c(0.0, t))
    kk, hi_, lo_ = _reduce_ln2(b, x)
    rr = b.exact(hi_ - lo_)
    b.add(If(ax > 0.5 * LN2, (Assign(k, kk), Assign(r, rr),
                              Assign(cc, (hi_ - r) - lo_))))  # fmt: skip
    hfx = b.let(0.5 * r)
    hxs = b.let(r * hfx)
    r1 = b.let(1.0 + hxs * poly(hxs, _Q))
    tt = b.let(3.0 - r1 * hfx)
    e0 = b.let(hxs * ((r1 - tt) / (6.0 - r * tt)))
    b.ret_if(k.eq(0), r - (r * e0 - hxs))
    e = b.let((r * (e0 - cc) - cc) - hxs)
    b.ret_if(k.eq(-1), 0.5 * (r - e) - 0.5)
    b.ret_if(ir.Binary("land", k.eq(1), r < -0.25, BOOL), -2.0 * (e - (r + 0.5)))
    b.ret_if(k.eq(1), 1.0 + 2.0 * (r - e))
    b.ret_if(lor(k <= -2, k > 56), scalbn(1.0 - (e - r), k) - 1.0)
    b.ret_if(k < nbits, scalbn((1.0 - pow2(-k, t)) - (e - r), k))
    b.ret(scalbn((r - (e + pow2(-k, t))) + 1.0, k))
    return b.function("ruda_expm1", (x,))


# -- log ----------------------------------------------------------------------------------------
def _log_reduce(b: Builder, x: ir.Expr) -> tuple[Var, Var]:
    """k (as a float) and f with x = 2**k * (1 + f), 1 + f in [sqrt(2)/2, sqrt(2)); x > 0."""
    t, mh = b.t, _mh(b.t)
    sub = (hi(x) & 0x7FFFFFFF) < (1 << mh)
    x1 = b.let(ir.select(sub, x * (2.0**54 if t is F64 else 2.0**25), x))
    h = b.let(hi(x1))
    m = b.let(h & ((1 << mh) - 1))
    i = b.let((m + (0x95F64 if t is F64 else 0x95F64 << 3)) & (1 << mh))
    k = ir.cast(h >> mh, I32) - _bias(t) + ir.cast(i >> mh, I32)
    k = k - ir.select(sub, ir.Const(54 if t is F64 else 25, I32), ir.Const(0, I32))
    dk = b.let(ir.cast(k, t))
    f = b.let(with_hi(x1, m | (i ^ (_bias(t) << mh))) - 1.0)
    return dk, f


def _k_log1p(b: Builder, f: ir.Expr) -> tuple[Var, Var]:
    """hfsq = f*f/2 and r with log(1 + f) = f - hfsq + r (fdlibm k_log.h)."""
    s = b.let(f / (2.0 + f))
    z = b.let(s * s)
    w = b.let(z * z)
    big_r = b.let(z * poly(w, _LG[0::2]) + w * poly(w, _LG[1::2]))
    hfsq = b.let(0.5 * f * f)
    return hfsq, b.let(s * (hfsq + big_r))


def _log_special(b: Builder, x: ir.Expr) -> None:
    t = b.t
    b.ret_if(isnan(x), x)
    b.ret_if(x < 0.0, nan(t))
    b.ret_if(x.eq(0.0), -inf(t))
    b.ret_if(isinf(x), x)


@cache
def log(t: ir.Type) -> ir.Function:
    """Natural log (fdlibm e_log.c), f32 and f64."""
    (x,) = params(t, "x")
    b = Builder(t)
    _log_special(b, x)
    b.ret(log_finite(b, x))
    return b.function("ruda_log", (x,))


def log_finite(b: Builder, x: ir.Expr) -> ir.Expr:
    """log(x) for finite x > 0, as an expression over statements added to ``b``."""
    t = b.t
    dk, f = _log_reduce(b, x)
    hfsq, r = _k_log1p(b, f)
    return dk * _LN2_HI[t] - ((hfsq - (r + dk * _LN2_LO[t])) - f)


@cache
def log1p(t: ir.Type) -> ir.Function:
    """log(1 + x): log(u) + c / u for u = 1 + x rounded and c = (1 + x) - u exactly."""
    (x,) = params(t, "x")
    b = Builder(t)
    b.ret_if(isnan(x), x)
    b.ret_if(x.eq(-1.0), -inf(t))
    b.ret_if(x < -1.0, nan(t))
    b.ret_if(isinf(x), x)
    u = b.exact(1.0 + x)
    b.ret_if(u.eq(1.0), x)  # |x| below half an ulp of 1 (and -0 stays -0)
    cc = b.let(ir.select(absf(x) <= 1.0, x - (u - 1.0), 1.0 - (u - x)))
    b.ret(log_finite(b, u) + cc / u)
    return b.function("ruda_log1p", (x,))


def _log_hi_lo(b: Builder, x: ir.Expr) -> tuple[Var, Var, Var]:
    """k and log(1 + f) = hi + lo with hi's low bits cleared (FreeBSD e_log2.c)."""
    dk, f = _log_reduce(b, x)
    hfsq, r = _k_log1p(b, f)
    hi_ = b.let(low_zero(f - hfsq))
    lo_ = b.let((f - hi_) - hfsq + r)
    return dk, hi_, lo_


@cache
def log2(t: ir.Type) -> ir.Function:
    """log2 (FreeBSD e_log2.c): exact for powers of two."""
    (x,) = params(t, "x")
    b = Builder(t)
    _log_special(b, x)
    dk, hi_, lo_ = _log_hi_lo(b, x)
    ivh, ivl = ((1.44269504072144627571e00, 1.67517131648865118353e-10) if t is F64
                else (1.4428710938e00, -1.7605285393e-04))  # fmt: skip
    vh = b.let(hi_ * ivh)
    vl = b.let((lo_ + hi_) * ivl + lo_ * ivh)
    w = b.exact(dk + vh)
    b.ret((vl + ((dk - w) + vh)) + w)
    return b.function("ruda_log2", (x,))


@cache
def log10(t: ir.Type) -> ir.Function:
    """log10 (FreeBSD e_log10.c)."""
    (x,) = params(t, "x")
    b = Builder(t)
    _log_special(b, x)
    dk, hi_, lo_ = _log_hi_lo(b, x)
    ivh, ivl, l2h, l2l = (
        (4.34294481878168880939e-01, 2.50829467116452752298e-11, 3.01029995663611771306e-01,
         3.69423907715893078616e-13) if t is F64
        else (4.3432617188e-01, -3.1689971365e-05, 3.0102920532e-01, 7.9034151668e-07))  # fmt: skip
    vh = b.let(hi_ * ivh)
    y2 = b.let(dk * l2h)
    vl = b.let(dk * l2l + (lo_ + hi_) * ivl + lo_ * ivh)
    w = b.exact(y2 + vh)
    b.ret((vl + ((y2 - w) + vh)) + w)
    return b.function("ruda_log10", (x,))
