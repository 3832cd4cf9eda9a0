"""Norms and condition numbers: vector_norm, matrix_norm, NumPy's norm and cond."""

from __future__ import annotations

import math
from typing import Any

from .. import _elementwise
from .._array import Array, _wrap
from .._validation import as_array, normalize_axes
from . import _finite
from ._common import matrix_arg

_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf"))


def vector_norm(
    x: Any,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: int | float = 2,
) -> Array:
    """Vector norm over ``axis`` (all elements if None); ord is p >= 1, inf, -inf, 0 or negative.

    Complex input gives the real dtype of the same precision.

    >>> import ruda as np
    >>> float(np.linalg.vector_norm(np.asarray([3.0, 4.0])))
    5.0
    """
    # Note: integer input is promoted to float64 (as NumPy does); the standard wants floats.
    x = as_array(x, "linalg.vector_norm")
    if axis is not None:
        axis = normalize_axes(axis, x._data.ndim, "linalg.vector_norm")
    if isinstance(ord, str):
        raise ValueError(f"ruda.linalg.vector_norm: ord must be a number, got {ord!r}")
    dev = x._device
    return _wrap(
        dev._ops["linalg.vector_norm"](x._data, axis=axis, keepdims=bool(keepdims), ord=ord), dev
    )


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Array:
    """Matrix norm over the last two axes: 'fro', 'nuc', 1, -1, 2, -2, inf or -inf.

    >>> import ruda as np
    >>> float(np.linalg.matrix_norm(np.asarray([[3.0, 0.0], [0.0, 4.0]]), ord=2))
    4.0
    """
    x = matrix_arg(x, "matrix_norm")
    if ord not in _MATRIX_ORDS:
        raise ValueError(
            f"ruda.linalg.matrix_norm: ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; "
            f"got {ord!r}"
        )
    dev = x._device
    r = _wrap(dev._ops["linalg.matrix_norm"](x._data, keepdims=bool(keepdims), ord=ord), dev)
    return _svd_norm_check(x, r, ord, (-2, -1), keepdims, "matrix_norm")


def _svd_norm_check(x: Array, r: Array, ord: Any, axes: Any, keepdims: bool, fname: str) -> Array:
    """The 2-norms and the nuclear norm come from an SVD: on a GPU device a NaN raises
    NumPy's LinAlgError and a matrix with an infinity has norm NaN, as NumPy's."""
    if ord not in (2, -2, "nuc") or not _finite.checking(x):
        return r
    _finite.raise_if(x, fname, "SVD did not converge")
    return _finite.nan_where(_finite.bad_matrices(x, _elementwise.isinf, axes, keepdims), r)


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Array:
    """NumPy's norm: a vector norm for 1-D (or one axis), a matrix norm for 2-D (or two axes).

    >>> import ruda as np
    >>> float(np.linalg.norm(np.asarray([[1.0, 2.0], [2.0, 4.0]])))
    5.0
    """
    x = as_array(x, "linalg.norm")
    if axis is not None:
        axis = normalize_axes(axis, x._data.ndim, "linalg.norm")
        if len(axis) == 1:
            axis = axis[0]
        elif len(axis) != 2:
            raise ValueError(f"ruda.linalg.norm: axis must name 1 or 2 axes, got {len(axis)}")
    dev = x._device
    r = _wrap(dev._ops["linalg.norm"](x._data, ord, axis, keepdims), dev)
    if axis is None and x.ndim == 2:
        axis = (0, 1)
    if isinstance(axis, tuple) and len(axis) == 2:
        r = _svd_norm_check(x, r, ord, axis, keepdims, "norm")
    return r


def cond(x: Any, p: Any = None) -> Array:
    """Condition number of a matrix (stack) in norm ``p`` (default: 2-norm, via the SVD).

    >>> import ruda as np
    >>> float(np.linalg.cond(np.asarray([[1.0, 0.0], [0.0, 2.0]])))
    2.0
    """
    x = matrix_arg(x, "cond")
    svd_based = p in (None, 2, -2)
    if svd_based and _finite.checking(x):
        _finite.raise_if(x, "cond", "SVD did not converge")
    r = _wrap(x._device._ops["linalg.cond"](x._data, p), x._device)
    if _finite.checking(x):
        # NumPy's rule: a NaN condition number of a matrix without NaN is infinite
        nan_in = _finite.bad_matrices(x, _elementwise.isnan)
        r = _finite.value_where(
            _elementwise.logical_and(_elementwise.isnan(r), _elementwise.logical_not(nan_in)),
            math.inf,
            r,
        )
    return r
