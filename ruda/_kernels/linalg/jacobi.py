"""Jacobi kernels: cyclic two-sided Jacobi for eigh and one-sided (Hestenes) Jacobi for the SVD.

One workgroup per matrix. A sweep visits every pair (p, q) once, in ``n2 - 1`` rounds of a
round-robin tournament (``linalg_common.pair``): the ``n2 / 2`` pairs of a round are disjoint,
so their rotations are computed at once (into ``rot``) and applied at once, rows then columns.
Complex (Hermitian) matrices take the same sweeps with complex rotations
J = [[c, s], [-conj(s), c]] (``linalg_common.rotation``): eigenvalues and singular values stay
real, vectors are complex. Convergence is tested on the device after every sweep (eigh: the
off-diagonal mass against ``n * eps^2`` of the whole; SVD: whether any pair was still rotated,
at a cosine above ``4 m eps``); the workgroup leaves the sweep loop through a uniform load of
the verdict, and ``info[b] = 1`` when ``MAX_SWEEPS`` were not enough. Results are sorted by rank
(eigenvalues ascending, singular values descending), vectors following their values.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import jacobi as linalg_jacobi
    >>> linalg_jacobi.syevj(ir.F32, True, False).name
    'linalg_syevj_f32_v1_lo_c0_wg64'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import BOOL, U32, Barrier, Break, Const, If, Let
from ..math.mathlib import land, lor
from . import common as lc


def _params(*names: str) -> list[ir.Param]:
    return [ir.Param(n, U32) for n in names]


def rotated(c: ir.Expr, s: ir.Expr, x: ir.Expr, y: ir.Expr, rows: bool) -> tuple[Any, Any]:
    """Entries x (index p) and y (q) of rows p, q after J^H A (``rows``) or columns p, q after
    A J, J = [[c, s], [-conj(s), c]] (c real)."""
    sp, sq = (s, lc.conj(s)) if rows else (lc.conj(s), s)
    return lc.scale(x, c) - sp * y, sq * x + lc.scale(y, c)


def _rotate(
    mat: lc.Mat, p: ir.Expr, q: ir.Expr, c: ir.Expr, s: ir.Expr, k: ir.Expr, rows: bool
) -> list[Any]:
    """Rows (or columns) p and q of ``mat`` at position k, rotated by J (``rotated``)."""
    t = s.type
    x, y = lc.fresh("x", t), lc.fresh("y", t)
    at = (lambda r: (r, k)) if rows else (lambda r: (k, r))
    new_p, new_q = rotated(c, s, x, y, rows)
    return [
        Let(x, mat(*at(p))),
        Let(y, mat(*at(q))),
        mat.set(*at(p), new_p),
        mat.set(*at(q), new_q),
    ]


def _verdict(flag: ir.Shared) -> tuple[list[Any], ir.Var]:
    """The workgroup's common reading of ``flag[0]`` (a uniform value: loops may exit on it)."""
    v = lc.fresh("verdict", U32)
    return [Barrier(), Let(v, ir.call("uniform_load", flag[0], type=U32)), Barrier()], v


def _round(
    t: ir.Type,
    n: ir.Expr,
    n2: ir.Expr,
    r: ir.Expr,
    rot: ir.Buffer,
    rbase: ir.Expr,
    gram: Any,
    apply: list[tuple[lc.Mat, ir.Expr, bool]],
    wg: int,
) -> list[Any]:
    """One round: every pair's rotation from ``gram(p, q) -> (statements, app, aqq, apq,
    skip)`` into ``rot``, then applied to each (matrix, length, rows) of ``apply``."""

    def compute(k: ir.Expr) -> list[Any]:
        head, p, q = lc.pair(n2, r, k)
        pre, app, aqq, apq, skip = gram(p, q)
        rbody, c, s = lc.rotation(app, aqq, apq, skip)
        return [
            *head,
            If(
                q < n,
                (
                    *pre,
                    *rbody,
                    ir.store(rot, rbase + 2 * k, c),
                    ir.store(rot, rbase + 2 * k + 1, s),
                ),
            ),
        ]

    def use(mat: lc.Mat, rows: bool) -> Any:
        def f(k: ir.Expr, e: ir.Expr) -> list[Any]:
            head, p, q = lc.pair(n2, r, k)
            c, s = lc.fresh("c", lc.real(t)), lc.fresh("s", t)
            return [
                *head,
                If(
                    q < n,
                    (
                        Let(c, lc.re(rot[rbase + 2 * k])),
                        Let(s, rot[rbase + 2 * k + 1]),
                        *_rotate(mat, p, q, c, s, e, rows),
                    ),
                ),
            ]

        return f

    body: list[Any] = [lc.spread(n2 / 2, compute, wg), lc.sync()]
    for mat, length, rows in apply:
        body += [lc.spread2(0, n2 / 2, 0, length, use(mat, rows), wg), lc.sync()]
    return body


