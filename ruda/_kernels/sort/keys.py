"""Order-preserving keys of the radix sort (``ruda._kernels.sort.radix``): each dtype's values as
unsigned integers in ``words`` u32 words (low first) whose order is NumPy's sort order.

Floats: the sign bit flipped for positives, every bit for negatives; every NaN one largest key
(NumPy sorts NaNs last); ``canonical`` also makes -0.0 equal +0.0 (argsort's stability, unique).
float16 keys are the top 19 bits of its float32 key. Signed ints: the sign bit flipped. A
descending sort xors the keys with ``flips`` (their complement: ties keep their order, NaNs
come first, the CPU backend's rule).

Complex (unique's and argsort's keys; a complex sort gathers by its argsort): the real part's
key in the high words, the imaginary part's in the low ones (NumPy's lexicographic order). A
value with a NaN part takes a top word above +inf's, NumPy's extended order
``R + Rj < R + nanj < nan + Rj < nan + nanj`` (the remaining part's key below it): every NaN
key has a top word above ``nan_above(t)``.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.sort import keys as sort_keys
    >>> sort_keys.key_bits(ir.F16), sort_keys.words(ir.I64), sort_keys.words(ir.C128)
    (19, 2, 4)
"""

from __future__ import annotations

from .. import ir
from ..ir import BF16, BOOL, F16, F32, F64, I32, U32, U64, Const
from ..math.cmath import im, re

ALL = Const(0xFFFFFFFF, U32)


# 16-bit floats' keys are their float32 key's top bits: float16 19 (its exponent is narrower),
# bfloat16 16 (it is float32's top half).
_HALF_SHIFT = {F16: 13, BF16: 16}


def key_bits(t: ir.Type) -> int:
    """Significant bits of ``t``'s key."""
    if t.is_half:
        return 32 - _HALF_SHIFT[t]
    return 1 if t is BOOL else t.bits


def words(t: ir.Type) -> int:
    """u32 words per key: 1, 2 for 64-bit dtypes and complex64, 4 for complex128."""
    return t.bits // 32 if t.bits > 32 else 1


def nan_above(t: ir.Type) -> int:
    """The top key word of +inf (of a complex type's parts): NaN keys' top words are larger."""
    p = t.part if t.is_complex else t
    top = {F16: 0xFF800000 >> 13, BF16: 0xFF800000 >> 16, F32: 0xFF800000, F64: 0xFFF00000}
    if p not in top:
        raise ValueError(f"ruda kernels: {t.name} keys have no NaNs")
    return top[p]


def _low(bits: int) -> int:
    return (1 << bits) - 1


def _f32_key(b: ir.Expr, canonical: bool) -> ir.Expr:
    """The order-preserving key of float32 bits ``b`` (NaN: all ones)."""
    mag = b & 0x7FFFFFFF
    if canonical:
        b = ir.select(mag.eq(0), Const(0, U32), b)  # -0.0 == +0.0
    flip = ir.select((b >> 31).eq(1), ALL, Const(0x80000000, U32))
    return ir.select(mag > 0x7F800000, ALL, b ^ flip)


def _complex_key(z: ir.Expr, canonical: bool) -> list[ir.Expr]:
    """The key words of complex ``z``: (imaginary key, real key), or NaN classes above +inf."""
    rk, ik = encode(re(z), canonical), encode(im(z), canonical)
    rn, inn = rk[-1].eq(ALL), ik[-1].eq(ALL)  # a part's key is all ones when it is NaN
    top = nan_above(z.type)
    klass = ir.select(rn, ir.select(inn, Const(top + 3, U32), Const(top + 2, U32)),
                      Const(top + 1, U32))  # fmt: skip
    either = ir.Binary("lor", rn, inn, BOOL)
    # with a NaN part: the other part's key in the low words, zeros, then the class on top
    low = [ir.select(inn, ir.select(rn, ALL, r), i) for r, i in zip(rk, ik, strict=True)]
    high = [ir.select(either, Const(0, U32), r) for r in rk[:-1]]
    return [*low, *high, ir.select(either, klass, rk[-1])]


