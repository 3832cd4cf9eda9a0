"""Cholesky and LU (partial pivoting) kernels, the LU solve (solve, inv) and determinants.

One workgroup per matrix of a stack; the matrix is factored in place, in workgroup memory when
``cap`` (its capacity in elements, from ``linalg_common.bucket``) is given, else in its storage
buffer. Column steps are separated by barriers: the k-th step scales column k and updates the
trailing matrix, every invocation taking a share of the elements.

* ``cholesky``: A = L L^H from the lower triangle (``upper``: U = L^H from the upper one, the
  same steps on the transpose, which is conj(A)); ``info[b] = 1`` where a pivot is not positive
  (not positive definite).
* ``getrf``: P A = L U (LAPACK's row interchanges in ``piv``, unit-diagonal L below U);
  ``info[b] = 1`` where a pivot is exactly zero (singular).
* ``getrs``: X = A^-1 B from the factors, B (n x k) overwritten (``eye``: B = I, the inverse).
* ``lu_det``: det, or (sign, log|det|), from the factors, one invocation per matrix.

Complex element types (c64, c128) take the same builders: conjugates where the real algorithm
transposes, real pivots, norms and logarithms (``linalg_common``'s ``real``, ``conj``, ``absq``).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import lu as linalg_lu
    >>> linalg_lu.cholesky(ir.F32, False, 0, 64).name
    'linalg_potrf_f32_lo_c0_wg64'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import I32, U32, Const, If, Let
from . import common as lc


def _params(*names: str) -> list[ir.Param]:
    return [ir.Param(n, U32) for n in names]


def _work(
    t: ir.Type, a: ir.Buffer, base: ir.Expr, n: ir.Expr, cap: int, wg: int, trans: bool = False
) -> tuple[lc.Mat, list[Any], list[Any], list[ir.Shared]]:
    """The working matrix (staged into workgroup memory when ``cap``), prologue, epilogue."""
    if not cap:
        return lc.Mat(a, base, n, trans), [], [], []
    sh = ir.Shared("mat", t, cap)
    zero = Const(0, U32)
    return (
        lc.Mat(sh, zero, n, trans),
        lc.stage(sh, zero, a, base, n * n, wg),
        lc.stage(a, base, sh, zero, n * n, wg),
        [sh],
    )


def panel_potrf(
    m: lc.Mat, info: ir.Buffer, b: ir.Expr, n: ir.Expr, k: ir.Expr, wg: int
) -> list[Any]:
    """Step k's panel: the pivot's square root (info[b] = 1 unless it is positive; a complex
    pivot's imaginary part is ignored, as LAPACK's zpotrf does), the column below it divided by
    that root."""
    t = m.buf.elem
    d = lc.fresh("d", lc.real(t))
    root = ir.call("sqrt", d)
    first = (If(~(d > 0.0), (ir.store(info, b, 1),)), m.set(k, k, lc.lift(root, t)))
    scale = lambda i: [m.set(k + 1 + i, k, lc.div_real(m(k + 1 + i, k), root))]  # noqa: E731
    return [
        Let(d, lc.re(m(k, k))),
        lc.sync(),
        If(lc.lid().eq(0), first),
        lc.spread(n - k - 1, scale, wg),
    ]


def trailing_potrf(m: lc.Mat, k: ir.Expr, i: ir.Expr, j: ir.Expr) -> list[Any]:
    """Step k's update of element (i, j) of the trailing lower triangle (A -= l l^H)."""
    return [If(j <= i, (m.set(i, j, m(i, j) - m(i, k) * lc.conj(m(j, k))),))]


def panel_getrf(
    m: lc.Mat,
    piv: ir.Buffer,
    info: ir.Buffer,
    b: ir.Expr,
    n: ir.Expr,
    k: ir.Expr,
    shared: tuple[ir.Shared, ir.Shared],
    wg: int,
) -> list[Any]:
    """Step k's panel: the pivot row p (largest |A(i, k)|, complex: |Re| + |Im| as LAPACK's
    izamax, i >= k; info[b] = 1 if zero), rows k and p swapped, the column below the pivot
    divided by it."""
    t = m.buf.elem
    best, bi, i = lc.fresh("best", lc.real(t)), lc.fresh("bi", U32), lc.fresh("i", U32)
    look = lc.cabs1(m(i, k))
    arg, p = lc.wg_argmax(*shared, best, bi, wg)
    pv, akk = lc.fresh("pv", t), lc.fresh("akk", t)

    def swap(j: ir.Expr) -> list[Any]:
        x, y = lc.fresh("x", t), lc.fresh("y", t)
        return [Let(x, m(k, j)), Let(y, m(p, j)), m.set(k, j, y), m.set(p, j, x)]

    record = (ir.store(piv, b * n + k, ir.cast(p, I32)), If(pv.eq(0.0), (ir.store(info, b, 1),)))
    scale = lambda r: [m.set(k + 1 + r, k, m(k + 1 + r, k) / akk)]  # noqa: E731
    take = (ir.Assign(best, look), ir.Assign(bi, i))
    return [
        Let(best, Const(-1.0, lc.real(t)), mutable=True),
        Let(bi, k, mutable=True),
        ir.For(i, k + lc.lid(), n, Const(wg, U32), (If(look > best, take),)),
        *arg,
        Let(pv, m(p, k)),
        If(lc.lid().eq(0), record),
        If(p.ne(k), (lc.spread(n, swap, wg),)),
        lc.sync(),
        Let(akk, m(k, k)),
        If(akk.ne(0.0), (lc.spread(n - k - 1, scale, wg),)),
    ]


