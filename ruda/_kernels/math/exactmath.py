"""IR helpers for NumPy-exact f32/f64 arithmetic where the adapter's own is not (WGSL only).

NVIDIA's Vulkan driver flushes f32 subnormals (``1.1754944e-38 * 0.5`` gives 0) and divides
f32 (and perhaps f64) to within an ulp rather than correctly rounded. Where the adapter has f64,
the WGSL renderer then computes f32 arithmetic in f64 and rounds once, which is exact for
``+ - * /`` and sqrt (53 >= 2 * 24 + 2: double rounding never changes the result). The
conversions between f32 and f64 go through these helpers:

* ``widen``: f32 -> f64, subnormals rebuilt from their bits (a flushing conversion would lose
  them); the branch also hides the plain conversion from an optimiser that would otherwise
  shrink ``f32(f64(a) * f64(b))`` back to the flushing f32 multiply (LLVM's InstCombine does);
* ``narrow``: f64 -> f32 rounded once, subnormal results assembled as bits;
* ``divide``: f64 division correctly rounded from the adapter's approximate one: the exact
  residual ``a - q * b`` in 64-bit integers (only its low 64 bits are needed: it is small)
  says whether the exact quotient lies past a midpoint, and q moves by an ulp (twice);
* ``multiply``: an f64 product the driver cannot fuse with an addition that follows;
* ``ldexp``: x * 2**n rounded once for any n (WGSL's ldexp is neither);
* ``rounding``: trunc and round half to even built from floor, for drivers whose own are wrong
  (lavapipe on a CPU without AVX-512 lowers 8-wide f64 ``round`` through integers: 3.5 gave 3,
  -1.5 gave -1, and ``trunc(-0.3)`` gave +0).

They use ``raw_f64``, ``raw_f32``, ``raw_div`` and ``raw_mul``: the WGSL renderer's plain
conversions, division and product, which it never reroutes through these helpers. f64 bits
are read as u64, so the helpers need shader-f64 and shader-int64.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import exactmath
    >>> exactmath.widen().name, exactmath.narrow().ret.name
    ('ruda_widen_f32', 'f32')
"""

from __future__ import annotations

from functools import cache

from .. import ir
from ..ir import BOOL, F32, F64, I32, I64, U32, U64, If, Let, Return, Var
from .mathlib import hi, isnan, land, lor

_MANT, _HIDDEN, _ABS = (1 << 52) - 1, 1 << 52, (1 << 63) - 1
_MIN_NORMAL32 = 2.0**-126


def _u64(v: int) -> ir.Const:
    return ir.Const(v, U64)


@cache
def widen() -> ir.Function:
    """f32 -> f64 exactly, a subnormal input (exponent field 0) built from its integer bits."""
    x = Var("x", F32)
    h, m = Var("h", U32), Var("m", F64)
    body = (
        Let(h, ir.Bitcast(x, U32)),
        If((h & 0x7F800000).eq(0), (
            Let(m, ir.cast(h & 0x7FFFFF, F64) * 2.0**-149),
            Return(ir.select((h >> 31).ne(0), -m, m)),
        )),
        Return(ir.Call("raw_f64", (x,), F64)),
    )  # fmt: skip
    return ir.Function("ruda_widen_f32", (x,), F64, body)


@cache
def narrow() -> ir.Function:
    """f64 -> f32 rounded once; a result below f32's smallest normal is rounded to a multiple of
    2**-149 (half to even) and assembled from its bits, never flushed."""
    v = Var("v", F64)
    a, bits, m = Var("a", F64), Var("bits", U64), Var("m", F64)
    sign = ir.cast(bits >> 32, U32) & 0x80000000
    body = (
        Let(bits, ir.Bitcast(v, U64)),
        Let(a, ir.Bitcast(bits & _ABS, F64)),
        If(a < _MIN_NORMAL32, (  # false for NaN
            Let(m, ir.call("round", a * 2.0**149)),  # 0..2**23 (2**23: the smallest normal)
            Return(ir.Bitcast(ir.Bitcast(ir.cast(m, I32), U32) | sign, F32)),
        )),
        Return(ir.Call("raw_f32", (v,), F32)),
    )  # fmt: skip
    return ir.Function("ruda_narrow_f64", (v,), F32, body)


