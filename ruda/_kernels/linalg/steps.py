"""Step kernels of the multi-dispatch linalg path (large matrices): one launch per column step.

The single-workgroup kernels of ``linalg_lu``/``linalg_qr`` run a whole factorization in one
workgroup per matrix; for large n that leaves most of a GPU idle, and some drivers cap the loop
iterations one invocation may run (llvmpipe: 65535 in all). Here each column step is one or two
launches recorded in order: a ``panel`` kernel (one workgroup per matrix: the pivot search,
the reflector, the column scaling) and an ``update`` kernel spread over many workgroups per
matrix (``tiles`` of ``wg`` elements each: the trailing update, the triangular solves' row
updates, Q's columns). Parameters are uniforms; ``k`` (or ``j``) names the step. Complex types
take the same steps (conjugates, real pivots and norms: see ``linalg_lu``/``linalg_qr``).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import steps as linalg_steps
    >>> linalg_steps.potrf_update(ir.F32, False).name
    'linalg_step_potrf_update_f32_lo_wg256'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import I32, U32, Const, If, Let
from ..reduce import wgid
from . import common as lc
from . import lu as kl
from . import qr as kq

WG = 256  # invocations per workgroup of the step kernels


def _params(*names: str) -> list[ir.Param]:
    return [ir.Param(n, U32) for n in names]


def tiled(
    name: str, bufs: list[ir.Buffer], params: list[ir.Param], count: Any, body: Any, wg: int = WG
) -> ir.Kernel:
    """A kernel over ``count`` elements per matrix, ``tiles`` workgroups each: ``body(b, e)``.
    ``params`` start with ``batch`` and ``tiles``."""
    lc.reset_names()
    g, b, e = ir.Var("g", U32), ir.Var("b", U32), ir.Var("e", U32)
    tiles = params[1].var
    head = [
        Let(g, wgid()),
        Let(b, g / tiles),
        Let(e, (g % tiles) * wg + lc.lid()),
        If(b >= params[0].var, (ir.Return(),)),
        If(e >= count, (ir.Return(),)),
    ]
    k = ir.Kernel(name, tuple(bufs), tuple(params), tuple(head + body(b, e)), (wg, 1, 1))
    return ir.with_features(k)


def tiles(count: int, wg: int = WG) -> int:
    return max(1, -(-count // wg))


# -- Cholesky ---------------------------------------------------------------------------------
@cache
def potrf_panel(t: ir.Type, upper: bool, wg: int = WG) -> ir.Kernel:
    """Step k: the pivot's square root (info[b] = 1 unless positive) and column k scaled."""
    lc.reset_names()
    a = ir.Buffer("a", t, 0, "read_write")
    info = ir.Buffer("info", I32, 1, "read_write")
    params = _params("batch", "n", "k")
    b, n, k = lc.matrix(), params[1].var, params[2].var
    body = kl.panel_potrf(lc.Mat(a, b * n * n, n, upper), info, b, n, k, wg)
    name = f"linalg_step_potrf_panel_{t.name}_{'up' if upper else 'lo'}_wg{wg}"
    return lc.kernel(name, [a, info], params, body, wg, [])


@cache
def potrf_update(t: ir.Type, upper: bool, wg: int = WG) -> ir.Kernel:
    """Step k's trailing update A(i, j) -= A(i, k) conj(A(j, k)), k < j <= i (``tiles`` per
    matrix)."""
    a = ir.Buffer("a", t, 0, "read_write")
    params = _params("batch", "tiles", "n", "k")
    n, k = params[2].var, params[3].var
    w = n - k - 1

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        return kl.trailing_potrf(lc.Mat(a, b * n * n, n, upper), k, k + 1 + e / w, k + 1 + e % w)

    name = f"linalg_step_potrf_update_{t.name}_{'up' if upper else 'lo'}_wg{wg}"
    return tiled(name, [a], params, w * w, body, wg)


@cache
def zero_triangle(t: ir.Type, upper: bool, wg: int = WG) -> ir.Kernel:
    """Zero the strict upper triangle (``upper``: the strict lower one) of each n x n matrix."""
    a = ir.Buffer("a", t, 0, "read_write")
    params = _params("batch", "tiles", "n")
    n = params[2].var

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        i, j = e / n, e % n
        return [If((i > j) if upper else (j > i), (ir.store(a, b * n * n + e, 0.0),))]

    return tiled(
        f"linalg_step_zero_{'lo' if upper else 'up'}_{t.name}_wg{wg}", [a], params, n * n, body, wg
    )


