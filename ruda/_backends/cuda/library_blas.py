"""Matrix products on cuda through cuBLAS: matmul, vecdot, tensordot.

cuBLAS multiplies floating-point and complex numbers; integer and bool matmul goes to the tiled
kernel of ``ruda._kernels.matmul.gemm`` (``CudaProducts``, here: exact, wrapping around as NumPy's
integer products do), and integer vecdot is a multiply and ruda's sum. cuBLAS is a candidate of
the tuner's ``matmul`` family on cuda and its default for the dtypes it multiplies: a stored
decision naming a tiled variant for a product's key makes matmul launch that variant instead.

cuBLAS is column-major; a row-major ``C = A @ B`` is computed as ``C^T = B^T A^T``, which in
column-major terms reads the same bytes with no transposes. Operands whose matrices are
C-ordered or transposed views (any leading dimension) go to cuBLAS as they are; stacks go
through ``gemmStridedBatchedEx`` when their batch dimensions collapse to one stride (0 for a
broadcast operand), else the operand is copied. ``a (..., M, K) @ b (K, N)`` folds the stack
into one GEMM of ``batch * M`` rows.

Also here: what the other library modules share (buffers of any dtype, complex numbers as
float views, copies that cast across real and complex, uploads).
"""

from __future__ import annotations

import contextlib
import math
import os
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._dtypes import kind_of
from ..._kernels import ir
from ..._kernels.matmul import gemm as km
from ..._kernels.tune import engine as tune
from ..._ops import OPS
from ..._promotion import promote
from ..gpu import tuning
from ..gpu.matmul import Products, _matrix_strides
from ..gpu.matmul import result_dtype as products_result_dtype
from ..gpu.operands import typed
from ..gpu.strided import span
from . import ops as _ops
from .array import CudaArray
from .reductions import REDUCTIONS

# cudaDataType and cublasComputeType_t values (library_types.h, cublas_api.h).
_CUDA_TYPE = {
    "float16": 2,
    "bfloat16": 14,
    "float32": 0,
    "float64": 1,
    "complex64": 4,
    "complex128": 5,
}
_COMPUTE_32F, _COMPUTE_32F_TF32, _COMPUTE_64F = 68, 77, 70
_GEMM_DEFAULT = -1
_OP_N, _OP_T = 0, 1
_REAL = {
    np.dtype(np.complex64): np.dtype(np.float32),
    np.dtype(np.complex128): np.dtype(np.float64),
}

# float32 matmul on TF32 tensor cores (about 8x faster on an H200, ~1e-3 relative error);
# off by default because NumPy's float32 matmul is full precision.
TF32 = os.environ.get("RUDA_CUDA_TF32", "") == "1"


# -- shared helpers ---------------------------------------------------------------------------
def on(ctx: Any) -> Any:
    """The device made current around library calls (only when several are visible)."""
    return ctx.device if ctx.multi else contextlib.nullcontext()


def new(ctx: Any, shape: tuple[int, ...], dtype: Any) -> CudaArray:
    """A contiguous buffer of any dtype (complex too: only library calls write it)."""
    npdt = np.dtype(dtype)
    shape = tuple(int(s) for s in shape)
    return CudaArray.contiguous(ctx, ctx.allocator.alloc(math.prod(shape) * npdt.itemsize),
                                shape, npdt)  # fmt: skip


def zero(x: CudaArray) -> CudaArray:
    """Zero a fresh contiguous buffer (bytes; 0 is all-zero bits in every dtype)."""
    if x.size:
        x.mem.memset_async(0, x.nbytes, x.ctx.allocator.stream())
    return x


def upload(ctx: Any, host: np.ndarray) -> CudaArray:
    """A host array copied to the device, whatever its dtype (complex results of host math)."""
    a = np.array(host, order="C", copy=None)  # 0-d stays 0-d (ascontiguousarray makes it 1-d)
    y = new(ctx, a.shape, a.dtype)
    if a.nbytes:
        import ctypes

        y.mem.copy_from_host_async(a.ctypes.data_as(ctypes.c_void_p), a.nbytes,
                                   ctx.allocator.stream())  # fmt: skip
    return y


def real_view(x: CudaArray) -> CudaArray:
    """A complex array as its float parts: shape (..., 2), the same memory (NumPy's .view)."""
    f = _REAL[x.dtype]
    return CudaArray(x.ctx, x.mem, x.offset, (*x.shape, 2),
                     (*(2 * s for s in x._strides), 1), f)  # fmt: skip