def trailing_getrf(m: lc.Mat, k: ir.Expr, i: ir.Expr, j: ir.Expr) -> list[Any]:
    """Step k's update of element (i, j) of the trailing matrix."""
    return [m.set(i, j, m(i, j) - m(i, k) * m(k, j))]


@cache
def cholesky(t: ir.Type, upper: bool, cap: int = 0, wg: int = lc.WG) -> ir.Kernel:
    """In-place Cholesky factor of each n x n matrix of ``a`` (the other triangle zeroed)."""
    lc.reset_names()
    a = ir.Buffer("a", t, 0, "read_write")
    info = ir.Buffer("info", I32, 1, "read_write")
    params = _params("batch", "n")
    b, n = lc.matrix(), params[1].var
    m, pro, epi, shared = _work(t, a, b * n * n, n, cap, wg, upper)
    k = ir.Var("k", U32)
    step = [
        *panel_potrf(m, info, b, n, k, wg),
        lc.sync(),
        lc.spread2(k + 1, n, k + 1, n, lambda i, j: trailing_potrf(m, k, i, j), wg),
        lc.sync(),
    ]
    body = [
        *pro,
        ir.For(k, Const(0, U32), n, Const(1, U32), tuple(step)),
        lc.spread2(0, n, 0, n, lambda i, j: [If(j > i, (m.set(i, j, 0.0),))], wg),
        lc.sync(),
        *epi,
    ]
    name = f"linalg_potrf_{t.name}_{'up' if upper else 'lo'}_c{cap}_wg{wg}"
    return lc.kernel(name, [a, info], params, body, wg, shared)


@cache
def getrf(t: ir.Type, cap: int = 0, wg: int = lc.WG) -> ir.Kernel:
    """In-place LU with partial pivoting of each n x n matrix of ``a``; pivots (0-based rows
    swapped with row k at step k) in ``piv``."""
    lc.reset_names()
    a = ir.Buffer("a", t, 0, "read_write")
    piv = ir.Buffer("piv", I32, 1, "read_write")
    info = ir.Buffer("info", I32, 2, "read_write")
    params = _params("batch", "n")
    b, n = lc.matrix(), params[1].var
    m, pro, epi, shared = _work(t, a, b * n * n, n, cap, wg)
    red = (ir.Shared("redv", lc.real(t), wg), ir.Shared("redi", U32, wg))
    k = ir.Var("k", U32)
    step = [
        *panel_getrf(m, piv, info, b, n, k, red, wg),
        lc.sync(),
        lc.spread2(k + 1, n, k + 1, n, lambda i, j: trailing_getrf(m, k, i, j), wg),
        lc.sync(),
    ]
    body = [*pro, ir.For(k, Const(0, U32), n, Const(1, U32), tuple(step)), *epi]
    name = f"linalg_getrf_{t.name}_c{cap}_wg{wg}"
    return lc.kernel(name, [a, piv, info], params, body, wg, [*shared, *red])