# -- LU -----------------------------------------------------------------------------------------
@cache
def getrf_panel(t: ir.Type, wg: int = WG) -> ir.Kernel:
    """Step k: the pivot (largest |A(i, k)|, i >= k; info[b] = 1 if zero), rows k and p
    swapped, column k below the diagonal divided by the pivot."""
    lc.reset_names()
    a = ir.Buffer("a", t, 0, "read_write")
    piv = ir.Buffer("piv", I32, 1, "read_write")
    info = ir.Buffer("info", I32, 2, "read_write")
    params = _params("batch", "n", "k")
    b, n, k = lc.matrix(), params[1].var, params[2].var
    red = (ir.Shared("redv", lc.real(t), wg), ir.Shared("redi", U32, wg))
    body = kl.panel_getrf(lc.Mat(a, b * n * n, n), piv, info, b, n, k, red, wg)
    return lc.kernel(
        f"linalg_step_getrf_panel_{t.name}_wg{wg}", [a, piv, info], params, body, wg, list(red)
    )


@cache
def getrf_update(t: ir.Type, wg: int = WG) -> ir.Kernel:
    """Step k's trailing update A(i, j) -= A(i, k) A(k, j), i, j > k."""
    a = ir.Buffer("a", t, 0, "read_write")
    params = _params("batch", "tiles", "n", "k")
    n, k = params[2].var, params[3].var
    w = n - k - 1

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        return kl.trailing_getrf(lc.Mat(a, b * n * n, n), k, k + 1 + e / w, k + 1 + e % w)

    return tiled(f"linalg_step_getrf_update_{t.name}_wg{wg}", [a], params, w * w, body, wg)


@cache
def getrs_swap(t: ir.Type, eye: bool, wg: int = WG) -> ir.Kernel:
    """B (n x k per matrix; ``eye``: the identity) with LU's row interchanges applied in order."""
    lc.reset_names()
    piv = ir.Buffer("piv", I32, 0)
    x = ir.Buffer("x", t, 1, "read_write")
    params = _params("batch", "n", "k")
    b, n, kk = lc.matrix(), params[1].var, params[2].var
    xm = lc.Mat(x, b * n * kk, kk)
    j, p = ir.Var("j", U32), ir.Var("p", U32)
    body: list[Any] = []
    if eye:
        one, zero = Const(1.0, t), Const(0.0, t)
        body += [
            lc.spread2(0, n, 0, kk, lambda r, c: [xm.set(r, c, ir.select(r.eq(c), one, zero))], wg),
            lc.sync(),
        ]

    def swap(c: ir.Expr) -> list[Any]:
        u, v = lc.fresh("u", t), lc.fresh("v", t)
        return [Let(u, xm(j, c)), Let(v, xm(p, c)), xm.set(j, c, v), xm.set(p, c, u)]

    body.append(
        ir.For(
            j,
            Const(0, U32),
            n,
            Const(1, U32),
            (
                Let(p, ir.cast(piv[b * n + j], U32)),
                If(p.ne(j), (lc.spread(kk, swap, wg),)),
                lc.sync(),
            ),
        )
    )
    return lc.kernel(
        f"linalg_step_getrs_swap_{t.name}_{'eye' if eye else 'b'}_wg{wg}",
        [piv, x],
        params,
        body,
        wg,
        [],
    )


@cache
def getrs_update(t: ir.Type, lower: bool, wg: int = WG) -> ir.Kernel:
    """Step j of the forward (``lower``: X(i) -= L(i, j) X(j), i > j) or backward substitution
    (X(i) -= U(i, j) X(j) / U(j, j), i < j: rows are divided by the diagonal at the end)."""
    a = ir.Buffer("a", t, 0)
    x = ir.Buffer("x", t, 1, "read_write")
    params = _params("batch", "tiles", "n", "k", "j")
    n, kk, j = params[2].var, params[3].var, params[4].var
    rows = (n - j - 1) if lower else j

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        lu, xm = lc.Mat(a, b * n * n, n), lc.Mat(x, b * n * kk, kk)
        c = e % kk
        i = (j + 1 + e / kk) if lower else e / kk
        f = lu(i, j) if lower else lu(i, j) / lu(j, j)
        return [xm.set(i, c, xm(i, c) - f * xm(j, c))]

    return tiled(
        f"linalg_step_getrs_{'lower' if lower else 'upper'}_{t.name}_wg{wg}",
        [a, x],
        params,
        rows * kk,
        body,
        wg,
    )