def _field(bits: ir.Expr) -> ir.Expr:
    """The biased exponent of |x|'s bits, as i32."""
    return ir.Bitcast(ir.cast(bits >> 52, U32), I32)


@cache
def divide() -> ir.Function:
    """a / b correctly rounded (to nearest, ties to even) for normal a, b and quotient; other
    cases (zeros, infinities, NaN, subnormals, quotients at the ends of the range) keep the
    adapter's division, which is right there or as good as it gets."""
    a, b = Var("a", F64), Var("b", F64)
    q0, ab, bb, q = Var("q0", F64), Var("ab", U64), Var("bb", U64), Var("q", U64)
    ea, eb = Var("ea", I32), Var("eb", I32)
    A, B, Bi = Var("A", U64), Var("B", U64), Var("Bi", I64)
    sign, signed = Var("sign", U64), Var("signed", F64)
    body: list = [
        Let(q0, ir.Call("raw_div", (a, b), F64)),
        Let(sign, (ir.Bitcast(a, U64) ^ ir.Bitcast(b, U64)) & _u64(1 << 63)),
        # the adapter's quotient with the sign of a / b (NVIDIA's overflowed to -inf for
        # huge / tiny positives); NaN as it is
        Let(signed, ir.select(isnan(q0), q0, ir.Bitcast((ir.Bitcast(q0, U64) & _ABS) | sign,
                                                        F64))),  # fmt: skip
        Let(ab, ir.Bitcast(a, U64) & _ABS),
        Let(bb, ir.Bitcast(b, U64) & _ABS),
        Let(q, ir.Bitcast(q0, U64) & _ABS, mutable=True),
        Let(ea, _field(ab)),
        Let(eb, _field(bb)),
        If(lor(ea < 1, ea > 2046, eb < 1, eb > 2046, _field(q) < 2, _field(q) > 2045),
           (Return(signed),)),
        Let(A, (ab & _MANT) | _HIDDEN),
        Let(B, (bb & _MANT) | _HIDDEN),
        Let(Bi, ir.Bitcast(B, I64)),
    ]  # fmt: skip
    for k in range(2):  # two steps: the adapter's quotient is within an ulp or two
        Q, s, R = Var(f"Q{k}", U64), Var(f"s{k}", I32), Var(f"R{k}", I64)
        up, down = Var(f"up{k}", BOOL), Var(f"down{k}", BOOL)
        odd = (Q & 1).ne(0)
        pow2 = Q.eq(_HIDDEN)  # q a power of two: the ulp below it is half the ulp above
        # a = A 2^(ea-1075), b = B 2^(eb-1075), q = Q 2^(eq-1075): a - q b = 2^(eq+eb-2150) R
        # with R = A 2^s - Q B, s = ea - eq - eb + 1075 (51..54 when q is near a / b)
        body += [
            Let(Q, (q & _MANT) | _HIDDEN),
            Let(s, ea - eb - _field(q) + 1075),
            If(lor(s < 0, s > 63), (Return(signed),)),
            Let(R, ir.Bitcast(ir.Binary("shl", A, ir.cast(s, U32), U64) - Q * B, I64)),
            # past the midpoint above (2R > B) or below (2R < -B; 4R < -B under a power of 2)
            Let(up, lor(R * 2 > Bi, land((R * 2).eq(Bi), odd))),
            Let(
                down, ir.select(pow2, R * 4 < -Bi, lor(R * 2 < -Bi, land((R * 2).eq(-Bi), odd)))
            ),  # fmt: skip
            ir.Assign(q, ir.select(up, q + _u64(1), ir.select(down, q - _u64(1), q))),
        ]
    body.append(Return(ir.Bitcast(q | sign, F64)))
    return ir.Function("ruda_divide_f64", (a, b), F64, tuple(body))


