"""Creation glue of the GPU backends: empty, zeros, ones, full, the *_like forms and arange.

Argument handling (shapes, default dtypes, the device's dtype check, arange's length and
working type) is here; the backend's ``fill`` writes a value's bytes and its ``arange_into``
launches ``start + i * step``.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._dtypes import kind_of
from .views import as_shape


def fill_words(x: Any, value: Any) -> tuple[int, int, int]:
    """(lo, hi, words): ``value``'s bytes in ``x``'s dtype as the u32 words the fill kernel
    writes (``lo`` on even words, ``hi`` on odd ones) over ``x``'s bytes rounded up to words."""
    raw = np.asarray(value, dtype=x.dtype).tobytes()
    if len(raw) == 16 and raw[:8] == raw[8:]:  # complex128 with equal parts (zero): 8 bytes
        raw = raw[:8]
    isz = len(raw)
    word = raw * (4 // isz) if isz < 4 else raw
    lo, hi = struct.unpack("<II", word if isz == 8 else word * 2)
    return lo, hi, (x.nbytes + 3) // 4


def arange_chunks(n: int, chunk: int, work: np.dtype, start: Any, step: Any,
                  second: Any = None) -> Iterator[tuple[int, int, dict[str, Any]]]:  # fmt: skip
    """(first element, count, parameters) of each launch of ``kernels.arange`` filling ``n``
    elements of ``work`` in launches of at most ``chunk``. Floats count the index from the
    array's start (NumPy's ``start + i * delta`` with ``second`` at 1, bit for bit) while it
    fits 32 bits; integers (exact either way) and longer float arrays start each launch at its
    own first value, wrapped to the type."""
    bits = 8 * work.itemsize
    for c0 in range(0, n, chunk):
        m = min(chunk, n - c0)
        if kind_of(work) == "f":
            if n <= 1 << 32:
                sec = start + step if second is None else second
                p = {"base": c0, "start": float(start), "step": float(step), "second": float(sec)}
            else:
                first = start + c0 * step
                p = {"base": 0, "start": float(first), "step": float(step),
                     "second": float(first + step)}  # fmt: skip
        else:
            first = (int(start) + c0 * int(step)) % (1 << bits)
            if kind_of(work) == "i" and first >> (bits - 1):
                first -= 1 << bits
            p = {"base": 0, "start": first, "step": int(step)}
        yield c0, m, p


class CreationOps:
    """The creation functions of a backend; ``GpuOps`` mixes them in."""

    kind = ""

    # -- hooks ---------------------------------------------------------------------------------
    def context_for(self, device: Any = None) -> Any:
        raise NotImplementedError

    def fill(self, x: Any, value: Any) -> Any:
        """Fill a fresh contiguous array (offset 0) with ``value``; returns ``x``."""
        raise NotImplementedError

    def arange_into(self, out: Any, start: Any, step: Any, second: Any = None) -> None:
        """``out[i] = start + i * step`` over the contiguous 1-d ``out`` (a 32/64-bit type);
        a float ``out`` holds ``second`` (default ``start + step``) at index 1."""
        raise NotImplementedError

    def astype(self, x: Any, dtype: Any, copy: bool = True, **_: Any) -> Any:
        raise NotImplementedError

    def assign(self, view: Any, value: Any) -> None:
        """``view[...] = value`` (broadcast, converted)."""
        raise NotImplementedError

    # -- creation --------------------------------------------------------------------------------
    @staticmethod
    def _dtype(ctx: Any, dtype: Any, default: Any, fname: str) -> np.dtype:
        npdt = np.dtype(default) if dtype is None else dt.to_numpy(dtype)
        ctx.check_dtype(npdt, fname)
        return npdt

    def empty(
        self, shape: Any, dtype: Any = None, order: str = "C", *, device: Any = None, **_: Any
    ) -> Any:
        ctx = self.context_for(device)
        return ctx.allocator.empty(as_shape(shape), self._dtype(ctx, dtype, np.float64, "empty"))

    def full(self, shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", *,
             device: Any = None, **_: Any) -> Any:  # fmt: skip
        ctx = self.context_for(device)
        if isinstance(fill_value, self.native):  # type: ignore[attr-defined]
            if fill_value.ndim:
                raise NotImplementedError(
                    f"full with an array fill_value is not implemented on {self.kind} yet"
                )
            fill_value = fill_value.to_host()[()]
        default = np.asarray(fill_value).dtype if dtype is None else None
        npdt = self._dtype(ctx, dtype, default, "full")
        out = ctx.allocator.empty(as_shape(shape), npdt)
        value = np.asarray(fill_value, dtype=npdt)
        if npdt.itemsize > 8 and value.real != value.imag:  # a 16-byte pattern: broadcast copy
            self.assign(out, value[()])
            return out
        return self.fill(out, fill_value)

    def zeros(
        self, shape: Any, dtype: Any = None, order: str = "C", *, device: Any = None, **_: Any
    ) -> Any:
        return self.full(shape, 0, np.float64 if dtype is None else dtype, device=device)

    def ones(
        self, shape: Any, dtype: Any = None, order: str = "C", *, device: Any = None, **_: Any
    ) -> Any:
        return self.full(shape, 1, np.float64 if dtype is None else dtype, device=device)

    def like(self, name: str) -> Callable[..., Any]:
        """``{name}_like``: the shape and dtype of ``x`` unless given, on ``x``'s device."""

        def fn(x: Any, *fill_value: Any, dtype: Any = None, order: str = "K", shape: Any = None,
               **_: Any) -> Any:  # fmt: skip
            shp = x.shape if shape is None else shape
            npdt = x.dtype if dtype is None else dtype
            if name == "empty":
                return self.empty(shp, npdt, device=x)
            if name == "full":
                return self.full(shp, fill_value[0], npdt, device=x)
            return self.full(shp, 0 if name == "zeros" else 1, npdt, device=x)

        fn.__name__ = f"{name}_like"
        return fn

    def arange(self, start: Any, stop: Any = None, step: Any = 1, *, dtype: Any = None,
               device: Any = None, **_: Any) -> Any:  # fmt: skip
        ctx = self.context_for(device)
        if stop is None:
            start, stop = 0, start
        npdt = self._dtype(ctx, dtype, np.result_type(start, stop, step), "arange")
        if (
            kind_of(npdt) == "c"
        ):  # real arguments (the namespace's check): NumPy's real fill, widened
            part = np.dtype(np.float32 if npdt == np.complex64 else np.float64)
            return self.astype(self.arange(start, stop, step, dtype=part, device=device), npdt)
        if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
            n = len(range(int(start), int(stop), int(step)))
        else:
            n = max(0, math.ceil((stop - start) / step))
        # 8- and 16-bit types (and float16, stored as bits) are computed in 32 bits, then converted.
        if npdt.itemsize >= 4 and kind_of(npdt) != "b":
            work = npdt
        else:
            work = np.dtype(np.float32 if kind_of(npdt) == "f" else np.int32)
        out = ctx.allocator.empty((n,), work)
        second = None
        if kind_of(work) == "u":  # unsigned arithmetic wraps: a negative step works modulo 2^bits
            mod = 1 << (8 * work.itemsize)
            start, step = int(start) % mod, int(step) % mod
        elif kind_of(npdt) == "f":
            # NumPy's fill: its first two values in the result dtype, then start + i * delta
            # with delta = second - start, in the working type (float16's fill is in float32)
            first, second = npdt.type(start), npdt.type(start + step)
            start, second = work.type(first), work.type(second)
            step = second - start
        if n:
            self.arange_into(out, start, step, second)
        return out if work == npdt else self.astype(out, npdt)

    def creation(self) -> dict[str, Callable[..., Any]]:
        """The creation functions by op name."""
        return {
            "empty": self.empty, "zeros": self.zeros, "ones": self.ones, "full": self.full,
            "empty_like": self.like("empty"), "zeros_like": self.like("zeros"),
            "ones_like": self.like("ones"), "full_like": self.like("full"), "arange": self.arange,
        }  # fmt: skip


__all__ = ["CreationOps", "fill_words"]