def copy_into(dst: CudaArray, src: CudaArray) -> None:
    """``dst[...] = src`` (broadcast), casting across real and complex dtypes."""
    dc, sc = kind_of(dst.dtype) == "c", kind_of(src.dtype) == "c"
    if dc and sc:
        _ops.assign(real_view(dst), real_view(src))
    elif dc:
        rv = real_view(dst)
        _ops.assign(rv[..., 0], src)
        _ops.assign(rv[..., 1], 0)
    elif sc:  # NumPy drops the imaginary part (with a ComplexWarning)
        _ops.assign(dst, real_view(src)[..., 0])
    else:
        _ops.assign(dst, src)


def contiguous(x: CudaArray, dtype: Any = None) -> CudaArray:
    """``x`` if C-contiguous at offset 0 and of ``dtype``, else a converted copy."""
    npdt = x.dtype if dtype is None else np.dtype(dtype)
    if npdt == x.dtype and x.offset == 0 and x.is_contiguous:
        return x
    y = new(x.ctx, x.shape, npdt)
    copy_into(y, x)
    return y


def fresh(x: CudaArray, dtype: Any = None) -> CudaArray:
    """Always a new contiguous copy (library calls that overwrite their input)."""
    y = new(x.ctx, x.shape, x.dtype if dtype is None else dtype)
    copy_into(y, x)
    return y


def conj_(x: CudaArray) -> CudaArray:
    """Conjugate a complex array in place (negate the imaginary parts)."""
    if kind_of(x.dtype) == "c":
        im = real_view(x)[..., 1]
        _ops.apply(OPS["negative"], (im,), out=im)
    return x


def scale_(x: CudaArray, s: float) -> CudaArray:
    """Multiply ``x`` by the real scalar ``s`` in place."""
    if s != 1.0 and x.size:
        v = real_view(x) if kind_of(x.dtype) == "c" else x
        _ops.apply(OPS["multiply"], (v, typed(float(s), v)), out=v)
    return x


def moved_last(x: CudaArray, axes: list[int]) -> tuple[CudaArray, tuple[int, ...]]:
    """A view with ``axes`` moved to the end (in order), and the permutation that undoes it."""
    perm = [i for i in range(x.ndim) if i not in axes] + list(axes)
    inverse = tuple(int(i) for i in np.argsort(perm))
    return (x if perm == list(range(x.ndim)) else x.transpose(tuple(perm))), inverse


def same_ctx(fname: str, *xs: CudaArray) -> Any:
    ctx = xs[0].ctx
    for x in xs[1:]:
        if x.ctx is not ctx:
            raise ValueError(f"ruda.{fname}: operands are on {ctx.name} and {x.ctx.name}")
    return ctx


# -- matmul -----------------------------------------------------------------------------------
def result_dtype(fname: str, *dtypes: np.dtype) -> np.dtype:
    r = dt.from_numpy(dtypes[0])
    for d in dtypes[1:]:
        r = promote(r, dt.from_numpy(d))
    return r._np


def cublas_multiplies(r: np.dtype) -> bool:
    """Whether cuBLAS multiplies into dtype ``r`` (float16, bfloat16, float32/64, complex64/128)."""
    return r.name in _CUDA_TYPE


def _layout(strides: tuple[int, int], rows: int, cols: int) -> tuple[int, int] | None:
    """(cuBLAS op, leading dimension) of a row-major matrix view, or None if it needs a copy."""
    s0, s1 = strides
    if rows == 1:
        s0 = max(cols, 1)  # the stride of a length-1 dimension is never used
    if cols == 1:
        s1 = 1
    if s1 == 1 and s0 >= max(cols, 1):
        return _OP_N, s0
    if s0 == 1 and s1 >= max(rows, 1):
        return _OP_T, s1
    return None


def _batch_stride(x: CudaArray, batch: tuple[int, ...]) -> int | None:
    """One element stride over ``x``'s batch dimensions broadcast to ``batch``, or None."""
    xb = x.shape[:-2]
    st = [0] * (len(batch) - len(xb)) + [0 if n == 1 else s for n, s in
                                           zip(xb, x._strides[:-2], strict=True)]  # fmt: skip
    dims = [(n, s) for n, s in zip(batch, st, strict=True) if n != 1]
    if not dims or all(s == 0 for _, s in dims):
        return 0
    acc = dims[-1][1]
    for n, s in reversed(dims):
        if s != acc:
            return None
        acc *= n
    return dims[-1][1]


