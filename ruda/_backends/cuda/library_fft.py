"""Discrete Fourier transforms on cuda through cuFFT: fft, ifft, rfft, irfft, hfft, ihfft and
the n-D forms fftn, ifftn, rfftn, irfftn (fft2 & co. reach these through the namespace).

The transformed axes are moved last and copied (cropped or zero-padded to the lengths asked
for) into a fresh contiguous buffer, which cuFFT transforms in place (complex-to-complex, up to
3 axes in one plan) or into a new buffer (real-to-complex, complex-to-real, along one axis); the
result is copied back into the input's axis order and scaled by ``norm`` with ruda's multiply
kernel. Plans (``cupy.cuda.cufft.PlanNd``) are cached per device, kind, lengths and batch.
The n-D real transforms follow NumPy's definition: rfftn is rfft along the last axis then fft
along the others; irfftn is ifft along the others then irfft along the last.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..._dtypes import kind_of
from .array import CudaArray
from .library_blas import conj_, contiguous, copy_into, fresh, moved_last, new, on, scale_, zero

# cufftType values (cufft.h) and directions.
_C2C = {"complex64": 0x29, "complex128": 0x69}
_R2C = {"float32": 0x2A, "float64": 0x6A}
_C2R = {"float32": 0x2C, "float64": 0x6C}
_FORWARD, _INVERSE = -1, 1
_PLANS: dict[tuple[Any, ...], Any] = {}
_PLAN_LIMIT = 64


def _types(dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    """(complex, real) working dtypes: single precision stays single, the rest is double."""
    if dtype.name in ("float16", "bfloat16", "float32", "complex64"):
        return np.dtype(np.complex64), np.dtype(np.float32)
    return np.dtype(np.complex128), np.dtype(np.float64)


def _plan(ctx: Any, kind: int, lengths: tuple[int, ...], batch: int) -> Any:
    """A cached cuFFT plan over the trailing ``lengths`` of a dense stack of ``batch``."""
    key = (ctx.index, kind, lengths, batch)
    p = _PLANS.get(key)
    if p is None:
        from cupy.cuda import cufft

        with on(ctx):
            p = cufft.PlanNd(list(lengths), None, 1, 0, None, 1, 0, kind, batch, "C", -1, None)
        if len(_PLANS) >= _PLAN_LIMIT:
            _PLANS.clear()
        _PLANS[key] = p
    return p


def _run(plan: Any, src: CudaArray, dst: CudaArray, direction: int) -> None:
    # PlanNd.fft reads ``.data.ptr`` of its operands and runs on the current stream.
    with on(src.ctx):
        plan.fft(SimpleNamespace(data=SimpleNamespace(ptr=src.ptr)),
                 SimpleNamespace(data=SimpleNamespace(ptr=dst.ptr)), direction)  # fmt: skip


def _padded(x: CudaArray, lengths: list[int], dtype: np.dtype) -> CudaArray:
    """A fresh contiguous (..., *lengths) of ``dtype`` holding ``x``'s trailing axes cropped or
    zero-padded to ``lengths``."""
    k = len(lengths)
    have = x.shape[x.ndim - k :]
    y = new(x.ctx, (*x.shape[: x.ndim - k], *lengths), dtype)
    if any(n > m for n, m in zip(lengths, have, strict=True)):
        zero(y)
    region = (Ellipsis, *(slice(0, min(n, m)) for n, m in zip(lengths, have, strict=True)))
    if y.size:
        copy_into(y[region], x[region])
    return y


def _back(y: CudaArray, inverse: tuple[int, ...]) -> CudaArray:
    """``y`` with its axes put back in the input's order (contiguous)."""
    if list(inverse) == list(range(y.ndim)):
        return y
    return contiguous(y.transpose(inverse))


def _c2c(x: CudaArray, axes: list[int], lengths: list[int], inverse: bool) -> CudaArray:
    """The unnormalized complex transform of ``x`` over ``axes`` (lengths ``lengths``)."""
    c, _ = _types(x.dtype)
    if not axes:
        return fresh(x, c)
    if len(axes) > 3 or len(set(axes)) != len(axes):  # one axis at a time, as NumPy does
        for ax, n in reversed(list(zip(axes, lengths, strict=True))):
            x = _c2c(x, [ax], [n], inverse)
        return x
    xt, inv = moved_last(x, axes)
    buf = _padded(xt, lengths, c)
    if buf.size:
        batch = buf.size // math.prod(lengths)
        _run(_plan(x.ctx, _C2C[c.name], tuple(lengths), batch), buf, buf,
             _INVERSE if inverse else _FORWARD)  # fmt: skip
    return _back(buf, inv)


