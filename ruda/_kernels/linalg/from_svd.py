"""Small kernels that turn factorizations into pinv, matrix_rank, cond, matrix norms and lstsq.

Each runs one invocation per output element (``flat()`` over a 2-D grid of 64-wide
workgroups), batched over a stack:

* ``pinv_product``: X = V diag(1/s, cut) U^H from a reduced SVD, singular values at or below
  ``tol[b] * s[0]`` dropped (NumPy's pinv cutoff).
* ``sv_summary``: one number per matrix from its descending singular values: the largest
  (2-norm), smallest (-2), their sum (nuclear), or the ratios (cond 2 / -2).
* ``count_above``: the rank, singular values above ``tol[b]`` (absolute) or ``tol[b] * s[0]``.
* ``gemm``: C = A B for stacks of small matrices (lstsq's products).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import from_svd
    >>> from_svd.sv_summary(ir.F32, "ratio").name
    'linalg_sv_ratio_f32'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import I64, U32, Const, If, Let
from . import common as lc

WG = 64
SUMMARIES = ("max", "min", "sum", "ratio", "iratio")


def flat() -> ir.Expr:
    return ir.Builtin("gid", 0) + ir.Builtin("gid", 1) * (ir.Builtin("nwg", 0) * WG)


def _params(*names: str) -> tuple[ir.Param, ...]:
    return tuple(ir.Param(n, U32) for n in names)


def _kernel(
    name: str, bufs: list[ir.Buffer], params: tuple[ir.Param, ...], total: ir.Expr, body: Any
) -> ir.Kernel:
    g = ir.Var("g", U32)
    stmts = [Let(g, flat()), If(g >= total, (ir.Return(),)), *body(g)]
    return ir.with_features(ir.Kernel(name, tuple(bufs), params, tuple(stmts), (WG, 1, 1)))


@cache
def pinv_product(t: ir.Type) -> ir.Kernel:
    """out (n x m) = V diag(s+) U^H per matrix from U (m x k), s (k), V^H (k x n), tol (1)
    (s and tol real)."""
    f = lc.real(t)
    u, s, vh, tol = (ir.Buffer(nm, ty, i) for i, (nm, ty) in enumerate(
        (("u", t), ("s", f), ("vh", t), ("tol", f))))  # fmt: skip
    out = ir.Buffer("out", t, 4, "read_write")
    params = _params("batch", "m", "n", "k")
    _, m, n, k = (p.var for p in params)

    def body(g: ir.Expr) -> list[Any]:
        b, i, j, kk = (ir.Var(x, U32) for x in ("b", "i", "j", "kk"))
        acc, sv, cut = ir.Var("acc", t), ir.Var("sv", f), ir.Var("cut", f)
        # V[i, kk] U^H[kk, j] = conj(V^H[kk, i] U[j, kk])
        term = lc.conj(vh[b * k * n + kk * n + i] * u[b * m * k + j * k + kk])
        return [
            Let(b, g / (n * m)),
            Let(i, (g / m) % n),
            Let(j, g % m),
            Let(cut, tol[b] * s[b * k]),
            Let(acc, Const(0.0, t), mutable=True),
            ir.For(
                kk,
                Const(0, U32),
                k,
                Const(1, U32),
                (
                    Let(sv, s[b * k + kk]),
                    If(
                        sv > cut,
                        (ir.Assign(acc, acc + lc.div_real(term, sv)),),
                    ),
                ),
            ),
            ir.store(out, g, acc),
        ]

    return _kernel(
        f"linalg_pinv_product_{t.name}", [u, s, vh, tol, out], params, params[0].var * n * m, body
    )


@cache
def sv_summary(t: ir.Type, what: str) -> ir.Kernel:
    """out[b] from the k descending singular values of matrix b (``what`` in SUMMARIES)."""
    s = ir.Buffer("s", t, 0)
    out = ir.Buffer("out", t, 1, "read_write")
    params = _params("batch", "k")
    k = params[1].var

    def body(b: ir.Expr) -> list[Any]:
        hi, lo = s[b * k], s[b * k + k - 1]
        if what == "sum":
            acc, i = ir.Var("acc", t), ir.Var("i", U32)
            return [
                Let(acc, Const(0.0, t), mutable=True),
                ir.For(i, Const(0, U32), k, Const(1, U32), (ir.Assign(acc, acc + s[b * k + i]),)),
                ir.store(out, b, acc),
            ]
        value = {"max": hi, "min": lo, "ratio": hi / lo, "iratio": lo / hi}[what]
        return [ir.store(out, b, value)]

    return _kernel(f"linalg_sv_{what}_{t.name}", [s, out], params, params[0].var, body)


@cache
def count_above(t: ir.Type, relative: bool) -> ir.Kernel:
    """out[b] (int64) = #{s_i > cut}, cut = tol[b] (* s[0] when ``relative``)."""
    s, tol = ir.Buffer("s", t, 0), ir.Buffer("tol", t, 1)
    out = ir.Buffer("out", I64, 2, "read_write")
    params = _params("batch", "k")
    k = params[1].var

    def body(b: ir.Expr) -> list[Any]:
        cut, c, i = ir.Var("cut", t), ir.Var("c", U32), ir.Var("i", U32)
        return [
            Let(cut, tol[b] * s[b * k] if relative else tol[b]),
            Let(c, Const(0, U32), mutable=True),
            ir.For(
                i,
                Const(0, U32),
                k,
                Const(1, U32),
                (If(s[b * k + i] > cut, (ir.Assign(c, c + 1),)),),
            ),
            ir.store(out, b, ir.cast(c, I64)),
        ]

    return _kernel(
        f"linalg_count_above_{t.name}_{'rel' if relative else 'abs'}",
        [s, tol, out],
        params,
        params[0].var,
        body,
    )


@cache
def gemm(t: ir.Type) -> ir.Kernel:
    """c (m x n) = a (m x k) @ b (k x n) per matrix of contiguous stacks."""
    a, bb = ir.Buffer("a", t, 0), ir.Buffer("b", t, 1)
    c = ir.Buffer("c", t, 2, "read_write")
    params = _params("batch", "m", "n", "k")
    _, m, n, k = (p.var for p in params)

    def body(g: ir.Expr) -> list[Any]:
        z, i, j, kk, acc = (ir.Var(x, U32) for x in ("z", "i", "j", "kk", "acc"))
        acc = ir.Var("acc", t)
        return [
            Let(z, g / (m * n)),
            Let(i, (g / n) % m),
            Let(j, g % n),
            Let(acc, Const(0.0, t), mutable=True),
            ir.For(
                kk,
                Const(0, U32),
                k,
                Const(1, U32),
                (ir.Assign(acc, acc + a[z * m * k + i * k + kk] * bb[z * k * n + kk * n + j]),),
            ),
            ir.store(c, g, acc),
        ]

    return _kernel(f"linalg_gemm_{t.name}", [a, bb, c], params, params[0].var * m * n, body)
