"""Blocked Householder QR for large matrices: the panel kernels of LAPACK's geqrf/larft, spread
over many workgroups per matrix.

A panel is ``w <= JB`` columns ``j0 .. j0 + w`` of the rows ``j0 .. m``. ``panel_step`` is one
launch per column step ``c`` (``w + 1`` launches per panel), each over every row of the panel,
``ROWS`` rows per pass of a workgroup (one lane per (row, panel column)). Launch ``c``:

1. sums the previous launch's partial sums (every workgroup alike, in one fixed order, so all
   agree to the bit): for column ``c - 1``'s x below the diagonal, sigma = |x|^2 and
   D_j = x^H P[:, j], and row ``c - 1`` itself (R_j); from them the reflector
   H = I - tau v v^H (LAPACK's dlarfg/zlarfg: real alpha, R's diagonal as NumPy's) with
   v = (x - alpha e) / (x0 - alpha), so v^H P[:, j] = R_j + D_j / conj(x0 - alpha) needs no
   second pass;
2. applies H^H to the panel's later columns in every row, writes column ``c - 1`` (alpha, zeros
   below; v into ``v``, tau into ``beta``);
3. sums, per workgroup, the same quantities for column ``c`` of the updated rows into ``part``
   (two slots, alternating: the next launch reads one while it writes the other).

The panel's columns are thus factored with one launch each and no column ever read twice in
a launch; the trailing columns are then updated with three matrix products (compact WY:
Q_panel = I - V T V^H, ``larft`` builds T and T^H from V^H V). Large values are handled by
scaling the whole matrix by a power of two first (``scale_pow2``), which leaves v and tau as
they are and scales R back exactly.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import qr_panel as linalg_qr_panel
    >>> linalg_qr_panel.panel_step(ir.F32).name
    'linalg_qr_panel_step_f32_jb32'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import U32, Barrier, Const, For, If, Let
from ..math.mathlib import land
from ..reduce import wgid
from . import common as lc
from .steps import tiled

JB = 32  # panel width: one lane per panel column
WG = 256  # invocations per workgroup
RT = WG // JB  # rows per tile
UNROLL = 4  # tiles per pass (independent loads in flight per lane)
ROWS = RT * UNROLL  # rows a workgroup takes per pass
SLOTS = 2 * JB  # partial sums per workgroup: D_j and R_j
LANES = 4  # partial sums a lane reads per iteration (independent loads in flight)


def _params(*names: str) -> list[ir.Param]:
    return [ir.Param(n, U32) for n in names]


def _reflector(t: ir.Type, x0: ir.Expr, sigma: ir.Expr) -> tuple[list[Any], dict[str, ir.Var]]:
    """LAPACK's dlarfg/zlarfg from x0 (the diagonal entry) and sigma (|x|^2 below it):
    statements and the values ``hh`` (a reflection: else H = I), ``alpha`` (real), ``ra``
    (alpha as a ``t``), ``tau`` and ``d`` (x0 - alpha, 1 for H = I)."""
    f = lc.real(t)
    xr, norm, alpha = lc.fresh("xr", f), lc.fresh("norm", f), lc.fresh("alpha", f)
    hh = lc.fresh("hh", ir.BOOL)
    ra, tau, d = lc.fresh("ra", t), lc.fresh("tau", t), lc.fresh("d", t)
    nonzero, formula = lc.householder_tau(t, x0, xr, alpha, sigma)
    body = [
        Let(xr, lc.re(x0)),
        Let(norm, ir.call("sqrt", lc.absq(x0) + sigma)),
        Let(hh, nonzero),
        Let(alpha, ir.select(hh, ir.select(xr >= 0.0, -norm, norm), xr)),
        Let(ra, lc.lift(alpha, t)),
        Let(tau, ir.select(hh, formula, Const(0.0, t))),
        Let(d, ir.select(hh, x0 - ra, Const(1.0, t))),
    ]
    return body, {"hh": hh, "alpha": alpha, "ra": ra, "tau": tau, "d": d}


@cache
def panel_step(t: ir.Type) -> ir.Kernel:
    """Launch ``c`` (0 .. w) of the panel at column ``j0`` of each m x n matrix of ``a``: the
    reflector of column c - 1 from the partial sums of launch c - 1 (``part``), applied; the
    partial sums of column c (module docstring). ``groups`` workgroups per matrix take
    ``chunk`` rows each; ``v`` (m x kmax, zero-filled before the first panel) and ``beta``
    receive the reflectors."""
    lc.reset_names()
    a, v, beta, part = lc.rw_buffers("a:t v:t beta:t part:t", t)
    params = _params("batch", "groups", "chunk", "m", "n", "kmax", "j0", "w", "c")
    groups, chunk, m, n, kmax, j0, w, c = (p.var for p in params[1:])
    red = ir.Shared("red", t, WG)
    tot = ir.Shared("tot", t, SLOTS)
    xs = ir.Shared("xs", t, ROWS)  # column c - 1 of the pass's rows, before the update
    xc = ir.Shared("xc", t, ROWS)  # column c of the pass's rows, after it
    zero = Const(0.0, t)
    gi, b, g = ir.Var("gi", U32), ir.Var("b", U32), ir.Var("g", U32)
    rs, jl, mm = ir.Var("rs", U32), ir.Var("jl", U32), ir.Var("mm", U32)
    pc = ir.Var("pc", U32)
    lid = lc.lid()
    prev, more = c > 0, c < w
    body: list[Any] = [
        Let(gi, wgid()),
        Let(b, gi / groups),
        Let(g, gi % groups),
        If(b >= params[0].var, (ir.Return(),)),
        Let(rs, lid / JB),
        Let(jl, lid % JB),
        Let(mm, m - j0),
        Let(pc, ir.select(prev, c - 1, Const(0, U32))),
    ]
    amat = lc.Mat(a, b * m * n + j0 * n + j0, n)  # the panel's rows, from its corner
    vmat = lc.Mat(v, b * m * kmax + j0 * kmax + j0, kmax)

    # 1. the previous launch's partial sums, in one fixed order
    gg = lc.fresh("gg", U32)
    accs = [lc.fresh("acc", t) for _ in range(LANES)]
    slot_prev = b * 2 + (c + 1) % 2
    sub = WG // SLOTS

    def partial(k: int) -> ir.Expr:  # group gg + k sub's partial sum (zero past the last)
        at = ir.call("min", gg + k * sub, groups - 1)
        return ir.select(
            gg + k * sub < groups, part[(slot_prev * groups + at) * SLOTS + lid % SLOTS], zero
        )

    acc_all = accs[0]
    for x in accs[1:]:
        acc_all = acc_all + x
    total = red[lid]
    for k in range(1, sub):
        total = total + red[lid + k * SLOTS]
    body.append(
        If(
            prev,
            (
                *(Let(x, zero, mutable=True) for x in accs),
                For(
                    gg,
                    lid / SLOTS,
                    groups,
                    Const(sub * LANES, U32),
                    tuple(ir.Assign(x, x + partial(k)) for k, x in enumerate(accs)),
                ),
                ir.store(red, lid, acc_all),
                Barrier(),
                If(lid < SLOTS, (ir.store(tot, lid, total),)),
                Barrier(),
            ),  # fmt: skip
        )
    )
    refl, h = _reflector(t, tot[JB + pc], lc.re(tot[pc]))
    wj = lc.fresh("wj", t)
    w_value = lc.conj(h["tau"]) * (tot[JB + jl] + tot[jl] / lc.conj(h["d"]))
    body += [
        *refl,
        Let(wj, ir.select(h["hh"], w_value, zero)),
        If(
            land(prev, land(g.eq(0), lid.eq(0))),
            (ir.store(beta, b * kmax + j0 + pc, h["tau"]),),
        ),
    ]

    # 2. + 3. passes over this workgroup's rows
    dacc, racc = lc.fresh("dacc", t), lc.fresh("racc", t)
    lo, hi, i0 = lc.fresh("lo", U32), lc.fresh("hi", U32), lc.fresh("i0", U32)
    body += [
        Let(dacc, zero, mutable=True),
        Let(racc, zero, mutable=True),
        Let(lo, g * chunk),
        Let(hi, ir.call("min", mm, g * chunk + chunk)),
    ]
    rows = [lc.fresh("i", U32) for _ in range(UNROLL)]
    vals = [lc.fresh("val", t) for _ in range(UNROLL)]
    acts = [lc.fresh("act", ir.BOOL) for _ in range(UNROLL)]
    load: list[Any] = []
    keep: list[Any] = []
    update: list[Any] = []
    share: list[Any] = []
    accumulate: list[Any] = []
    for u, (i, val, act) in enumerate(zip(rows, vals, acts, strict=True)):
        slot = rs + u * RT
        load += [
            Let(i, i0 + slot),
            Let(act, land(i < hi, jl < w)),
            Let(val, zero, mutable=True),
            If(act, (ir.Assign(val, amat(i, jl)),)),
        ]
        keep.append(If(land(prev, jl.eq(pc)), (ir.store(xs, slot, val),)))
        vi = lc.fresh("vi", t)
        below = ir.select(land(i > pc, h["hh"]), xs[slot] / h["d"], zero)
        update.append(
            If(
                land(prev, land(act, i >= pc)),
                (
                    Let(vi, ir.select(i.eq(pc), Const(1.0, t), below)),
                    If(
                        jl > pc,
                        (ir.Assign(val, val - vi * wj), amat.set(i, jl, val)),
                        (
                            If(
                                jl.eq(pc),
                                (
                                    ir.Assign(val, ir.select(i.eq(pc), h["ra"], zero)),
                                    amat.set(i, jl, val),
                                    vmat.set(i, pc, vi),
                                ),
                            ),
                        ),
                    ),
                ),
            )
        )
        share.append(If(land(more, jl.eq(c)), (ir.store(xc, slot, val),)))
        xcv = lc.fresh("xcv", t)
        accumulate.append(
            If(
                land(more, land(act, jl >= c)),
                (
                    Let(xcv, xc[slot]),
                    If(i > c, (ir.Assign(dacc, dacc + lc.conj(xcv) * val),)),
                    If(i.eq(c), (ir.Assign(racc, racc + val),)),
                ),
            )
        )
    body.append(
        For(
            i0,
            lo,
            hi,
            Const(ROWS, U32),
            (*load, *keep, Barrier(), *update, *share, Barrier(), *accumulate),
        )
    )

    # partial sums of column c: this workgroup's rows, per panel column, in a fixed order
    base = ((b * 2 + c % 2) * groups + g) * SLOTS

    def column_sum(value: ir.Expr, offset: int) -> list[Any]:
        s = red[lid]
        for k in range(1, RT):
            s = s + red[lid + k * JB]
        return [
            ir.store(red, lid, value),
            Barrier(),
            If(lid < JB, (ir.store(part, base + offset + lid, s),)),
            Barrier(),
        ]

    body.append(If(more, (*column_sum(dacc, 0), *column_sum(racc, JB))))
    k = ir.Kernel(f"linalg_qr_panel_step_{t.name}_jb{JB}", (a, v, beta, part), tuple(params),
                  tuple(body), (WG, 1, 1), (red, tot, xs, xc))  # fmt: skip
    return ir.with_features(k)


@cache
def larft(t: ir.Type) -> ir.Kernel:
    """T (upper triangular, JB x JB; zero past w) of the panel's reflectors, Q_panel =
    H_0 ... H_{w-1} = I - V T V^H (LAPACK's larft, forward, columnwise), from ``gram`` = V^H V
    (w x w per matrix) and the taus in ``beta``; into ``tt`` and its conjugate transpose into
    ``th`` at ``panel`` (both npanel x JB x JB per matrix)."""
    lc.reset_names()
    gram, beta, tt, th = lc.rw_buffers("gram:t beta:t tt:t th:t", t)
    params = _params("batch", "w", "kmax", "j0", "panel", "npanel")
    w, kmax, j0, panel, npanel = (p.var for p in params[1:])
    tm = ir.Shared("tm", t, JB * JB)
    b, lid = lc.matrix(), lc.lid()
    i, k, acc, tau = lc.fresh("i", U32), lc.fresh("k", U32), lc.fresh("acc", t), lc.fresh("tau", t)
    zero = Const(0.0, t)
    column = (
        Let(tau, beta[b * kmax + j0 + i]),
        If(
            lid < i,
            (
                Let(acc, zero, mutable=True),
                For(
                    k,
                    lid,
                    i,
                    Const(1, U32),
                    (ir.Assign(acc, acc + tm[lid * JB + k] * gram[b * w * w + k * w + i]),),
                ),
                ir.store(tm, lid * JB + i, -tau * acc),
            ),  # fmt: skip
        ),
        If(lid.eq(i), (ir.store(tm, i * JB + i, tau),)),
        Barrier(),
    )
    out = (b * npanel + panel) * (JB * JB)

    def write(e: ir.Expr) -> list[Any]:
        r, cc = e / JB, e % JB
        return [ir.store(tt, out + e, tm[e]), ir.store(th, out + e, lc.conj(tm[cc * JB + r]))]

    body = [
        lc.spread(JB * JB, lambda e: [ir.store(tm, e, zero)], WG),
        Barrier(),
        For(i, Const(0, U32), w, Const(1, U32), column),
        lc.spread(JB * JB, write, WG),
    ]
    return lc.kernel(f"linalg_qr_larft_{t.name}", [gram, beta, tt, th], params, body, WG, [tm])


@cache
def scale_pow2(t: ir.Type, up: bool) -> ir.Kernel:
    """The first ``count`` elements of each matrix (``size`` elements apart) of ``x`` divided
    (``up``: multiplied) by the power of two near ``amax[b]`` (``linalg_common.pow2_near``):
    exact, so the factorization's sums of squares neither overflow nor vanish."""
    x = ir.Buffer("x", t, 0, "read_write")
    amax = ir.Buffer("amax", lc.real(t), 1)
    params = _params("batch", "tiles", "size", "count")
    size, count = params[2].var, params[3].var

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        p = lc.pow2_near(amax[b])
        at = b * size + e
        val = x[at]
        return [ir.store(x, at, lc.scale(val, p) if up else lc.div_real(val, p))]

    name = f"linalg_qr_scale_{'up' if up else 'down'}_{t.name}"
    return tiled(name, [x, amax], params, count, body)


__all__ = ["JB", "ROWS", "SLOTS", "larft", "panel_step", "scale_pow2"]