def _ranks(n: ir.Expr, value: Any, ascending: bool, dest: Any, wg: int) -> Any:
    """For each i < n: its rank r among ``value(j)`` (ties by index), then ``dest(i, r, v)``."""

    def f(i: ir.Expr) -> list[Any]:
        t = value(i).type
        v, w, r, j = lc.fresh("v", t), lc.fresh("w", t), lc.fresh("r", U32), lc.fresh("j", U32)
        before = (w < v) if ascending else (w > v)
        count = ir.select(lor(before, land(w.eq(v), j < i)), Const(1, U32), Const(0, U32))
        return [
            Let(v, value(i)),
            Let(r, Const(0, U32), mutable=True),
            ir.For(j, Const(0, U32), n, Const(1, U32), (Let(w, value(j)), ir.Assign(r, r + count))),
            *dest(i, r, v),
        ]

    return lc.spread(n, f, wg)


@cache
def syevj(t: ir.Type, vectors: bool, upper: bool, wg: int = lc.WG, cap: int = 0) -> ir.Kernel:
    """Eigenvalues (ascending, real, into ``w``) and eigenvectors (columns of ``u``) of each
    symmetric (Hermitian) n x n matrix of ``a`` (read from its lower, or ``upper``, triangle;
    scaled by a power of two and overwritten); ``v`` accumulates the rotations, ``rot`` (n2 per
    matrix) and ``idx`` (n) are scratch. With ``cap`` (>= n^2) A and V live in workgroup
    memory."""
    lc.reset_names()
    bufs = lc.rw_buffers("a:t v:t rot:t idx:u32 w:r u:t info:i32", t)
    a, v, rot, idx, w, u, info = bufs
    params = _params("batch", "n", "n2")
    b, n, n2 = lc.matrix(), params[1].var, params[2].var
    am, vm, um = lc.Mat(a, b * n * n, n), lc.Mat(v, b * n * n, n), lc.Mat(u, b * n * n, n)
    red = ir.Shared("red", lc.real(t), wg)
    flag = ir.Shared("flag", U32, 1)
    zero = Const(0.0, t)
    shared, body = _in_workgroup(t, cap, 2 if vectors else 1, a, b * n * n, n * n, wg)
    if shared:
        am, vm = lc.Mat(shared[0], Const(0, U32), n), lc.Mat(shared[0], Const(cap, U32), n)

    body += eig_setup(am, vm if vectors else None, n, upper, wg)
    scaled, sc = lc.scale_down(am, n, n, red, wg)
    body += scaled
    sums, offv, totv = eig_offdiag(am, n, red, wg)
    sweep = ir.Var("sweep", U32)
    tol2 = ir.cast(n, lc.real(t)) * (lc.eps(lc.real(t)) ** 2)
    done = lor(offv <= totv * tol2, sweep.eq(lc.MAX_SWEEPS))
    verdict, conv = _verdict(flag)
    check = [
        *sums,
        If(
            lc.lid().eq(0),
            (
                ir.store(flag, 0, ir.select(done, Const(1, U32), Const(0, U32))),
                If(land(sweep.eq(lc.MAX_SWEEPS), offv > totv * tol2), (ir.store(info, b, 1),)),
            ),
        ),
        *verdict,
        If(conv.ne(0), (Break(),)),
    ]

    apply = [(am, n, True), (am, n, False)] + ([(vm, n, False)] if vectors else [])
    r = ir.Var("r", U32)
    rb = b * n2
    rounds = _round(t, n, n2, r, rot, rb, eig_gram(am), apply, wg)

    def zero_pairs(k: ir.Expr) -> list[Any]:  # the rotated pairs' entries are zero exactly
        head, p, q = lc.pair(n2, r, k)
        skip = lc.fresh("sk", BOOL)
        return [
            *head,
            If(
                q < n,
                (
                    Let(skip, rot[rb + 2 * k + 1].eq(0.0)),
                    If(~skip, (am.set(p, q, zero), am.set(q, p, zero))),
                ),
            ),
        ]

    rounds += [lc.spread(n2 / 2, zero_pairs, wg), lc.sync()]
    body.append(
        ir.For(
            sweep,
            Const(0, U32),
            Const(lc.MAX_SWEEPS + 1, U32),
            Const(1, U32),
            (*check, ir.For(r, Const(0, U32), n2 - 1, Const(1, U32), tuple(rounds))),
        )
    )

    body += eig_finish(am, vm, um if vectors else None, w, idx, b, n, sc, wg)
    name = f"linalg_syevj_{t.name}_v{int(vectors)}_{'up' if upper else 'lo'}_c{cap}_wg{wg}"
    return lc.kernel(name, bufs, params, body, wg, [red, flag, *shared])


