"""The discrete Fourier transforms on a GPU backend through ruda's own kernels
(``ruda._kernels.fft``: Stockham radix 4/2 passes, a one-dispatch workgroup-memory transform
for short rows, Bluestein's chirp-z for every other length).

Each transformed axis is moved last and copied (cropped or zero-padded to the length asked
for, converted to the working complex dtype) into a dense ``[rows, n]`` buffer; that copy is
skipped when the input is already such a buffer. Rows are transformed together, the norm is
folded into the last kernel, and the result keeps the moved layout until the end (one copy
back into C order). Twiddle and chirp tables are computed in double precision once per
(device, n, dtype) and uploaded (device sin/cos are too coarse for an FFT); Bluestein's filter
spectrum is computed on the device by the same passes and cached with them.
Real transforms use the complex transform: rfft crops its output to n//2 + 1 terms, irfft
rebuilds the Hermitian-symmetric spectrum on the device first. The n-D real transforms follow
NumPy: rfftn is rfft along the last axis then fft along the others; irfftn the reverse.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._dtypes import kind_of
from ..._kernels import ir
from ..._kernels.fft import bluestein as kb
from ..._kernels.fft import stockham as kf
from ..._kernels.reduce import Launch, Plan, _cdiv
from ..._kernels.tune import engine as tune
from .manipulation import Manipulation
from .operands import typed

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_TABLE_LIMIT = 64


def working_types(dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    """(complex, real) working dtypes: single precision stays single, the rest is double."""
    if dtype.name in ("float16", "bfloat16", "float32", "complex64"):
        return np.dtype(np.complex64), np.dtype(np.float32)
    return np.dtype(np.complex128), np.dtype(np.float64)


def norm_factor(norm: str | None, total: int, inverse: bool) -> float:
    """The factor ``norm`` puts on a transform over ``total`` points."""
    norm = norm or "backward"
    if norm == "ortho":
        return 1.0 / math.sqrt(total)
    return 1.0 / total if (norm == "forward") != inverse else 1.0


def bluestein_length(n: int) -> int:
    """The power-of-two convolution length for an ``n``-point Bluestein transform."""
    return 1 << (2 * n - 2).bit_length()


class Fft:
    """The FFT ops of one backend (its ``GpuOps``)."""

    def __init__(self, ops: Any) -> None:
        self.ops = ops
        self.roll = Manipulation(ops).roll
        self._tables: dict[tuple[Any, ...], Any] = {}
        self._decided = tune.hot_memo()  # (type, rows, n, ctx) -> one dispatch or passes
        kf.register_tuning()

    # -- tables (per device, length and dtype) ------------------------------------------------
    def _table(self, ctx: Any, what: str, n: int, c: np.dtype, inverse: bool = False) -> Any:
        key = (id(ctx), what, n, c.name, inverse)
        hit = self._tables.get(key)
        if hit is not None:
            return hit
        if len(self._tables) >= _TABLE_LIMIT:
            self._tables.clear()
        if what == "twiddle":  # w^t, w = exp(-2 pi i / n)
            host = np.exp(-2j * np.pi * (np.arange(n) / n))
            arr = ctx.allocator.from_host(host.astype(c))
        elif what == "chirp":  # exp(-pi i j^2 / n), j^2 reduced mod 2n exactly
            j = np.arange(n, dtype=np.int64)
            arr = ctx.allocator.from_host(np.exp(-1j * np.pi * ((j * j) % (2 * n)) / n).astype(c))
        else:  # the spectrum of Bluestein's convolution filter, on the device
            m = bluestein_length(n)
            f = ctx.allocator.empty((m,), c)
            t = ir.type_of(c)
            self._run(ctx, [Launch(kb.build_filter(t, inverse), ("chirp", "dst"), (m, n, m),
                                   _cdiv(m, kf.WORKGROUP))],
                      {"chirp": self._table(ctx, "chirp", n, c), "dst": f})  # fmt: skip
            arr = self._pow2(ctx, f, 1, m, False, 1.0)
        self._tables[key] = arr
        return arr

    def _run(self, ctx: Any, launches: list[Launch], arrays: dict[str, Any]) -> None:
        p = Plan()
        p.launches.extend(launches)
        self.ops.run_plan(ctx, p, arrays)

    # -- rows of a dense [rows, n] buffer ------------------------------------------------------
    def local(self, ctx: Any, t: ir.Type, rows: int, n: int) -> bool:
        """Whether rows of ``n`` run in one dispatch (workgroup memory): a stored tuning
        decision for ``fft.stockham``, else whenever they fit."""
        hk = (t, rows, n, ctx)
        v = self._decided.get(hk)
        if v is None:
            if len(self._decided) > 4096:
                self._decided.clear()
            key = tune.Key("fft", (t.name, t.name), "rows", (rows, n))
            d = self.ops.tuner.decision("fft.stockham", key, ctx)
            v = self._decided[hk] = n <= kf.local_max(t) if d is None else bool(d["local"])
        return v

    def _pow2(self, ctx: Any, src: Any, rows: int, n: int, inverse: bool, scale: float) -> Any:
        """A new dense ``[rows * n]``: the transform of each row of ``src`` (n a power of 2)."""
        c = src.dtype
        t = ir.type_of(c)
        local = self.local(ctx, t, rows, n)
        out = ctx.allocator.empty((rows * n,), c)
        arrays = {"x": src.reshape(-1), "tw": self._table(ctx, "twiddle", n, c), "out": out}
        if not local and n >= 8:  # two passes or more: a ping-pong buffer
            arrays["tmp"] = ctx.allocator.empty((rows * n,), c)
        self.ops.run_plan(ctx, kf.plan(t, rows, n, inverse, local, scale), arrays)
        return out

    def _bluestein(self, ctx: Any, src: Any, rows: int, n: int, inverse: bool,
                   scale: float) -> Any:  # fmt: skip
        c = src.dtype
        t = ir.type_of(c)
        m = bluestein_length(n)
        chirp = self._table(ctx, "chirp", n, c)
        a = ctx.allocator.empty((rows * m,), c)
        self._run(ctx, [Launch(kb.build_chirp_in(t, inverse), ("src", "chirp", "a"),
                               (rows * m, n, m), _cdiv(rows * m, kf.WORKGROUP))],
                  {"src": src.reshape(-1), "chirp": chirp, "a": a})  # fmt: skip
        spec = self._pow2(ctx, a, rows, m, False, 1.0)
        self._run(ctx, [Launch(kb.build_pointwise(t), ("a", "f"), (rows * m, m),
                               _cdiv(rows * m, kf.WORKGROUP))],
                  {"a": spec, "f": self._table(ctx, "filter", n, c, inverse)})  # fmt: skip
        conv = self._pow2(ctx, spec, rows, m, True, 1.0)
        out = ctx.allocator.empty((rows * n,), c)
        self._run(ctx, [Launch(kb.build_chirp_out(t, inverse), ("src", "chirp", "dst"),
                               (rows * n, n, m, scale / m), _cdiv(rows * n, kf.WORKGROUP))],
                  {"src": conv, "chirp": chirp, "dst": out})  # fmt: skip
        return out

    def _rows(self, y: Any, inverse: bool, scale: float, name: str) -> Any:
        """The transform of each row (last axis) of the dense ``y``, as a new array."""
        ctx, n = y.ctx, y.shape[-1]
        rows = y.size // n
        wide = n if n & (n - 1) == 0 else bluestein_length(n)  # Bluestein's rows are longer
        self._check_size(ctx, rows * wide, y, name)
        if rows == 0:
            return ctx.allocator.empty(y.shape, y.dtype)
        if n == 1:
            return self.ops.apply(_op("multiply"), (y, typed(scale, y)))
        if n & (n - 1) == 0:
            out = self._pow2(ctx, y, rows, n, inverse, scale)
        else:
            out = self._bluestein(ctx, y, rows, n, inverse, scale)
        return out.reshape(y.shape)

    @staticmethod
    def _check_size(ctx: Any, count: int, y: Any, name: str) -> None:
        limit = getattr(ctx, "max_binding", None)
        if limit is not None and count * y.dtype.itemsize > limit:
            raise NotImplementedError(
                f"ruda.{name}: a transform over {y.size} {y.dtype} elements needs buffers "
                f"beyond the largest binding of {ctx.name} ({limit} bytes)"
            )

    # -- layout: the transformed axis last, cropped or padded ---------------------------------
    def _padded(self, x: Any, axis: int, n: int, dtype: np.dtype) -> tuple[Any, list[int]]:
        """(a dense ``[..., n]`` of ``dtype`` holding ``x`` with ``axis`` moved last, cropped or
        zero-padded to ``n``; the permutation applied)."""
        nd = x.ndim
        perm = [d for d in range(nd) if d != axis] + [axis]
        xt = x.transpose(tuple(perm)) if axis != nd - 1 else x
        m = xt.shape[-1]
        if n == m and xt.dtype == dtype and self.ops.plan_ready(xt):
            return xt, perm
        y = x.ctx.allocator.empty((*xt.shape[:-1], n), dtype)
        if n > m and y.size:
            self.ops.fill(y, 0)
        k = min(n, m)
        if y.size and k:
            self.ops.assign(y[..., :k], xt[..., :k])
        return y, perm

    @staticmethod
    def _back(y: Any, perm: list[int]) -> Any:
        """``y`` (axes in ``perm``'s order) as a view in the original axis order."""
        if perm == list(range(len(perm))):
            return y
        return y.transpose(tuple(int(i) for i in np.argsort(perm)))

    def _dense(self, y: Any) -> Any:
        return y if y.is_contiguous else self.ops.copy(y)

    def _c2c(self, x: Any, axes: list[int], lengths: list[int], inverse: bool, scale: float,
             name: str) -> Any:  # fmt: skip
        """The complex transform over ``axes`` (one at a time, the last first, as NumPy)."""
        c, _ = working_types(x.dtype)
        x.ctx.check_dtype(c, name)
        if not axes:
            return self.ops.astype(x, c)
        for ax, n in reversed(list(zip(axes, lengths, strict=True))):
            y, perm = self._padded(x, ax, n, c)
            x = self._back(self._rows(y, inverse, scale, name), perm)
            scale = 1.0
        return x

    # -- the ops (argument conventions of the CPU rows: numpy.fft's) -------------------------
    def _one(self, name: str, inverse: bool) -> Any:
        def f(x: Any, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
            axis %= x.ndim
            n = _length(x, axis, n, name)
            y = self._c2c(x, [axis], [n], inverse, norm_factor(norm, n, inverse), name)
            return self._dense(y)

        return f

    def _r2c(self, x: Any, axis: int, n: int, scale: float, name: str) -> Any:
        """The first n//2 + 1 terms of the transform of real ``x`` along ``axis`` (a view)."""
        if kind_of(x.dtype) == "c":
            raise TypeError(f"ruda.{name}: x must be real, got a complex array ({x.dtype})")
        c, _ = working_types(x.dtype)
        x.ctx.check_dtype(c, name)
        y, perm = self._padded(x, axis, n, c)
        full = self._rows(y, False, scale, name)
        return self._back(self.ops.copy(full[..., : n // 2 + 1]), perm)

    def _c2r(self, x: Any, axis: int, n: int, scale: float, name: str) -> Any:
        """The ``n`` real points whose half spectrum is ``x`` along ``axis`` (a view)."""
        c, r = working_types(x.dtype)
        x.ctx.check_dtype(c, name)
        h = min(x.shape[axis], n // 2 + 1)
        y, perm = self._padded(x, axis, h, c)
        full = x.ctx.allocator.empty((*y.shape[:-1], n), c)
        if full.size and h:  # the Hermitian-symmetric full spectrum
            self._run(x.ctx, [Launch(kb.build_hermitian(ir.type_of(c)), ("src", "dst"),
                                     (full.size, n, h), _cdiv(full.size, kf.WORKGROUP))],
                      {"src": y.reshape(-1), "dst": full})  # fmt: skip
        elif full.size:
            self.ops.fill(full, 0)
        return self._back(self.ops.astype(self._rows(full, True, scale, name), r), perm)

    def rfft(self, x: Any, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
        axis %= x.ndim
        n = _length(x, axis, n, "fft.rfft")
        return self._dense(self._r2c(x, axis, n, norm_factor(norm, n, False), "fft.rfft"))

    def irfft(self, x: Any, n: int | None = None, axis: int = -1, norm: str = "backward",
              *, name: str = "fft.irfft") -> Any:  # fmt: skip
        axis %= x.ndim
        n = 2 * (x.shape[axis] - 1) if n is None else int(n)
        if n < 1:
            raise ValueError(f"ruda.{name}: invalid number of data points ({n}) specified")
        return self._dense(self._c2r(x, axis, n, norm_factor(norm, n, True), name))

    def hfft(self, x: Any, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
        c, _ = working_types(x.dtype)
        x.ctx.check_dtype(c, "fft.hfft")
        xc = self.ops.apply(_op("conj"), (x,)) if kind_of(x.dtype) == "c" else x
        return self.irfft(xc, n, axis, _SWAP[norm or "backward"], name="fft.hfft")

    def ihfft(self, x: Any, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
        axis %= x.ndim
        n = _length(x, axis, n, "fft.ihfft")
        y = self._r2c(x, axis, n, norm_factor(_SWAP[norm or "backward"], n, False), "fft.ihfft")
        return self.ops.apply(_op("conj"), (self._dense(y),))

    def _many(self, name: str, inverse: bool) -> Any:
        def f(x: Any, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
            ax, lengths = _axes(x, s, axes)
            scale = norm_factor(norm, math.prod(lengths), inverse)
            return self._dense(self._c2c(x, ax, lengths, inverse, scale, name))

        return f

    def rfftn(self, x: Any, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
        ax, lengths = _axes(x, s, axes)
        scale = norm_factor(norm, math.prod(lengths), False)
        y = self._r2c(x, ax[-1], lengths[-1], scale, "fft.rfftn")
        if len(ax) > 1:
            y = self._c2c(y, ax[:-1], lengths[:-1], False, 1.0, "fft.rfftn")
        return self._dense(y)

    def irfftn(self, x: Any, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
        ax, lengths = _axes(x, s, axes, real_last=True)
        scale = norm_factor(norm, math.prod(lengths), True)
        y = self._c2c(x, ax[:-1], lengths[:-1], True, 1.0, "fft.irfftn") if len(ax) > 1 else x
        return self._dense(self._c2r(y, ax[-1], lengths[-1], scale, "fft.irfftn"))

    # -- frequencies and shifts ------------------------------------------------------------------
    def _freq(self, name: str, count: int, split: int, n: int, d: float, dtype: Any) -> Any:
        ctx = self.ops.context_for(None)
        npdt = np.dtype(dtype)
        ctx.check_dtype(npdt, name)
        out = ctx.allocator.empty((count,), npdt)
        self._run(ctx, [Launch(kb.build_freq(ir.type_of(npdt)), ("dst",),
                               (count, split, n, 1.0 / (n * d)), _cdiv(count, kf.WORKGROUP))],
                  {"dst": out})  # fmt: skip
        return out

    def fftfreq(self, n: int, d: float = 1.0, dtype: Any = np.float64) -> Any:
        return self._freq("fft.fftfreq", n, (n - 1) // 2 + 1, n, d, dtype)

    def rfftfreq(self, n: int, d: float = 1.0, dtype: Any = np.float64) -> Any:
        return self._freq("fft.rfftfreq", n // 2 + 1, n // 2 + 1, n, d, dtype)

    def _shift(self, x: Any, axes: Any, sign: int) -> Any:
        if axes is None:
            axes = tuple(range(x.ndim))
        elif isinstance(axes, int):
            axes = (axes,)
        if not axes:
            return self.ops.copy(x)
        return self.roll(x, [sign * (x.shape[a] // 2) for a in axes], list(axes))

    def fftshift(self, x: Any, axes: Any = None) -> Any:
        return self._shift(x, axes, 1)

    def ifftshift(self, x: Any, axes: Any = None) -> Any:
        return self._shift(x, axes, -1)

    def library(self) -> dict[str, Any]:
        return {
            "fft.fft": self._one("fft.fft", False), "fft.ifft": self._one("fft.ifft", True),
            "fft.fftn": self._many("fft.fftn", False), "fft.ifftn": self._many("fft.ifftn", True),
            "fft.rfft": self.rfft, "fft.irfft": self.irfft, "fft.hfft": self.hfft,
            "fft.ihfft": self.ihfft, "fft.rfftn": self.rfftn, "fft.irfftn": self.irfftn,
            "fft.fftfreq": self.fftfreq, "fft.rfftfreq": self.rfftfreq,
            "fft.fftshift": self.fftshift, "fft.ifftshift": self.ifftshift,
        }  # fmt: skip


def _op(name: str) -> Any:
    from ..._ops import OPS

    return OPS[name]


def _length(x: Any, axis: int, n: int | None, name: str) -> int:
    n = x.shape[axis] if n is None else int(n)
    if n < 1:
        raise ValueError(f"ruda.{name}: invalid number of data points ({n}) specified")
    return n


def _axes(x: Any, s: Any, axes: Any, real_last: bool = False) -> tuple[list[int], list[int]]:
    """(axes, lengths) of an n-D transform; irfftn's last default length is 2*(m-1)."""
    if axes is None:
        axes = list(range(x.ndim - len(s), x.ndim)) if s is not None else list(range(x.ndim))
    ax = [int(a) % x.ndim for a in axes]
    if s is not None:
        return ax, [int(v) for v in s]
    lengths = [x.shape[a] for a in ax]
    if real_last and ax:
        lengths[-1] = 2 * (lengths[-1] - 1)
    return ax, lengths


__all__ = ["Fft", "bluestein_length", "norm_factor", "working_types"]
