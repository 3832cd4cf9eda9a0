"""Block one-sided Jacobi for the SVD of large matrices: one launch per round of a sweep over
column blocks, one workgroup per pair of blocks.

The n columns form blocks of ``width(t) // 2``; a round of the tournament
(``linalg_common.pair``) pairs the blocks (an odd count gets a dummy block: its columns are
past n and count as zero). The workgroup of a pair (p, q) takes the ``W = width(t)`` columns of
both blocks:

1. their Gram matrix G = S^H S (Hermitian W x W, its upper triangle packed in workgroup
   memory) from the m rows of S;
2. up to ``MAX_INNER`` sweeps of two-sided (cyclic) Jacobi on G in workgroup memory, each
   rotation J the one-sided rotation of its column pair (the same 2 x 2 problem and skip test
   as ``linalg_jacobi.svd_gram``, plus a noise floor: a column below eps ||A||_F, from
   ``fro``, counts as zero), accumulated into the W x W orthogonal (unitary) V_in; a round
   updates G by 2 x 2 blocks, J_a^H G_ab J_b, one lane per block pair;
3. S <- S V_in and the same columns of V (``vectors``) <- V V_in.

If the first inner sweep rotated nothing, the pair's columns are orthogonal: nothing is
applied; otherwise ``rotated[b]`` is set, and a sweep that sets it for no pair ends the
iteration (``linalg_jacobi_steps.svd_check``). A sweep is thus ``n / (W / 2) - 1`` launches
instead of the ``n - 1`` rounds of three launches of the scalar method, and each launch
orthogonalises W columns at once. The singular values are the final column norms
(``linalg_jacobi_steps.svd_end``).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import jacobi_block as linalg_jacobi_block
    >>> linalg_jacobi_block.round_kernel(ir.F64, True, False).name
    'linalg_jacobi_block_f64_v1_w32'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import BOOL, U32, Barrier, Break, Const, For, If, Let
from ..math.mathlib import land, lor
from ..reduce import wgid
from . import common as lc
from .jacobi import rotated

WG = 256  # invocations per workgroup
# Rows per lane and pass of the update S V_in, and per iteration of the Gram matrix's sums: the
# loads in flight together. Both phases wait on memory: on the H200 through Vulkan a round of the
# 512 x 512 float64 SVD took 207 us at 4 and 4, 131 at 32 and 8, 122 at 32 and 16 (64 is slower).
ROWS = 32
GRAM_ROWS = 16
MAX_INNER = 1  # inner sweeps per visit: the next visit starts from a fresh Gram matrix anyway
# (1 against 2: the SVD of a 512 x 512 R in 84 ms instead of 98 on the H200 through Vulkan,
# the same singular values and orthogonality; 3 took 109 ms)
PROMOTED_TOL = 2.0**-26  # float32 data in float64: cosines below half float32's eps
PROMOTED_EPS = 2.0**-23  # float32's eps: the rounding level of promoted data


def width(t: ir.Type) -> int:
    """Columns a workgroup takes (two blocks): G's triangle and V_in must fit in 16 KiB."""
    return 32 if t.itemsize <= 8 else 16


def _params(*names: str) -> list[ir.Param]:
    return [ir.Param(n, U32) for n in names]


def _packed(i: ir.Expr, j: ir.Expr, w: int) -> ir.Expr:
    """Position of (i, j), i <= j, in a row-major packed upper triangle of a w x w matrix."""
    return i * (2 * w + 1 - i) / 2 + j - i


class _Gram:
    """The Hermitian W x W matrix in packed workgroup memory: (i, j) for any order."""

    def __init__(self, sh: ir.Shared, w: int) -> None:
        self.sh, self.w = sh, w

    def get(self, i: ir.Expr, j: ir.Expr) -> ir.Expr:
        lo, hi = ir.call("min", i, j), ir.call("max", i, j)
        v = self.sh[_packed(lo, hi, self.w)]
        return ir.select(i <= j, v, lc.conj(v)) if v.type.is_complex else v

    def set(self, i: ir.Expr, j: ir.Expr, val: ir.Expr) -> ir.Store:
        lo, hi = ir.call("min", i, j), ir.call("max", i, j)
        if val.type.is_complex:
            val = ir.select(i <= j, val, lc.conj(val))
        return ir.store(self.sh, _packed(lo, hi, self.w), val)


def _verdict(flag: ir.Shared) -> tuple[list[Any], ir.Var]:
    """The workgroup's common reading of ``flag[0]`` (uniform: loops and returns may use it)."""
    v = lc.fresh("verdict", U32)
    return [Barrier(), Let(v, ir.call("uniform_load", flag[0], type=U32)), Barrier()], v