def _in_workgroup(t: ir.Type, cap: int, mats: int, a: ir.Buffer, base: ir.Expr,
                  count: ir.Expr, wg: int) -> tuple[list[ir.Shared], list[Any]]:  # fmt: skip
    """Workgroup memory for ``mats`` matrices of ``cap`` elements (none when ``cap`` is 0), the
    first staged in from ``a``: (shared arrays, statements)."""
    if not cap:
        return [], []
    sh = ir.Shared("mat", t, mats * cap)
    return [sh], lc.stage(sh, Const(0, U32), a, base, count, wg)


@cache
def gesvj(t: ir.Type, vectors: bool, wg: int = lc.WG, cap: int = 0) -> ir.Kernel:
    """Singular values (descending, real, into ``s``) of each m x n matrix (m >= n) of ``a``
    (scaled by a power of two and overwritten), with ``vectors`` also U (m x n, into ``u``) and
    V^H (n x n, into ``vt``);
    ``v`` accumulates the rotations, ``rot`` (n2 per matrix) and ``idx`` (n) are scratch. With
    ``cap`` (>= m n and n^2) A and V live in workgroup memory."""
    lc.reset_names()
    bufs = lc.rw_buffers("a:t v:t rot:t idx:u32 s:r u:t vt:t info:i32", t)
    a, v, rot, idx, s, u, vt, info = bufs
    params = _params("batch", "m", "n", "n2")
    b, m, n, n2 = lc.matrix(), params[1].var, params[2].var, params[3].var
    am, vm = lc.Mat(a, b * m * n, n), lc.Mat(v, b * n * n, n)
    um, vtm = lc.Mat(u, b * m * n, n), lc.Mat(vt, b * n * n, n)
    flag = ir.Shared("flag", U32, 1)
    red = ir.Shared("red", lc.real(t), wg)
    one, zero = Const(1.0, t), Const(0.0, t)
    shared, body = _in_workgroup(t, cap, 2 if vectors else 1, a, b * m * n, m * n, wg)
    if shared:
        am, vm = lc.Mat(shared[0], Const(0, U32), n), lc.Mat(shared[0], Const(cap, U32), n)
    scaled, sc = lc.scale_down(am, m, n, red, wg)
    body += scaled
    if vectors:
        body += [
            lc.spread2(0, n, 0, n, lambda i, j: [vm.set(i, j, ir.select(i.eq(j), one, zero))], wg),
            lc.sync(),
        ]
    apply = [(am, m, False)] + ([(vm, n, False)] if vectors else [])
    r, sweep = ir.Var("r", U32), ir.Var("sweep", U32)
    gram = svd_gram(am, m, lambda: ir.store(flag, 0, 1))
    rounds = _round(t, n, n2, r, rot, b * n2, gram, apply, wg)
    verdict, conv = _verdict(flag)
    body.append(
        ir.For(
            sweep,
            Const(0, U32),
            Const(lc.MAX_SWEEPS, U32),
            Const(1, U32),
            (
                If(lc.lid().eq(0), (ir.store(flag, 0, 0),)),
                Barrier(),
                ir.For(r, Const(0, U32), n2 - 1, Const(1, U32), tuple(rounds)),
                *verdict,
                If(conv.eq(0), (Break(),)),
            ),
        )
    )
    last, _ = _verdict(flag)
    body += [*last, If(land(lc.lid().eq(0), flag[0].ne(0)), (ir.store(info, b, 1),))]

    body += svd_finish(am, vm, um if vectors else None, vtm, s, idx, rot, b, m, n, n2, sc, wg)
    name = f"linalg_gesvj_{t.name}_v{int(vectors)}_c{cap}_wg{wg}"
    return lc.kernel(name, bufs, params, body, wg, [flag, red, *shared])