def encode(x: ir.Expr, canonical: bool) -> list[ir.Expr]:
    """The key words (low first) of value ``x``."""
    t = x.type
    if t.is_complex:
        return _complex_key(x, canonical)
    if t is BOOL:
        return [ir.select(x, Const(1, U32), Const(0, U32))]
    if t is F32 or t.is_half:
        k = _f32_key(ir.Bitcast(ir.cast(x, F32), U32), canonical)
        return [k >> _HALF_SHIFT[t]] if t.is_half else [k]
    if t is F64:
        lo, hi = ir.call("loword", x, type=U32), ir.call("hiword", x, type=U32)
        mag = hi & 0x7FFFFFFF
        nan = ir.Binary("lor", mag > 0x7FF00000,
                        ir.Binary("land", mag.eq(0x7FF00000), lo.ne(0), BOOL), BOOL)  # fmt: skip
        if canonical:
            zero = ir.Binary("land", mag.eq(0), lo.eq(0), BOOL)
            hi = ir.select(zero, Const(0, U32), hi)
        neg = (hi >> 31).eq(1)
        klo = ir.select(neg, ~lo, lo)
        khi = hi ^ ir.select(neg, ALL, Const(0x80000000, U32))
        return [ir.select(nan, ALL, klo), ir.select(nan, ALL, khi)]
    if t.bits == 64:
        u = ir.Bitcast(x, U64)
        lo = ir.cast(u & 0xFFFFFFFF, U32)
        hi = ir.cast(u / 4294967296, U32)
        return [lo, hi ^ 0x80000000 if t.kind == "i" else hi]
    if t.kind == "u":
        return [ir.cast(x, U32)]
    s = ir.Bitcast(ir.cast(x, I32), U32) ^ (1 << (t.bits - 1))  # the sign bit flipped
    return [s & _low(t.bits)] if t.bits < 32 else [s]


def decode(ws: list[ir.Expr], t: ir.Type) -> ir.Expr:
    """The value of type ``t`` whose key words are ``ws`` (NaN keys give a NaN)."""
    k = ws[0]
    if t is BOOL:
        return k.ne(0)
    if t is F32 or t.is_half:
        shift = _HALF_SHIFT.get(t, 0)
        k = k << shift if shift else k
        b = k ^ ir.select((k >> 31).eq(1), Const(0x80000000, U32), ALL)
        if shift:  # the bits below the 16-bit float's precision were cut from the key: zeros
            b = b & (0xFFFFFFFF << shift & 0xFFFFFFFF)
        return ir.cast(ir.Bitcast(b, F32), t)
    if t is F64:
        neg = (ws[1] >> 31).eq(0)
        hi = ws[1] ^ ir.select(neg, ALL, Const(0x80000000, U32))
        lo = ir.select(neg, ~k, k)
        return ir.call("from_words", lo, hi, type=F64)
    if t.bits == 64:
        hi = ws[1] ^ 0x80000000 if t.kind == "i" else ws[1]
        u = ir.cast(hi, U64) * Const(4294967296, U64) + ir.cast(k, U64)
        return ir.Bitcast(u, t)
    if t.kind == "u":
        return ir.cast(k, t)
    if t.bits == 32:
        return ir.Bitcast(k ^ 0x80000000, I32)
    return ir.cast(ir.Bitcast(k, I32) - (1 << (t.bits - 1)), t)


def flips(t: ir.Type, descending: bool) -> tuple[int, int]:
    """The words a descending sort xors the keys with (the key's significant bits)."""
    if not descending:
        return 0, 0
    if words(t) > 2:
        raise ValueError(f"ruda kernels: no descending sort of {t.name} keys")
    kb = key_bits(t)
    return (_low(min(kb, 32)), _low(32) if kb == 64 else 0)
