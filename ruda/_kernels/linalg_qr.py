"""Householder QR kernels: ``geqrf`` (R in place, reflectors aside) and ``orgqr`` (Q from them).

One workgroup per m x n matrix of a stack. Step k of ``geqrf`` forms the reflector
H_k = I - beta v v^T that maps column k below the diagonal onto ``alpha e_k`` (alpha with the
opposite sign of the diagonal entry, as LAPACK's dlarfg: R's diagonal signs match NumPy's),
stores v in ``v`` (m x min(m, n)) and beta in ``beta``, and applies H_k to the trailing columns,
each invocation owning whole columns (so no barrier is needed inside the update). ``orgqr``
accumulates Q = H_0 H_1 ... H_{k-1} applied to the first ``qc`` columns of the identity,
backwards. ``sign_columns`` multiplies Q's first columns by the signs of R's diagonal (the
SVD's completion of U uses it).

    >>> from ruda._kernels import ir, linalg_qr
    >>> linalg_qr.geqrf(ir.F64).name
    'linalg_geqrf_f64_wg64'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from . import ir
from . import linalg_common as lc
from .ir import U32, Const, If, Let
from .mathlib import land


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
    """Step k's reflector: v into column k of ``vm``, beta into ``beta``, column k of ``am``
    set to (alpha, 0, ...)."""
    t = am.buf.elem
    i, part = lc.fresh("i", U32), lc.fresh("part", t)
    summed, sigma = lc.wg_sum(red, part, wg)
    x0, norm, alpha, v0, bt = (lc.fresh(s, t) for s in ("x0", "norm", "alpha", "v0", "bt"))
    hh = lc.fresh("hh", ir.BOOL)
    zero = Const(0.0, t)
    return [
        Let(part, zero, mutable=True),
        ir.For(
            i, k + 1 + lc.lid(), m, Const(wg, U32), (ir.Assign(part, part + am(i, k) * am(i, k)),)
        ),
        *summed,
        Let(x0, am(k, k)),
        Let(norm, ir.call("sqrt", x0 * x0 + sigma)),
        Let(hh, sigma > 0.0),  # else H = I (LAPACK: tau = 0) and R's entry is x0
        Let(alpha, ir.select(hh, ir.select(x0 >= 0.0, -norm, norm), x0)),
        Let(v0, x0 - alpha),
        Let(bt, ir.select(hh, Const(2.0, t) / (v0 * v0 + sigma), zero)),
        lc.spread(m - k, lambda r: [vm.set(k + r, k, ir.select(r.eq(0), v0, am(k + r, k)))], wg),
        If(lc.lid().eq(0), (ir.store(beta, b * kmax + k, bt),)),
        lc.sync(),
        lc.spread(m - k, lambda r: [am.set(k + r, k, ir.select(r.eq(0), alpha, zero))], wg),
    ]


def reflect_column(
    vm: lc.Mat, xm: lc.Mat, m: ir.Expr, k: ir.Expr, j: ir.Expr, bt: ir.Expr
) -> list[Any]:
    """Column j of ``xm`` (rows k..m) times H_k = I - bt v v^T, v in column k of ``vm``."""
    t = xm.buf.elem
    w, r = lc.fresh("w", t), lc.fresh("r", U32)
    return [
        Let(w, Const(0.0, t), mutable=True),
        ir.For(r, k, m, Const(1, U32), (ir.Assign(w, w + vm(r, k) * xm(r, j)),)),
        ir.Assign(w, w * bt),
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
    red = ir.Shared("red", t, wg)
    bt = beta[b * kmax + k]
    step = [
        *panel_geqrf(am, vm, beta, b, m, k, kmax, red, wg),
        lc.sync(),
        lc.spread(n - k - 1, lambda j: reflect_column(vm, am, m, k, k + 1 + j, bt), wg),
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
    """q[:, j] *= sign(r[j, j]) for j < n (m x qc ``q``, m x n ``r`` per matrix; sign(0) = 1)."""
    lc.reset_names()
    q = ir.Buffer("q", t, 0, "read_write")
    r = ir.Buffer("r", t, 1)
    params = _params("batch", "m", "n", "qc")
    b, m, n, qc = lc.matrix(), params[1].var, params[2].var, params[3].var
    qm, rm = lc.Mat(q, b * m * qc, qc), lc.Mat(r, b * m * n, n)

    def flip(i: ir.Expr, j: ir.Expr) -> list[Any]:
        return [If(land(j < n, rm(j, j) < 0.0), (qm.set(i, j, -qm(i, j)),))]

    body = [lc.spread2(0, m, 0, ir.call("min", qc, n), flip, wg)]
    return lc.kernel(f"linalg_sign_columns_{t.name}_wg{wg}", [q, r], params, body, wg, [])
