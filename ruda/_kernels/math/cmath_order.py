"""NumPy's orderings of complex numbers as IR functions: the comparison ufuncs, maximum, minimum,
fmax, fmin, and the sort order (searchsorted's).

NumPy compares complex numbers lexicographically, real part first. Its comparison ufuncs
(``less``, ...) are False wherever a part of either operand is NaN; ``maximum``/``minimum``
return the first operand that has a NaN part (``fmax``/``fmin`` the other operand); ties keep
the first operand. Its sorts order the values with a NaN part after all others:
``R + Rj < R + nanj < nan + Rj < nan + nanj``, each class by its remaining part (the radix
sort's keys, ``sort.keys``, encode the same order). Every comparison of parts here is guarded
by bit tests for NaN (``mathlib.isnan``), so a compiler that assumes no NaNs cannot change it.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import cmath_order
    >>> cmath_order.binary("maximum", ir.C64).name, cmath_order.sort_less(ir.C128).ret.name
    ('ruda_cmaximum_c64', 'bool')
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from .. import ir
from ..ir import BOOL, U32, Const, Let, Return, Var
from .cmath_parts import _function, im, re
from .mathlib import isnan, land, lor

__all__ = ["OPS", "binary", "clip_bound", "has_nan", "lex_less", "sort_less"]


def has_nan(z: ir.Expr) -> ir.Expr:
    """Whether either part of ``z`` is NaN."""
    return lor(isnan(re(z)), isnan(im(z)))


def lex_less(a: ir.Expr, b: ir.Expr, equal: bool) -> ir.Expr:
    """``a < b`` (``a <= b`` with ``equal``) in lexicographic order, for NaN-free values."""
    ar, br = re(a), re(b)
    second = (im(a) <= im(b)) if equal else (im(a) < im(b))
    return lor(ar < br, land(ar.eq(br), second))


def _compare(name: str, swap: bool, equal: bool) -> Callable[[ir.Type], ir.Function]:
    @cache
    def build(t: ir.Type) -> ir.Function:
        a, b = Var("a", t), Var("b", t)
        x, y = (b, a) if swap else (a, b)
        ok = ir.Unary("not", lor(has_nan(a), has_nan(b)), BOOL)
        return _function(name, t, (a, b), BOOL, [Return(land(ok, lex_less(x, y, equal)))])

    return build


def _extreme(name: str, larger: bool, skip_nan: bool) -> Callable[[ir.Type], ir.Function]:
    """maximum/minimum (a NaN operand wins, the first one) or fmax/fmin (a NaN loses)."""

    @cache
    def build(t: ir.Type) -> ir.Function:
        a, b = Var("a", t), Var("b", t)
        na, nb = Var("na", BOOL), Var("nb", BOOL)
        # NumPy: a when a >= b (a <= b for the minimum), ties included
        keep = lex_less(b, a, True) if larger else lex_less(a, b, True)
        clean = ir.Unary("not", lor(na, nb), BOOL)
        first = nb if skip_nan else na
        cond = lor(land(clean, keep), first)
        body = [Let(na, has_nan(a)), Let(nb, has_nan(b)), Return(ir.select(cond, a, b))]
        return _function(name, t, (a, b), t, body)

    return build


@cache
def clip_bound(t: ir.Type, lower: bool) -> ir.Function:
    """One side of NumPy's ``clip`` of complex ``a`` against bound ``b`` (its ``_NPY_MAX`` for the
    lower bound, ``_NPY_MIN`` for the upper): ``a`` when it has a NaN part or is strictly beyond
    ``b``, else ``b``. Unlike ``maximum``, ties give the bound, and a NaN imaginary part of the
    bound counts only where the real parts are equal (NumPy's clip loop)."""
    a, b = Var("a", t), Var("b", t)
    ar, br, ai, bi = re(a), re(b), im(a), im(b)
    beyond_im = (ai < bi) if lower is False else (ai > bi)
    beyond_re = (ar < br) if lower is False else (ar > br)
    by_parts = ir.select(ar.eq(br), land(ir.Unary("not", isnan(bi), BOOL), beyond_im), beyond_re)
    keep = lor(has_nan(a), land(ir.Unary("not", isnan(br), BOOL), by_parts))
    return _function("clip_lo" if lower else "clip_hi", t, (a, b), t,
                     [Return(ir.select(keep, a, b))])  # fmt: skip


def _nan_class(z: ir.Expr) -> ir.Expr:
    """0: no NaN part; 1: ``R + nanj``; 2: ``nan + Rj``; 3: ``nan + nanj`` (NumPy's order)."""
    one, two, zero = Const(1, U32), Const(2, U32), Const(0, U32)
    return ir.select(isnan(re(z)), two, zero) + ir.select(isnan(im(z)), one, zero)


@cache
def sort_less(t: ir.Type) -> ir.Function:
    """``a`` before ``b`` in NumPy's sort order of complex numbers (its ``npysort`` ``LT``):
    the NaN classes of ``_nan_class`` in turn, each by its parts that are not NaN."""
    a, b = Var("a", t), Var("b", t)
    ca, cb = Var("ca", U32), Var("cb", U32)
    ar, br, ai, bi = re(a), re(b), im(a), im(b)
    within = ir.select(
        ca.eq(0), lex_less(a, b, False),
        ir.select(ca.eq(1), ar < br, land(ca.eq(2), ai < bi)),
    )  # fmt: skip
    body = [Let(ca, _nan_class(a)), Let(cb, _nan_class(b)),
            Return(lor(ca < cb, land(ca.eq(cb), within)))]  # fmt: skip
    return _function("sort_less", t, (a, b), BOOL, body)


_BINARY: dict[str, Callable[[ir.Type], ir.Function]] = {
    "less": _compare("lt", False, False),
    "less_equal": _compare("le", False, True),
    "greater": _compare("gt", True, False),
    "greater_equal": _compare("ge", True, True),
    "maximum": _extreme("maximum", True, False),
    "minimum": _extreme("minimum", False, False),
    "fmax": _extreme("fmax", True, True),
    "fmin": _extreme("fmin", False, True),
}
# The op-table functions of complex operands defined here.
OPS = frozenset(_BINARY)


def binary(name: str, t: ir.Type) -> ir.Function:
    """The IR function of op-table function ``name`` on two complex values of type ``t``."""
    return _BINARY[name](t)
