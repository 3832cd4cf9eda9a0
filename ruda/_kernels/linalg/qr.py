"""Householder QR kernels: ``geqrf`` (R in place, reflectors aside) and ``orgqr`` (Q from them).

One workgroup per m x n matrix of a stack. Step k of ``geqrf`` forms the reflector
H_k = I - beta v v^H (v_k = 1) with H_k^H x = alpha e_k for column k's x (alpha real, with the
opposite sign of the diagonal entry's real part, as LAPACK's dlarfg/zlarfg: R's diagonal
matches NumPy's), stores v in ``v`` (m x min(m, n)) and beta (LAPACK's tau, complex for complex
types) in ``beta``, and applies H_k^H to the trailing columns, each invocation owning whole
columns (so no barrier is needed inside the update). ``orgqr`` accumulates
Q = H_0 H_1 ... H_{k-1} applied to the first ``qc`` columns of the identity, backwards.
``sign_columns`` multiplies Q's first columns by the signs of R's diagonal (the SVD's completion
of U uses it).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import qr as linalg_qr
    >>> linalg_qr.geqrf(ir.F64).name
    'linalg_geqrf_f64_wg64'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import U32, Const, If, Let
from ..math.mathlib import land
from . import common as lc


def _params(*names: str) -> list[ir.Param]:
    return [ir.Param(n, U32) for n in names]


def panel_geqrf(
    am: lc.Mat,
    vm: lc.Mat,
    beta: ir.Buffer,
    b: ir.Expr,
    m: ir.Expr,
    k: ir.Expr,
    kmax: ir.Expr,
    red: ir.Shared,
    wg: int,
) -> list[Any]:
    """Step k's reflector, as LAPACK's dlarfg/zlarfg: H = I - tau v v^H with v(k) = 1 and
    H^H x = alpha e_k for column k's x (alpha real), v into column k of ``vm``, tau into
    ``beta``, column k of ``am`` set to (alpha, 0, ...). The norm is taken of x scaled by its
    largest part, so that neither huge nor tiny entries overflow or vanish in the squares."""
    t = am.buf.elem
    f = lc.real(t)
    i, part, top = lc.fresh("i", U32), lc.fresh("part", f), lc.fresh("top", f)
    x0, d, bt = (lc.fresh(s, t) for s in ("x0", "d", "bt"))
    amax, sc, norm, alpha, xr = (lc.fresh(s, f) for s in ("amax", "sc", "norm", "alpha", "xr"))
    hh = lc.fresh("hh", ir.BOOL)
    zero = Const(0.0, t)
    maxed, amax_v = lc.wg_sum(red, top, wg, "max")
    summed, sigma = lc.wg_sum(red, part, wg)
    # else H = I (LAPACK: tau = 0) and R's entry is x0 (real then, for a complex x0)
    nonzero, tau = lc.householder_tau(t, x0, xr, alpha, sigma)
    ra = lc.lift(alpha, t)

    def reflector(r: ir.Expr) -> list[Any]:
        below = ir.select(hh, am(k + r, k) / d, zero)  # x / (x0 - alpha); zero below for H = I
        return [vm.set(k + r, k, ir.select(r.eq(0), Const(1.0, t), below))]

    return [
        Let(top, Const(0.0, f), mutable=True),
        ir.For(
            i,
            k + lc.lid(),
            m,
            Const(wg, U32),
            (ir.Assign(top, ir.call("max", top, lc.cabsmax(am(i, k)))),),
        ),
        *maxed,
        Let(amax, amax_v),
        Let(sc, ir.select(amax > 0.0, amax, Const(1.0, f))),
        Let(part, Const(0.0, f), mutable=True),
        ir.For(
            i,
            k + 1 + lc.lid(),
            m,
            Const(wg, U32),
            (ir.Assign(part, part + lc.absq(lc.div_real(am(i, k), sc))),),
        ),
        *summed,
        Let(x0, am(k, k)),
        Let(xr, lc.re(x0)),
        Let(norm, sc * ir.call("sqrt", lc.absq(lc.div_real(x0, sc)) + sigma)),
        Let(hh, nonzero),
        Let(alpha, ir.select(hh, ir.select(xr >= 0.0, -norm, norm), xr)),
        Let(d, x0 - ra),
        Let(bt, ir.select(hh, tau, zero)),
        lc.spread(m - k, reflector, wg),
        If(lc.lid().eq(0), (ir.store(beta, b * kmax + k, bt),)),
        lc.sync(),
        lc.spread(m - k, lambda r: [am.set(k + r, k, ir.select(r.eq(0), ra, zero))], wg),
    ]


def reflect_column(
    vm: lc.Mat,
    xm: lc.Mat,
    m: ir.Expr,
    k: ir.Expr,
    j: ir.Expr,
    bt: ir.Expr,
    adjoint: bool = False,
) -> list[Any]:
    """Column j of ``xm`` (rows k..m) times H_k = I - bt v v^H (``adjoint``: times H_k^H,
    conj(bt) in place of bt), v in column k of ``vm``."""
    t = xm.buf.elem
    w, r = lc.fresh("w", t), lc.fresh("r", U32)
    return [
        Let(w, Const(0.0, t), mutable=True),
        ir.For(r, k, m, Const(1, U32), (ir.Assign(w, w + lc.conj(vm(r, k)) * xm(r, j)),)),
        ir.Assign(w, w * (lc.conj(bt) if adjoint else bt)),
        ir.For(r, k, m, Const(1, U32), (xm.set(r, j, xm(r, j) - vm(r, k) * w),)),
    ]


@cache
def geqrf(t: ir.Type, wg: int = lc.WG) -> ir.Kernel:
    """R of each m x n matrix of ``a`` in place (zeros below the diagonal); reflectors in
    ``v`` (m x min(m, n) per matrix) and ``beta`` (min(m, n) per matrix)."""
    lc.reset_names()
    a = ir.Buffer("a", t, 0, "read_write")
    v = ir.Buffer("v", t, 1, "read_write")
    beta = ir.Buffer("beta", t, 2, "read_write")
    params = _params("batch", "m", "n")
    b, m, n = lc.matrix(), params[1].var, params[2].var
    kmax, k = ir.Var("kmax", U32), ir.Var("k", U32)
    am, vm = lc.Mat(a, b * m * n, n), lc.Mat(v, b * m * kmax, kmax)
    red = ir.Shared("red", lc.real(t), wg)
    bt = beta[b * kmax + k]
    step = [
        *panel_geqrf(am, vm, beta, b, m, k, kmax, red, wg),
        lc.sync(),
        lc.spread(n - k - 1, lambda j: reflect_column(vm, am, m, k, k + 1 + j, bt, True), wg),
        lc.sync(),
    ]
    body = [
        Let(kmax, ir.call("min", m, n)),
        ir.For(k, Const(0, U32), kmax, Const(1, U32), tuple(step)),
    ]
    return lc.kernel(f"linalg_geqrf_{t.name}_wg{wg}", [a, v, beta], params, body, wg, [red])


@cache
def orgqr(t: ir.Type, wg: int = lc.WG) -> ir.Kernel:
    """Q (m x qc per matrix, qc = min(m, n) or m) into ``q`` from ``geqrf``'s reflectors."""
    lc.reset_names()
    v = ir.Buffer("v", t, 0)
    beta = ir.Buffer("beta", t, 1)
    q = ir.Buffer("q", t, 2, "read_write")
    params = _params("batch", "m", "qc", "kmax")
    b, m, qc, kmax = lc.matrix(), params[1].var, params[2].var, params[3].var
    vm, qm = lc.Mat(v, b * m * kmax, kmax), lc.Mat(q, b * m * qc, qc)
    kk, k = ir.Var("kk", U32), ir.Var("k", U32)
    bt = beta[b * kmax + k]
    one, zero = Const(1.0, t), Const(0.0, t)
    back = (
        Let(k, kmax - 1 - kk),
        lc.spread(qc, lambda j: reflect_column(vm, qm, m, k, j, bt), wg),
        lc.sync(),
    )
    body = [
        lc.spread2(0, m, 0, qc, lambda r, c: [qm.set(r, c, ir.select(r.eq(c), one, zero))], wg),
        lc.sync(),
        ir.For(kk, Const(0, U32), kmax, Const(1, U32), back),
    ]
    return lc.kernel(f"linalg_orgqr_{t.name}_wg{wg}", [v, beta, q], params, body, wg, [])


@cache
def sign_columns(t: ir.Type, wg: int = lc.WG) -> ir.Kernel:
    """q[:, j] *= sign(r[j, j]) for j < n (m x qc ``q``, m x n ``r`` per matrix; sign(0) = 1;
    ``geqrf``'s diagonal is real for complex types too)."""
    lc.reset_names()
    q = ir.Buffer("q", t, 0, "read_write")
    r = ir.Buffer("r", t, 1)
    params = _params("batch", "m", "n", "qc")
    b, m, n, qc = lc.matrix(), params[1].var, params[2].var, params[3].var
    qm, rm = lc.Mat(q, b * m * qc, qc), lc.Mat(r, b * m * n, n)

    def flip(i: ir.Expr, j: ir.Expr) -> list[Any]:
        return [If(land(j < n, lc.re(rm(j, j)) < 0.0), (qm.set(i, j, -qm(i, j)),))]

    body = [lc.spread2(0, m, 0, ir.call("min", qc, n), flip, wg)]
    return lc.kernel(f"linalg_sign_columns_{t.name}_wg{wg}", [q, r], params, body, wg, [])
