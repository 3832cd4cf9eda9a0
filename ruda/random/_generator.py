"""``Generator`` and ``default_rng``: NumPy's Generator surface over ruda's Philox stream.

Each variate is a fixed function of its own words (see ``_words``), so a stream drawn in one
call equals the same stream drawn in several calls, and every device gives the same values.
Words per value: float64 uniform 2, float32 uniform 1, normals the same in Box-Muller pairs,
integers 2 (a 64-bit word), permutation keys 2, bytes 1 per 4 bytes.
The other distributions (lognormal ... poisson, binomial, multinomial) are the mixin in
``_distributions``, written over these draws.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import MutableSequence
from typing import Any

import numpy as np

from .._array import Array, _wrap
from .._devices import Device, resolve
from .._dtypes import kind_of
from .._validation import as_array, dtype_arg, normalize_axis
from . import _words as W
from ._distributions import _Distributions, _float_dtype, _shape
from ._philox import Philox

__all__ = ["Generator", "default_rng"]

_F32, _F64, _U64, _I64 = (np.dtype(t) for t in (np.float32, np.float64, np.uint64, np.int64))


def _is_scalar(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating))


def _host(native: Any, dev: Device) -> np.ndarray:
    return np.asarray(dev.backend.allocator.to_host(native))


class Generator(_Distributions):
    """Random variates from a ``Philox`` bit generator, as ruda arrays on a device.

    Methods take ``device=`` (default: the device of the array parameters, else the current
    default device); the words, hence the values, do not depend on the device. With
    ``size=None`` and scalar parameters a method returns a NumPy scalar, as NumPy does.

    >>> import ruda as np
    >>> rng = np.random.default_rng(42)
    >>> rng.random(3).shape
    (3,)
    """

    def __init__(self, bit_generator: Philox) -> None:
        if not isinstance(bit_generator, Philox):
            raise TypeError(
                "ruda.random.Generator: bit_generator must be a ruda.random.Philox, "
                f"got {type(bit_generator).__name__}"
            )
        self._bg = bit_generator

    @property
    def bit_generator(self) -> Philox:
        """The ``Philox`` bit generator that feeds this generator."""
        return self._bg

    def __repr__(self) -> str:
        return f"Generator({self._bg!r})"

    # -- plumbing -----------------------------------------------------------------------
    def _draw(self, n: int, per: int, group: int, fn: Any, dev: Device) -> Any:
        """n values made by ``fn(words)`` (``group`` values per ``group*per`` words)."""
        words, skip = self._bg.take(n, per, group, dev)
        vals = fn(words)
        return vals if skip == 0 and vals.shape[0] == n else vals[skip : skip + n]

    def _finish(self, native: Any, shape: tuple[int, ...] | None, dev: Device) -> Any:
        if shape is None:
            # Note: size=None gives a NumPy scalar (host), as NumPy's Generator does.
            return _host(native, dev).reshape(-1)[0]
        if len(shape) == 1 and native.shape == shape:  # the common 1-d case needs no reshape
            return _wrap(native, dev)
        return _wrap(dev._ops["reshape"](native, shape), dev)

    def _params(self, fname: str, size: Any, dtype: Any, device: Any, **params: Any):
        """A float variate's dtype and device, its out shape (None for a scalar result) and its
        parameters as dtype scalars or native arrays."""
        if dtype is not _F64:
            dtype = _float_dtype(dtype, fname)
        # Without device=, array parameters choose it (results live where the inputs do).
        arrays = [v for v in params.values() if isinstance(v, Array)]
        dev = arrays[0]._device if device is None and arrays else resolve(device)
        shape = _shape(size, fname)
        out, shapes = {}, []
        for name, v in params.items():
            if _is_scalar(v):
                out[name] = dtype.type(v)
            else:
                a = as_array(v, fname, name, dev if isinstance(v, Array) else None)
                if a._device is not dev:
                    a = a.to_device(dev)
                out[name] = dev._ops["astype"](a._data, dtype)
                shapes.append(a.shape)
        if shapes:
            try:
                bshape = np.broadcast_shapes(*shapes)
            except ValueError:
                raise ValueError(
                    f"ruda.{fname}: parameter shapes {shapes} do not broadcast"
                ) from None
            if shape is None:
                shape = bshape
            elif _misfits(bshape, shape):
                raise ValueError(
                    f"ruda.{fname}: parameter shape {bshape} does not broadcast to size {shape}"
                )
        return dtype, dev, shape, out

    def _nonneg(self, fname: str, name: str, v: Any, dev: Device) -> None:
        if isinstance(v, np.generic):
            bad = bool(v < 0) or bool(np.isnan(v))
        else:
            bad = bool(_host(dev._ops["any"](dev._ops["less"](v, v.dtype.type(0))), dev))
        if bad:
            raise ValueError(f"ruda.{fname}: {name} < 0")

    # The hot variates use a backend's fused op (words to values in one pass, same rules) where
    # it has one, else the words through ``_words``.
    def _floats(self, n: int, dtype: np.dtype, dev: Device) -> Any:
        per = 2 if dtype == _F64 else 1
        fused = _fused(dev, "random.uniform01")
        if fused is not None:
            bg = self._bg
            return fused(bg._key, bg.claim(n, per, 1)[0], n, dtype)
        return self._draw(n, per, 1, lambda w: W.uniform01(w, dtype, dev), dev)

    def _normals(self, n: int, dtype: np.dtype, dev: Device) -> Any:
        per = 2 if dtype == _F64 else 1
        fused = _fused(dev, "random.normals")
        if fused is not None:
            bg = self._bg
            start, skip = bg.claim(n, per, 2)
            return fused(bg._key, start, skip, n, dtype)
        return self._draw(n, per, 2, lambda w: W.box_muller(w, dtype, dev), dev)

    def _exponentials(self, n: int, dtype: np.dtype, dev: Device) -> Any:
        per = 2 if dtype == _F64 else 1
        return self._draw(n, per, 1, lambda w: W.exponentials(w, dtype, dev), dev)

    def _shaped(self, values: Any, shape: tuple[int, ...] | None, dtype: Any, dev: Device) -> Any:
        """``values(n, dtype, dev)`` (``_floats``...) in ``shape``; flat if 1-d or a scalar."""
        v = values(math.prod(shape or ()), dtype, dev)
        return dev._ops["reshape"](v, shape) if shape and len(shape) > 1 else v

    def _standard(
        self, fname: str, values: Any, size: Any, dtype: Any, out: Any, device: Any
    ) -> Any:
        """The body of ``random``, ``standard_normal`` and ``standard_exponential``: ``values``
        of ``size``, or in ``out`` (NumPy's checks: its dtype is ``dtype``, its shape ``size``)."""
        if dtype is not _F64:
            dtype = _float_dtype(dtype, fname)
        if isinstance(out, Array):
            if out.dtype != dtype:
                raise TypeError(
                    f"ruda.{fname}: Supplied output array has the wrong type. Expected "
                    f"{dtype}, got {out.dtype}"
                )
            if size is not None and _shape(size, fname) != out.shape:
                raise ValueError(f"ruda.{fname}: size must match out.shape when used together")
        if out is not None:
            return self._into(
                out, lambda s, d: self._standard(fname, values, s, dtype, None, d), fname
            )
        dev = resolve(device)
        if size is None:
            return _host(values(1, dtype, dev), dev)[0]
        shape = _shape(size, fname)
        return self._finish(values(math.prod(shape), dtype, dev), shape, dev)

    def _keys(self, n: int, dev: Device) -> Any:
        """A uniformly random permutation of range(n): stable argsort of 64-bit random keys."""
        keys = self._draw(n, 2, 1, lambda w: W.uint64s(w, dev), dev)
        return dev._ops["argsort"](keys, axis=0, stable=True)

    def _bounded(self, n: int, r: int, dev: Device, base: int = 0) -> Any:
        """n uint64 ``base + ((x * r) >> 64)`` (mod 2**64), 1 <= r <= 2**64: Lemire's
        multiply-shift gives [0, r)."""
        fused = _fused(dev, "random.bounded")
        if fused is not None:
            bg = self._bg
            return fused(bg._key, bg.claim(n, 2, 1)[0], n, r, base)
        x = self._draw(n, 2, 1, lambda w: W.uint64s(w, dev), dev)
        v = x if r == 1 << 64 else W.mulhi64(x, np.uint64(r), dev)
        return dev._ops["add"](v, np.uint64(base)) if base else v

    # -- uniform floats -------------------------------------------------------------------
    def random(
        self, size: Any = None, dtype: Any = _F64, out: Any = None, *, device: Any = None
    ) -> Any:
        """Floats uniform in [0, 1): 53 bits from two words (float64), 24 from one (float32).

        >>> import ruda as np
        >>> x = np.random.default_rng(0).random((2, 3), dtype=np.float32)
        >>> x.shape, x.dtype
        ((2, 3), ruda.float32)
        """
        return self._standard("random.Generator.random", self._floats, size, dtype, out, device)

    def uniform(
        self,
        low: Any = 0.0,
        high: Any = 1.0,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Floats uniform in [low, high): low + (high - low) * random().

        >>> import ruda as np
        >>> float(np.random.default_rng(1).uniform(2.0, 3.0)) >= 2.0
        True
        """
        dtype, dev, shape, p = self._params(
            "random.Generator.uniform", size, dtype, device, low=low, high=high
        )
        o = dev._ops
        u = self._shaped(self._floats, shape, dtype, dev)
        lo, hi = p["low"], p["high"]
        # Two scalars: the span is a host scalar (a device op needs an array operand).
        scalars = isinstance(lo, np.generic) and isinstance(hi, np.generic)
        span = hi - lo if scalars else o["subtract"](hi, lo)
        res = o["add"](lo, o["multiply"](u, span))
        return self._finish(res, shape, dev)

    # -- normal and exponential ------------------------------------------------------------
    def standard_normal(
        self, size: Any = None, dtype: Any = _F64, out: Any = None, *, device: Any = None
    ) -> Any:
        """Standard normals by Box-Muller over pairs of uniforms (value 2k: cos, 2k+1: sin).

        >>> import ruda as np
        >>> np.random.default_rng(0).standard_normal(4).shape
        (4,)
        """
        return self._standard(
            "random.Generator.standard_normal", self._normals, size, dtype, out, device
        )

    def normal(
        self,
        loc: Any = 0.0,
        scale: Any = 1.0,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Normals with mean ``loc`` and standard deviation ``scale`` (>= 0).

        >>> import ruda as np
        >>> np.random.default_rng(0).normal(5.0, 2.0, size=(2, 2)).shape
        (2, 2)
        """
        dtype, dev, shape, p = self._params(
            "random.Generator.normal", size, dtype, device, loc=loc, scale=scale
        )
        self._nonneg("random.Generator.normal", "scale", p["scale"], dev)
        o = dev._ops
        z = self._shaped(self._normals, shape, dtype, dev)
        return self._finish(o["add"](o["multiply"](z, p["scale"]), p["loc"]), shape, dev)

    def standard_exponential(
        self,
        size: Any = None,
        dtype: Any = _F64,
        method: str = "zig",
        out: Any = None,
        *,
        device: Any = None,
    ) -> Any:
        """Exponentials with scale 1: -log(1 - u), of ``size`` or into ``out``.

        >>> import ruda as np
        >>> float(np.random.default_rng(0).standard_exponential()) > 0
        True
        """
        # Note: ``method`` is accepted for NumPy's signature ("zig": its ziggurat, "inv": the
        # inverse CDF); ruda draws every exponential by the inverse CDF (the same law).
        return self._standard(
            "random.Generator.standard_exponential", self._exponentials, size, dtype, out, device
        )

    def exponential(
        self, scale: Any = 1.0, size: Any = None, *, dtype: Any = _F64, device: Any = None
    ) -> Any:
        """Exponentials with mean ``scale`` (>= 0): -log(1 - u) * scale.

        >>> import ruda as np
        >>> np.random.default_rng(0).exponential(2.0, 3).shape
        (3,)
        """
        dtype, dev, shape, p = self._params(
            "random.Generator.exponential", size, dtype, device, scale=scale
        )
        self._nonneg("random.Generator.exponential", "scale", p["scale"], dev)
        e = self._shaped(self._exponentials, shape, dtype, dev)
        return self._finish(dev._ops["multiply"](e, p["scale"]), shape, dev)

    # -- integers ------------------------------------------------------------------------
    def integers(
        self,
        low: Any,
        high: Any = None,
        size: Any = None,
        dtype: Any = _I64,
        endpoint: bool = False,
        *,
        device: Any = None,
    ) -> Any:
        """Integers uniform in [low, high) (or [low, high] with ``endpoint=True``).

        Each value is ``low + ((x * r) >> 64)`` for a 64-bit word x and range r (Lemire's
        multiply-shift without rejection): a value's probability is off from 1/r by at most
        r / 2**64 relative (below 2**-32 for ranges up to 2**32), and no value costs a
        variable number of words, so every device reproduces the stream.

        >>> import ruda as np
        >>> x = np.random.default_rng(0).integers(0, 10, size=5)
        >>> bool(((x >= 0) & (x < 10)).all())
        True
        """
        fname = "random.Generator.integers"
        npdt = dtype_arg(dtype, fname)
        if npdt is None or npdt.kind not in "iub":
            raise TypeError(f"ruda.{fname}: dtype must be an integer or bool dtype, got {dtype!r}")
        if high is None:
            low, high = 0, low
        dev = resolve(device)
        shape = _shape(size, fname)
        lo_b, hi_b = (0, 1) if npdt.kind == "b" else (np.iinfo(npdt).min, np.iinfo(npdt).max)
        end = 1 if endpoint else 0
        if _is_int(low) and _is_int(high):
            lo, hi = operator.index(low), operator.index(high) - 1 + end
            if lo > hi:
                raise ValueError(f"ruda.{fname}: low {'>' if endpoint else '>='} high")
            if lo < lo_b or hi > hi_b:
                raise ValueError(f"ruda.{fname}: [low, high] is out of bounds for {npdt}")
            v = self._bounded(math.prod(shape or ()), hi - lo + 1, dev, lo % (1 << 64))
        else:
            v, base, shape = self._bounded_arrays(fname, low, high, end, (lo_b, hi_b), shape, dev)
            v = dev._ops["add"](v, base)  # mod 2**64
        res = v if npdt == _U64 else dev._ops["astype"](v, npdt)  # the two's-complement cast
        return self._finish(res, shape, dev)

    def _bounded_arrays(self, fname, low, high, end, bounds, shape, dev):
        """Array bounds: ranges computed on the host (argument handling), then per-element r."""
        lo = _host_ints(low, fname, "low")
        hi = _host_ints(high, fname, "high")
        bshape = np.broadcast_shapes(lo.shape, hi.shape)
        if shape is None:
            shape = bshape
        elif np.broadcast_shapes(shape, bshape) != shape:
            raise ValueError(f"ruda.{fname}: low/high shape {bshape} does not fit size {shape}")
        lo, hi = (np.broadcast_to(a, shape) for a in (lo, hi))
        if ((lo > hi) if end else (lo >= hi)).any():
            raise ValueError(f"ruda.{fname}: low {'>' if end else '>='} high")
        if (lo < bounds[0]).any() or (hi > bounds[1] + 1 - end).any():
            raise ValueError(f"ruda.{fname}: low/high out of bounds for the dtype")
        base = lo.astype(np.uint64)  # two's complement: the sums below wrap mod 2**64
        r = hi.astype(np.uint64) - base + np.uint64(end)  # 0 stands for 2**64
        o, alloc = dev._ops, dev.backend.allocator
        r_d, base_d = alloc.from_host(r), alloc.from_host(base)
        x = o["reshape"](self._draw(r.size, 2, 1, lambda w: W.uint64s(w, dev), dev), shape)
        v = o["where"](o["equal"](r_d, np.uint64(0)), x, W.mulhi64(x, r_d, dev))
        return v, base_d, shape

    # -- sampling and permutations ------------------------------------------------------------
    def choice(
        self,
        a: Any,
        size: Any = None,
        replace: bool = True,
        p: Any = None,
        axis: int = 0,
        shuffle: bool = True,
        *,
        device: Any = None,
    ) -> Any:
        """Random sample from ``a`` (an int n means range(n)), with or without replacement.

        With ``p``: replacement samples invert the CDF; without replacement, items are taken in
        increasing order of E_i / p_i with E_i exponential (Efraimidis-Spirakis).

        >>> import ruda as np
        >>> np.random.default_rng(0).choice(5, size=3, replace=False).shape
        (3,)
        """
        # Note: shuffle=False is accepted; samples without replacement come in random order.
        fname = "random.Generator.choice"
        arr = None
        if _is_int(a):
            n = operator.index(a)
            if n < 0:
                raise ValueError(f"ruda.{fname}: a must be a positive integer")
            dev = resolve(device)
        else:
            arr = as_array(a, fname, "a", resolve(device) if not isinstance(a, Array) else None)
            dev = arr._device
            if arr.ndim == 0:
                raise ValueError(f"ruda.{fname}: a must be a sequence or an integer, not 0-d")
            axis = normalize_axis(axis, arr.ndim, fname)
            n = arr.shape[axis]
        shape = _shape(size, fname)
        k = math.prod(shape or ())
        if n == 0 and k:
            raise ValueError(f"ruda.{fname}: a cannot be empty unless no samples are taken")
        probs = None if p is None else _probabilities(p, n, fname, dev)
        o = dev._ops
        if replace:
            if probs is None:
                idx = o["astype"](self._bounded(k, n, dev), _I64)
            else:
                cdf = np.cumsum(probs)
                cdf /= cdf[-1]
                u = self._floats(k, _F64, dev)
                cdf_d = dev.backend.allocator.from_host(cdf)
                idx = o["astype"](o["searchsorted"](cdf_d, u, side="right"), _I64)
        else:
            if k > n:
                raise ValueError(
                    f"ruda.{fname}: cannot take a larger sample than population when replace=False"
                )
            if probs is None:
                idx = self._keys(n, dev)[:k]
            else:
                if np.count_nonzero(probs) < k:
                    raise ValueError(f"ruda.{fname}: fewer non-zero entries in p than size")
                with np.errstate(divide="ignore"):
                    inv = dev.backend.allocator.from_host(1.0 / probs)
                e = self._draw(n, 2, 1, lambda w: W.exponentials(w, _F64, dev), dev)
                idx = o["argsort"](o["multiply"](e, inv), axis=0, stable=True)[:k]
            idx = o["astype"](idx, _I64)
        if arr is None:
            return self._finish(idx, shape, dev)
        taken = o["take"](arr._data, idx, axis=axis)
        if shape is None:
            res = o["reshape"](taken, arr.shape[:axis] + arr.shape[axis + 1 :])
            return _host(res, dev)[()] if arr.ndim == 1 else _wrap(res, dev)
        res = o["reshape"](taken, arr.shape[:axis] + shape + arr.shape[axis + 1 :])
        return _wrap(res, dev)

    def permutation(self, x: Any, axis: int = 0, *, device: Any = None) -> Array:
        """A permuted range (x an int) or a permuted copy of x along ``axis``.

        The permutation sorts 64-bit random keys (stable argsort), one key per item.

        >>> import ruda as np
        >>> sorted(np.random.default_rng(0).permutation(4).tolist())
        [0, 1, 2, 3]
        """
        fname = "random.Generator.permutation"
        if _is_int(x):
            dev = resolve(device)
            return _wrap(dev._ops["astype"](self._keys(operator.index(x), dev), _I64), dev)
        arr = as_array(x, fname, "x", resolve(device) if not isinstance(x, Array) else None)
        if arr.ndim == 0:
            raise IndexError(f"ruda.{fname}: x must be an integer or at least 1-dimensional")
        dev = arr._device
        axis = normalize_axis(axis, arr.ndim, fname)
        perm = self._keys(arr.shape[axis], dev)
        return _wrap(dev._ops["take"](arr._data, perm, axis=axis), dev)

    def shuffle(self, x: Any, axis: int = 0) -> None:
        """Shuffle ``x`` in place along ``axis`` (a ruda array, a NumPy array or a list).

        >>> import ruda as np
        >>> x = np.asarray([1, 2, 3]); np.random.default_rng(0).shuffle(x)
        >>> sorted(x.tolist())
        [1, 2, 3]
        """
        fname = "random.Generator.shuffle"
        if isinstance(x, Array):
            if x.ndim == 0:
                raise TypeError(f"ruda.{fname}: x must be at least 1-dimensional")
            dev = x._device
            axis = normalize_axis(axis, x.ndim, fname)
            perm = self._keys(x.shape[axis], dev)
            x[...] = _wrap(dev._ops["take"](x._data, perm, axis=axis), dev)
        elif isinstance(x, np.ndarray):
            axis = normalize_axis(axis, x.ndim, fname) if x.ndim else 0
            if x.ndim == 0:
                raise TypeError(f"ruda.{fname}: x must be at least 1-dimensional")
            x[...] = np.take(x, self._host_perm(x.shape[axis]), axis=axis)
        elif isinstance(x, MutableSequence):
            items = list(x)
            x[:] = [items[i] for i in self._host_perm(len(items))]
        else:
            raise TypeError(f"ruda.{fname}: x must be an array or a mutable sequence")

    def _host_perm(self, n: int) -> np.ndarray:
        from .._devices import CPU

        return np.asarray(self._keys(n, resolve(CPU)))

    def bytes(self, length: int) -> bytes:
        """``length`` random bytes: the next words, little-endian (one word per 4 bytes).

        >>> import ruda as np
        >>> len(np.random.default_rng(0).bytes(10))
        10
        """
        from .._devices import CPU

        n = operator.index(length)
        if n < 0:
            raise ValueError("ruda.random.Generator.bytes: length must be non-negative")
        w = self._draw(-(-n // 4), 1, 1, lambda w: w, resolve(CPU))
        return np.asarray(w).astype("<u4").tobytes()[:n]

    def _into(self, out: Any, make: Any, fname: str) -> Any:
        if not isinstance(out, Array):
            raise TypeError(f"ruda.{fname}: out must be a ruda array")
        out[...] = make(out.shape, out._device)
        return out


def _fused(dev: Device, op: str) -> Any:
    """The backend's fused op, or None when it has none (then the words path serves)."""
    try:
        f = dev._ops[op]
    except NotImplementedError:
        return None
    # A GPU op is told the device (the op row is per kind, not per device).
    return f if dev.kind == "cpu" else functools.partial(f, device=dev)


def _misfits(bshape: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """Whether ``bshape`` fails to broadcast to exactly ``shape``."""
    try:
        return np.broadcast_shapes(shape, bshape) != shape
    except ValueError:
        return True


def _is_int(x: Any) -> bool:
    if isinstance(x, (Array, np.ndarray, float, np.floating)):
        return False
    try:
        operator.index(x)
    except TypeError:
        return False
    return True


def _host_ints(x: Any, fname: str, arg: str) -> np.ndarray:
    h = np.asarray(x.to_device("cpu")) if isinstance(x, Array) else np.asarray(x)
    if kind_of(h.dtype) not in "iub":
        raise TypeError(f"ruda.{fname}: {arg} must be integers, got dtype {h.dtype}")
    return h


def _probabilities(p: Any, n: int, fname: str, dev: Device) -> np.ndarray:
    h = np.asarray(p.to_device("cpu") if isinstance(p, Array) else p, dtype=np.float64)
    if h.ndim != 1 or h.shape[0] != n:
        raise ValueError(f"ruda.{fname}: p must be 1-dimensional with the same length as a")
    if not np.isfinite(h).all() or (h < 0).any():
        raise ValueError(f"ruda.{fname}: probabilities must be finite and non-negative")
    if abs(h.sum() - 1.0) > math.sqrt(np.finfo(np.float64).eps):
        raise ValueError(f"ruda.{fname}: probabilities do not sum to 1")
    return h


def default_rng(seed: Any = None) -> Generator:
    """A ``Generator`` over ``Philox(seed)``; a Generator or Philox passes through.

    Seed rule: an int in [0, 2**64) is the 64-bit key itself; None, a SeedSequence, a larger
    int or a sequence of ints goes through ``numpy.random.SeedSequence(seed).generate_state(2,
    numpy.uint32)``.

    >>> import ruda as np
    >>> a = np.random.default_rng(7).random(3); b = np.random.default_rng(7).random(3)
    >>> bool((a == b).all())
    True
    """
    # Note: ruda's default_rng is Philox4x32-10, not NumPy's PCG64: same API, different stream.
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, Philox):
        return Generator(seed)
    return Generator(Philox(seed))
