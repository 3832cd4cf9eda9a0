"""vectorize, apply_along_axis and apply_over_axes on the GPU backends: the user's Python function
called with device arrays (0-d element views, 1-D slices, the whole array), its results written
into a device array. NumPy's loops, with no host copy of the data; only what the user's function
itself reads back (``if p > q:``) crosses to the host.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .common import (
    Array,
    arrays_of,
    compositions,
    natives_of,
    rd,
)

# NumPy's generalised-ufunc signature grammar, e.g. "(m,n),(n)->(m)".
_NAME = r"\w+"
_CORE = rf"(?:{_NAME}(?:,{_NAME})*)?"
_ARG = rf"\({_CORE}\)"
_ARGS = rf"{_ARG}(?:,{_ARG})*"
_SIGNATURE = rf"^{_ARGS}->{_ARGS}$"


def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Core dimension names of each input and each output."""
    s = re.sub(r"\s+", "", signature)
    if not re.match(_SIGNATURE, s):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = ([tuple(re.findall(_NAME, a)) for a in re.findall(_ARG, side)]
                 for side in s.split("->"))  # fmt: skip
    return ins, outs


def _indices(shape: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    return itertools.product(*(range(n) for n in shape))


def _device_value(rd: Any, v: Any, dev: Any) -> Any:
    """A result or argument as a ruda array on ``dev`` (natives wrapped, host values uploaded)."""
    v = arrays_of(v)  # a callback's native result
    if isinstance(v, Array):
        return v
    if isinstance(v, (list, tuple)) and any(isinstance(e, Array) or isinstance(e, rd.Array)
                                           for e in v):  # fmt: skip
        return rd.stack([_device_value(rd, e, dev) for e in v])
    return rd.asarray(v, device=dev)


def _otypes(otypes: Any) -> list[Any] | None:
    if otypes is None:
        return None
    from .._dtypes import from_numpy

    return [from_numpy(np.dtype(t)) for t in otypes]


def _results(r: Any, nout: int | None) -> tuple[Any, ...]:
    n = len(r) if isinstance(r, tuple) else 1
    if nout is not None and n != nout:
        raise ValueError(f"wrong number of outputs from pyfunc: expected {nout}, got {n}")
    return r if isinstance(r, tuple) else (r,)


class _Vectorized:
    """What ``dev._ops["vectorize"](...)`` returns: call it with natives, get natives back."""

    def __init__(self, pyfunc: Callable[..., Any], otypes: Any, excluded: Any,
                 signature: str | None) -> None:  # fmt: skip
        self.pyfunc = pyfunc
        self.otypes = _otypes(otypes)
        self.excluded = set(excluded or ())
        self.signature = None if signature is None else _parse_signature(signature)

    def _bind(self, args: tuple, kwargs: dict) -> tuple[Callable[..., Any], list[Any]]:
        """NumPy's handling of ``excluded``: a function of the vectorised arguments only."""
        if not kwargs and not self.excluded:
            return self.pyfunc, list(args)
        inds = [i for i in range(len(args)) if i not in self.excluded]
        names = [k for k in kwargs if k not in self.excluded]
        the_args, kw = list(args), dict(kwargs)

        def func(*vargs: Any) -> Any:
            for n, i in enumerate(inds):
                the_args[i] = vargs[n]
            kw.update(zip(names, vargs[len(inds) :], strict=True))
            return self.pyfunc(*the_args, **kw)

        return func, [args[i] for i in inds] + [kwargs[k] for k in names]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:

        # the namespace calls the vectorize object itself with natives: wrapped here, as at the
        # dispatch boundary
        args, kwargs = arrays_of(args), {k: arrays_of(v) for k, v in kwargs.items()}
        func, vargs = self._bind(args, kwargs)
        natives = [v for v in vargs if isinstance(v, Array)]
        dev = natives[0].device if natives else rd.asarray(0).device
        vargs = [_device_value(rd, v, dev) for v in vargs]
        if self.signature is None:
            outs = self._elementwise(rd, func, vargs, dev)
        else:
            outs = self._gufunc(rd, func, vargs, dev)
        return natives_of(outs[0] if len(outs) == 1 else tuple(outs))

    def _fill(self, rd: Any, func: Callable[..., Any], loop: tuple[int, ...], items: Any,
              dev: Any, core_of: Callable[[int, Any], tuple[int, ...]]) -> list[Any]:  # fmt: skip
        """Call ``func`` at every loop index; the first result fixes the outputs' dtypes."""
        nout = None if self.otypes is None else len(self.otypes)
        outs: list[Any] = []
        for idx in _indices(loop):
            res = [_device_value(rd, r, dev) for r in _results(func(*items(idx)), nout)]
            if not outs:
                nout = len(res)
                dts = self.otypes or [r.dtype for r in res]
                outs = [rd.empty(loop + core_of(k, r), dtype=dts[k], device=dev)
                        for k, r in enumerate(res)]  # fmt: skip
            for o, r in zip(outs, res, strict=True):
                o[idx] = r
        return outs

    def _elementwise(self, rd: Any, func: Callable[..., Any], vargs: list[Any],
                     dev: Any) -> list[Any]:  # fmt: skip
        shape = rd.broadcast_shapes(*(v.shape for v in vargs)) if vargs else ()
        views = [rd.broadcast_to(v, shape) for v in vargs]
        if 0 in shape:
            if self.otypes is None:
                raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
            return [rd.empty(shape, dtype=t, device=dev) for t in self.otypes]
        # Note: func runs once per element (NumPy calls it once more to find otypes, unless
        # cache=True); 0-d device arrays stand in for NumPy's Python scalars.
        return self._fill(rd, func, shape, lambda i: [v[i] for v in views], dev,
                          lambda k, r: ())  # fmt: skip

    def _gufunc(self, rd: Any, func: Callable[..., Any], vargs: list[Any],
                dev: Any) -> list[Any]:  # fmt: skip
        in_core, out_core = self.signature
        if len(vargs) != len(in_core):
            raise TypeError(f"wrong number of positional arguments: expected {len(in_core)}, "
                            f"got {len(vargs)}")  # fmt: skip
        sizes: dict[str, int] = {}
        for v, core in zip(vargs, in_core, strict=True):
            _update_sizes(sizes, v.shape, core)
        pairs = list(zip(vargs, in_core, strict=True))
        loop = rd.broadcast_shapes(*(v.shape[: v.ndim - len(c)] for v, c in pairs))
        views = [rd.broadcast_to(v, loop + v.shape[v.ndim - len(c) :]) for v, c in pairs]
        if self.otypes is not None and len(self.otypes) != len(out_core):
            raise ValueError("ruda.vectorize: otypes and the signature's outputs differ in number")
        if 0 in loop:
            if self.otypes is None:
                raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
            if any(d not in sizes for c in out_core for d in c):
                raise ValueError("cannot call `vectorize` with a signature including new output "
                                 "dimensions on size 0 inputs")  # fmt: skip
            return [rd.empty(loop + tuple(sizes[d] for d in c), dtype=t, device=dev)
                    for c, t in zip(out_core, self.otypes, strict=True)]  # fmt: skip

        def core_of(k: int, r: Any) -> tuple[int, ...]:
            if k >= len(out_core):
                raise ValueError(f"wrong number of outputs from pyfunc: expected "
                                 f"{len(out_core)}, got more")  # fmt: skip
            _update_sizes(sizes, r.shape, out_core[k])
            return tuple(sizes[d] for d in out_core[k])

        outs = self._fill(rd, func, loop, lambda i: [v[i] for v in views], dev, core_of)
        if len(outs) != len(out_core):
            raise ValueError(f"wrong number of outputs from pyfunc: expected {len(out_core)}, "
                             f"got {len(outs)}")  # fmt: skip
        return outs


def _update_sizes(sizes: dict[str, int], shape: tuple[int, ...], core: tuple[str, ...]) -> None:
    """Record (and check) the sizes of ``core`` dimensions, the trailing axes of ``shape``."""
    if not core:
        return
    if len(shape) < len(core):
        raise ValueError(f"input with {len(shape)} dimension(s) is too small for the core "
                         f"dimensions {core} of the signature")  # fmt: skip
    for d, n in zip(core, shape[len(shape) - len(core) :], strict=True):
        if sizes.setdefault(d, n) != n:
            raise ValueError(f"inconsistent size for core dimension {d!r}: {n} vs {sizes[d]}")


def vectorize(pyfunc: Callable[..., Any], otypes: Any = None, doc: str | None = None,
              excluded: Any = None, cache: bool = False,
              signature: str | None = None) -> Any:  # fmt: skip
    """NumPy's vectorize over device arrays: a callable taking and returning natives."""
    return _Vectorized(pyfunc, otypes, excluded, signature)


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any,
                     **kwargs: Any) -> Any:  # fmt: skip
    """``func1d`` on every 1-D slice along ``axis``; its result's axes replace ``axis``."""
    a = arr
    ax = axis % a.ndim
    lanes = rd.moveaxis(a, ax, -1)  # a view: each lanes[idx] is one slice along axis
    loop = lanes.shape[:-1]
    if 0 in loop:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    out = None
    for idx in _indices(loop):
        r = _device_value(rd, func1d(lanes[idx]._data, *args, **kwargs), a.device)
        if out is None:
            res_nd = r.ndim
            out = rd.empty(loop + r.shape, dtype=r.dtype, device=a.device)
        out[idx] = r
    # NumPy's layout: the result's own axes take the place of ``axis``
    nd = out.ndim
    dims = list(range(nd))
    perm = dims[:ax] + dims[nd - res_nd :] + dims[ax : nd - res_nd]
    return rd.permute_dims(out, tuple(perm))


def apply_over_axes(func: Callable[[Any, int], Any], a: Any, axes: Any) -> Any:
    """``func(a, axis)`` for each axis in turn, a removed axis put back as length 1."""
    val = a
    n = val.ndim
    for axis in (axes,) if isinstance(axes, int) else axes:
        axis = axis + n if axis < 0 else axis
        res = _device_value(rd, func(val._data, axis), val.device)
        if res.ndim != val.ndim:
            res = rd.expand_dims(res, axis=axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


compositions({"vectorize": vectorize, "apply_along_axis": apply_along_axis,
            "apply_over_axes": apply_over_axes})  # fmt: skip


__all__ = ["apply_along_axis", "apply_over_axes", "vectorize"]
