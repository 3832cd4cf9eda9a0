"""What the FFT kernels share: their workgroup size and flat grid index, and complex values as
two real parts (``Cx``) with the let-binding and packing both the Stockham passes and Bluestein's
steps use.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.fft.complex import Cx
    >>> z = Cx(ir.Var("a", ir.F32), ir.Var("b", ir.F32))
    >>> type(z.conj()).__name__
    'Cx'
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import ir
from ..ir import Builtin, Let, Var
from ..math.cmath import im, make, re

WORKGROUP = 256


class Cx(NamedTuple):
    """A complex value as its two real parts (expressions): plain float math, no helpers."""

    re: ir.Expr
    im: ir.Expr

    def __add__(self, o: Any) -> Cx:  # type: ignore[override]
        return Cx(self.re + o.re, self.im + o.im)

    def __sub__(self, o: Cx) -> Cx:
        return Cx(self.re - o.re, self.im - o.im)

    def __mul__(self, o: Any) -> Cx:  # type: ignore[override]
        return Cx(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)

    def scaled(self, s: ir.Expr) -> Cx:
        return Cx(self.re * s, self.im * s)

    def conj(self) -> Cx:
        return Cx(self.re, -self.im)

    def times_i(self, sign: int) -> Cx:
        """``sign * i * self``."""
        return Cx(-self.im, self.re) if sign > 0 else Cx(self.im, -self.re)


def bind(body: list[Any], name: str, z: Cx | ir.Expr, part: ir.Type) -> Cx:
    """``z`` bound to two let variables (so it is computed once)."""
    if not isinstance(z, Cx):
        z = Cx(re(z), im(z))
    r, i = Var(f"{name}r", part), Var(f"{name}i", part)
    body += [Let(r, z.re), Let(i, z.im)]
    return Cx(r, i)


def pack(z: Cx, t: ir.Type) -> ir.Expr:
    return make(z.re, z.im, t)


def flat() -> ir.Expr:
    """The invocation's flat index over a 2-D grid (65535 workgroups per dimension)."""
    return Builtin("gid", 0) + Builtin("gid", 1) * (Builtin("nwg", 0) * WORKGROUP)