@cache
def getrs_scale(t: ir.Type, wg: int = WG) -> ir.Kernel:
    """X(i) /= U(i, i): the divisions the backward steps deferred."""
    a = ir.Buffer("a", t, 0)
    x = ir.Buffer("x", t, 1, "read_write")
    params = _params("batch", "tiles", "n", "k")
    n, kk = params[2].var, params[3].var

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        i = e / kk
        at = b * n * kk + e
        return [ir.store(x, at, x[at] / a[b * n * n + i * n + i])]

    return tiled(f"linalg_step_getrs_scale_{t.name}_wg{wg}", [a, x], params, n * kk, body, wg)


# -- QR -----------------------------------------------------------------------------------------
@cache
def geqrf_panel(t: ir.Type, wg: int = WG) -> ir.Kernel:
    """Step k: the reflector of column k (v into ``v``, beta into ``beta``), column k set to
    (alpha, 0, ...)."""
    lc.reset_names()
    a = ir.Buffer("a", t, 0, "read_write")
    v = ir.Buffer("v", t, 1, "read_write")
    beta = ir.Buffer("beta", t, 2, "read_write")
    params = _params("batch", "m", "n", "k")
    b, m, n, k = lc.matrix(), params[1].var, params[2].var, params[3].var
    kmax = ir.call("min", m, n)
    am, vm = lc.Mat(a, b * m * n, n), lc.Mat(v, b * m * kmax, kmax)
    red = ir.Shared("red", lc.real(t), wg)
    body = kq.panel_geqrf(am, vm, beta, b, m, k, kmax, red, wg)
    return lc.kernel(
        f"linalg_step_geqrf_panel_{t.name}_wg{wg}", [a, v, beta], params, body, wg, [red]
    )


def reflect(t: ir.Type, adjoint: bool = False, wg: int = WG) -> ir.Kernel:
    """Step k: H_k = I - beta v v^H (``adjoint``: H_k^H, geqrf's) applied to columns ``c0`` ..
    ``cols`` of the m x cols matrices in ``x`` (geqrf's trailing columns, or orgqr's Q), one
    invocation per column. Real types have one kernel for both (H_k is symmetric)."""
    return _reflect(t, adjoint and t.is_complex, wg)


@cache
def _reflect(t: ir.Type, adjoint: bool, wg: int) -> ir.Kernel:
    v = ir.Buffer("v", t, 0)
    beta = ir.Buffer("beta", t, 1)
    x = ir.Buffer("x", t, 2, "read_write")
    params = _params("batch", "tiles", "m", "cols", "kmax", "k", "c0")
    m, cols, kmax, k, c0 = (p.var for p in params[2:])

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        vm, xm = lc.Mat(v, b * m * kmax, kmax), lc.Mat(x, b * m * cols, cols)
        return kq.reflect_column(vm, xm, m, k, c0 + e, beta[b * kmax + k], adjoint)

    name = f"linalg_step_reflect{'_adj' if adjoint else ''}_{t.name}_wg{wg}"
    return tiled(name, [v, beta, x], params, cols - c0, body, wg)


@cache
def identity(t: ir.Type, wg: int = WG) -> ir.Kernel:
    """Each m x cols matrix of ``x`` set to the identity's first columns."""
    x = ir.Buffer("x", t, 0, "read_write")
    params = _params("batch", "tiles", "m", "cols")
    m, cols = params[2].var, params[3].var

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        one = ir.select((e / cols).eq(e % cols), Const(1.0, t), Const(0.0, t))
        return [ir.store(x, b * m * cols + e, one)]

    return tiled(f"linalg_step_identity_{t.name}_wg{wg}", [x], params, m * cols, body, wg)