@cache
def multiply() -> ir.Function:
    """a * b, rounded on its own: a driver may not fuse it into an fma with an addition."""
    a, b, p = Var("a", F64), Var("b", F64), Var("p", F64)
    body = (Let(p, ir.Call("raw_mul", (a, b), F64)), Return(_opaque(p)))
    return ir.Function("ruda_multiply_f64", (a, b), F64, body)


@cache
def ldexp(t: ir.Type) -> ir.Function:
    """x * 2**n rounded once, for any n (musl's scalbn): WGSL's ldexp is undefined past the
    exponent range, and lavapipe's truncates subnormal results instead of rounding them."""
    x, n = Var("x", t), Var("n", I32)
    y, k = Var("y", t), Var("k", I32)
    top, low, keep = (127, -126, 24) if t is F32 else (1023, -1022, 53)
    # below the normal range, scale by 2**(low + keep) first: the result is then either exact
    # or so small that the final product rounds to zero anyway, so it rounds once
    shrink = 2.0 ** (low + keep)

    def steps(factor: float, shift: int, past: ir.Expr, clamp: ir.Expr) -> tuple:
        scale = (ir.Assign(y, _opaque(y * factor)), ir.Assign(k, k - shift))
        return (*scale, If(past, (*scale, ir.Assign(k, clamp))))

    high = steps(2.0**top, top, k > top, ir.call("min", k, top))
    below = steps(shrink, low + keep, k < low, ir.call("max", k, low))
    body = (
        Let(y, x, mutable=True),
        Let(k, n, mutable=True),
        If(k > top, high, (If(k < low, below),)),
        Return(y * _pow2(k, t)),
    )
    return ir.Function(f"ruda_ldexp_{t.name}", (x, n), t, body)


@cache
def rounding(fn: str, t: ir.Type) -> ir.Function:
    """``fn`` ("trunc", or "rint": half to even) of an f32/f64 from ``floor`` of its
    magnitude, with x's sign put back as a bit (a zero result keeps it: trunc(-0.3) is -0)."""
    x = Var("x", t)
    a, f, d = Var("a", t), Var("f", t), Var("d", t)
    body: list = [Let(a, ir.call("abs", x)), Let(f, ir.call("floor", a), mutable=True)]
    if fn != "trunc":
        # d = a - f is exact (f is 0 or within a factor of two of a); f odd: f / 2 not whole
        half = f * 0.5
        odd = (half - ir.call("floor", half)).ne(0.0)
        body += [Let(d, a - f), If(lor(d > 0.5, land(d.eq(0.5), odd)), (ir.Assign(f, f + 1.0),))]
    bits, sign = (U32, 0x80000000) if t is F32 else (U64, 1 << 63)
    signed = ir.Bitcast(f, bits) | (ir.Bitcast(x, bits) & ir.Const(sign, bits))
    body.append(Return(ir.Bitcast(signed, t)))
    return ir.Function(f"ruda_{fn}_{t.name}", (x,), t, tuple(body))


def _opaque(v: ir.Expr) -> ir.Expr:
    """``v``, hidden from constant folding: Mesa folds ``(y * c1) * c2`` into ``y * (c1 * c2)``
    (here 0, losing y's sign). A NaN pattern gives -v, still NaN: the same, yet unprovable."""
    return ir.select(hi(v).eq(0xFFFFFFFF), -v, v)


def _pow2(k: ir.Expr, t: ir.Type) -> ir.Expr:
    """2**k for k in the normal exponent range of ``t``, from its bits."""
    if t is F32:
        return ir.Bitcast(ir.Bitcast(k + 127, U32) << 23, F32)
    return ir.Bitcast(ir.cast(ir.Bitcast(k + 1023, U32), U64) << 52, F64)
