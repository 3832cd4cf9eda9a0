"""Inverses and solvers: inv, solve, lstsq, pinv, matrix_power, matrix_rank, tensor*, multi_dot."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from .._array import Array, _wrap
from .._validation import as_array, common_device, refuse_bfloat16, wrap
from . import _finite
from ._common import LinAlgError, matrix_arg, pair, square_arg
from ._decompositions import svd_check


def inv(x: Any, /) -> Array:
    """Multiplicative inverse of a (stack of) square matrices.

    >>> import ruda as np
    >>> np.linalg.inv(np.asarray([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    x = square_arg(x, "inv")
    return _wrap(x._device._ops["linalg.inv"](x._data), x._device)


def solve(x1: Any, x2: Any, /) -> Array:
    """Solve x1 @ out = x2 for square x1 (..., M, M); x2 is (M,) or (..., M, K), stacks broadcast.

    >>> import ruda as np
    >>> np.linalg.solve(np.asarray([[2.0, 0.0], [0.0, 4.0]]), np.asarray([1.0, 1.0])).tolist()
    [0.5, 0.25]
    """
    dev, a, b = pair("solve", x1, x2)
    square_arg(_wrap(a, dev), "solve", "x1")
    m = a.shape[-1]
    # The standard's rule (NumPy 2's too): x2 is a vector only when it is 1-D.
    if b.ndim == 0 or b.shape[-1 if b.ndim == 1 else -2] != m:
        raise LinAlgError(
            f"ruda.linalg.solve: x2 of shape {b.shape} does not match x1 of shape {a.shape}; "
            f"x2 must be ({m},) or (..., {m}, K)"
        )
    return _wrap(dev._ops["linalg.solve"](a, b), dev)


def lstsq(a: Any, b: Any, rcond: float | None = None) -> tuple[Array, Array, Array, Array]:
    """Least-squares solution of a @ x = b: (x, residuals, rank, singular values), as in NumPy.

    >>> import ruda as np
    >>> a = np.asarray([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> np.linalg.lstsq(a, np.asarray([1.0, 2.0, 3.0]))[0].round(6).tolist()
    [1.0, 2.0]
    """
    dev, x, y = pair("lstsq", a, b)
    if x.ndim != 2:
        raise LinAlgError(f"ruda.linalg.lstsq: a must be 2-D, got shape {x.shape}")
    xa = _wrap(x, dev)
    if _finite.checking(xa):  # NumPy's LAPACK refuses infinities here too
        _finite.raise_if(
            xa, "lstsq", "SVD did not converge in Linear Least Squares", nan_only=False
        )
    return tuple(wrap(dev._ops["linalg.lstsq"](x, y, rcond=rcond), dev))  # type: ignore[return-value]


def pinv(
    x: Any, /, rcond: Any = None, hermitian: bool = False, *, rtol: float | Array | None = None
) -> Array:
    """Moore-Penrose pseudo-inverse; singular values below rtol * largest are treated as zero.

    ``rtol=None`` means max(M, N) * eps (the standard's default); NumPy's ``rcond`` still works.

    >>> import ruda as np
    >>> np.linalg.pinv(np.asarray([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    x = matrix_arg(x, "pinv")
    dev = x._device
    bad = svd_check(x, "pinv", hermitian)
    if rcond is not None:
        rcond = as_array(rcond, "linalg.pinv", "rcond", dev)._data
        r = _wrap(dev._ops["linalg.pinv"](x._data, rcond, hermitian), dev)
    else:
        # Note: NumPy's default cutoff is 1e-15; the standard's is max(M, N) * eps, used here.
        if isinstance(rtol, Array):
            rtol = as_array(rtol, "linalg.pinv", "rtol", dev)._data
        r = _wrap(dev._ops["linalg.pinv"](x._data, hermitian=hermitian, rtol=rtol), dev)
    # NumPy's hermitian pinv of a non-finite matrix is NaN (its eigh's NaN); without hermitian
    # an infinity leaves the kernels' numbers (NumPy's depend on LAPACK's U and Vh).
    return r if bad is None or not hermitian else _finite.nan_where(bad, r)


def matrix_power(x: Any, n: int, /) -> Array:
    """Raise a square matrix (stack) to the integer power ``n`` (negative: powers of the inverse).

    >>> import ruda as np
    >>> np.linalg.matrix_power(np.asarray([[1, 1], [0, 1]]), 3).tolist()
    [[1, 3], [0, 1]]
    """
    x = square_arg(x, "matrix_power")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(
            f"ruda.linalg.matrix_power: n must be an integer, got {type(n).__name__}"
        ) from None
    return _wrap(x._device._ops["linalg.matrix_power"](x._data, n), x._device)


def matrix_rank(
    x: Any, /, tol: Any = None, hermitian: bool = False, *, rtol: float | Array | None = None
) -> Array:
    """Rank of a matrix (stack): the number of singular values above the cutoff.

    ``rtol`` is relative to the largest singular value (default max(M, N) * eps); NumPy's
    absolute ``tol`` works too.

    >>> import ruda as np
    >>> int(np.linalg.matrix_rank(np.asarray([[1.0, 2.0], [2.0, 4.0]])))
    1
    """
    x = as_array(x, "linalg.matrix_rank")
    refuse_bfloat16("linalg.matrix_rank", x.dtype)
    dev = x._device
    if x._data.ndim < 2:
        # NumPy's rule for a vector or scalar: rank 1 unless it is all zeros.
        return _wrap(dev._ops["linalg.matrix_rank"](x._data), dev)
    if tol is not None and rtol is not None:
        raise ValueError("ruda.linalg.matrix_rank: give tol or rtol, not both")
    if isinstance(tol, Array):
        tol = as_array(tol, "linalg.matrix_rank", "tol", dev)._data
    if isinstance(rtol, Array):
        rtol = as_array(rtol, "linalg.matrix_rank", "rtol", dev)._data
    bad = svd_check(x, "matrix_rank", hermitian)
    r = _wrap(dev._ops["linalg.matrix_rank"](x._data, tol, hermitian, rtol=rtol), dev)
    # NumPy: NaN singular values (an infinity; hermitian: any non-finite) count for none
    return r if bad is None else _finite.value_where(bad, 0, r)


def tensorsolve(a: Any, b: Any, axes: Sequence[int] | None = None) -> Array:
    """Solve tensordot(a, x, b.ndim) = b for x.

    >>> import ruda as np
    >>> a = np.asarray([[2.0, 0.0], [0.0, 4.0]])
    >>> np.linalg.tensorsolve(a, np.asarray([2.0, 4.0])).tolist()
    [1.0, 1.0]
    """
    dev, x, y = pair("tensorsolve", a, b)
    return _wrap(dev._ops["linalg.tensorsolve"](x, y, axes), dev)


def tensorinv(a: Any, ind: int = 2) -> Array:
    """Inverse of an N-d array with respect to tensordot over its first ``ind`` axes.

    >>> import ruda as np
    >>> np.linalg.tensorinv(np.asarray([[2.0, 0.0], [0.0, 4.0]]), ind=1).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    x = as_array(a, "linalg.tensorinv", "a")
    refuse_bfloat16("linalg.tensorinv", x.dtype)
    if ind <= 0:
        raise ValueError(f"ruda.linalg.tensorinv: ind must be positive, got {ind}")
    return _wrap(x._device._ops["linalg.tensorinv"](x._data, ind), x._device)


def multi_dot(arrays: Sequence[Any], *, out: Array | None = None) -> Array:
    """Chained matrix product of ``arrays`` in the cheapest order (first/last may be 1-D).

    >>> import ruda as np
    >>> a = np.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> np.linalg.multi_dot([a, a, np.asarray([1.0, 0.0])]).tolist()
    [7.0, 15.0]
    """
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError("ruda.linalg.multi_dot: needs at least two arrays")
    dev = common_device("linalg.multi_dot", *arrays, out)
    nat = [as_array(a, "linalg.multi_dot", "arrays", dev)._data for a in arrays]
    if out is not None:
        if not isinstance(out, Array) or out._device is not dev:
            raise TypeError(f"ruda.linalg.multi_dot: out must be a ruda array on {dev}")
        dev._ops["linalg.multi_dot"](nat, out=out._data)
        return out
    return _wrap(dev._ops["linalg.multi_dot"](nat), dev)
