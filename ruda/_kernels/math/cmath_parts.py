"""The parts of complex IR values and the small helpers every complex function builds on.

A c64/c128 value is a pair of floats (``re``, ``im``, ``make``); the builders in
``cmath_arith``, ``cmath_exp_log`` and ``cmath_arc`` share the constants, selects and the
``Function`` wrapper here.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.math import cmath_parts
    >>> z = cmath_parts.make(1.0, 2.0, ir.C64)
    >>> cmath_parts.re(z), cmath_parts.im(z).type
    (Const(value=1.0, type=Type(name='f32')), Type(name='f32'))
"""

from __future__ import annotations

import math
from typing import Any

from .. import ir
from ..ir import Let, Var


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


def _subnormal_scale(f: ir.Type) -> tuple[ir.Const, ir.Const, ir.Const]:
    """The smallest normal, a power of two lifting any subnormal part above it, and its log:
    hypot of subnormal parts keeps too few bits for log|z| or z / |z|."""
    bits = 54 if f is ir.F64 else 24
    tiny = _f(2.0 ** (-1022 if f is ir.F64 else -126), f)
    return tiny, _f(2.0**bits, f), _f(bits * math.log(2.0), f)


def _hypot_big(f: ir.Type) -> float:
    # parts from here on may overflow hypot (and |x| + hypot): scaled down by 4 first
    return 2.0**1020 if f is ir.F64 else 2.0**124
