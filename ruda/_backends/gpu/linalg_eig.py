"""``linalg.eig`` and ``linalg.eigvals`` on the GPU backends from ruda's own kernels
(``ruda._kernels.linalg.eig``, ``linalg_eig_qr``, ``linalg_eig_vectors``), for real and complex
input alike.

The input is copied into a contiguous complex working stack (complex64 for float16/float32/
complex64, else complex128: the dtype of the result), then four phases are queued as one plan,
each one workgroup per matrix: Householder reduction to Hessenberg form (Z accumulated), QR
iterations to the Schur form, back substitution for the eigenvectors of the triangular factor,
and V = Z X with LAPACK's normalisation (unit 2-norm, largest entry real). Every phase is
resumable: on llvmpipe, which cuts an invocation's loops short after ``LOOP_LIMIT``
iterations, and for very large matrices anywhere, a phase is split into launches that each
stay under the cap; the QR phase then reads the per-matrix progress back between chunks of
launches. Otherwise the only host wait is the one read of the failure flags at the end.

    >>> from ruda._backends.gpu.linalg_eig import eig_dtype
    >>> eig_dtype("float32", "eig"), eig_dtype("int64", "eig")
    (dtype('complex64'), dtype('complex128'))
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..._dtypes import kind_of
from ..._kernels import ir
from ..._kernels.linalg import common as lc
from ..._kernels.linalg import eig as ke
from ..._kernels.linalg import eig_qr as kq
from ..._kernels.linalg import eig_vectors as kv
from ..._kernels.linalg import steps as ks
from .linalg_base import LinalgBase, LinAlgError, Plans

# Loop iterations one invocation may run per launch: llvmpipe's hang guard, and elsewhere a
# bound that keeps any one launch short (a driver's watchdog may end a long dispatch).
CAP = 1 << 24
_SINGLE = ("float16", "float32", "complex64")


def eig_dtype(d: Any, fname: str) -> np.dtype:
    """The complex dtype of the result (and the work): complex64 for float16/float32/complex64,
    complex128 for float64/complex128 and for integers and booleans (as NumPy)."""
    d = np.dtype(getattr(d, "dtype", d))
    if kind_of(d) in "biu" or d.name in ("float64", "complex128"):
        return np.dtype(np.complex128)
    if d.name in _SINGLE:
        return np.dtype(np.complex64)
    raise TypeError(f"ruda.linalg.{fname}: array type {d} is unsupported in linalg")


def loop_cap(ctx: Any) -> int:
    return lc.LOOP_LIMIT * 9 // 10 if "llvmpipe" in getattr(ctx, "description", "") else CAP


def spans(start: int, stop: int, cost: Any, room: int) -> Iterator[tuple[int, int]]:
    """[k0, k1) ranges covering [start, stop) whose summed ``cost(k)`` stays within ``room``
    (at least one step each)."""
    k0 = start
    while k0 < stop:
        k1, used = k0 + 1, cost(k0)
        while k1 < stop and used + cost(k1) <= room:
            used += cost(k1)
            k1 += 1
        yield k0, k1
        k0 = k1


def _check(info: Any, fname: str) -> None:
    """NumPy's LinAlgError for a matrix that failed (one read-back: the only host wait)."""
    flags = info.to_host()
    if (flags == 2).any():
        raise LinAlgError(f"ruda.linalg.{fname}: Array must not contain infs or NaNs")
    if flags.any():
        raise LinAlgError(f"ruda.linalg.{fname}: Eigenvalues did not converge")