@cache
def round_kernel(t: ir.Type, vectors: bool, promoted: bool) -> ir.Kernel:
    """Round ``r`` of a sweep over the m x n matrices of ``a`` (and their n x n ``v``): one
    workgroup per block pair (``pairs`` per matrix, blocks of W / 2 columns, ``nbe`` blocks
    with the dummy); matrices with ``done[b]`` set are skipped, ``rotated[b]`` is set where a
    pair was turned, ``fro[b]`` is the sum of the matrix's squares. ``promoted``: the data
    are float32 (complex64) computed in float64 (complex128): pairs count as orthogonal below
    ``PROMOTED_TOL``, else below sqrt(m) eps (LAPACK's gesvj)."""
    lc.reset_names()
    a, v, done, rot_flag, fro = lc.rw_buffers("a:t v:t done:u32 rotated:u32 fro:r", t)
    params = _params("batch", "pairs", "m", "n", "nbe", "r")
    pairs, m, n, nbe, r = (p.var for p in params[1:])
    w = width(t)
    half = w // 2
    f = lc.real(t)
    gp = ir.Shared("gp", t, w * (w + 1) // 2)
    vin = ir.Shared("vin", t, w * w)
    rc = ir.Shared("rc", f, half)
    rsn = ir.Shared("rs", t, half)
    flag = ir.Shared("flag", U32, 1)
    anyrot = ir.Shared("anyrot", U32, 1)
    gram = _Gram(gp, w)
    zero, one = Const(0.0, t), Const(1.0, t)
    lid = lc.lid()
    gi, b, k = ir.Var("gi", U32), ir.Var("b", U32), ir.Var("k", U32)
    body: list[Any] = [
        Let(gi, wgid()),
        Let(b, gi / pairs),
        Let(k, gi % pairs),
        If(b >= params[0].var, (ir.Return(),)),
        If(lid.eq(0), (ir.store(flag, 0, done[b]),)),
    ]
    seen, finished = _verdict(flag)
    body += [*seen, If(finished.ne(0), (ir.Return(),))]
    head, bp, bq = lc.pair(nbe, r, k)
    body += head

    def col(i: ir.Expr) -> ir.Expr:  # slot i's column: block p's first, then block q's
        return ir.select(i < half, bp * half + i, bq * half + i - half)

    # 1. the Gram matrix's upper triangle, a 2 x 2 block of it per lane (four loads a row),
    # GRAM_ROWS rows per iteration (their loads in flight together), the rest one by one;
    # a column past n is read at n - 1 and its sums dropped at the end
    def gram_block(e: ir.Expr) -> list[Any]:
        x, y = e / half, e % half
        cs = [lc.fresh(nm, U32) for nm in ("c0", "c1", "c2", "c3")]
        acc = [lc.fresh(nm, t) for nm in ("g00", "g01", "g10", "g11")]
        r0, full = lc.fresh("r0", U32), lc.fresh("full", U32)
        products = [(0, 2), (0, 3), (1, 2), (1, 3)]

        def rows(count: int) -> list[Any]:
            out: list[Any] = []
            for u in range(count):
                xs = [lc.fresh(nm, t) for nm in ("x0", "x1", "y0", "y1")]
                base = lc.fresh("rb", U32)
                out.append(Let(base, b * m * n + (r0 + u) * n))
                out += [Let(v_, a[base + c_]) for v_, c_ in zip(xs, cs, strict=True)]
                out += [ir.Assign(a_, a_ + lc.conj(xs[i]) * xs[j])
                        for a_, (i, j) in zip(acc, products, strict=True)]  # fmt: skip
            return out

        def keep(i: int, j: int) -> ir.Expr:
            return ir.select(land(col(2 * x + i) < n, col(2 * y + j) < n), acc[2 * i + j], zero)

        ends = [(x, 0), (x, 1), (y, 0), (y, 1)]
        return [
            If(
                x <= y,
                (
                    *(
                        Let(c_, ir.call("min", col(2 * z + d), n - 1))
                        for c_, (z, d) in zip(cs, ends, strict=True)
                    ),
                    *(Let(a_, zero, mutable=True) for a_ in acc),
                    Let(full, m - m % GRAM_ROWS),
                    For(r0, Const(0, U32), full, Const(GRAM_ROWS, U32), tuple(rows(GRAM_ROWS))),
                    For(r0, full, m, Const(1, U32), tuple(rows(1))),
                    ir.store(gp, _packed(2 * x, 2 * y, w), keep(0, 0)),
                    ir.store(gp, _packed(2 * x, 2 * y + 1, w), keep(0, 1)),
                    ir.store(gp, _packed(2 * x + 1, 2 * y + 1, w), keep(1, 1)),
                    If(x < y, (ir.store(gp, _packed(2 * x + 1, 2 * y, w), keep(1, 0)),)),
                ),
            )  # fmt: skip
        ]

    body += [
        lc.spread(half * half, gram_block, WG),
        lc.spread(w * w, lambda e: [ir.store(vin, e, ir.select((e / w).eq(e % w), one, zero))], WG),
        If(lid.eq(0), (ir.store(anyrot, 0, 0),)),
        Barrier(),
    ]

    # 2. inner sweeps of two-sided Jacobi on G, rotations accumulated in V_in
    if promoted:
        tol: ir.Expr = Const(PROMOTED_TOL, f)
    else:
        tol = ir.call("sqrt", ir.cast(m, f)) * lc.eps(f)
    tiny = Const(lc.eps(f) ** 2, f)
    # Note: columns below the data's rounding level of the whole matrix (eps ||A||_F) count
    # as zero: rotating that noise among itself would take many sweeps (it is clustered) and
    # change nothing kept; their singular values are their norms (errors at NumPy's eps ||A||
    # level), their U columns come from the QR that completes U.
    floor = lc.fresh("floor", f)
    body.append(Let(floor, fro[b] * (PROMOTED_EPS**2 if promoted else lc.eps(f) ** 2)))
    ir_ = ir.Var("ir", U32)
    sweep = ir.Var("sweep", U32)

    def rotation(kk: ir.Expr) -> list[Any]:
        hd, p, q = lc.pair(Const(w, U32), ir_, kk)
        app, aqq, apq = lc.fresh("app", f), lc.fresh("aqq", f), lc.fresh("apq", t)
        sk = lc.fresh("sk", BOOL)
        small = ir.call("min", app, aqq)
        test = lor(
            lor(
                ~(lc.cabs(apq) > tol * ir.call("sqrt", app) * ir.call("sqrt", aqq)),
                small <= tiny * ir.call("max", app, aqq),
            ),
            small <= floor,
        )
        rbody, c, s = lc.rotation(app, aqq, apq, sk)
        return [
            *hd,
            Let(app, lc.re(gram.get(p, p))),
            Let(aqq, lc.re(gram.get(q, q))),
            Let(apq, gram.get(p, q)),
            Let(sk, test),
            *rbody,
            ir.store(rc, kk, lc.re(c)),
            ir.store(rsn, kk, s),
            If(~sk, (ir.store(flag, 0, 1),)),
        ]

    def block(e: ir.Expr) -> list[Any]:  # the 2 x 2 block (pair x, pair y) of G, x <= y
        x, y = e / half, e % half
        hx, px, qx = lc.pair(Const(w, U32), ir_, x)
        hy, py, qy = lc.pair(Const(w, U32), ir_, y)
        cx, sx = lc.fresh("cx", f), lc.fresh("sx", t)
        cy, sy = lc.fresh("cy", f), lc.fresh("sy", t)
        g = [lc.fresh(nm, t) for nm in ("g00", "g01", "g10", "g11")]
        h = [lc.fresh(nm, t) for nm in ("h00", "h01", "h10", "h11")]
        o = [lc.fresh(nm, t) for nm in ("o00", "o01", "o10", "o11")]
        r0 = rotated(cx, sx, g[0], g[2], True)  # rows px, qx of column py
        r1 = rotated(cx, sx, g[1], g[3], True)  # of column qy
        c0 = rotated(cy, sy, h[0], h[1], False)  # columns py, qy of row px
        c1 = rotated(cy, sy, h[2], h[3], False)  # of row qx
        diag = x.eq(y)
        turned = rsn[x].ne(0.0)
        if t.is_complex:
            real = lambda z: lc.lift(lc.re(z), t)  # noqa: E731
            o00, o11 = ir.select(diag, real(c0[0]), c0[0]), ir.select(diag, real(c1[1]), c1[1])
        else:
            o00, o11 = c0[0], c1[1]
        o01 = ir.select(land(diag, turned), zero, c0[1])
        return [
            If(
                x <= y,
                (
                    *hx,
                    *hy,
                    Let(cx, rc[x]),
                    Let(sx, rsn[x]),
                    Let(cy, rc[y]),
                    Let(sy, rsn[y]),
                    Let(g[0], gram.get(px, py)),
                    Let(g[1], gram.get(px, qy)),
                    Let(g[2], gram.get(qx, py)),
                    Let(g[3], gram.get(qx, qy)),
                    Let(h[0], r0[0]),
                    Let(h[2], r0[1]),
                    Let(h[1], r1[0]),
                    Let(h[3], r1[1]),
                    Let(o[0], o00),
                    Let(o[1], o01),
                    Let(o[3], o11),
                    gram.set(px, py, o[0]),
                    gram.set(px, qy, o[1]),
                    gram.set(qx, qy, o[3]),
                    If(~diag, (gram.set(qx, py, c1[0]),)),
                ),
            )
        ]

    def vin_columns(e: ir.Expr) -> list[Any]:
        row, kk = e / half, e % half
        hd, p, q = lc.pair(Const(w, U32), ir_, kk)
        xv, yv = lc.fresh("xv", t), lc.fresh("yv", t)
        cc, ss = lc.fresh("cc", f), lc.fresh("ss", t)
        new_p, new_q = rotated(cc, ss, xv, yv, False)
        return [
            *hd,
            Let(cc, rc[kk]),
            Let(ss, rsn[kk]),
            Let(xv, vin[row * w + p]),
            Let(yv, vin[row * w + q]),
            ir.store(vin, row * w + p, new_p),
            ir.store(vin, row * w + q, new_q),
        ]

    rounds = (
        lc.spread(half, rotation, WG),
        Barrier(),
        lc.spread(half * half, block, WG),
        lc.spread(w * half, vin_columns, WG),
        Barrier(),
    )
    inner_verdict, turned_any = _verdict(flag)
    body.append(
        For(
            sweep,
            Const(0, U32),
            Const(MAX_INNER, U32),
            Const(1, U32),
            (
                If(lid.eq(0), (ir.store(flag, 0, 0),)),
                Barrier(),
                For(ir_, Const(0, U32), Const(w - 1, U32), Const(1, U32), rounds),
                *inner_verdict,
                If(land(lid.eq(0), sweep.eq(0)), (ir.store(anyrot, 0, turned_any),)),
                If(turned_any.eq(0), (Break(),)),
            ),
        )
    )
    applied, changed = _verdict(anyrot)
    body += [*applied, If(changed.eq(0), (ir.Return(),))]
    body.append(If(lid.eq(0), (ir.store(rot_flag, b, 1),)))

    # 3. S <- S V_in and V <- V V_in, a pass of WG / W rows at a time
    rows_per = WG // w
    rsub, jl = lid / w, lid % w

    def apply(buf: ir.Buffer, base: ir.Expr, length: ir.Expr) -> list[Any]:
        """The W columns of the length x n matrix at ``base`` of ``buf`` times V_in, in place,
        ROWS rows per lane and pass: every lane of a row has read it before any writes (a
        barrier between). Rows past the end are read at the last and never written."""
        r0, i, cj = lc.fresh("r0", U32), lc.fresh("i", U32), lc.fresh("cj", U32)
        rows = [r0 + rsub + u * rows_per for u in range(ROWS)]
        acc = [lc.fresh("acc", t) for _ in range(ROWS)]
        bases = [lc.fresh("rb", U32) for _ in range(ROWS)]
        vi, ci = lc.fresh("vi", t), lc.fresh("ci", U32)
        products = [ir.Assign(a_, a_ + buf[rb + ci] * vi)
                    for a_, rb in zip(acc, bases, strict=True)]  # fmt: skip
        writes = [If(land(row < length, cj < n), (ir.store(buf, rb + cj, a_),))
                  for a_, row, rb in zip(acc, rows, bases, strict=True)]  # fmt: skip
        return [
            Let(cj, col(jl)),
            For(
                r0,
                Const(0, U32),
                length,
                Const(rows_per * ROWS, U32),
                (
                    *(
                        Let(rb, base + ir.call("min", row, length - 1) * n)
                        for rb, row in zip(bases, rows, strict=True)
                    ),
                    *(Let(a_, zero, mutable=True) for a_ in acc),
                    For(
                        i,
                        Const(0, U32),
                        Const(w, U32),
                        Const(1, U32),
                        (Let(ci, col(i)), If(ci < n, (Let(vi, vin[i * w + jl]), *products))),
                    ),
                    lc.sync(),
                    *writes,
                ),
            ),  # fmt: skip
            lc.sync(),
        ]

    body += apply(a, b * m * n, m)
    if vectors:
        body += apply(v, b * n * n, n)
    name = f"linalg_jacobi_block_{t.name}_v{int(vectors)}{'_p' if promoted else ''}_w{w}"
    k_ = ir.Kernel(name, (a, v, done, rot_flag, fro), tuple(params), tuple(body), (WG, 1, 1),
                   (gp, vin, rc, rsn, flag, anyrot))  # fmt: skip
    return ir.with_features(k_)


__all__ = ["MAX_INNER", "PROMOTED_TOL", "round_kernel", "width"]
