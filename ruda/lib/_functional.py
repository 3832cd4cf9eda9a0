"""Python functions over arrays: vectorize, frompyfunc, apply_along_axis, apply_over_axes.

The user's function sees what it sees under NumPy (scalars for ``vectorize``/``frompyfunc``,
ruda arrays for the ``apply_*`` functions, which NumPy passes arrays to); results are ruda arrays.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _dtypes as dt
from .._array import Array, _wrap
from .._validation import as_array, common_device, normalize_axis, wrap

__all__ = ["apply_along_axis", "apply_over_axes", "frompyfunc", "vectorize"]

_NoValue = np._NoValue


def _native(r: Any) -> Any:
    """A result of the user's function with ruda arrays replaced by native ones."""
    if isinstance(r, Array):
        return r._data
    if type(r) is tuple:
        return tuple(_native(v) for v in r)
    return r


def _host_result(r: Any) -> Any:
    """Like _native, but 0-d arrays become scalars (vectorize stores them in object arrays)."""
    if isinstance(r, Array):
        h = r._host()
        return h[()] if h.ndim == 0 else h
    if type(r) is tuple:
        return tuple(_host_result(v) for v in r)
    return r


class vectorize:
    """Broadcast a Python function over arrays, as ``numpy.vectorize`` does (a loop, not a kernel).

    ``otypes``, ``excluded``, ``cache`` and ``signature`` work as in NumPy; results are ruda arrays.

    >>> import ruda as np
    >>> f = np.vectorize(lambda a, b: a - b if a > b else a + b)
    >>> f(np.asarray([1, 2, 3, 4]), 2)
    array([3, 4, 1, 2])
    """

    def __init__(
        self,
        pyfunc: Callable[..., Any] = _NoValue,
        otypes: str | Sequence[Any] | None = None,
        doc: str | None = None,
        excluded: set[int | str] | None = None,
        cache: bool = False,
        signature: str | None = None,
    ) -> None:
        if otypes is not None and not isinstance(otypes, str):
            otypes = [dt.to_numpy(t) for t in otypes]
        self.pyfunc = pyfunc
        self.otypes = otypes
        self.excluded = set(excluded) if excluded else set()
        self.cache = cache
        self.signature = signature
        self._impls: dict[str, Any] = {}
        if pyfunc is not _NoValue:
            self._stage2(pyfunc, doc)
        else:
            self.__doc__ = doc

    def _stage2(self, pyfunc: Callable[..., Any], doc: str | None = None) -> None:
        self.pyfunc = pyfunc
        self.__doc__ = pyfunc.__doc__ if doc is None else doc
        self.__name__ = getattr(pyfunc, "__name__", "vectorize")

    def _impl(self, dev: Any) -> Any:
        impl = self._impls.get(dev.kind)
        if impl is None:
            pyfunc = self.pyfunc

            @functools.wraps(pyfunc)
            def call(*a: Any, **k: Any) -> Any:
                return _host_result(pyfunc(*a, **k))

            # cpu: NumPy's vectorize needs host results; a GPU's keeps the device results
            impl = self._impls[dev.kind] = dev._ops["vectorize"](
                call if dev.kind == "cpu" else pyfunc,
                otypes=self.otypes,
                doc=self.__doc__,
                excluded=self.excluded,
                cache=self.cache,
                signature=self.signature,
            )
        return impl

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.pyfunc is _NoValue:
            # Decorator form: @np.vectorize(otypes=[float]).
            self._stage2(args[0], self.__doc__)
            return self
        exc = self.excluded
        dev = common_device(
            "vectorize",
            *(a for i, a in enumerate(args) if i not in exc),
            *(v for k, v in kwargs.items() if k not in exc),
        )
        nargs = [a if i in exc else _native(a) for i, a in enumerate(args)]
        nkw = {k: v if k in exc else _native(v) for k, v in kwargs.items()}
        return wrap(self._impl(dev)(*nargs, **nkw), dev)


