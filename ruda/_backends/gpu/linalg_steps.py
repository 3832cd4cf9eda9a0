"""The multi-dispatch path of the GPU linalg ops (large matrices): the step kernels of
``ruda._kernels.linalg.steps``, ``linalg_jacobi_steps`` and ``linalg_jacobi_block`` queued in
order on a ``Plans`` (QR's blocked path, with matrix products, is ``linalg_blocked``).

Cholesky and LU queue one panel launch and one update launch per column step; the LU solve one
launch per substitution step. Jacobi eigh queues a sweep as rounds of four launches and a
convergence check; the SVD's block Jacobi a launch per round of column blocks and the check.
Sweeps go in chunks of ``CHUNK``, after each of which the host reads the per-matrix ``done``
flags (set on the device) to learn whether to queue more. Sweeps queued past convergence cost
only their launches (every step kernel returns at once for a matrix that is done): block Jacobi's
sweeps are few launches, so its first chunk is as many sweeps as a random matrix of that order
needs (``expected_sweeps``): usually one read, ``s`` read with the flags; eigh's sweeps are ~4n
launches each, cheaper to read twice than to queue in vain. ``info`` is exactly "not done", so
``syevj`` and ``gesvj`` return convergence as the flags said and no caller reads ``info``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._kernels import ir
from ..._kernels.linalg import common as lc
from ..._kernels.linalg import jacobi_block as kjb
from ..._kernels.linalg import jacobi_steps as kjs
from ..._kernels.linalg import steps as ks

CHUNK = 2  # Jacobi sweeps queued between reads of the done flags (after the first chunk)
MULTI_MIN = 256  # matrices this large take the multi-dispatch path on every device
BLOCK_MIN = 64  # SVDs with this many columns take block Jacobi (one workgroup per matrix crawls)


def _t(x: Any) -> ir.Type:
    return ir.type_of(x.dtype)


def _tiled(
    p: Any, kernel: ir.Kernel, arrays: dict[str, Any], batch: int, count: int, *params: int
) -> None:
    tl = ks.tiles(count)
    if count > 0:
        p.add(kernel, arrays, (batch, tl, *params), batch * tl)


def potrf(p: Any, a: Any, info: Any, upper: bool) -> None:
    batch, n, t = math.prod(a.shape[:-2]), a.shape[-1], _t(a)
    for k in range(n):
        p.add(ks.potrf_panel(t, upper), {"a": a, "info": info}, (batch, n, k), batch)
        _tiled(p, ks.potrf_update(t, upper), {"a": a}, batch, (n - k - 1) ** 2, n, k)
    _tiled(p, ks.zero_triangle(t, upper), {"a": a}, batch, n * n, n)


def getrf(p: Any, a: Any, piv: Any, info: Any) -> None:
    batch, n, t = math.prod(a.shape[:-2]), a.shape[-1], _t(a)
    for k in range(n):
        p.add(ks.getrf_panel(t), {"a": a, "piv": piv, "info": info}, (batch, n, k), batch)
        _tiled(p, ks.getrf_update(t), {"a": a}, batch, (n - k - 1) ** 2, n, k)


def getrs(p: Any, a: Any, piv: Any, x: Any, eye: bool) -> None:
    batch, n, t = math.prod(a.shape[:-2]), a.shape[-1], _t(a)
    k = x.shape[-1]
    p.add(ks.getrs_swap(t, eye), {"piv": piv, "x": x}, (batch, n, k), batch)
    arrays = {"a": a, "x": x}
    for j in range(n - 1):
        _tiled(p, ks.getrs_update(t, True), arrays, batch, (n - j - 1) * k, n, k, j)
    for j in range(n - 1, 0, -1):
        _tiled(p, ks.getrs_update(t, False), arrays, batch, j * k, n, k, j)
    _tiled(p, ks.getrs_scale(t), arrays, batch, n * k, n, k)


def expected_sweeps(n: int) -> int:
    """Block Jacobi sweeps the SVD of a Gaussian random matrix of n columns takes, the last
    one rotating nothing (float32 data: 6, 8, 10, 12 for n = 64 ... 512; float64 data one
    more; spread-out spectra fewer): the sweeps queued before the first read of the flags.

    >>> [expected_sweeps(n) for n in (7, 64, 128, 256, 512)]
    [2, 6, 8, 10, 12]
    """
    return max(CHUNK, round(2 * math.log2(max(n, 1))) - 6)


def _read(ctx: Any, arrays: list[Any]) -> list[np.ndarray]:
    """Host copies of ``arrays``, in one wait where the allocator can read several at once."""
    many = getattr(ctx.allocator, "to_host_many", None)
    return many(arrays) if many is not None else [x.to_host() for x in arrays]


def _sweeps(
    p: Any, ctx: Any, done: Any, sweep: Any, first: int, end: Any = None, peek: Any = None
) -> tuple[bool, np.ndarray | None]:
    """Run ``sweep()``s in chunks (``first`` sweeps, then ``CHUNK`` at a time) until every
    matrix is done (True) or MAX_SWEEPS were queued (False). With ``end`` (queued after every
    chunk: it only reads what sweeps change) the array ``peek`` it writes is read with the
    flags: its host copy, final once every matrix is done."""
    queued, chunk, seen = 0, first, None
    while queued < lc.MAX_SWEEPS:
        chunk = min(chunk, lc.MAX_SWEEPS - queued)
        for _ in range(chunk):
            sweep()
        queued, chunk = queued + chunk, CHUNK
        if end is not None:
            end()
        p.run(ctx)
        # flags set on the device: one small read per chunk
        flags, *rest = _read(ctx, [done] if peek is None else [done, peek])
        seen = rest[0] if rest else None
        if flags.all():
            return True, seen
    return False, seen


def _round(
    p: Any,
    svd: bool,
    scratch: dict[str, Any],
    targets: list[tuple[Any, bool, bool]],
    batch: int,
    m: int,
    n: int,
    r: int,
) -> None:
    """Queue round ``r``: the pairs' rotations from ``scratch['a']`` (m x n), then applied to
    each (matrix, rows, zero) of ``targets`` (``rotate``'s variants)."""
    t, n2 = _t(scratch["a"]), n + n % 2
    _tiled(p, kjs.pair_rotations(t, svd), scratch, batch, n2 // 2, m, n, n2, r)
    common = {"rot": scratch["rot"], "done": scratch["done"]}
    for x, rows, zero in targets:
        length = x.shape[-2]
        _tiled(
            p,
            kjs.rotate(t, rows, zero),
            {"x": x, **common},
            batch,
            n2 // 2 * length,
            length,
            n,
            n2,
            r,
        )


def syevj(p: Any, ctx: Any, arrays: dict[str, Any], upper: bool, vectors: bool) -> bool:
    """Queue eigh of the stack ``arrays['a']`` (the single kernel's buffers); whether every
    matrix converged (``info`` is set where one did not)."""
    a, v = arrays["a"], arrays["v"]
    batch, n, t = math.prod(a.shape[:-2]), a.shape[-1], _t(a)
    n2 = n + n % 2
    done = p.ops.fill(ctx.allocator.empty((batch,), np.uint32), 0)
    rotated = ctx.allocator.empty((1,), np.uint32)  # bound, unused by eigh's rotations
    scale = ctx.allocator.empty((batch,), arrays["w"].dtype)  # eig_begin's, for eig_end
    p.add(kjs.eig_begin(t, upper, vectors), {"a": a, "v": v, "scale": scale}, (batch, n), batch)
    p.add(kjs.eig_check(t), {"a": a, "done": done}, (batch, n), batch)
    scratch = {"a": a, "rot": arrays["rot"], "done": done, "rotated": rotated}
    targets = [(a, True, False), (a, False, True)] + ([(v, False, False)] if vectors else [])

    def sweep() -> None:
        for r in range(n2 - 1):
            _round(p, False, scratch, targets, batch, n, n, r)
        p.add(kjs.eig_check(t), {"a": a, "done": done}, (batch, n), batch)

    converged, _ = _sweeps(p, ctx, done, sweep, CHUNK)
    p.add(kjs.eig_end(t, vectors), {**arrays, "done": done, "scale": scale}, (batch, n), batch)
    return converged


def gesvj(
    p: Any, ctx: Any, arrays: dict[str, Any], vectors: bool, promoted: bool = False,
    peek: bool = False,
) -> tuple[bool, np.ndarray | None]:  # fmt: skip
    """Queue the SVD of the tall stack ``arrays['a']`` (the single kernel's buffers) by block
    Jacobi (``linalg_jacobi_block``): a sweep is a launch per round of column blocks, then the
    convergence check. ``promoted``: float32 data computed in float64 (its tolerance). Whether
    every matrix converged (``info`` is set where one did not), and with ``peek`` the host copy
    of ``s`` (``svd_end`` queued after every chunk of sweeps, ``s`` read with the flags)."""
    a, v = arrays["a"], arrays["v"]
    batch, t = math.prod(a.shape[:-2]), _t(a)
    m, n = a.shape[-2:]
    n2 = n + n % 2
    blocks = -(-n // (kjb.width(t) // 2))
    nbe = max(2, blocks + blocks % 2)
    done = p.ops.fill(ctx.allocator.empty((batch,), np.uint32), 0)
    rotated = p.ops.fill(ctx.allocator.empty((batch,), np.uint32), 0)
    scale = ctx.allocator.empty((batch,), arrays["s"].dtype)  # svd_begin's, for svd_end
    fro = ctx.allocator.empty((batch,), arrays["s"].dtype)  # sum of squares: the noise floor
    begin = {"a": a, "v": v, "scale": scale, "fro": fro}
    p.add(kjs.svd_begin(t, vectors), begin, (batch, m, n), batch)
    kernel = kjb.round_kernel(t, vectors, promoted)
    scratch = {"a": a, "v": v, "done": done, "rotated": rotated, "fro": fro}

    def sweep() -> None:
        for r in range(nbe - 1):
            p.add(kernel, scratch, (batch, nbe // 2, m, n, nbe, r), batch * nbe // 2)
        _tiled(p, kjs.svd_check(), {"done": done, "rotated": rotated}, batch, 1)

    def end() -> None:  # reads a and v, writes s, U, V^H (and rot, idx, info)
        p.add(
            kjs.svd_end(t, vectors), {**arrays, "done": done, "scale": scale},
            (batch, m, n, n2), batch,
        )  # fmt: skip

    if peek:
        return _sweeps(p, ctx, done, sweep, expected_sweeps(n), end, arrays["s"])
    converged, _ = _sweeps(p, ctx, done, sweep, expected_sweeps(n))
    end()
    return converged, None


__all__ = [
    "BLOCK_MIN",
    "CHUNK",
    "MULTI_MIN",
    "expected_sweeps",
    "gesvj",
    "getrf",
    "getrs",
    "potrf",
    "syevj",
]