# -- pieces shared with the multi-dispatch path (linalg_jacobi_steps) ------------------------------
def eig_setup(am: lc.Mat, vm: lc.Mat | None, n: ir.Expr, upper: bool, wg: int) -> list[Any]:
    """The symmetric (Hermitian) matrix from its named triangle, and V = I (when ``vm``); then
    a barrier. A complex diagonal's imaginary parts are dropped (LAPACK's zheevd ignores them)."""
    t = am.buf.elem

    def mirror(i: ir.Expr, j: ir.Expr) -> list[Any]:
        low = lc.conj(am(i, j)) if upper else am(j, i)  # element (j, i), i < j
        out: list[Any] = [If(i < j, (am.set(i, j, lc.conj(low)), am.set(j, i, low)))]
        if t.is_complex:
            out.append(If(i.eq(j), (am.set(i, i, lc.lift(lc.re(am(i, i)), t)),)))
        return out

    body: list[Any] = [lc.spread2(0, n, 0, n, mirror, wg)]
    if vm is not None:
        one, zero = Const(1.0, t), Const(0.0, t)
        body.append(
            lc.spread2(0, n, 0, n, lambda i, j: [vm.set(i, j, ir.select(i.eq(j), one, zero))], wg)
        )
    return [*body, lc.sync()]


def eig_offdiag(am: lc.Mat, n: ir.Expr, red: ir.Shared, wg: int) -> tuple[list[Any], Any, Any]:
    """(statements, off, total): the sums of the off-diagonal and of all squares (|a|^2)."""
    t = lc.real(am.buf.elem)
    off, tot, e = lc.fresh("off", t), lc.fresh("tot", t), lc.fresh("e", U32)
    sq = lc.absq(am(e / n, e % n))
    offsum, offv = lc.wg_sum(red, off, wg)
    totsum, totv = lc.wg_sum(red, tot, wg)
    body = [
        Let(off, Const(0.0, t), mutable=True),
        Let(tot, Const(0.0, t), mutable=True),
        ir.For(
            e,
            lc.lid(),
            n * n,
            Const(wg, U32),
            (ir.Assign(tot, tot + sq), If((e / n).ne(e % n), (ir.Assign(off, off + sq),))),
        ),
        *offsum,
        *totsum,
    ]
    return body, offv, totv


def eig_gram(am: lc.Mat) -> Any:
    """The 2 x 2 problem of pair (p, q) of a symmetric (Hermitian) matrix (skip: a_pq is
    zero): (statements, a_pp, a_qq (real), a_pq, skip)."""

    def gram(p: ir.Expr, q: ir.Expr) -> tuple[list[Any], ir.Expr, ir.Expr, ir.Expr, ir.Expr]:
        apq = lc.fresh("apq", am.buf.elem)
        return [Let(apq, am(p, q))], lc.re(am(p, p)), lc.re(am(q, q)), apq, apq.eq(0.0)

    return gram


