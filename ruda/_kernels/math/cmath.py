"""Complex numbers in IR: c64/c128 values (a pair of floats) and the helper functions of NumPy's
complex loops, which both renderers emit.

A complex value renders as ``vec2<f32>``/``vec2<f64>`` (WGSL) or ``float2``/``double2`` (CUDA):
exactly NumPy's bytes, so buffers need no conversion. The IR keeps complex ``Binary``, ``Unary``
and ``Cast`` nodes (reductions build ``a + b`` on any type); the renderers call ``lower`` on
every node, which rewrites those into calls of the helpers here, built from real math on the
parts (``re``, ``im``, ``make``). Special values and branch cuts follow C99 Annex G (NumPy's
complex loops call the C library), division is Smith's algorithm as in NumPy's loop and ``abs``
is NumPy's scaled ``big * sqrt(1 + (small/big)^2)``, so neither overflows early.

This module is the public face (lowering and the op table); the helpers live in
``cmath_parts`` (parts, shared constants), ``cmath_arith`` (arithmetic, abs, sign, sqrt),
``cmath_exp_log`` (exp, log, pow, hyperbolic and trig) and ``cmath_arc`` (arc functions).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import cmath
    >>> z = ir.Var("z", ir.C64)
    >>> cmath.re(z).type, cmath.unary("exp", z).type
    (Type(name='f32'), Type(name='c64'))
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from .. import ir
from ..ir import BOOL
from .cmath_arc import _acos, _acosh, _asinh, _atanh
from .cmath_arith import (
    _abs_fn,
    _add,
    _componentwise,
    _conj,
    _divide,
    _equal,
    _multiply,
    _negative,
    _not_equal,
    _reciprocal,
    _sign,
    _sqrt,
    _square,
    _subtract,
)
from .cmath_exp_log import (
    _cosh,
    _exp,
    _exp2,
    _expm1,
    _log,
    _log1p,
    _pow,
    _rotated,
    _scaled_log,
    _sinh,
    _tanh,
    _times_minus_i,
)
from .cmath_order import OPS as _ORDER_OPS
from .cmath_order import binary as _order
from .cmath_parts import im, make, re
from .mathlib import isfinite, isinf, isnan, land, lor

__all__ = ["OPS", "REAL_VALUED", "binary", "binary_op", "cast", "im", "lower", "make", "re",
           "truth", "unary"]  # fmt: skip


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
        src = ir.cast(a, ir.F32) if s.is_half and t.part is ir.F64 else a
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
# NumPy's orderings (lexicographic; cmath_order): comparisons, maximum, minimum, fmax, fmin.
_BINARY.update({name: functools.partial(_order, name) for name in _ORDER_OPS})
# Complex in, real or bool out.
REAL_VALUED = frozenset(_REAL_VALUED)
# Every op-table function with a complex kernel (logical ops take the truth value).
OPS = (frozenset(_UNARY) | REAL_VALUED | frozenset(_BINARY)
       | {"positive", "logical_and", "logical_or", "logical_xor"})  # fmt: skip