class LinalgEig(LinalgBase):
    """eig and eigvals on one GPU backend (``ops``: its GpuOps; ``red``: its reductions)."""

    def _geev(self, x: Any, vectors: bool, fname: str) -> tuple[Any, Any]:
        r = eig_dtype(x, fname)
        ctx, n, lead = x.ctx, x.shape[-1], x.shape[:-2]
        batch = math.prod(lead)
        if x.size == 0:
            return self._new(ctx, (*lead, n), r), self._new(ctx, (*lead, n, n), r)
        a = self._work(x, r, fname)
        t = ir.type_of(r)
        wg = lc.choose_wg(n)
        cap = loop_cap(ctx)
        mats = 2 if vectors else 1
        side = ke.side_for(n, t, mats, wg)
        fixed = ke.stage_loops(n, mats, wg) + 8
        z = self._new(ctx, (batch, n, n) if vectors else (1,), r)
        vec = self._new(ctx, (batch, n), r)
        w = self._new(ctx, (*lead, n), r)
        scale = self._new(ctx, (batch,), np.zeros(0, r).real.dtype)
        state = self._zeros(ctx, (batch, 2), np.uint32)
        info = self._zeros(ctx, (batch,), np.int32)
        p = Plans(self.ops)
        gehrd = ke.gehrd(t, vectors, wg, side)
        cost = lambda k: ke.gehrd_loops(n, k, vectors, wg)  # noqa: E731
        for k0, k1 in spans(0, max(n - 2, 1), cost, cap - fixed):  # the first scales A, sets Z
            arrays = {"a": a, "z": z, "vec": vec, "scale": scale}
            p.add(gehrd, arrays, (batch, n, k0, min(k1, max(n - 2, 0))), batch)
        arrays = {"a": a, "z": z, "w": w, "state": state, "info": info, "scale": scale}
        self._hqr(p, ctx, arrays, vectors, (t, wg, side, cap - fixed))
        if not vectors:
            p.run(ctx)
            _check(info, fname)
            return w, None
        tside = ke.side_for(n, t, 1, wg)
        rows = max(1, (cap - ke.stage_loops(n, 1, wg) - 8) // kv.trevc_loops(n, 1, wg))
        for i1 in range(n, 0, -rows):
            p.add(kv.trevc(t, wg, tside), {"a": a, "vec": vec}, (batch, n, max(i1 - rows, 0), i1),
                  batch)  # fmt: skip
        v = self._new(ctx, (*lead, n, n), r)
        tiles = ks.tiles(n * n)
        p.add(kv.backtransform(t), {"z": z, "a": a, "vec": vec, "v": v}, (batch, tiles, n),
              batch * tiles)  # fmt: skip
        tiles = ks.tiles(n)
        p.add(kv.normalize(t), {"v": v}, (batch, tiles, n), batch * tiles)
        p.run(ctx)
        _check(info, fname)
        return w, v

    def _hqr(self, p: Plans, ctx: Any, arrays: dict[str, Any], vectors: bool,
             how: tuple[Any, ...]) -> None:  # fmt: skip
        """Queue the QR iterations: one launch when the worst case fits the loop cap, else
        launches of ``budget`` iterations in chunks, reading the progress between chunks."""
        t, wg, side, room = how
        state = arrays["state"]
        batch, n = state.shape[0], arrays["a"].shape[-1]
        kernel = kq.hqr(t, vectors, wg, side)
        per = kq.hqr_loops(n, vectors, wg)
        worst = kq.ITMAX * max(10, n) * n + n  # every eigenvalue after the most iterations
        budget = max(1, room // per)
        if budget >= worst:
            p.add(kernel, arrays, (batch, n, worst), batch)
            return
        launches = -(-4 * n // budget)  # about 3 iterations per eigenvalue, and a deflation
        while True:
            for _ in range(launches):
                p.add(kernel, arrays, (batch, n, budget), batch)
            p.run(ctx)
            if (state.to_host()[:, 0] >= n - 1).all():  # progress: one small read per chunk
                return
            launches = max(1, launches // 2)

    def eig(self, x: Any) -> tuple[Any, Any]:
        return self._geev(x, True, "eig")

    def eigvals(self, x: Any) -> Any:
        return self._geev(x, False, "eigvals")[0]

    def library(self) -> dict[str, Any]:
        return {"linalg.eig": self.eig, "linalg.eigvals": self.eigvals}


__all__ = ["CAP", "LinalgEig", "eig_dtype", "loop_cap", "spans"]
