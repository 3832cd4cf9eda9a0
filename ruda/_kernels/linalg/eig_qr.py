"""Shifted QR iterations of the general eigenproblem (``hqr``): each upper Hessenberg matrix
(from ``linalg_eig.gehrd``) towards its Schur form T = Z^H A Z, in complex arithmetic.

LAPACK's zlahqr: complex single-shift QR with Wilkinson's shift, the Ahues-Tisseur deflation
test, exceptional shifts every 10 iterations without a deflation, and ``info[b] = 1`` after
``30 max(10, n)`` of them or at a non-finite entry (2 when the input had one, as ``gehrd``'s
scale factor says). Each QR step is a chase of complex Givens rotations; the workgroup applies
a rotation's rows, then its columns (and Z's), between barriers. Control values (how many
eigenvalues are deflated, where the active block starts) travel through workgroup memory and
a uniform load, so every barrier is in uniform control flow. A launch runs at most ``budget``
iterations and keeps its progress in ``state`` (resumable, as every phase).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import eig_qr as linalg_eig_qr
    >>> linalg_eig_qr.hqr(ir.C64, True).name
    'linalg_hqr_c64_v1_s0_wg64'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import BOOL, U32, Assign, Barrier, Break, Const, For, If, Let
from ..math.mathlib import isfinite, land, lor
from . import common as lc
from .eig import (
    abs1,
    conj,
    csqrt,
    cx,
    givens,
    im,
    limits,
    re,
    rscale,
    space,
    spread_loops,
    u32_params,
)

ITMAX = 30  # QR iterations per eigenvalue (times max(10, n)) before LinAlgError, as zlahqr


def _uniform(st: ir.Shared, i: int) -> tuple[list[Any], ir.Var]:
    """``st[i]`` read as a uniform value (between barriers that also order storage)."""
    v = lc.fresh("u", U32)
    return [lc.sync(), Let(v, ir.call("uniform_load", st[i], type=U32)), lc.sync()], v


def _deflation(am: lc.Mat, hi: ir.Expr, smlnum: ir.Expr, ulp: float) -> tuple[list[Any], ir.Var]:
    """(statements, l): the start of the unreduced block ending at row ``hi`` (the negligible
    subdiagonal entry nearest it, by zlahqr's test, is made zero). One invocation runs it."""
    t = am.buf.elem
    f = t.part
    lv, kk, k = lc.fresh("l", U32), lc.fresh("kk", U32), lc.fresh("k", U32)
    h, d1, d2, u = (lc.fresh(s, t) for s in ("h", "d1", "d2", "u"))
    ah, tst, ab, ba, aa, bb, s = (lc.fresh(v, f) for v in "ah tst ab ba aa bb s".split())
    zero = Const(0.0, f)
    extra = ir.select(k >= 2, abs1(am(k - 1, ir.select(k >= 2, k - 2, k))), zero) + ir.select(
        k < hi, abs1(am(ir.call("min", k + 1, hi), k)), zero
    )
    found = (Assign(lv, k), Break())
    test = (
        Let(ab, ir.call("max", ah, abs1(u))),
        Let(ba, ir.call("min", ah, abs1(u))),
        Let(aa, ir.call("max", abs1(d2), abs1(d1 - d2))),
        Let(bb, ir.call("min", abs1(d2), abs1(d1 - d2))),
        Let(s, aa + ab),
        If(ba * (ab / s) <= ir.call("max", smlnum, (bb * (aa / s)) * ulp), found),
    )
    loop = For(kk, Const(0, U32), hi, Const(1, U32), (
        Let(k, hi - kk),
        Let(h, am(k, k - 1)),
        Let(ah, abs1(h)),
        If(ah <= smlnum, found),
        Let(d1, am(k - 1, k - 1)),
        Let(d2, am(k, k)),
        Let(u, am(k - 1, k)),
        Let(tst, abs1(d1) + abs1(d2), mutable=True),
        If(tst.eq(0.0), (Assign(tst, tst + extra),)),
        If(ah <= tst * ulp, test),
    ))  # fmt: skip
    return [Let(lv, Const(0, U32), mutable=True), loop,
            If(lv > 0, (am.set(lv, lv - 1, cx(0.0, 0.0, t)),))], lv  # fmt: skip


def _shift(am: lc.Mat, l: ir.Expr, hi: ir.Expr, its: ir.Expr) -> tuple[list[Any], ir.Var]:
    """(statements, mu): Wilkinson's shift from the trailing 2 x 2 block (zlahqr's careful
    form), or an exceptional shift every 10th iteration without a deflation."""
    t = am.buf.elem
    f = t.part
    hh, h01, h10, h00, u, x, xs, us, y, y2, wilk, mu = (
        lc.fresh(s, t) for s in ("hh", "h01", "h10", "h00", "u", "x", "xs", "us", "y", "y2",
                                 "wilk", "mu"))  # fmt: skip
    su, sx, ss, sf = (lc.fresh(s, f) for s in ("su", "sx", "ss", "sf"))
    flip = lc.fresh("flip", BOOL)
    one = Const(1.0, f)
    hl, hl1 = am(l, l), am(l + 1, l)
    exc_hi = cx(re(hh) + abs1(h10) * 0.75, im(hh), t)
    exc_lo = cx(re(hl) + abs1(hl1) * 0.75, im(hl), t)
    body = [
        Let(hh, am(hi, hi)),
        Let(h01, am(hi - 1, hi)),
        Let(h10, am(hi, hi - 1)),
        Let(h00, am(hi - 1, hi - 1)),
        Let(u, csqrt(h01) * csqrt(h10)),
        Let(su, abs1(u)),
        Let(x, rscale(h00 - hh, 0.5)),
        Let(sx, abs1(x)),
        Let(ss, ir.call("max", su, sx)),
        Let(sf, ir.select(ss > 0.0, ss, one)),
        Let(xs, rscale(x, one / sf)),
        Let(us, rscale(u, one / sf)),
        Let(y, rscale(csqrt(xs * xs + us * us), sf)),
        Let(flip, land(sx > 0.0, re(x) * re(y) + im(x) * im(y) < 0.0)),
        Let(y2, ir.select(flip, -y, y)),
        Let(wilk, ir.select(su > 0.0, hh - u * (u / (x + y2)), hh)),
        Let(mu, ir.select((its % 20).eq(0), exc_hi,
                          ir.select((its % 10).eq(0), exc_lo, wilk))),
    ]  # fmt: skip
    return body, mu


def _qr_step(am: lc.Mat, zm: lc.Mat | None, n: ir.Expr, l: ir.Expr, hi: ir.Expr, mu: ir.Expr,
             k: ir.Var, wg: int) -> list[Any]:  # fmt: skip
    """Rotation k of the chase over the block [l, hi]: rows k, k+1 (to column n - 1 when
    forming T, else hi), then columns k, k+1 (from row 0, else l) and Z's."""
    t = am.buf.elem
    full = zm is not None
    km1 = lc.fresh("km1", U32)
    fv, gv = lc.fresh("fv", t), lc.fresh("gv", t)
    rot, c, s, r = givens(fv, gv)
    first = k.eq(l)
    czero = cx(0.0, 0.0, t)
    j0 = ir.select(first, l, k - 1)
    jend = n if full else hi + 1
    r0 = Const(0, U32) if full else l
    rend = ir.call("min", k + 3, hi + 1)

    def rows(o: ir.Expr) -> list[Any]:
        j, x, y = lc.fresh("j", U32), lc.fresh("x", t), lc.fresh("y", t)
        bulge = land(~first, j.eq(k - 1))  # the entry chased: exactly (r, 0)
        return [
            Let(j, j0 + o),
            Let(x, am(k, j)),
            Let(y, am(k + 1, j)),
            am.set(k, j, ir.select(bulge, r, rscale(x, c) + s * y)),
            am.set(k + 1, j, ir.select(bulge, czero, rscale(y, c) - conj(s) * x)),
        ]

    def cols(mat: lc.Mat, i: ir.Expr) -> list[Any]:
        x, y = lc.fresh("x", t), lc.fresh("y", t)
        return [
            Let(x, mat(i, k)),
            Let(y, mat(i, k + 1)),
            mat.set(i, k, rscale(x, c) + conj(s) * y),
            mat.set(i, k + 1, rscale(y, c) - s * x),
        ]

    def columns(o: ir.Expr) -> list[Any]:
        i = lc.fresh("i", U32)
        nh = rend - r0
        mine = [Let(i, r0 + o), *cols(am, i)]
        if zm is None:
            return mine
        return [If(o < nh, tuple(mine), tuple(cols(zm, o - nh)))]

    count = rend - r0 + (n if full else Const(0, U32))
    return [
        Let(km1, ir.select(first, k, k - 1)),
        Let(fv, ir.select(first, am(l, l) - mu, am(k, km1))),
        Let(gv, ir.select(first, am(l + 1, l), am(k + 1, km1))),
        *rot,
        lc.sync(),  # every invocation has its rotation before the rows change
        lc.spread(jend - j0, rows, wg),
        lc.sync(),
        lc.spread(count, columns, wg),
        lc.sync(),
    ]


@cache
def hqr(t: ir.Type, vectors: bool, wg: int = lc.WG, side: int = 0) -> ir.Kernel:
    """At most ``budget`` QR iterations on each upper Hessenberg n x n matrix of ``a`` towards
    its Schur form (upper triangular with ``vectors``, else only the diagonal converges),
    applying the rotations to ``z`` too with ``vectors``; ``state`` (2 per matrix, zero at
    first) keeps the progress, ``w`` gets the diagonal over ``gehrd``'s ``scale`` (the
    eigenvalues, once done)."""
    lc.reset_names()
    bufs = [*lc.rw_buffers("a:t z:t w:t state:u32 info:i32", t),
            ir.Buffer("scale", t.part, 5, "read_write")]  # fmt: skip
    a, z, w, state, info, scale = bufs
    params = u32_params("batch", "n", "budget")
    n, budget = params[1].var, params[2].var
    b = lc.matrix()
    sp = space(t, side, a, z if vectors else None, w, n, wg)
    am, zm = sp.am, sp.zm
    f = t.part
    ulp, safmin, _ = limits(f)
    st = ir.Shared("st", U32, 4)  # deflated, iterations since, the block's start
    it, k = ir.Var("it", U32), ir.Var("k", U32)
    smlnum = lc.fresh("smlnum", f)
    itmax = lc.fresh("itmax", U32)
    read_done, done = _uniform(st, 0)
    read_its, its = _uniform(st, 1)
    read_l, l = _uniform(st, 2)
    hi, kn = lc.fresh("hi", U32), lc.fresh("kn", U32)
    scan, lv = _deflation(am, hi, smlnum, ulp)
    shift, mu = _shift(am, l, hi, kn)
    zero = Const(0, U32)
    thread0 = lc.lid().eq(0)
    fail = lor(kn > itmax, ~isfinite(abs1(am(hi, hi))))
    iterate = (
        Let(kn, its + 1),
        If(thread0, (ir.store(st, 1, kn),
                     If(fail, (ir.store(st, 0, n), ir.store(info, b, 1))))),
        *shift,
        For(k, l, hi, Const(1, U32), tuple(_qr_step(am, zm, n, l, hi, mu, k, wg))),
    )  # fmt: skip
    deflate = (If(thread0, (ir.store(st, 0, done + 1), ir.store(st, 1, zero))),)
    loop = For(it, zero, budget, Const(1, U32), (
        *read_done,
        *read_its,
        If((n - done) <= 1, (Break(),)),
        Let(hi, n - done - 1),
        If(thread0, (*scan, ir.store(st, 2, lv))),
        *read_l,
        If(l.eq(hi), deflate, iterate),
    ))  # fmt: skip
    body: list[Any] = [
        Let(smlnum, Const(safmin, f) * (ir.cast(n, f) / ulp)),
        Let(itmax, Const(ITMAX, U32) * ir.call("max", n, Const(10, U32))),
        *sp.load,
        *sp.zload,
        If(thread0, (ir.store(st, 0, state[b * 2]), ir.store(st, 1, state[b * 2 + 1]),
                     If(scale[b] <= 0.0, (ir.store(st, 0, n), ir.store(info, b, 2))))),
        Barrier(),
        loop,
        lc.sync(),
        If(thread0, (ir.store(state, b * 2, st[0]), ir.store(state, b * 2 + 1, st[1]))),
        lc.spread(n, lambda j: [ir.store(w, b * n + j, rscale(am(j, j), Const(1.0, f) / scale[b]))],
                  wg),
        *sp.save,
    ]  # fmt: skip
    name = f"linalg_hqr_{t.name}_v{int(vectors)}_s{side}_wg{wg}"
    return lc.kernel(name, bufs, params, body, wg, [st, *sp.shared])


def hqr_loops(n: int, vectors: bool, wg: int) -> int:
    """An upper bound of one invocation's loop iterations in one iteration of ``hqr``."""
    cols = spread_loops(n + 1, wg)  # a rotation's rows: columns up to n - 1 (and k - 1)
    rows = spread_loops(2 * n if vectors else n, wg)  # its columns: A's rows, then Z's
    return 2 + n + (n - 1) * (1 + cols + rows)  # the deflation scan, then the chase


__all__ = ["ITMAX", "hqr", "hqr_loops"]