def _operand(x: CudaArray, batch: tuple[int, ...], r: np.dtype) -> tuple[CudaArray, int, int, int]:
    """(array, op, ld, batch stride) of one GEMM operand, copied only where cuBLAS needs it."""
    rows, cols = x.shape[-2:]
    if x.dtype == r:
        lay = _layout(x._strides[-2:], rows, cols)
        bs = _batch_stride(x, batch)
        if lay is not None and bs is not None:
            return x, lay[0], lay[1], bs
    # Materialise (broadcast batch dimensions, casts, odd strides) as a dense stack: its own
    # batch when that is the full batch or a single matrix, else broadcast to the full batch.
    own = x.shape[:-2]
    full = own if own == batch or math.prod(own) == 1 else batch
    pad = len(full) - len(own)
    bst = (0 if n == 1 and m != 1 else s for n, m, s in zip(own, full[pad:], x._strides[:-2],
                                                            strict=True))  # fmt: skip
    src = x.view_of(x.offset, (*full, rows, cols), (*([0] * pad), *bst, *x._strides[-2:]))
    y = new(x.ctx, src.shape, r)
    copy_into(y, src)
    return y, _OP_N, max(cols, 1), _batch_stride(y, batch)  # type: ignore[return-value]


def _scalars(r: np.dtype) -> tuple[np.ndarray, np.ndarray, int]:
    if r.name in ("float64", "complex128"):
        c = _COMPUTE_64F
    elif r.name == "float32" and TF32:
        c = _COMPUTE_32F_TF32
    else:
        c = _COMPUTE_32F
    st = {
        "float16": np.float32,
        "bfloat16": np.float32,
        "float32": np.float32,
        "float64": np.float64,
    }.get(r.name, r.type)
    return np.ones(1, st), np.zeros(1, st), c


def gemm(a: CudaArray, b: CudaArray, r: np.dtype, y: CudaArray) -> None:
    """``y = a @ b`` for stacks ``a (..., M, K)``, ``b (..., K, N)``, ``y (batch..., M, N)``."""
    from cupy.cuda import device
    from cupy_backends.cuda.libs import cublas

    ctx = y.ctx
    M, K = a.shape[-2:]
    N = b.shape[-1]
    batch = y.shape[:-2]
    count = math.prod(batch)
    if y.size == 0:
        return
    if K == 0:
        zero(y)
        return
    A, opa, lda, sa = _operand(a, batch, r)
    B, opb, ldb, sb = _operand(b, batch, r)
    if count > 1 and sb == 0 and opa == _OP_N and sa == M * lda:
        M, count = M * count, 1  # a stack times one matrix: one tall GEMM
    t = _CUDA_TYPE[r.name]
    alpha, beta, compute = _scalars(r)
    with on(ctx):
        h = device.get_cublas_handle()
        cublas.setPointerMode(h, 0)  # host scalars
        if count == 1:
            cublas.gemmEx(h, opb, opa, N, M, K, alpha.ctypes.data, B.ptr, t, ldb, A.ptr, t, lda,
                          beta.ctypes.data, y.ptr, t, N, compute, _GEMM_DEFAULT)  # fmt: skip
        else:
            cublas.gemmStridedBatchedEx(
                h, opb, opa, N, M, K, alpha.ctypes.data, B.ptr, t, ldb, sb, A.ptr, t, lda, sa,
                beta.ctypes.data, y.ptr, t, N, M * N, count, compute, _GEMM_DEFAULT,
            )  # fmt: skip


# -- cuBLAS or the tiled kernel: the tuner's ``matmul`` family --------------------------
_ALGORITHM = tune.hot_memo()  # launch key -> the algorithm of the decision for it


def matmul_key(a: Any, b: Any, r: np.dtype, batch: tuple[int, ...]) -> tune.Key:
    """The tuner's key of ``a (..., M, K) @ b (..., K, N)`` into ``r``: the key the tiled path
    (``gpu.matmul.Products.decided``) asks for too, so both see one decision."""
    lay = "".join("t" if km.layout(_matrix_strides(x)) == "t" else "n" for x in (a, b))
    types = tuple(ir.type_of(d).name for d in (a.dtype, b.dtype, r))
    shape = (math.prod(batch), a.shape[-2], b.shape[-1], a.shape[-1])
    return tune.Key("matmul", types, lay, shape)


