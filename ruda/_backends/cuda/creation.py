"""Creation on cuda devices: empty, zeros, ones, full, the *_like forms and arange.

``full`` writes the value's bytes with the word-fill kernel (zero bytes: the driver's memset);
``arange`` runs the IR kernel ``start + i * step`` in a 32- or 64-bit type, then converts.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._kernels import ir
from ..wgpu import kernels
from . import launcher as _launcher
from .array import CudaArray
from .ops import astype, context_for


def _dtype(ctx: Any, dtype: Any, default: Any, fname: str) -> np.dtype:
    npdt = np.dtype(default) if dtype is None else dt.to_numpy(dtype)
    ctx.check_dtype(npdt, fname)
    return npdt


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def fill(x: CudaArray, value: Any) -> CudaArray:
    """Fill a fresh contiguous array (offset 0) with ``value``: its bytes, as u32 words."""
    if x.size == 0:
        return x
    ctx = x.ctx
    raw = np.asarray(value, dtype=x.dtype).tobytes()
    if not any(raw):
        x.mem.memset_async(0, x.nbytes, ctx.allocator.stream())
        return x
    isz = len(raw)
    word = raw * (4 // isz) if isz < 4 else raw
    lo, hi = struct.unpack("<II", word if isz == 8 else word * 2)
    nwords = (x.nbytes + 3) // 4  # the allocator rounds sizes up to 8 bytes
    prog = ctx.compiler.program(kernels.fill_words())
    chunk = _launcher.CHUNK & ~1  # even: lo/hi stay on even/odd words
    for start in range(0, nwords, chunk):
        m = min(chunk, nwords - start)
        ctx.launcher.launch(prog, [x.mem.ptr + 4 * start], {"n": m, "lo": lo, "hi": hi}, m)
    return x


def empty(
    shape: Any, dtype: Any = None, order: str = "C", *, device: Any = None, **_: Any
) -> CudaArray:
    ctx = context_for(device)
    return ctx.allocator.empty(_shape(shape), _dtype(ctx, dtype, np.float64, "empty"))


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", *, device: Any = None,
         **_: Any) -> CudaArray:  # fmt: skip
    ctx = context_for(device)
    if isinstance(fill_value, CudaArray):
        if fill_value.ndim:
            raise NotImplementedError("full with an array fill_value is not implemented on cuda")
        fill_value = fill_value.to_host()[()]
    default = np.asarray(fill_value).dtype if dtype is None else None
    npdt = _dtype(ctx, dtype, default, "full")
    return fill(ctx.allocator.empty(_shape(shape), npdt), fill_value)


def zeros(
    shape: Any, dtype: Any = None, order: str = "C", *, device: Any = None, **_: Any
) -> CudaArray:
    return full(shape, 0, np.float64 if dtype is None else dtype, device=device)


def ones(
    shape: Any, dtype: Any = None, order: str = "C", *, device: Any = None, **_: Any
) -> CudaArray:
    return full(shape, 1, np.float64 if dtype is None else dtype, device=device)


def like(name: str) -> Callable[..., CudaArray]:
    def fn(x: CudaArray, *fill_value: Any, dtype: Any = None, order: str = "K", shape: Any = None,
           **_: Any) -> CudaArray:  # fmt: skip
        shp = x.shape if shape is None else shape
        npdt = x.dtype if dtype is None else dtype
        if name == "empty":
            return empty(shp, npdt, device=x)
        if name == "full":
            return full(shp, fill_value[0], npdt, device=x)
        return full(shp, 0 if name == "zeros" else 1, npdt, device=x)

    fn.__name__ = f"{name}_like"
    return fn


def arange(start: Any, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None,
           **_: Any) -> CudaArray:  # fmt: skip
    ctx = context_for(device)
    if stop is None:
        start, stop = 0, start
    npdt = _dtype(ctx, dtype, np.result_type(start, stop, step), "arange")
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        n = len(range(int(start), int(stop), int(step)))
    else:
        n = max(0, math.ceil((stop - start) / step))
    # 8- and 16-bit types (and float16, stored as bits) are computed in 32 bits, then converted.
    if npdt.itemsize >= 4 and npdt.kind != "b":
        work = npdt
    else:
        work = np.dtype(np.float32 if npdt.kind == "f" else np.int32)
    out = ctx.allocator.empty((n,), work)
    if n:
        t = ir.type_of(work)
        prog = ctx.compiler.program(kernels.arange(t))
        chunk = _launcher.CHUNK
        for c0 in range(0, n, chunk):
            m = min(chunk, n - c0)
            first, delta = start + c0 * step, step
            if work.kind == "u":  # unsigned arithmetic wraps: negative steps work modulo 2^bits
                first, delta = int(first) % (1 << t.bits), int(delta) % (1 << t.bits)
            elif work.kind == "f":
                first, delta = float(first), float(delta)
            else:
                first, delta = int(first), int(delta)
            params = {"n": m, "start": first, "step": delta}
            ctx.launcher.launch(prog, [out.ptr + c0 * work.itemsize], params, m)
    return out if work == npdt else astype(out, npdt)
