"""Eigenvectors from the Schur form T = Z^H A Z (``linalg_eig_qr.hqr``): back substitution on T
(``trevc``), the back-transformation V = Z X (``backtransform``) and LAPACK geev's
normalisation (``normalize``); and ``unpack_real``, which turns the real eigenvector matrix of
LAPACK's packed convention (cuSOLVER's Xgeev on real input) into complex columns.

``trevc`` solves (T - T[j, j] I) x = 0 with x[j] = 1 upwards for every column j at once, one
invocation per column, as LAPACK's ztrevc: a pivot smaller than ``ulp |T[j, j]|`` is raised to
it (repeated eigenvalues), and a column is scaled down rather than overflow (its scale kept in
``vec[j]``, its x[j]). X, upper triangular, is stored transposed in T's strict lower triangle,
which the Schur form leaves zero; rows [i0, i1) per launch (resumable like the other phases).
Each column of V is then scaled to unit 2-norm with its largest entry real and positive
(zgeev's choice of the free phase).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import eig_vectors as linalg_eig_vectors
    >>> linalg_eig_vectors.trevc(ir.C128).name
    'linalg_trevc_c128_s0_wg64'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import U32, Assign, Const, For, If, Let
from . import common as lc
from . import steps as ks
from .eig import abs1, cabs, conj, cx, im, limits, re, rscale, space, u32_params


@cache
def trevc(t: ir.Type, wg: int = lc.WG, side: int = 0) -> ir.Kernel:
    """Rows [i0, i1) (descending) of the eigenvectors X of each upper triangular n x n ``a``
    (into its strict lower triangle, transposed; x[j] in ``vec``, set to 1 when i1 is n)."""
    lc.reset_names()
    bufs = lc.rw_buffers("a:t vec:t", t)
    a, vec = bufs
    params = u32_params("batch", "n", "i0", "i1")
    n, i0, i1 = (p.var for p in params[1:])
    b = lc.matrix()
    sp = space(t, side, a, None, vec, n, wg)
    am = sp.am
    f = t.part
    ulp, safmin, big = limits(f)
    smlnum = safmin * (1.0 / ulp)

    def xd(j: ir.Expr) -> ir.Load:
        return vec[b * n + j]

    def column(j: ir.Expr) -> list[Any]:
        lam, s, d0, d = (lc.fresh(nm, t) for nm in ("lam", "s", "d0", "d"))
        smin, as_, ad, fac = (lc.fresh(nm, f) for nm in ("smin", "as", "ad", "fac"))
        ii, i, kk = lc.fresh("ii", U32), lc.fresh("i", U32), lc.fresh("kk", U32)
        rescale = (
            Let(fac, (ad * big) / as_ * 0.5),
            For(kk, i + 1, j, Const(1, U32), (am.set(j, kk, rscale(am(j, kk), fac)),)),
            ir.store(vec, b * n + j, rscale(xd(j), fac)),
            Assign(s, rscale(s, fac)),
        )
        row = (
            Let(s, am(i, j) * xd(j), mutable=True),
            For(kk, i + 1, j, Const(1, U32), (Assign(s, s + am(i, kk) * am(j, kk)),)),
            Let(d0, am(i, i) - lam),
            Let(d, ir.select(abs1(d0) < smin, cx(smin, 0.0, t), d0)),
            Let(as_, abs1(s)),
            Let(ad, abs1(d)),
            If(as_ > ad * big, rescale),  # x[i] would pass ``big``: scale the column down
            am.set(j, i, -(s / d)),
        )
        return [
            Let(lam, am(j, j)),
            Let(smin, ir.call("max", abs1(lam) * ulp, Const(smlnum, f))),
            For(ii, Const(0, U32), i1 - i0, Const(1, U32),
                (Let(i, i1 - 1 - ii), If(i < j, row))),
        ]  # fmt: skip

    one = cx(1.0, 0.0, t)
    body: list[Any] = [
        *sp.load,
        If(i1.eq(n), (lc.spread(n, lambda j: [ir.store(vec, b * n + j, one)], wg), lc.sync())),
        lc.spread(n, column, wg),
        lc.sync(),
        *sp.save,
    ]
    name = f"linalg_trevc_{t.name}_s{side}_wg{wg}"
    return lc.kernel(name, bufs, params, body, wg, sp.shared)


@cache
def backtransform(t: ir.Type) -> ir.Kernel:
    """V = Z X for each matrix: ``v[i, j] = sum_k z[i, k] x[k, j]`` with X from ``trevc``
    (``tiles`` workgroups per matrix, an element each)."""
    bufs = [ir.Buffer("z", t, 0), ir.Buffer("a", t, 1), ir.Buffer("vec", t, 2),
            ir.Buffer("v", t, 3, "read_write")]  # fmt: skip
    z, a, vec, v = bufs
    params = u32_params("batch", "tiles", "n")
    n = params[2].var

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        i, j, k = lc.fresh("i", U32), lc.fresh("j", U32), lc.fresh("k", U32)
        acc = lc.fresh("acc", t)
        zm, am = lc.Mat(z, b * n * n, n), lc.Mat(a, b * n * n, n)
        return [
            Let(i, e / n),
            Let(j, e % n),
            Let(acc, zm(i, j) * vec[b * n + j], mutable=True),
            For(k, Const(0, U32), j, Const(1, U32), (Assign(acc, acc + zm(i, k) * am(j, k)),)),
            ir.store(v, b * n * n + e, acc),
        ]

    return ks.tiled(f"linalg_eig_backtransform_{t.name}", bufs, params, n * n, body)


@cache
def normalize(t: ir.Type) -> ir.Kernel:
    """Each column of each n x n ``v`` scaled to unit 2-norm, its largest entry (the first
    such) real and positive, as LAPACK's zgeev (``tiles`` workgroups per matrix, a column
    each)."""
    bufs = [ir.Buffer("v", t, 0, "read_write")]
    (v,) = bufs
    params = u32_params("batch", "tiles", "n")
    n = params[2].var
    f = t.part

    def body(b: ir.Expr, j: ir.Expr) -> list[Any]:
        vm = lc.Mat(v, b * n * n, n)
        i, best = lc.fresh("i", U32), lc.fresh("best", U32)
        m, amax, sq, nrm, q = (lc.fresh(s, f) for s in ("m", "amax", "sq", "nrm", "q"))
        e, vb, fac = lc.fresh("e", t), lc.fresh("vb", t), lc.fresh("fac", t)
        one = Const(1.0, f)
        return [
            Let(amax, Const(0.0, f), mutable=True),
            Let(best, Const(0, U32), mutable=True),
            For(i, Const(0, U32), n, Const(1, U32), (
                Let(m, cabs(vm(i, j))),
                If(m > amax, (Assign(amax, m), Assign(best, i))),
            )),
            Let(sq, Const(0.0, f), mutable=True),
            Let(q, one / ir.select(amax > 0.0, amax, one)),
            For(i, Const(0, U32), n, Const(1, U32), (
                Let(e, rscale(vm(i, j), q)),
                Assign(sq, sq + re(e) * re(e) + im(e) * im(e)),
            )),
            Let(nrm, ir.call("sqrt", sq)),
            Let(vb, rscale(conj(vm(best, j)), q)),  # conj(v_best) / |v_best|
            Let(fac, rscale(vb, one / ir.select(nrm > 0.0, nrm, one) * q)),
            For(i, Const(0, U32), n, Const(1, U32), (vm.set(i, j, vm(i, j) * fac),)),
            vm.set(best, j, cx(re(vm(best, j)), 0.0, t)),
        ]  # fmt: skip

    return ks.tiled(f"linalg_eig_normalize_{t.name}", bufs, params, n, body)


@cache
def unpack_real(t: ir.Type) -> ir.Kernel:
    """Complex eigenvectors (row-major ``out``, n x n per matrix) from LAPACK's real packed
    form (``vr``, column-major): a conjugate pair's first column (positive imaginary part of
    ``w``) holds the real part, the next the imaginary part."""
    f = t.part
    bufs = [ir.Buffer("vr", f, 0), ir.Buffer("w", t, 1), ir.Buffer("out", t, 2, "read_write")]
    vr, w, out = bufs
    params = u32_params("batch", "tiles", "n")
    n = params[2].var

    def body(b: ir.Expr, e: ir.Expr) -> list[Any]:
        i, j, base = lc.fresh("i", U32), lc.fresh("j", U32), lc.fresh("base", U32)
        wi = lc.fresh("wi", f)
        pos, neg = wi > 0.0, wi < 0.0
        col = lambda c: vr[base + c * n + i]  # noqa: E731
        return [
            Let(i, e / n),
            Let(j, e % n),
            Let(base, b * n * n),
            Let(wi, im(w[b * n + j])),
            ir.store(out, b * n * n + e, cx(
                ir.select(neg, col(ir.select(j > 0, j - 1, j)), col(j)),
                ir.select(pos, col(ir.call("min", j + 1, n - 1)),
                          ir.select(neg, -col(j), Const(0.0, f))), t)),
        ]  # fmt: skip

    return ks.tiled(f"linalg_eig_unpack_real_{t.name}", bufs, params, n * n, body)


def trevc_loops(n: int, rows: int, wg: int) -> int:
    """An upper bound of one invocation's loop iterations in a ``trevc`` launch of ``rows``."""
    return (-(-n // wg) + 1) * (1 + rows * (2 * n + 3))


__all__ = ["backtransform", "normalize", "trevc", "trevc_loops", "unpack_real"]