def _algorithm(ctx: Any, a: CudaArray, b: CudaArray, r: np.dtype,
               batch: tuple[int, ...]) -> str | None:  # fmt: skip
    """The algorithm of the stored (or, RUDA_TUNE=on, tuned) decision for this product:
    "tiled" (ruda's kernel) or "cublas", the heuristic for the dtypes cuBLAS multiplies."""
    hk = (a.dtype, b.dtype, r, a.shape[-2:], b.shape[-1], a._strides[-2:], b._strides[-2:],
          batch, ctx)  # fmt: skip
    hit = _ALGORITHM.get(hk, False)
    if hit is False:
        if len(_ALGORITHM) > 4096:  # many shapes: start over
            _ALGORITHM.clear()
        key = matmul_key(a, b, r, batch)
        hit = _ops.OPS.tuner.algorithm("matmul", key, ctx)
        _ALGORITHM[hk] = hit
    return hit


def _indexable(*xs: CudaArray) -> bool:
    """The tiled kernel indexes with 32 bits from each allocation's start."""
    return all(span(x.offset, x.shape, x._strides, x.itemsize)[1] < x.itemsize << 32 for x in xs)


def _tuning_candidate(ctx: Any, key: tune.Key, arrays: dict[str, CudaArray]) -> Any:
    """cuBLAS as a candidate of the tuner's ``matmul`` family: one run is ``out = a @ b`` over
    the family's inputs (``(count, M, K)``, or ``(count, K, M)`` read transposed for layout
    "t"), through ``gemm`` as ruda.matmul calls it, on the stream the CUDA events time."""
    count, M, N, _ = key.shape
    a = arrays["a"].mT if key.layout[0] == "t" else arrays["a"]
    b = arrays["b"].mT if key.layout[1] == "t" else arrays["b"]
    y = arrays["out"].reshape((count, M, N))
    return lambda: gemm(a, b, y.dtype, y)


tuning.register_vendor("cuda", "cublas", _tuning_candidate)


def matmul(a: CudaArray, b: CudaArray, out: CudaArray | None = None) -> CudaArray:
    """NumPy's matmul (1-D operands promoted and their dimension removed; stacks broadcast)."""
    ctx = same_ctx("matmul", a, b)
    r = result_dtype("matmul", a.dtype, b.dtype)
    if not cublas_multiplies(r):  # integers and bool: the tiled kernel
        return PRODUCTS.tiled_matmul(a, b, out)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must be at least 1-D")
    a1, b1 = a.ndim == 1, b.ndim == 1
    if a1:
        a = a.view_of(a.offset, (1, a.shape[0]), (0, a._strides[0]))
    if b1:
        b = b.view_of(b.offset, (b.shape[0], 1), (b._strides[0], 0))
    M, K = a.shape[-2:]
    if b.shape[-2] != K:
        raise ValueError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature (n?,k),(k,m?)->(n?,m?) (size {b.shape[-2]} is different from {K})"
        )
    N = b.shape[-1]
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    y = new(ctx, (*batch, M, N), r)
    algo = _algorithm(ctx, a, b, r, batch) if K and y.size else None
    if algo == "tiled" and _indexable(a, b, y):
        Products.gemm(PRODUCTS, a, b, r, y)  # the shared tiled path, not CudaProducts' cuBLAS
    else:
        gemm(a, b, r, y)
    shape = (*batch, *(() if a1 else (M,)), *(() if b1 else (N,)))
    y = y.reshape(shape) if shape != y.shape else y
    if out is not None:
        if out.shape != y.shape:
            raise ValueError(f"matmul: out has shape {out.shape}, the result {y.shape}")
        copy_into(out, y)
        return out
    return y


def vecdot(a: CudaArray, b: CudaArray, axis: int = -1) -> CudaArray:
    """The standard's vecdot: sum over ``axis`` of conj(a) * b, other dimensions broadcast."""
    ctx = same_ctx("vecdot", a, b)
    r = result_dtype("vecdot", a.dtype, b.dtype)
    nd = max(a.ndim, b.ndim)
    ax = axis % nd
    views = []
    for x in (a, b):
        pad = nd - x.ndim
        x = x.view_of(x.offset, (1,) * pad + x.shape, (0,) * pad + x._strides)
        x, _ = moved_last(x, [ax])
        views.append(x)
    a, b = views
    if kind_of(r) in "biu":  # cuBLAS has no integer GEMM: multiply, then ruda's sum kernel
        from .reductions import LIBRARY as _red

        p = _ops.apply(OPS["multiply"], (a, b))
        return _red["sum"](p, axis=p.ndim - 1, dtype=r)
    if kind_of(r) == "c" and kind_of(a.dtype) == "c":
        a = conj_(fresh(a, r))
    out_shape = tuple(np.broadcast_shapes(a.shape[:-1], b.shape[:-1]))
    k = a.shape[-1]
    av = a.view_of(a.offset, (*a.shape[:-1], 1, k), (*a._strides[:-1], 0, a._strides[-1]))
    bv = b.view_of(b.offset, (*b.shape[:-1], k, 1), (*b._strides[:-1], b._strides[-1], 0))
    y = new(ctx, (*out_shape, 1, 1), r)
    gemm(av, bv, r, y)
    return y.reshape(out_shape)