def svd_gram(am: lc.Mat, m: ir.Expr, mark: Any) -> Any:
    """The Gram matrix of columns p and q of the m-row ``am`` (skip: their cosine is at most
    4 m eps, above the rounding floor of f32 sums, or one column is at the other's rounding
    level, where the rotation changes nothing the SVD keeps and a rank-deficient matrix's
    leftover column, parallel to its partner, would be turned forever, down to subnormals);
    ``mark()`` records a rotation. Norms are real; the inner product a_p^H a_q is complex for
    complex types."""
    t = am.buf.elem
    f = lc.real(t)
    tol = ir.cast(m, f) * (4 * lc.eps(f))
    tiny = Const(lc.eps(f) ** 2, f)  # |a_p| <= eps |a_q|, in squares

    def gram(p: ir.Expr, q: ir.Expr) -> tuple[list[Any], ir.Expr, ir.Expr, ir.Expr, ir.Expr]:
        al, be, ga = lc.fresh("al", f), lc.fresh("be", f), lc.fresh("ga", t)
        i, x, y = lc.fresh("i", U32), lc.fresh("x", t), lc.fresh("y", t)
        sk = lc.fresh("sk", BOOL)
        pre = [
            Let(al, Const(0.0, f), mutable=True),
            Let(be, Const(0.0, f), mutable=True),
            Let(ga, Const(0.0, t), mutable=True),
            ir.For(
                i,
                Const(0, U32),
                m,
                Const(1, U32),
                (
                    Let(x, am(i, p)),
                    Let(y, am(i, q)),
                    ir.Assign(al, al + lc.absq(x)),
                    ir.Assign(be, be + lc.absq(y)),
                    ir.Assign(ga, ga + lc.conj(x) * y),
                ),
            ),
            Let(
                sk,
                lor(
                    ~(lc.cabs(ga) > tol * ir.call("sqrt", al) * ir.call("sqrt", be)),
                    ir.call("min", al, be) <= tiny * ir.call("max", al, be),
                ),
            ),
            If(~sk, (mark(),)),
        ]
        return pre, al, be, ga, sk

    return gram


def eig_finish(
    am: lc.Mat,
    vm: lc.Mat,
    um: lc.Mat | None,
    w: ir.Buffer,
    idx: ir.Buffer,
    b: ir.Expr,
    n: ir.Expr,
    scale: ir.Expr,
    wg: int,
) -> list[Any]:
    """Eigenvalues ascending into ``w`` (times ``scale``, undoing ``scale_down``); with ``um``
    the vectors into its columns, in order."""

    def place(i: ir.Expr, rank: ir.Expr, val: ir.Expr) -> list[Any]:
        return [ir.store(w, b * n + rank, val * scale), ir.store(idx, b * n + i, rank)]

    body = [_ranks(n, lambda i: lc.re(am(i, i)), True, place, wg), lc.sync()]
    if um is not None:
        body.append(lc.spread2(0, n, 0, n, lambda i, j: [um.set(i, idx[b * n + j], vm(i, j))], wg))
    return body


def svd_finish(
    am: lc.Mat,
    vm: lc.Mat,
    um: lc.Mat | None,
    vtm: lc.Mat,
    s: ir.Buffer,
    idx: ir.Buffer,
    rot: ir.Buffer,
    b: ir.Expr,
    m: ir.Expr,
    n: ir.Expr,
    n2: ir.Expr,
    scale: ir.Expr,
    wg: int,
) -> list[Any]:
    """Column norms (into ``rot``), singular values descending into ``s`` (times ``scale``,
    undoing ``scale_down``); with ``um`` U's columns normalised and V^H's rows, in order."""
    t = am.buf.elem
    f = lc.real(t)
    zero = Const(0.0, t)

    def norm(j: ir.Expr) -> list[Any]:
        acc, i = lc.fresh("acc", f), lc.fresh("i", U32)
        return [
            Let(acc, Const(0.0, f), mutable=True),
            ir.For(i, Const(0, U32), m, Const(1, U32), (ir.Assign(acc, acc + lc.absq(am(i, j))),)),
            ir.store(rot, b * n2 + j, lc.lift(ir.call("sqrt", acc), t)),
        ]

    def place(j: ir.Expr, rank: ir.Expr, val: ir.Expr) -> list[Any]:
        return [ir.store(s, b * n + rank, val * scale), ir.store(idx, b * n + j, rank)]

    body = [
        lc.spread(n, norm, wg),
        lc.sync(),
        _ranks(n, lambda j: lc.re(rot[b * n2 + j]), False, place, wg),
        lc.sync(),
    ]
    if um is not None:

        def scale(i: ir.Expr, j: ir.Expr) -> list[Any]:
            sg = lc.fresh("sg", f)
            return [
                Let(sg, lc.re(rot[b * n2 + j])),
                um.set(i, idx[b * n + j], ir.select(sg > 0.0, lc.div_real(am(i, j), sg), zero)),
            ]

        body += [
            lc.spread2(0, m, 0, n, scale, wg),
            lc.spread2(
                0, n, 0, n, lambda i, j: [vtm.set(idx[b * n + j], i, lc.conj(vm(i, j)))], wg
            ),
        ]
    return body
