"""The NumPy surface beyond the standard: floating-point error state, constants, and small helpers.

Printing lives in ``_printing``, Python-function helpers (vectorize...) in ``lib._functional``;
their names are re-exported here, so ``ruda.<name>`` finds them.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from . import lib
from ._array import Array, _wrap
from ._creation import _named
from ._dtypes import kind_of
from ._printing import (
    array2string,
    array_repr,
    array_str,
    format_float_positional,
    format_float_scientific,
    get_printoptions,
    printoptions,
    set_printoptions,
)
from ._utility import out_arg
from ._validation import as_array, common_device, normalize_axis
from .lib._functional import apply_along_axis, apply_over_axes, frompyfunc, vectorize

__all__ = [
    # printing
    "array2string", "array_repr", "array_str", "format_float_positional",
    "format_float_scientific", "get_printoptions", "printoptions", "set_printoptions",
    # floating-point errors
    "errstate", "geterr", "geterrcall", "seterr", "seterrcall",
    # constants and the lib package
    "euler_gamma", "little_endian", "lib",
    # Python functions over arrays
    "apply_along_axis", "apply_over_axes", "frompyfunc", "vectorize",
    # memory and shape queries
    "isfortran", "may_share_memory", "ndim", "shape", "shares_memory", "size",
    # type queries
    "iscomplex", "iscomplexobj", "isreal", "isrealobj", "isscalar",
    # math helpers
    "angle", "ediff1d", "i0", "isneginf", "isposinf", "nan_to_num",
    "real_if_close", "sinc", "unwrap",
]  # fmt: skip

euler_gamma = 0.5772156649015329
little_endian = sys.byteorder == "little"


# -- floating-point error state ------------------------------------------------------------
# Note: these act on NumPy's error state, which governs the CPU backend directly. GPU devices
# report later than NumPy, not at the op: at the next read from the device, at
# Device.synchronize(), and when an errstate block is entered or left (_backends/gpu/fpstatus.py).


class errstate(np.errstate):
    """Floating-point error handling inside a ``with`` block, or for a decorated function.

    On GPU devices the errors of the block's ops are reported when the block is left (with the
    block's modes) if no read from the device reported them before.

    >>> import ruda as np
    >>> with np.errstate(divide="ignore"):
    ...     np.asarray([1.0]) / 0
    array([inf])
    """

    def __enter__(self) -> None:
        _fp_check("entry to an errstate block")  # errors of before, with the modes of before
        super().__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        try:
            if exc_info[0] is None:  # else they wait for the next read
                _fp_check("exit from an errstate block")
        finally:
            super().__exit__(*exc_info)

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        def checked(*args: Any, **kwargs: Any) -> Any:
            r = func(*args, **kwargs)
            _fp_check("exit from an errstate block")
            return r

        inner = super().__call__(functools.wraps(func)(checked))

        @functools.wraps(func)
        def outer(*args: Any, **kwargs: Any) -> Any:
            _fp_check("entry to an errstate block")
            return inner(*args, **kwargs)

        return outer


def _fp_check(when: str) -> None:
    from ._backends.gpu import fpstatus

    if fpstatus._ALL:
        fpstatus.check_all(when)


def seterr(
    all: str | None = None,
    divide: str | None = None,
    over: str | None = None,
    under: str | None = None,
    invalid: str | None = None,
) -> dict[str, str]:
    """Set how floating-point errors are handled ('ignore', 'warn', 'raise', 'call'...).

    Returns the previous settings.

    >>> import ruda as np
    >>> old = np.seterr(over="raise"); _ = np.seterr(**old)
    """
    return np.seterr(all=all, divide=divide, over=over, under=under, invalid=invalid)


def geterr() -> dict[str, str]:
    """The current floating-point error handling, by kind.

    >>> import ruda as np
    >>> sorted(np.geterr())
    ['divide', 'invalid', 'over', 'under']
    """
    return np.geterr()


def seterrcall(func: Callable[[str, int], Any] | Any) -> Any:
    """Set the callback (or object with ``write``) used for the 'call'/'log' error modes.

    >>> import ruda as np
    >>> old = np.seterrcall(print); _ = np.seterrcall(old)
    """
    return np.seterrcall(func)


def geterrcall() -> Any:
    """The current floating-point error callback (None when unset).

    >>> import ruda as np
    >>> np.geterrcall() is None
    True
    """
    return np.geterrcall()


# -- memory and shape queries ----------------------------------------------------------------


def _pair_natives(fname: str, a: Any, b: Any) -> tuple[Any, Any, Any] | None:
    """The native arrays of a and b and their device; None when they live on different devices."""
    if isinstance(a, Array) and isinstance(b, Array) and a._device is not b._device:
        return None
    dev = common_device(fname, a, b)
    return (a._data if isinstance(a, Array) else a), (b._data if isinstance(b, Array) else b), dev


def may_share_memory(a: Any, b: Any, /, max_work: int | None = 0) -> bool:
    """Whether ``a`` and ``b`` might share memory (a cheap bounds check by default).

    >>> import ruda as np
    >>> x = np.asarray([1, 2, 3])
    >>> np.may_share_memory(x, x[1:])
    True
    """
    if type(a) is Array and type(b) is Array and a._device is b._device:
        return a._device._ops["may_share_memory"](a._data, b._data, max_work)
    p = _pair_natives("may_share_memory", a, b)
    if p is None:
        return False  # arrays on different devices never share memory
    return bool(p[2]._ops["may_share_memory"](p[0], p[1], max_work))


def shares_memory(a: Any, b: Any, /, max_work: int | None = None) -> bool:
    """Whether ``a`` and ``b`` share memory (exact).

    >>> import ruda as np
    >>> x = np.asarray([1, 2, 3, 4])
    >>> np.shares_memory(x[::2], x[1::2])
    False
    """
    if type(a) is Array and type(b) is Array and a._device is b._device:
        return a._device._ops["shares_memory"](a._data, b._data, max_work)
    p = _pair_natives("shares_memory", a, b)
    if p is None:
        return False
    return bool(p[2]._ops["shares_memory"](p[0], p[1], max_work))


def isfortran(a: Array) -> bool:
    """Whether ``a`` is Fortran-contiguous and not C-contiguous (so 1-D arrays give False).

    >>> import ruda as np
    >>> np.isfortran(np.asarray([[1, 2], [3, 4]]).T)
    True
    """
    if not isinstance(a, Array):
        raise TypeError(f"ruda.isfortran: a must be a ruda array, got {type(a).__name__}")
    return bool(a._device._ops["isfortran"](a._data))


def ndim(a: Any) -> int:
    """The number of dimensions of ``a`` (an array or array-like).

    >>> import ruda as np
    >>> np.ndim([[1, 2, 3]])
    2
    """
    return a.ndim if isinstance(a, Array) else np.ndim(a)


def shape(a: Any) -> tuple[int, ...]:
    """The shape of ``a`` (an array or array-like).

    >>> import ruda as np
    >>> np.shape([[1, 2, 3]])
    (1, 3)
    """
    return a.shape if isinstance(a, Array) else np.shape(a)


def size(a: Any, axis: int | tuple[int, ...] | None = None) -> int:
    """The number of elements of ``a``, or along ``axis`` (an int or a tuple of ints).

    >>> import ruda as np
    >>> np.size(np.asarray([[1, 2, 3], [4, 5, 6]]), 1)
    3
    """
    if not isinstance(a, Array):
        a = as_array(a, "size", "a")
    if axis is None:
        return a.size
    axes = axis if isinstance(axis, tuple) else (axis,)
    n = 1
    for ax in axes:
        n *= a.shape[normalize_axis(ax, a.ndim, "size")]
    return n


# -- type queries ------------------------------------------------------------------------------


def iscomplexobj(x: Any) -> bool:
    """Whether ``x`` has a complex dtype (whatever its values).

    >>> import ruda as np
    >>> np.iscomplexobj(np.asarray([1 + 0j]))
    True
    """
    if isinstance(x, Array):
        return kind_of(x._data.dtype) == "c"
    return np.iscomplexobj(x)


def isrealobj(x: Any) -> bool:
    """Whether ``x`` does not have a complex dtype.

    >>> import ruda as np
    >>> np.isrealobj(np.asarray([1.0]))
    True
    """
    if isinstance(x, Array):
        return kind_of(x._data.dtype) != "c"
    return np.isrealobj(x)


def _make_imag_test(name: str, doc: str) -> Any:
    """``iscomplex`` or ``isreal``: the op ``name`` over one array."""

    def fn(x: Any) -> Array:
        if type(x) is not Array:
            x = as_array(x, name)
        return _wrap(x._device._ops[name](x._data), x._device)

    return _named(fn, name, doc)


iscomplex = _make_imag_test(
    "iscomplex",
    """Elementwise: whether the imaginary part is nonzero (all False for real dtypes).

    >>> import ruda as np
    >>> np.iscomplex(np.asarray([1 + 1j, 2 + 0j]))
    array([ True, False])
    """,
)
isreal = _make_imag_test(
    "isreal",
    """Elementwise: whether the imaginary part is zero (all True for real dtypes).

    >>> import ruda as np
    >>> np.isreal(np.asarray([1 + 1j, 2 + 0j]))
    array([False,  True])
    """,
)


def isscalar(element: Any) -> bool:
    """Whether ``element`` is a scalar (Python or NumPy scalar, str, bytes); 0-d arrays are not.

    >>> import ruda as np
    >>> np.isscalar(3.0), np.isscalar(np.asarray(3.0))
    (True, False)
    """
    return not isinstance(element, Array) and np.isscalar(element)


# -- math helpers ------------------------------------------------------------------------------


def _no_complex(x: Array, fname: str, arg: str = "x") -> None:
    if kind_of(x._data.dtype) == "c":
        raise TypeError(f"ruda.{fname}: {arg} must be real, got {x.dtype}")


def angle(z: Any, deg: bool = False) -> Array:
    """The angle of complex numbers (radians, or degrees with ``deg=True``).

    >>> import ruda as np
    >>> np.angle(np.asarray([1j]), deg=True)
    array([90.])
    """
    z = as_array(z, "angle", "z")
    return _wrap(z._device._ops["angle"](z._data, deg=deg), z._device)


def sinc(x: Any) -> Array:
    """The normalised sinc function ``sin(pi x) / (pi x)`` (1 at 0).

    >>> import ruda as np
    >>> np.sinc(np.asarray([0.0, 0.5]))
    array([1.        , 0.63661977])
    """
    x = as_array(x, "sinc")
    return _wrap(x._device._ops["sinc"](x._data), x._device)


def i0(x: Any) -> Array:
    """The modified Bessel function of the first kind, order 0 (real input).

    >>> import ruda as np
    >>> np.i0(np.asarray([0.0, 1.0]))
    array([1.        , 1.26606588])
    """
    x = as_array(x, "i0")
    _no_complex(x, "i0")
    return _wrap(x._device._ops["i0"](x._data), x._device)


def _make_inf_test(name: str, doc: str) -> Any:
    """``isposinf`` or ``isneginf``: the op ``name`` over a real array, NumPy's ``out=``."""

    def fn(x: Any, out: Array | None = None) -> Array:
        x = as_array(x, name)
        _no_complex(x, name)
        dev = x._device
        r = dev._ops[name](x._data, out=None if out is None else out_arg(out, name, dev))
        return out if out is not None else _wrap(r, dev)

    return _named(fn, name, doc)


