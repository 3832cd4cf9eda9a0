"""Kernels of the general eigenproblem (``linalg.eig``, ``linalg.eigvals``) in complex arithmetic,
which serves real and complex input alike: what they share (complex arithmetic on parts,
Givens rotations, where a kernel's matrices live) and the Householder reduction to Hessenberg
form (``gehrd``); the QR iterations to the Schur form T = Z^H A Z are in ``linalg_eig_qr``,
the eigenvectors from T in ``linalg_eig_vectors``.

One workgroup per matrix of a stack, the matrix in workgroup memory when it fits (``side``:
the capacity's side, see ``side_for``), else in its storage buffer. Every phase is resumable,
so that a launch can stop after part of the work and the next go on (llvmpipe cuts an
invocation's loops short after ``linalg_common.LOOP_LIMIT`` iterations): ``gehrd`` reduces
columns [k0, k1). Its first launch scales the matrix into LAPACK geev's safe range.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import eig as linalg_eig
    >>> linalg_eig.gehrd(ir.C64, True).name
    'linalg_gehrd_c64_v1_s0_wg64'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from .. import ir
from ..ir import BOOL, U32, Assign, Barrier, Const, For, If, Let
from ..math import cmath
from ..math.mathlib import isfinite, land
from . import common as lc

re, im = cmath.re, cmath.im


# -- complex arithmetic on parts ----------------------------------------------------------------
def cx(r: Any, i: Any, t: ir.Type) -> ir.Expr:
    return cmath.make(r, i, t)


def conj(z: ir.Expr) -> ir.Expr:
    return cx(re(z), -im(z), z.type)


def rscale(z: ir.Expr, r: Any) -> ir.Expr:
    """Complex ``z`` times real ``r``."""
    return cx(re(z) * r, im(z) * r, z.type)


def abs1(z: ir.Expr) -> ir.Expr:
    """|re z| + |im z| (LAPACK's CABS1: cheap, within a factor sqrt(2) of |z|)."""
    return ir.call("abs", re(z)) + ir.call("abs", im(z))


def cabs(z: ir.Expr) -> ir.Expr:
    return ir.call("hypot", re(z), im(z))


def csqrt(z: ir.Expr) -> ir.Expr:
    return cmath.unary("sqrt", z)


def limits(f: ir.Type) -> tuple[float, float, float]:
    """(ulp, safe minimum, a bound that squares without overflow) of real type ``f``."""
    fi = np.finfo(ir.numpy_of(f))
    return float(fi.eps), float(fi.tiny), float(2.0 ** (fi.maxexp // 4))


def givens(f: ir.Expr, g: ir.Expr) -> tuple[list[Any], ir.Var, ir.Var, ir.Var]:
    """(statements, c, s, r): the rotation G = [[c, s], [-conj(s), c]] (c real) with
    G [f, g]^T = [r, 0]^T."""
    t = f.type
    p = t.part
    af, ag, nrm, c = (lc.fresh(n, p) for n in ("af", "ag", "nrm", "c"))
    ph, s, r = (lc.fresh(n, t) for n in ("ph", "s", "r"))
    gzero, fzero = lc.fresh("gz", BOOL), lc.fresh("fz", BOOL)
    body = [
        Let(af, cabs(f)),
        Let(ag, cabs(g)),
        Let(nrm, ir.call("hypot", af, ag)),
        Let(gzero, ag.eq(0.0)),
        Let(fzero, af.eq(0.0)),
        Let(c, ir.select(gzero, Const(1.0, p), ir.select(fzero, Const(0.0, p), af / nrm))),
        Let(ph, ir.select(fzero, cx(1.0, 0.0, t), cx(re(f) / af, im(f) / af, t))),
        Let(s, ir.select(gzero, cx(0.0, 0.0, t), rscale(ph * conj(g), Const(1.0, p) / nrm))),
        Let(r, ir.select(gzero, f, rscale(ph, nrm))),
    ]
    return body, c, s, r


# -- where a kernel's matrices live ----------------------------------------------------------------
@dataclass(frozen=True)
class Vec:
    """A vector at element ``base`` of a buffer or of workgroup memory."""

    buf: ir.Buffer | ir.Shared
    base: ir.Expr

    def __call__(self, i: Any) -> ir.Load:
        return self.buf[self.base + ir.lift(i, U32)]

    def set(self, i: Any, v: Any) -> ir.Store:
        return ir.store(self.buf, self.base + ir.lift(i, U32), v)


def side_for(n: int, t: ir.Type, mats: int, wg: int) -> int:
    """The side of the workgroup-memory capacity for ``mats`` n x n matrices and a vector of
    ``t`` (n rounded up to a multiple of 8), or 0 when they do not fit."""
    s = max(8, -(-n // 8) * 8)
    used = (mats * s * s + s) * t.itemsize + wg * t.part.itemsize + 16
    return s if used <= lc.SHARED_BYTES else 0


@dataclass
class Space:
    """A kernel's matrices A (and Z) and scratch vector: in buffers or in workgroup memory
    (``shared``: A staged in by ``load``, Z by ``zload``, both out by ``save``)."""

    am: lc.Mat
    zm: lc.Mat | None
    vec: Vec
    shared: list[ir.Shared]
    load: list[Any]
    zload: list[Any]
    save: list[Any]


def space(t: ir.Type, side: int, a: ir.Buffer, z: ir.Buffer | None, vec: ir.Buffer,
          n: ir.Expr, wg: int) -> Space:  # fmt: skip
    b = lc.matrix()
    base = b * n * n
    am = lc.Mat(a, base, n)
    zm = lc.Mat(z, base, n) if z is not None else None
    if not side:
        return Space(am, zm, Vec(vec, b * n), [], [], [], [])
    mats = 2 if z is not None else 1
    sh = ir.Shared("mat", t, mats * side * side + side)
    zero = Const(0, U32)
    load = lc.stage(sh, zero, a, base, n * n, wg)
    save = lc.stage(a, base, sh, zero, n * n, wg)
    zs, zload = None, []
    if z is not None:
        zs = lc.Mat(sh, Const(side * side, U32), n)
        zload = lc.stage(sh, zs.base, z, base, n * n, wg)
        save = save + lc.stage(z, base, sh, zs.base, n * n, wg)
    vv = Vec(sh, Const(mats * side * side, U32))
    return Space(lc.Mat(sh, zero, n), zs, vv, [sh], load, zload, save)


def u32_params(*names: str) -> list[ir.Param]:
    return [ir.Param(n, U32) for n in names]


def identity(zm: lc.Mat, n: ir.Expr, wg: int) -> list[Any]:
    t = zm.buf.elem
    one, zero = cx(1.0, 0.0, t), cx(0.0, 0.0, t)
    return [lc.spread2(0, n, 0, n, lambda i, j: [zm.set(i, j, ir.select(i.eq(j), one, zero))], wg)]


# -- Hessenberg reduction ----------------------------------------------------------------------
def _reflect_rows(mat: lc.Mat, row: ir.Expr, vv: Vec, beta: ir.Expr, k: ir.Expr,
                  n: ir.Expr) -> list[Any]:  # fmt: skip
    """Row ``row`` of ``mat`` (columns k+1..n-1) times H = I - beta v v^H."""
    t = mat.buf.elem
    w, j = lc.fresh("w", t), lc.fresh("j", U32)
    return [
        Let(w, cx(0.0, 0.0, t), mutable=True),
        For(j, k + 1, n, Const(1, U32), (Assign(w, w + mat(row, j) * vv(j)),)),
        Assign(w, rscale(w, beta)),
        For(j, k + 1, n, Const(1, U32), (mat.set(row, j, mat(row, j) - w * conj(vv(j))),)),
    ]


def wg_max(sh: ir.Shared, value: ir.Expr, wg: int) -> tuple[list[Any], ir.Var]:
    """Like ``linalg_common.wg_sum``, the largest ``value`` of the workgroup (NaN is lost)."""
    body: list[Any] = [ir.store(sh, lc.lid(), value), Barrier()]
    s = wg // 2
    while s >= 1:
        other = sh[lc.lid() + s]
        body += [If(land(lc.lid() < s, other > sh[lc.lid()]), (ir.store(sh, lc.lid(), other),)),
                 Barrier()]  # fmt: skip
        s //= 2
    out = lc.fresh("max", value.type)
    return [*body, Let(out, sh[0]), Barrier()], out


def _scale(am: lc.Mat, scale: ir.Buffer, n: ir.Expr, red: ir.Shared, wg: int) -> list[Any]:
    """A scaled into [smlnum, bignum] when its largest entry is outside (zgeev: smlnum =
    sqrt(safmin) / ulp), the factor into ``scale``: squares then neither overflow nor lose
    the small entries, and the back substitution's perturbations stay relative. A matrix
    with an infinite or NaN entry gets the factor -1 (``hqr`` fails it at once)."""
    t = am.buf.elem
    f = t.part
    ulp, safmin, _ = limits(f)
    small = safmin**0.5 / ulp
    part, e, fac = lc.fresh("part", f), lc.fresh("e", U32), lc.fresh("fac", f)
    el = lc.fresh("el", t)
    found, amax = wg_max(red, part, wg)
    up = land(amax > 0.0, amax < small)
    finite = land(isfinite(re(el)), isfinite(im(el)))  # bit tests: WGSL may assume no NaN
    return [
        Let(part, Const(0.0, f), mutable=True),
        For(e, lc.lid(), n * n, Const(wg, U32), (
            Let(el, am(e / n, e % n)),
            Assign(part, ir.call("max", part, ir.select(finite, cabs(el),
                                                        Const(float("inf"), f)))),
        )),
        *found,
        Let(fac, ir.select(amax > 1.0 / small, Const(1.0 / small, f) / amax,
                           ir.select(up, Const(small, f) / amax, Const(1.0, f))), mutable=True),
        Assign(fac, ir.select(isfinite(amax), fac, Const(-1.0, f))),
        If(lc.lid().eq(0), (ir.store(scale, lc.matrix(), fac),)),
        lc.spread(n * n, lambda q: [am.set(q / n, q % n, rscale(am(q / n, q % n), fac))], wg),
        lc.sync(),
    ]  # fmt: skip


@cache
def gehrd(t: ir.Type, vectors: bool, wg: int = lc.WG, side: int = 0) -> ir.Kernel:
    """Columns [k0, k1) of the Householder reduction of each n x n matrix of ``a`` to upper
    Hessenberg form, in place (k1 <= n - 2); with ``vectors`` Z (``z``) accumulates the
    reflectors, starting from the identity when k0 is 0. ``vec``: n scratch per matrix.
    The launch with k0 = 0 first scales A into [smlnum, bignum] as zgeev does (the factor
    into ``scale``, for ``hqr`` to divide the eigenvalues by)."""
    lc.reset_names()
    bufs = [*lc.rw_buffers("a:t z:t vec:t", t), ir.Buffer("scale", t.part, 3, "read_write")]
    a, z, vec, scale = bufs
    params = u32_params("batch", "n", "k0", "k1")
    n, k0, k1 = (p.var for p in params[1:])
    sp = space(t, side, a, z if vectors else None, vec, n, wg)
    am, zm, vv = sp.am, sp.zm, sp.vec
    f = t.part
    red = ir.Shared("red", f, wg)
    k, i = ir.Var("k", U32), lc.fresh("i", U32)
    e, part = lc.fresh("e", t), lc.fresh("part", f)
    x0, ph, alpha, v0 = (lc.fresh(s, t) for s in ("x0", "ph", "alpha", "v0"))
    ax0, nrm, beta = (lc.fresh(s, f) for s in ("ax0", "nrm", "beta"))
    hh = lc.fresh("hh", BOOL)
    summed, sigma = lc.wg_sum(red, part, wg)
    czero = cx(0.0, 0.0, t)

    def column(r: ir.Expr) -> list[Any]:  # v into the scratch, column k set to (alpha, 0...)
        ii, el = lc.fresh("ii", U32), lc.fresh("el", t)
        first = r.eq(0)
        return [
            Let(ii, k + 1 + r),
            Let(el, am(ii, k)),
            vv.set(ii, ir.select(first, v0, el)),
            am.set(ii, k, ir.select(first, ir.select(hh, alpha, x0), czero)),
        ]

    def left(c: ir.Expr) -> list[Any]:  # column j of A times H from the left
        j, w, r = lc.fresh("j", U32), lc.fresh("w", t), lc.fresh("r", U32)
        return [
            Let(j, k + 1 + c),
            Let(w, czero, mutable=True),
            For(r, k + 1, n, Const(1, U32), (Assign(w, w + conj(vv(r)) * am(r, j)),)),
            Assign(w, rscale(w, beta)),
            For(r, k + 1, n, Const(1, U32), (am.set(r, j, am(r, j) - vv(r) * w),)),
        ]

    def right(r: ir.Expr) -> list[Any]:  # rows of A (then of Z) times H from the right
        rows = _reflect_rows(am, r, vv, beta, k, n)
        if zm is None:
            return rows
        return [If(r < n, tuple(rows), tuple(_reflect_rows(zm, r - n, vv, beta, k, n)))]

    step = [
        Let(x0, am(k + 1, k)),
        Let(part, Const(0.0, f), mutable=True),
        For(i, k + 2 + lc.lid(), n, Const(wg, U32),
            (Let(e, am(i, k)), Assign(part, part + re(e) * re(e) + im(e) * im(e)))),
        *summed,
        Let(ax0, cabs(x0)),
        Let(nrm, ir.call("sqrt", ax0 * ax0 + sigma)),
        Let(hh, sigma > 0.0),  # else H = I (entries whose squares underflow are dropped)
        Let(ph, ir.select(ax0 > 0.0, cx(re(x0) / ax0, im(x0) / ax0, t), cx(1.0, 0.0, t))),
        Let(alpha, rscale(ph, -nrm)),
        Let(v0, rscale(ph, ax0 + nrm)),
        Let(beta, ir.select(hh, Const(2.0, f) / ((ax0 + nrm) * (ax0 + nrm) + sigma),
                            Const(0.0, f))),
        lc.spread(n - k - 1, column, wg),
        lc.sync(),
        lc.spread(n - k - 1, left, wg),
        lc.sync(),
        lc.spread(n * 2 if vectors else n, right, wg),
        lc.sync(),
    ]  # fmt: skip
    body: list[Any] = [*sp.load, If(k0.eq(0), tuple(_scale(am, scale, n, red, wg)))]
    if vectors:
        start = identity(zm, n, wg) + [lc.sync()]  # or Z as the last launch left it
        body.append(If(k0.eq(0), tuple(start), tuple(sp.zload)))
    body.append(For(k, k0, k1, Const(1, U32), tuple(step)))
    body += sp.save
    name = f"linalg_gehrd_{t.name}_v{int(vectors)}_s{side}_wg{wg}"
    return lc.kernel(name, bufs, params, body, wg, [red, *sp.shared])


# -- loop counts (llvmpipe's cap) ------------------------------------------------------------------
def spread_loops(a: int, wg: int) -> int:
    """Loop iterations of one invocation in ``linalg_common.spread`` over ``a`` (one spare)."""
    return -(-max(a, 0) // wg) + 1


def stage_loops(n: int, mats: int, wg: int) -> int:
    """Loop iterations of staging ``mats`` matrices in and out, Z's identity, the scaling."""
    return (3 * mats + 2) * spread_loops(n * n, wg)


def gehrd_loops(n: int, k: int, vectors: bool, wg: int) -> int:
    """An upper bound of one invocation's loop iterations in step k of ``gehrd``."""
    m = n - k - 1
    rows = 2 * n if vectors else n
    return 2 + spread_loops(m, wg) * (2 * m + 4) + spread_loops(rows, wg) * (2 * m + 2)


__all__ = ["Space", "Vec", "abs1", "cabs", "conj", "csqrt", "cx", "gehrd", "gehrd_loops",
           "givens", "identity", "im", "limits", "re", "rscale", "side_for", "space",
           "spread_loops", "stage_loops", "u32_params", "wg_max"]  # fmt: skip
