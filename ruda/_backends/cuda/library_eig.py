"""linalg.eig and linalg.eigvals on cuda through cuSOLVER's ``cusolverDnXgeev`` (cuSOLVER 11.7,
CUDA 12.6, and later), else ruda's own kernels (the shared ``gpu.linalg_eig``, rendered as
CUDA C++).

Xgeev is LAPACK's geev: column-major, so each matrix is copied transposed first (the row-major
bytes are A^T, whose eigenvectors are A's left ones), one call per matrix of a stack. For real
input it returns the eigenvectors in LAPACK's packed real form (a conjugate pair's real and
imaginary parts in two columns); ``linalg_eig_vectors.unpack_real`` turns them into complex
columns. Eigenvectors are normalised as LAPACK's: unit 2-norm, largest component real.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._dtypes import kind_of
from ..._kernels import ir
from ..._kernels.linalg import eig_vectors as kv
from ..._kernels.linalg import steps as ks
from ..gpu.linalg_base import Plans
from ..gpu.linalg_eig import LinalgEig, eig_dtype
from .array import CudaArray
from .library_blas import new, on
from .library_solver import colmajor, rowmajor
from .ops import OPS
from .reductions import REDUCTIONS

LinAlgError = np.linalg.LinAlgError
KERNELS = LinalgEig(OPS, REDUCTIONS)  # ruda's kernels, where cuSOLVER has no Xgeev
_CUDA_TYPE = {"float32": 0, "float64": 1, "complex64": 4, "complex128": 5}  # cudaDataType
_NOVECTOR, _VECTOR = 0, 1  # cusolverEigMode_t
_XGEEV_SINCE = 11700  # cuSOLVER's version number (11.7.0: CUDA 12.6)
_AVAILABLE: dict[int, bool] = {}


def xgeev_available(ctx: Any) -> bool:
    """Whether CuPy binds ``cusolverDnXgeev`` and the loaded cuSOLVER has it."""
    hit = _AVAILABLE.get(ctx.index)
    if hit is None:
        from cupy_backends.cuda.libs import cusolver

        try:
            hit = hasattr(cusolver, "xgeev") and cusolver._getVersionNumber() >= _XGEEV_SINCE
        except Exception:  # an old CuPy without the version query
            hit = False
        _AVAILABLE[ctx.index] = hit
    return hit


def _source_dtype(x: CudaArray, fname: str) -> np.dtype:
    """The dtype Xgeev works in: float16 as float32, integers and booleans as float64."""
    d = np.dtype(x.dtype)
    eig_dtype(d, fname)  # TypeError for dtypes linalg does not take
    if kind_of(d) in "biu":
        return np.dtype(np.float64)
    return np.dtype(np.float32) if d.name == "float16" else d


def _geev(x: CudaArray, vectors: bool, fname: str) -> tuple[CudaArray, CudaArray | None]:
    if not xgeev_available(x.ctx):
        w, v = KERNELS._geev(x, vectors, fname)
        return w, v
    from cupy.cuda import alloc_pinned_memory, device
    from cupy_backends.cuda.libs import cusolver

    ctx, n, lead = x.ctx, x.shape[-1], x.shape[:-2]
    batch = math.prod(lead)
    src, cdt = _source_dtype(x, fname), eig_dtype(x.dtype, fname)
    real = kind_of(src) == "f"
    w = new(ctx, (*lead, n), cdt)
    if x.size == 0:
        return w, new(ctx, (*lead, n, n), cdt)
    a = colmajor(x, src)  # (..., n, n): column-major A (Xgeev overwrites it)
    vr = new(ctx, (batch if vectors else 1, n, n), src)  # column-major, packed when real
    info = new(ctx, (batch,), np.int32)
    ta, tw = _CUDA_TYPE[src.name], _CUDA_TYPE[cdt.name]
    jobvr = _VECTOR if vectors else _NOVECTOR
    mat, wsz = n * n * src.itemsize, n * cdt.itemsize
    with on(ctx):
        h = device.get_cusolver_handle()
        params = cusolver.createParams()
        try:
            dev_bytes, host_bytes = cusolver.xgeev_bufferSize(
                h, params, _NOVECTOR, jobvr, n, ta, a.ptr, n, tw, w.ptr, ta, vr.ptr, n, ta,
                vr.ptr, n, ta)  # fmt: skip
            work = new(ctx, (max(int(dev_bytes), 1),), np.uint8)
            host = alloc_pinned_memory(max(int(host_bytes), 1))
            for i in range(batch):
                vp = vr.ptr + (i * mat if vectors else 0)
                cusolver.xgeev(h, params, _NOVECTOR, jobvr, n, ta, a.ptr + i * mat, n, tw,
                               w.ptr + i * wsz, ta, vp, n, ta, vp, n, ta, work.ptr,
                               int(dev_bytes), host.ptr, int(host_bytes),
                               info.ptr + 4 * i)  # fmt: skip
        finally:
            cusolver.destroyParams(params)
    if (info.to_host() > 0).any():  # waits for the device (and keeps ``host`` alive till then)
        raise LinAlgError(f"ruda.linalg.{fname}: Eigenvalues did not converge")
    if not vectors:
        return w, None
    if not real:  # the columns of the column-major result, row-major
        return w, rowmajor(vr).reshape((*lead, n, n))
    v = new(ctx, (*lead, n, n), cdt)
    tiles = ks.tiles(n * n)
    p = Plans(OPS)
    p.add(kv.unpack_real(ir.type_of(cdt)), {"vr": vr, "w": w, "out": v}, (batch, tiles, n),
          batch * tiles)  # fmt: skip
    p.run(ctx)
    return w, v


def eig(x: CudaArray) -> tuple[CudaArray, CudaArray]:
    w, v = _geev(x, True, "eig")
    return w, v


def eigvals(x: CudaArray) -> CudaArray:
    return _geev(x, False, "eigvals")[0]


LIBRARY: dict[str, Any] = {"linalg.eig": eig, "linalg.eigvals": eigvals}
__all__ = ["KERNELS", "LIBRARY", "eig", "eigvals", "xgeev_available"]