def _matrix(x: CudaArray, rows: int, cols: int) -> CudaArray:
    x = contiguous(x)
    return x.reshape((rows, cols))


def tensordot(a: CudaArray, b: CudaArray, axes: Any = 2) -> CudaArray:
    """Contract ``axes`` of ``a`` and ``b`` with one GEMM (the operands permuted and flattened)."""
    same_ctx("tensordot", a, b)
    if isinstance(axes, int):
        ax_a = list(range(a.ndim - axes, a.ndim))
        ax_b = list(range(axes))
    else:
        ax_a = [int(i) % a.ndim for i in axes[0]]
        ax_b = [int(i) % b.ndim for i in axes[1]]
    if any(a.shape[i] != b.shape[j] for i, j in zip(ax_a, ax_b, strict=True)):
        raise ValueError("tensordot: shape-mismatch for sum")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    k = math.prod(a.shape[i] for i in ax_a)
    m = math.prod(a.shape[i] for i in free_a)
    n = math.prod(b.shape[i] for i in free_b)
    am = _matrix(a.transpose(tuple(free_a + ax_a)), m, k)
    bm = _matrix(b.transpose(tuple(ax_b + free_b)), k, n)
    y = matmul(am, bm)
    return y.reshape(tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


# -- the shared Products (library_products' entries), their products on cuBLAS -----------------
_INDEX_LIMIT = 1 << 32  # the tiled kernel's indices are 32-bit, from the allocation's start


def _end(x: Any) -> int:
    """One past the last element ``x`` reaches, counted from its allocation's start."""
    return span(x.offset, x.shape, x._strides, x.itemsize)[1] // x.itemsize


class CudaProducts(Products):
    """``Products`` whose floating-point products run on cuBLAS."""

    def gemm(self, a: Any, b: Any, out_dtype: Any = None, out: Any = None) -> Any:
        """``a @ b`` for stacks (see ``Products.gemm``): cuBLAS for its dtypes, else (integers,
        bool) the tiled kernel."""
        r = (
            np.dtype(out_dtype)
            if out_dtype is not None
            else products_result_dtype(a.dtype, b.dtype)
        )
        shape = (*np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), a.shape[-2], b.shape[-1])
        if not cublas_multiplies(r):
            ends = [_end(x) for x in (a, b, out) if x is not None and x.size]
            if max([math.prod(shape), *ends]) >= _INDEX_LIMIT:
                raise NotImplementedError(
                    f"ruda.matmul: {r} products over 2**32 elements are not implemented on "
                    "cuda (the tiled kernel indexes with 32 bits)"
                )
            return super().gemm(a, b, r, out)
        y = new(a.ctx, shape, r) if out is None else out
        gemm(a, b, r, y)
        return y

    def matmul(self, a: Any, b: Any, out: Any = None, **kwargs: Any) -> Any:
        """cuda's matmul entry (``matmul`` above), which dot and multi_dot call."""
        if kwargs:
            return super().matmul(a, b, out, **kwargs)  # raises, naming the keywords
        return matmul(a, b, out)

    def tiled_matmul(self, a: Any, b: Any, out: Any = None) -> Any:
        """NumPy's matmul through ``gemm`` (the shared ``Products.matmul``: 1-D operands,
        broadcast stacks, ``out=``): ``matmul`` above sends integers and bool here."""
        return super().matmul(a, b, out)

    def tensordot(self, a: Any, b: Any, axes: Any = 2) -> Any:
        """cuda's tensordot entry (``tensordot`` above), which dot and inner call."""
        return tensordot(a, b, axes)


PRODUCTS = CudaProducts(_ops.OPS, REDUCTIONS)
LIBRARY: dict[str, Any] = {"matmul": matmul, "vecdot": vecdot, "tensordot": tensordot}
__all__ = ["LIBRARY", "PRODUCTS", "TF32", "CudaProducts", "contiguous", "copy_into",
           "cublas_multiplies", "fresh", "gemm", "matmul", "matmul_key", "new", "real_view",
           "tensordot", "upload", "vecdot"]  # fmt: skip
