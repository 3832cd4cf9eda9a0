"""``ruda.emath``: NumPy's ``emath`` (``numpy.lib.scimath``), on every device.

The functions switch to complex arithmetic where real input is outside the real domain
(``sqrt(-1)`` is ``1j``), with NumPy's choice of complex type (single-precision inputs and
8/16-bit integers give complex64, the rest complex128); elsewhere they are the plain functions.
"""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from . import _elementwise as _ew
from ._array import Array
from ._dtypes import kind_of
from ._utility import any as _any
from ._validation import as_array, common_device

__all__ = ["arccos", "arcsin", "arctanh", "log", "log10", "log2", "logn", "power", "sqrt"]

_SINGLE = ("float32", "int8", "int16", "uint8", "uint16", "complex64")


def _tocomplex(x: Array) -> Array:
    """NumPy's ``_tocomplex``: complex64 for single-precision and small integers, else
    complex128."""
    target = dt.complex64 if str(x.dtype) in _SINGLE else dt.complex128
    return x if x.dtype == target else x.astype(target)


def _fix_real_lt_zero(x: Array) -> Array:
    if kind_of(x.dtype) in "fiu" and bool(_any(x < 0)):
        return _tocomplex(x)
    return x


def _fix_int_lt_zero(x: Array) -> Array:
    if kind_of(x.dtype) in "iu" and bool(_any(x < 0)):
        return x * 1.0
    return x


def _fix_real_abs_gt_1(x: Array) -> Array:
    if kind_of(x.dtype) in "fiu" and bool(_any(_ew.abs(x) > 1)):
        return _tocomplex(x)
    return x


def sqrt(x: Any) -> Array:
    """The square root, complex for negative real input.

    >>> import ruda as np
    >>> np.emath.sqrt(np.asarray([4.0, -4.0]))
    array([2.+0.j, 0.+2.j])
    """
    return _ew.sqrt(_fix_real_lt_zero(as_array(x, "emath.sqrt")))


def log(x: Any) -> Array:
    """The natural logarithm, complex for negative real input.

    >>> import ruda as np
    >>> np.emath.log(np.asarray([-1.0])).imag
    array([3.14159265])
    """
    return _ew.log(_fix_real_lt_zero(as_array(x, "emath.log")))


def log10(x: Any) -> Array:
    """The base-10 logarithm, complex for negative real input.

    >>> import ruda as np
    >>> np.emath.log10(np.asarray([100.0]))
    array([2.])
    """
    return _ew.log10(_fix_real_lt_zero(as_array(x, "emath.log10")))


def log2(x: Any) -> Array:
    """The base-2 logarithm, complex for negative real input.

    >>> import ruda as np
    >>> np.emath.log2(np.asarray([8.0]))
    array([3.])
    """
    return _ew.log2(_fix_real_lt_zero(as_array(x, "emath.log2")))


def logn(n: Any, x: Any) -> Array:
    """The base-``n`` logarithm of ``x``, complex for negative real input.

    >>> import ruda as np
    >>> np.emath.logn(2, np.asarray([8.0]))
    array([3.])
    """
    dev = common_device("emath.logn", n, x)
    x = _fix_real_lt_zero(as_array(x, "emath.logn", "x", dev))
    n = _fix_real_lt_zero(as_array(n, "emath.logn", "n", dev))
    return _ew.divide(_ew.log(x), _ew.log(n))


def power(x: Any, p: Any) -> Array:
    """``x ** p``, complex for negative real ``x``; negative integer powers give floats.

    >>> import ruda as np
    >>> np.emath.power(np.asarray([-4.0]), 0.5)
    array([1.2246468e-16+2.j])
    """
    dev = common_device("emath.power", x, p)
    x = _fix_real_lt_zero(as_array(x, "emath.power", "x", dev))
    p = _fix_int_lt_zero(as_array(p, "emath.power", "p", dev))
    return _ew.pow(x, p)


def arccos(x: Any) -> Array:
    """The inverse cosine, complex for real input outside [-1, 1].

    >>> import ruda as np
    >>> np.emath.arccos(np.asarray([1.0]))
    array([0.])
    """
    return _ew.acos(_fix_real_abs_gt_1(as_array(x, "emath.arccos")))


def arcsin(x: Any) -> Array:
    """The inverse sine, complex for real input outside [-1, 1].

    >>> import ruda as np
    >>> np.emath.arcsin(np.asarray([0.0]))
    array([0.])
    """
    return _ew.asin(_fix_real_abs_gt_1(as_array(x, "emath.arcsin")))


def arctanh(x: Any) -> Array:
    """The inverse hyperbolic tangent, complex for real input outside [-1, 1].

    >>> import ruda as np
    >>> np.emath.arctanh(np.asarray([0.0]))
    array([0.])
    """
    return _ew.atanh(_fix_real_abs_gt_1(as_array(x, "emath.arctanh")))
