"""Non-finite input to the factorizations on GPU devices: NumPy's errors and results.

On the cpu device NumPy's LAPACK decides: NaN in an SVD is "SVD did not converge" (svd,
svdvals, pinv, matrix_rank, cond, the 2-norms, lstsq), an infinity gives NaN singular values,
eig refuses infs and NaNs, and eigh of a matrix with an infinity gives NaN eigenvalues. ruda's
GPU kernels and cuSOLVER would return numbers instead, so on a GPU device the namespace
functions check their input first:

* a raising check (``raise_if``) reduces ``isnan`` (or ``~isfinite``) over the input on the
  device and reads one boolean back: one host wait, before the factorization is queued;
* a masking check (``bad_matrices`` + ``nan_where``) never waits: the per-matrix flags stay on
  the device and ``where`` puts NaN in the results of the matrices they mark.

``RUDA_LINALG_CHECK=off`` skips both (read at each call): non-finite input then gives whatever
the kernels compute. Integer and boolean input holds no non-finite values and is not checked.
The cpu device is never checked here: NumPy does it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

from .. import _creation, _elementwise, _searching, _utility
from .._array import Array
from ._common import LinAlgError

ENV = "RUDA_LINALG_CHECK"


def checking(x: Array) -> bool:
    """Whether ``x``'s factorization checks its input: a GPU device, a floating or complex
    dtype, and ``RUDA_LINALG_CHECK`` not ``off``."""
    if x._device.kind == "cpu" or x.dtype.kind not in "fc":
        return False
    return os.environ.get(ENV, "on").strip().lower() != "off"


def _bad(x: Array, nan_only: bool) -> Array:
    return _elementwise.isnan(x) if nan_only else _elementwise.logical_not(_elementwise.isfinite(x))


def raise_if(x: Array, fname: str, what: str, *, nan_only: bool = True) -> None:
    """LinAlgError ``ruda.linalg.<fname>: <what>`` when ``x`` holds a NaN (``nan_only``) or any
    non-finite value; one boolean read back from the device."""
    if x.size and bool(_utility.any(_bad(x, nan_only))):
        raise LinAlgError(f"ruda.linalg.{fname}: {what}")


def bad_matrices(
    x: Array,
    pred: Callable[[Array], Array] | None = None,
    axes: tuple[int, int] = (-2, -1),
    keepdims: bool = False,
) -> Array:
    """Per matrix of ``x`` (over ``axes``), whether ``pred`` (default: not finite) holds
    anywhere in it; stays on the device."""
    bad = pred(x) if pred is not None else _bad(x, False)
    return _utility.any(bad, axis=axes, keepdims=keepdims)


def triangle(x: Array, uplo: str) -> Array:
    """The triangle of ``x`` that eigh reads (LAPACK's ``UPLO``)."""
    return _creation.triu(x) if str(uplo).upper() == "U" else _creation.tril(x)


def nan_where(mask: Array, r: Array) -> Array:
    """``r`` with NaN in the matrices (vectors) ``mask`` marks; ``mask`` has ``r``'s leading
    shape (the trailing ``r.ndim - mask.ndim`` axes are the matrix)."""
    extra = r.ndim - mask.ndim
    if extra:
        mask = mask.reshape(mask.shape + (1,) * extra)
    return _searching.where(mask, math.nan, r)


def value_where(mask: Array, value: Any, r: Array) -> Array:
    """``r`` with ``value`` where ``mask`` holds (same shape)."""
    return _searching.where(mask, value, r)


__all__ = ["ENV", "bad_matrices", "checking", "nan_where", "raise_if", "triangle", "value_where"]