def _r2c(x: CudaArray, axis: int, n: int) -> CudaArray:
    """The unnormalized rfft of real ``x`` along ``axis`` (length ``n``)."""
    c, r = _types(x.dtype)
    xt, inv = moved_last(x, [axis])
    buf = _padded(xt, [n], r)
    out = new(x.ctx, (*buf.shape[:-1], n // 2 + 1), c)
    if out.size:
        _run(_plan(x.ctx, _R2C[r.name], (n,), out.size // out.shape[-1]), buf, out, _FORWARD)
    return _back(out, inv)


def _c2r(x: CudaArray, axis: int, n: int) -> CudaArray:
    """The unnormalized irfft of ``x`` along ``axis`` to ``n`` real points."""
    c, r = _types(x.dtype)
    xt, inv = moved_last(x, [axis])
    buf = _padded(xt, [n // 2 + 1], c)  # a fresh copy: C2R overwrites its input
    out = new(x.ctx, (*buf.shape[:-1], n), r)
    if out.size:
        _run(_plan(x.ctx, _C2R[r.name], (n,), out.size // n), buf, out, _INVERSE)
    return _back(out, inv)


def _normalize(y: CudaArray, total: int, norm: str, inverse: bool) -> CudaArray:
    if norm == "ortho":
        return scale_(y, 1.0 / math.sqrt(total)) if total else y
    if (norm == "forward") != inverse:  # forward-normalized forward, or backward inverse
        return scale_(y, 1.0 / total) if total else y
    return y


_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# -- the ops (argument conventions of the CPU rows: numpy.fft's) ----------------------------------
def _one(inverse: bool) -> Any:
    def f(x: CudaArray, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
        axis %= x.ndim
        n = x.shape[axis] if n is None else int(n)
        return _normalize(_c2c(x, [axis], [n], inverse), n, norm or "backward", inverse)

    return f


def rfft(x: CudaArray, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    if kind_of(x.dtype) == "c":
        raise TypeError("ruda.fft.rfft: x must be real, got a complex array")
    axis %= x.ndim
    n = x.shape[axis] if n is None else int(n)
    return _normalize(_r2c(x, axis, n), n, norm or "backward", False)


def irfft(x: CudaArray, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    axis %= x.ndim
    n = 2 * (x.shape[axis] - 1) if n is None else int(n)
    return _normalize(_c2r(x, axis, n), n, norm or "backward", True)


def hfft(x: CudaArray, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    xc = conj_(fresh(x, _types(x.dtype)[0]))
    return irfft(xc, n, axis, _SWAP[norm or "backward"])


def ihfft(x: CudaArray, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    return conj_(rfft(x, n, axis, _SWAP[norm or "backward"]))


def _axes(x: CudaArray, s: Any, axes: Any) -> tuple[list[int], list[int] | None]:
    if axes is None:
        axes = list(range(x.ndim - len(s), x.ndim)) if s is not None else list(range(x.ndim))
    return [int(a) % x.ndim for a in axes], (None if s is None else [int(v) for v in s])


def _many(inverse: bool) -> Any:
    def f(x: CudaArray, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
        ax, s = _axes(x, s, axes)
        lengths = [x.shape[a] for a in ax] if s is None else s
        y = _c2c(x, ax, lengths, inverse)
        return _normalize(y, math.prod(lengths), norm or "backward", inverse)

    return f


def rfftn(x: CudaArray, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
    if kind_of(x.dtype) == "c":
        raise TypeError("ruda.fft.rfftn: x must be real, got a complex array")
    ax, s = _axes(x, s, axes)
    lengths = [x.shape[a] for a in ax] if s is None else s
    y = _r2c(x, ax[-1], lengths[-1])
    y = _c2c(y, ax[:-1], lengths[:-1], False) if len(ax) > 1 else y
    return _normalize(y, math.prod(lengths), norm or "backward", False)


def irfftn(x: CudaArray, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
    ax, s = _axes(x, s, axes)
    if s is None:
        lengths = [x.shape[a] for a in ax[:-1]] + [2 * (x.shape[ax[-1]] - 1)]
    else:
        lengths = s
    y = _c2c(x, ax[:-1], lengths[:-1], True) if len(ax) > 1 else x
    y = _c2r(y, ax[-1], lengths[-1])
    return _normalize(y, math.prod(lengths), norm or "backward", True)


LIBRARY: dict[str, Any] = {
    "fft.fft": _one(False), "fft.ifft": _one(True), "fft.rfft": rfft, "fft.irfft": irfft,
    "fft.hfft": hfft, "fft.ihfft": ihfft, "fft.fftn": _many(False), "fft.ifftn": _many(True),
    "fft.rfftn": rfftn, "fft.irfftn": irfftn,
}  # fmt: skip
__all__ = ["LIBRARY", "hfft", "ihfft", "irfft", "irfftn", "rfft", "rfftn"]
