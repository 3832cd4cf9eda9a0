"""Step kernels of the multi-dispatch Jacobi path (large matrices): one launch per round.

A round of the tournament (``linalg_common.pair``) is three or four launches: ``pair_rotations``
(one invocation per pair: c and s into ``rot``), then ``rotate`` over every (pair, index) of
the rows (eigh) and the columns of A and V, many workgroups per matrix. ``eig_check`` (one
workgroup per matrix, after each sweep) sets ``done[b]`` once the off-diagonal mass is below
``n eps^2`` of the whole; ``svd_check`` sets it once a sweep rotated no pair (``rotated[b]``,
which ``pair_rotations`` marks). Every step kernel returns at once for a matrix that is done,
so the host may queue sweeps in chunks and read the ``done`` flags between chunks (the
convergence test itself runs on the device). ``eig_begin``/``eig_end`` and ``svd_end`` wrap the
sweeps with the pieces the single-workgroup kernels use (``linalg_jacobi``).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import jacobi_steps as linalg_jacobi_steps
    >>> linalg_jacobi_steps.rotate(ir.F64, True, False).name
    'linalg_step_rotate_rows_f64_wg256'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import U32, Const, If, Let
from ..math.mathlib import land
from . import common as lc
from . import jacobi as lj
from .steps import WG, tiled


def _params(*names: str) -> list[ir.Param]:
    return [ir.Param(n, U32) for n in names]


def _skip_done(done: ir.Buffer, b: ir.Expr) -> If:
    return If(done[b].ne(0), (ir.Return(),))


@cache
def pair_rotations(t: ir.Type, svd: bool, wg: int = WG) -> ir.Kernel:
    """Round ``r``: each pair's rotation (c, s) into ``rot``; for ``svd`` the pair's Gram
    matrix of the m-row ``a`` (and ``rotated[b] = 1`` where a pair still needed turning)."""
    a = ir.Buffer("a", t, 0)
    rot = ir.Buffer("rot", t, 1, "read_write")
    done = ir.Buffer("done", U32, 2, "read_write")
    rotated = ir.Buffer("rotated", U32, 3, "read_write")
    params = _params("batch", "tiles", "m", "n", "n2", "r")
    m, n, n2, r = (p.var for p in params[2:])

    def body(b: ir.Expr, k: ir.Expr) -> list[Any]:
        am = lc.Mat(a, b * m * n, n)
        gram = lj.svd_gram(am, m, lambda: ir.store(rotated, b, 1)) if svd else lj.eig_gram(am)
        head, p, q = lc.pair(n2, r, k)
        pre, app, aqq, apq, skip = gram(p, q)
        rbody, c, s = lc.rotation(app, aqq, apq, skip)
        return [
            _skip_done(done, b),
            *head,
            If(
                q < n,
                (
                    *pre,
                    *rbody,
                    ir.store(rot, b * n2 + 2 * k, c),
                    ir.store(rot, b * n2 + 2 * k + 1, s),
                ),
            ),
        ]

    return tiled(
        f"linalg_step_pair_rotations_{'svd' if svd else 'eig'}_{t.name}_wg{wg}",
        [a, rot, done, rotated],
        params,
        n2 / 2,
        body,
        wg,
    )


@cache
def rotate(t: ir.Type, rows: bool, zero: bool, wg: int = WG) -> ir.Kernel:
    """Round ``r``'s rotations applied to rows p, q (``rows``) or columns p, q of the ``len`` x
    ``n`` (rows: n x ``len``) matrices of ``x``; ``zero``: the rotated pair's entries (p, q) and
    (q, p) become exactly zero (eigh's column step)."""
    x = ir.Buffer("x", t, 0, "read_write")
    rot = ir.Buffer("rot", t, 1)
    done = ir.Buffer("done", U32, 2)
    params = _params("batch", "tiles", "len", "n", "n2", "r")
    ln, n, n2, r = (p.var for p in params[2:])

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        xm = lc.Mat(x, b * ln * n, n)
        k, at = e / ln, e % ln
        head, p, q = lc.pair(n2, r, k)
        c = lc.fresh("c", lc.real(t))
        s, u, v = (lc.fresh(nm, t) for nm in ("s", "u", "v"))
        pos = (lambda z: (z, at)) if rows else (lambda z: (at, z))
        new_p, new_q = lj.rotated(c, s, u, v, rows)
        if zero:  # row at == p holds (p, q); row at == q holds (q, p)
            turned = s.ne(0.0)
            new_q = ir.select(land(turned, at.eq(p)), Const(0.0, t), new_q)
            new_p = ir.select(land(turned, at.eq(q)), Const(0.0, t), new_p)
        return [
            _skip_done(done, b),
            *head,
            If(
                q < n,
                (
                    Let(c, lc.re(rot[b * n2 + 2 * k])),
                    Let(s, rot[b * n2 + 2 * k + 1]),
                    Let(u, xm(*pos(p))),
                    Let(v, xm(*pos(q))),
                    xm.set(*pos(p), new_p),
                    xm.set(*pos(q), new_q),
                ),
            ),
        ]

    what = "rows" if rows else "cols0" if zero else "cols"
    return tiled(
        f"linalg_step_rotate_{what}_{t.name}_wg{wg}",
        [x, rot, done],
        params,
        (n2 / 2) * ln,
        body,
        wg,
    )


def _scale_down(am: lc.Mat, m: ir.Expr, n: ir.Expr, scale: ir.Buffer, b: ir.Expr,
                wg: int) -> tuple[list[Any], ir.Shared]:  # fmt: skip
    """``linalg_common.scale_down`` of one matrix, its scale kept in ``scale[b]``."""
    red = ir.Shared("red", scale.elem, wg)
    body, sc = lc.scale_down(am, m, n, red, wg)
    return [*body, If(lc.lid().eq(0), (ir.store(scale, b, sc),))], red


@cache
def eig_begin(t: ir.Type, upper: bool, vectors: bool, wg: int = WG) -> ir.Kernel:
    """The symmetric (Hermitian) matrices from their named triangles, scaled by a power of two
    (kept in ``scale``), and V = I."""
    lc.reset_names()
    a, v, scale = lc.rw_buffers("a:t v:t scale:r", t)
    params = _params("batch", "n")
    b, n = lc.matrix(), params[1].var
    am, vm = lc.Mat(a, b * n * n, n), lc.Mat(v, b * n * n, n)
    body = lj.eig_setup(am, vm if vectors else None, n, upper, wg)
    scaled, red = _scale_down(am, n, n, scale, b, wg)
    name = f"linalg_step_eig_begin_{t.name}_v{int(vectors)}_{'up' if upper else 'lo'}_wg{wg}"
    return lc.kernel(name, [a, v, scale], params, body + scaled, wg, [red])


@cache
def eig_check(t: ir.Type, wg: int = WG) -> ir.Kernel:
    """done[b] = 1 once the off-diagonal squares are at most n eps^2 of all squares."""
    lc.reset_names()
    a = ir.Buffer("a", t, 0)
    done = ir.Buffer("done", U32, 1, "read_write")
    params = _params("batch", "n")
    b, n = lc.matrix(), params[1].var
    f = lc.real(t)
    red = ir.Shared("red", f, wg)
    sums, off, tot = lj.eig_offdiag(lc.Mat(a, b * n * n, n), n, red, wg)
    tol2 = ir.cast(n, f) * (lc.eps(f) ** 2)
    body = [*sums, If(land(lc.lid().eq(0), off <= tot * tol2), (ir.store(done, b, 1),))]
    return lc.kernel(f"linalg_step_eig_check_{t.name}_wg{wg}", [a, done], params, body, wg, [red])


@cache
def svd_check(wg: int = WG) -> ir.Kernel:
    """done[b] = 1 when the sweep rotated no pair; rotated[b] reset for the next sweep."""
    done = ir.Buffer("done", U32, 0, "read_write")
    rotated = ir.Buffer("rotated", U32, 1, "read_write")
    params = _params("batch", "tiles")

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        return [If(rotated[b].eq(0), (ir.store(done, b, 1),)), ir.store(rotated, b, 0)]

    return tiled(f"linalg_step_svd_check_wg{wg}", [done, rotated], params, Const(1, U32), body, wg)


@cache
def eig_end(t: ir.Type, vectors: bool, wg: int = WG) -> ir.Kernel:
    """Eigenvalues ascending into ``w`` (times ``scale``) and vectors into ``u``'s columns;
    info[b] = 1 where ``done[b]`` is not set (no convergence)."""
    lc.reset_names()
    bufs = lc.rw_buffers("a:t v:t idx:u32 w:r u:t done:u32 info:i32 scale:r", t)
    a, v, idx, w, u, done, info, scale = bufs
    params = _params("batch", "n")
    b, n = lc.matrix(), params[1].var
    am, vm, um = (lc.Mat(x, b * n * n, n) for x in (a, v, u))
    body = [
        If(land(lc.lid().eq(0), done[b].eq(0)), (ir.store(info, b, 1),)),
        *lj.eig_finish(am, vm, um if vectors else None, w, idx, b, n, scale[b], wg),
    ]
    return lc.kernel(
        f"linalg_step_eig_end_{t.name}_v{int(vectors)}_wg{wg}", bufs, params, body, wg, []
    )


@cache
def svd_begin(t: ir.Type, vectors: bool = True, wg: int = WG) -> ir.Kernel:
    """Each m x n matrix of ``a`` scaled by a power of two (kept in ``scale``), the sum of its
    squares then into ``fro`` (block Jacobi's noise floor); with ``vectors`` V = I for each
    n x n matrix of ``v``."""
    lc.reset_names()
    a, v, scale, fro = lc.rw_buffers("a:t v:t scale:r fro:r", t)
    params = _params("batch", "m", "n")
    b, m, n = lc.matrix(), params[1].var, params[2].var
    am = lc.Mat(a, b * m * n, n)
    body, red = _scale_down(am, m, n, scale, b, wg)
    part, e = lc.fresh("part", red.elem), lc.fresh("e", U32)
    summed, total = lc.wg_sum(red, part, wg)
    body += [
        Let(part, Const(0.0, red.elem), mutable=True),
        ir.For(e, lc.lid(), m * n, Const(wg, U32),
               (ir.Assign(part, part + lc.absq(am(e / n, e % n))),)),
        *summed,
        If(lc.lid().eq(0), (ir.store(fro, b, total),)),
    ]  # fmt: skip
    if vectors:
        vm = lc.Mat(v, b * n * n, n)
        one, zero = Const(1.0, t), Const(0.0, t)
        eye = lambda i, j: [vm.set(i, j, ir.select(i.eq(j), one, zero))]  # noqa: E731
        body.append(lc.spread2(0, n, 0, n, eye, wg))
    name = f"linalg_step_svd_begin_{t.name}_v{int(vectors)}_wg{wg}"
    return lc.kernel(name, [a, v, scale, fro], params, body, wg, [red])


@cache
def svd_end(t: ir.Type, vectors: bool, wg: int = WG) -> ir.Kernel:
    """Singular values descending into ``s`` (times ``scale``), U and V^H in order;
    info[b] = 1 where not done."""
    lc.reset_names()
    bufs = lc.rw_buffers("a:t v:t rot:t idx:u32 s:r u:t vt:t done:u32 info:i32 scale:r", t)
    a, v, rot, idx, s, u, vt, done, info, scale = bufs
    params = _params("batch", "m", "n", "n2")
    b, m, n, n2 = lc.matrix(), params[1].var, params[2].var, params[3].var
    am, vm = lc.Mat(a, b * m * n, n), lc.Mat(v, b * n * n, n)
    um, vtm = lc.Mat(u, b * m * n, n), lc.Mat(vt, b * n * n, n)
    body = [
        If(land(lc.lid().eq(0), done[b].eq(0)), (ir.store(info, b, 1),)),
        *lj.svd_finish(
            am, vm, um if vectors else None, vtm, s, idx, rot, b, m, n, n2, scale[b], wg
        ),
    ]
    return lc.kernel(
        f"linalg_step_svd_end_{t.name}_v{int(vectors)}_wg{wg}", bufs, params, body, wg, []
    )