class _PyUfunc:
    """The object ``frompyfunc`` returns: a ufunc over object arrays, callable on ruda arrays."""

    def __init__(self, func: Callable[..., Any], nin: int, nout: int, identity: Any) -> None:
        self._args = (func, nin, nout, identity)
        self._impls: dict[str, np.ufunc] = {}
        self.nin, self.nout, self.nargs = nin, nout, nin + nout
        self.identity = identity
        self.__name__ = f"{getattr(func, '__name__', 'func')} (vectorized)"
        self.__doc__ = func.__doc__

    def __repr__(self) -> str:
        return f"<ruda ufunc {self.__name__!r}>"

    def _run(self, method: str | None, args: tuple, kwargs: dict) -> Any:
        dev = common_device("frompyfunc", *args, *kwargs.values())
        uf = self._impls.get(dev.kind)
        if uf is None:
            uf = self._impls[dev.kind] = dev._ops["frompyfunc"](*self._args)
        fn = uf if method is None else getattr(uf, method)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = _native(out)
        r = fn(*(_native(a) for a in args), **{k: _native(v) for k, v in kwargs.items()})
        if method == "at":
            return None
        return out if out is not None else wrap(r, dev)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(None, args, kwargs)

    def reduce(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("reduce", args, kwargs)

    def accumulate(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("accumulate", args, kwargs)

    def outer(self, *args: Any, **kwargs: Any) -> Any:
        return self._run("outer", args, kwargs)

    def at(self, *args: Any, **kwargs: Any) -> None:
        return self._run("at", args, kwargs)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> Any:
    """A ufunc-like object applying ``func`` elementwise; its results have object dtype.

    >>> import ruda as np
    >>> oct_array = np.frompyfunc(oct, 1, 1)
    >>> oct_array(np.asarray([10, 20]))
    array(['0o12', '0o24'], dtype=object)
    """
    if not callable(func):
        raise TypeError(f"ruda.frompyfunc: func must be callable, got {type(func).__name__}")
    if int(nin) < 0 or int(nout) < 0:
        raise ValueError("ruda.frompyfunc: nin and nout must be non-negative")
    return _PyUfunc(func, int(nin), int(nout), identity)


def apply_along_axis(
    func1d: Callable[..., Any], axis: int, arr: Any, *args: Any, **kwargs: Any
) -> Array:
    """Apply ``func1d`` (given a 1-D ruda array) to every 1-D slice of ``arr`` along ``axis``.

    >>> import ruda as np
    >>> np.apply_along_axis(lambda v: v[0] + v[-1], 1, np.asarray([[1, 2, 3], [4, 5, 6]]))
    array([ 4, 10])
    """
    arr = as_array(arr, "apply_along_axis", "arr")
    ax = normalize_axis(axis, arr.ndim, "apply_along_axis")
    if any(n == 0 for i, n in enumerate(arr.shape) if i != ax):
        raise ValueError("ruda.apply_along_axis: cannot apply when an iteration dimension is 0")
    dev = arr._device

    def f(s: Any, *a: Any, **k: Any) -> Any:
        return _native(func1d(_wrap(s, dev), *a, **k))

    return wrap(dev._ops["apply_along_axis"](f, ax, arr._data, *args, **kwargs), dev)


def apply_over_axes(func: Callable[[Array, int], Any], a: Any, axes: int | Sequence[int]) -> Array:
    """Apply ``func(a, axis)`` repeatedly over ``axes``; each result keeps ``a``'s number of dims.

    >>> import ruda as np
    >>> np.apply_over_axes(np.sum, np.asarray([[1, 2], [3, 4]]), [0, 1])
    array([[10]])
    """
    a = as_array(a, "apply_over_axes", "a")
    axs = (axes,) if np.ndim(axes) == 0 else tuple(axes)
    axs = tuple(normalize_axis(ax, a.ndim, "apply_over_axes", "axes") for ax in axs)
    dev = a._device

    def f(v: Any, axis: int) -> Any:
        return _native(func(_wrap(v, dev), axis))

    return wrap(dev._ops["apply_over_axes"](f, a._data, axs), dev)