@cache
def getrs(t: ir.Type, eye: bool, wg: int = lc.WG) -> ir.Kernel:
    """X = A^-1 B for the LU factors in ``a``/``piv``: B (n x k per matrix) in ``x`` is
    overwritten; with ``eye`` B is the identity (k = n) and ``x``'s contents are ignored."""
    lc.reset_names()
    a = ir.Buffer("a", t, 0)
    piv = ir.Buffer("piv", I32, 1)
    x = ir.Buffer("x", t, 2, "read_write")
    params = _params("batch", "n", "k")
    b, n, kk = lc.matrix(), params[1].var, params[2].var
    lu = lc.Mat(a, b * n * n, n)
    xm = lc.Mat(x, b * n * kk, kk)
    j, jj = ir.Var("j", U32), ir.Var("jj", U32)
    body: list[Any] = []
    if eye:
        body += [
            lc.spread2(
                0,
                n,
                0,
                kk,
                lambda r, c: [xm.set(r, c, ir.select(r.eq(c), Const(1.0, t), Const(0.0, t)))],
                wg,
            ),
            lc.sync(),
        ]
    p = ir.Var("p", U32)

    def swap(c: ir.Expr) -> list[Any]:
        u, v = lc.fresh("u", t), lc.fresh("v", t)
        return [Let(u, xm(j, c)), Let(v, xm(p, c)), xm.set(j, c, v), xm.set(p, c, u)]

    forward = [
        Let(p, ir.cast(piv[b * n + j], U32)),
        If(p.ne(j), (lc.spread(kk, swap, wg),)),
        lc.sync(),
    ]
    j2 = ir.Var("j2", U32)
    lower = [
        lc.spread2(
            j2 + 1, n, 0, kk, lambda r, c: [xm.set(r, c, xm(r, c) - lu(r, j2) * xm(j2, c))], wg
        ),
        lc.sync(),
    ]
    back = [
        Let(j, n - 1 - jj),
        lc.spread(kk, lambda c: [xm.set(j, c, xm(j, c) / lu(j, j))], wg),
        lc.sync(),
        lc.spread2(0, j, 0, kk, lambda r, c: [xm.set(r, c, xm(r, c) - lu(r, j) * xm(j, c))], wg),
        lc.sync(),
    ]
    one, zero = Const(1, U32), Const(0, U32)
    body += [
        ir.For(j, zero, n, one, tuple(forward)),
        ir.For(j2, zero, n, one, tuple(lower)),
        ir.For(jj, zero, n, one, tuple(back)),
    ]
    name = f"linalg_getrs_{t.name}_{'eye' if eye else 'b'}_wg{wg}"
    return lc.kernel(name, [a, piv, x], params, body, wg, [])


@cache
def lu_det(t: ir.Type, log: bool) -> ir.Kernel:
    """det (``log`` False) or sign and log|det| (``logabs``: real) of each LU-factored matrix,
    one invocation each; a complex sign is the product of the pivots' phases d / |d|."""
    f = lc.real(t)
    a = ir.Buffer("a", t, 0)
    piv = ir.Buffer("piv", I32, 1)
    out = ir.Buffer("out", t, 2, "read_write")
    outs = [a, piv, out]
    if log:
        outs.append(ir.Buffer("logabs", f, 3, "read_write"))
    params = _params("batch", "n")
    n = params[1].var
    g = ir.Builtin("gid", 0) + ir.Builtin("gid", 1) * (ir.Builtin("nwg", 0) * 64)
    b, i = ir.Var("b", U32), ir.Var("i", U32)
    acc, lg, d, ad = ir.Var("acc", t), ir.Var("lg", f), ir.Var("d", t), ir.Var("ad", f)
    flip = ir.cast(piv[b * n + i], U32).ne(i)
    sgn = ir.select(flip, Const(-1.0, t), Const(1.0, t))
    dd = a[b * n * n + i * n + i]
    if log and t.is_complex:
        unit = ir.select(ad.eq(0.0), Const(0.0, t), lc.div_real(d, ad))
        loop = [
            Let(d, dd),
            Let(ad, lc.cabs(d)),
            ir.Assign(acc, acc * sgn * unit),
            ir.Assign(lg, lg + ir.call("log", ad)),
        ]
    elif log:
        loop = [
            Let(d, dd),
            ir.Assign(
                acc,
                acc
                * sgn
                * ir.select(  # as NumPy's: a NaN pivot flips no sign, a zero one makes it 0
                    d < 0.0, Const(-1.0, t), ir.select(d.eq(0.0), Const(0.0, t), Const(1.0, t))
                ),
            ),
            ir.Assign(lg, lg + ir.call("log", ir.call("abs", d))),
        ]
    else:
        loop = [ir.Assign(acc, acc * sgn * dd)]
    body = [
        Let(b, g),
        If(b >= params[0].var, (ir.Return(),)),
        Let(acc, Const(1.0, t), mutable=True),
        Let(lg, Const(0.0, f), mutable=True),
        ir.For(i, Const(0, U32), n, Const(1, U32), tuple(loop)),
        # a zero determinant (sign) is +0 as NumPy's, whatever the pivots' signs
        ir.store(out, b, acc if t.is_complex else ir.select(acc.eq(0.0), Const(0.0, t), acc)),
    ]
    if log:
        body.append(ir.store(outs[3], b, lg))
    k = ir.Kernel(
        f"linalg_lu_{'slogdet' if log else 'det'}_{t.name}",
        tuple(outs),
        tuple(params),
        tuple(body),
        (64, 1, 1),
    )
    return ir.with_features(k)