isposinf = _make_inf_test(
    "isposinf",
    """Elementwise: whether ``x`` is +inf (real input).

    >>> import ruda as np
    >>> np.isposinf(np.asarray([np.inf, -np.inf, 1.0]))
    array([ True, False, False])
    """,
)
isneginf = _make_inf_test(
    "isneginf",
    """Elementwise: whether ``x`` is -inf (real input).

    >>> import ruda as np
    >>> np.isneginf(np.asarray([np.inf, -np.inf, 1.0]))
    array([False,  True, False])
    """,
)


def nan_to_num(
    x: Any,
    copy: bool = True,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
) -> Array:
    """Replace NaN by ``nan`` and infinities by ``posinf``/``neginf`` (default: dtype extremes).

    With ``copy=False`` a ruda array is changed in place and returned.

    >>> import ruda as np
    >>> np.nan_to_num(np.asarray([np.nan, np.inf, 1.0]), posinf=9.0)
    array([0., 9., 1.])
    """
    arr = as_array(x, "nan_to_num")
    # NumPy stores the replacements cast to x's dtype: a NumPy scalar is a value, not a dtype
    nan, posinf, neginf = (
        v.item() if isinstance(v, np.generic) else v for v in (nan, posinf, neginf)
    )
    r = arr._device._ops["nan_to_num"](arr._data, copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    if r is arr._data:
        return arr
    return _wrap(r, arr._device)


def real_if_close(a: Any, tol: float = 100) -> Array:
    """Drop the imaginary part if every one is within ``tol`` machine epsilons of 0.

    >>> import ruda as np
    >>> np.real_if_close(np.asarray([2.1 + 4e-16j]))
    array([2.1])
    """
    a = as_array(a, "real_if_close", "a")
    r = a._device._ops["real_if_close"](a._data, tol=tol)
    return a if r is a._data else _wrap(r, a._device)


def unwrap(
    p: Any,
    discont: float | None = None,
    axis: int = -1,
    *,
    period: float = 2 * np.pi,
) -> Array:
    """Unwrap phase jumps larger than ``discont`` (default ``period / 2``) along ``axis``.

    >>> import ruda as np
    >>> np.unwrap(np.asarray([0.0, 4.0]))
    array([ 0.        , -2.28318531])
    """
    p = as_array(p, "unwrap", "p")
    _no_complex(p, "unwrap", "p")
    ax = normalize_axis(axis, p.ndim, "unwrap")
    dev = p._device
    return _wrap(dev._ops["unwrap"](p._data, discont=discont, axis=ax, period=period), dev)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Array:
    """Differences between consecutive elements of the flattened ``ary``, with optional ends.

    >>> import ruda as np
    >>> np.ediff1d(np.asarray([1, 2, 4, 7]), to_begin=-99)
    array([-99,   1,   2,   3])
    """
    ary = as_array(ary, "ediff1d", "ary")
    if to_end is None and to_begin is None:
        return _wrap(ary._device._ops["ediff1d"](ary._data), ary._device)
    dev = common_device("ediff1d", ary, to_end, to_begin)
    te = to_end._data if isinstance(to_end, Array) else to_end
    tb = to_begin._data if isinstance(to_begin, Array) else to_begin
    return _wrap(dev._ops["ediff1d"](ary._data, to_end=te, to_begin=tb), dev)
