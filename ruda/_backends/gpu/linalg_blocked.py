"""Blocked Householder QR on the GPU backends (large matrices): LAPACK's geqrf with compact-WY
panels, and Q applied to a matrix (ormqr; orgqr applies it to the identity).

Each panel of ``linalg_qr_panel.JB`` columns is factored by ``panel_step`` launches spread over
the rows (one launch per column, many workgroups per matrix); ``larft`` builds the panel's T
from V^H V; the trailing columns are updated by three matrix products through the backend's
matmul (ruda's tiled kernel on wgpu): A2 -= V (T^H (V^H A2)). Q X is the same products per
panel, last panel first: X -= V (T (V^H X)). Everything is queued on the device; nothing is
read back. The matrix is first divided by a power of two near its largest entry (the sums of
squares of ``panel_step`` are not scaled per column), and R multiplied back, both exactly.

    >>> from ruda._backends.gpu.linalg_blocked import Reflectors
    >>> Reflectors.__name__
    'Reflectors'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..._dtypes import kind_of
from ..._kernels import ir
from ..._kernels.linalg import qr_panel as kp
from ..._kernels.linalg import steps as ks
from ..._ops import OPS

MAX_GROUPS = 256  # workgroups per matrix of a panel step (each reads every one's partial sums)
LLVMPIPE_GROUPS = 16  # lavapipe runs workgroups on a few CPU threads: fewer, larger ones


@dataclass
class Reflectors:
    """Householder reflectors of a QR: ``v`` (batch, m, k; unit diagonal, zeros above),
    ``beta`` (batch, k; LAPACK's tau); for the blocked path each panel's T and T^H
    (batch, panels, JB, JB), else None."""

    v: Any
    beta: Any
    tt: Any = None
    th: Any = None


def _rows(ctx: Any, mm: int) -> tuple[int, int]:
    """(workgroups, rows each) for the ``mm`` rows of a panel."""
    most = LLVMPIPE_GROUPS if "llvmpipe" in getattr(ctx, "description", "") else MAX_GROUPS
    per = -(-mm // most)
    chunk = max(kp.ROWS, -(-per // kp.ROWS) * kp.ROWS)
    return max(1, -(-mm // chunk)), chunk


def _scale(p: Any, a: Any, amax: Any, count: int, up: bool) -> None:
    """Queue ``scale_pow2`` over the first ``count`` elements of each matrix of ``a``."""
    batch, size = a.shape[0], a.shape[1] * a.shape[2]
    tl = ks.tiles(count)
    if count:
        p.add(kp.scale_pow2(ir.type_of(a.dtype), up), {"x": a, "amax": amax},
              (batch, tl, size, count), batch * tl)  # fmt: skip


def _adjoint(lin: Any, vp: Any) -> Any:
    """V^H of the panel view ``vp`` (a transposed view; conjugated into a copy if complex)."""
    if kind_of(vp.dtype) == "c":
        vp = lin.ops.apply(OPS["conj"], (vp,))
    return vp.mT


def geqrf(lin: Any, p: Any, a: Any) -> Reflectors:
    """R of the contiguous stack ``a`` (batch, m, n) in place (zeros below the diagonal) and its
    reflectors; ``lin``: the backend's ``LinalgDecomp``, ``p``: its ``Plans`` (run first)."""
    ctx, ops = a.ctx, lin.ops
    batch, m, n = a.shape
    k = min(m, n)
    t = ir.type_of(a.dtype)
    panels = -(-k // kp.JB)
    refl = Reflectors(
        lin._zeros(ctx, (batch, m, k), a.dtype),
        lin._zeros(ctx, (batch, k), a.dtype),
        lin._new(ctx, (batch, panels, kp.JB, kp.JB), a.dtype),
        lin._new(ctx, (batch, panels, kp.JB, kp.JB), a.dtype),
    )
    p.run(ctx)
    amax = lin.red.reducer("max")(ops.apply(OPS["abs"], (a,)), axis=(1, 2))
    _scale(p, a, amax, m * n, False)
    part = lin._new(ctx, (batch * 2 * _rows(ctx, m)[0] * kp.SLOTS,), a.dtype)
    matmul = lin._matmul(ctx)
    arrays = {"a": a, "v": refl.v, "beta": refl.beta, "part": part}
    for panel in range(panels):
        j0 = panel * kp.JB
        w = min(kp.JB, k - j0)
        groups, chunk = _rows(ctx, m - j0)
        for c in range(w + 1):
            p.add(kp.panel_step(t), arrays, (batch, groups, chunk, m, n, k, j0, w, c),
                  batch * groups)  # fmt: skip
        p.run(ctx)
        vp = refl.v[:, j0:, j0 : j0 + w]
        vh = _adjoint(lin, vp)
        gram = matmul(vh, vp)
        p.add(kp.larft(t), {"gram": gram, "beta": refl.beta, "tt": refl.tt, "th": refl.th},
              (batch, w, k, j0, panel, panels), batch)  # fmt: skip
        p.run(ctx)
        if j0 + w < n:  # the trailing columns: A2 -= V (T^H (V^H A2))
            a2 = a[:, j0:, j0 + w :]
            z = matmul(refl.th[:, panel, :w, :w], matmul(vh, a2))
            ops.apply(OPS["subtract"], (a2, matmul(vp, z)), a2)
    _scale(p, a, amax, k * n, True)
    p.run(ctx)
    return refl


def apply_q(lin: Any, p: Any, refl: Reflectors, x: Any) -> None:
    """``x`` (batch, m, c; contiguous) <- Q x for the blocked reflectors ``refl``."""
    p.run(x.ctx)
    matmul = lin._matmul(x.ctx)
    k = refl.v.shape[-1]
    for panel in range(math.ceil(k / kp.JB) - 1, -1, -1):
        j0 = panel * kp.JB
        w = min(kp.JB, k - j0)
        vp = refl.v[:, j0:, j0 : j0 + w]
        xp = x[:, j0:, :]
        z = matmul(refl.tt[:, panel, :w, :w], matmul(_adjoint(lin, vp), xp))
        lin.ops.apply(OPS["subtract"], (xp, matmul(vp, z)), xp)


def orgqr(lin: Any, p: Any, refl: Reflectors, m: int, qc: int) -> Any:
    """Q's first ``qc`` columns (batch, m, qc) from the blocked reflectors."""
    batch = refl.v.shape[0]
    q = lin._new(refl.v.ctx, (batch, m, qc), refl.v.dtype)
    tl = ks.tiles(m * qc)
    p.add(ks.identity(ir.type_of(q.dtype)), {"x": q}, (batch, tl, m, qc), batch * tl)
    apply_q(lin, p, refl, q)
    return q


__all__ = ["MAX_GROUPS", "Reflectors", "apply_q", "geqrf", "orgqr"]
