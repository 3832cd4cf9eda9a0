"""What the linalg modules share: result named tuples, LinAlgError, shape checks."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._array import Array
from .._devices import Device
from .._validation import as_array, common_device, refuse_bfloat16

# The same class as NumPy's, so ``except numpy.linalg.LinAlgError`` catches ruda's errors too.
LinAlgError = np.linalg.LinAlgError


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


# The functions that factor their input: LAPACK, cuSOLVER and ruda's kernels take no 16-bit floats.
_FACTORING = frozenset(
    "cholesky det slogdet eigh eigvalsh eig eigvals qr svd svdvals inv solve pinv cond lstsq "
    "tensorsolve".split()
)


def matrix_arg(x: Any, fname: str, arg: str = "x") -> Array:
    """An array with at least 2 dimensions (LinAlgError otherwise)."""
    if type(x) is not Array:
        x = as_array(x, f"linalg.{fname}", arg)
    if fname in _FACTORING:
        refuse_bfloat16(f"linalg.{fname}", x.dtype)
    if x._data.ndim < 2:
        raise LinAlgError(
            f"ruda.linalg.{fname}: {arg} must have at least 2 dimensions, got shape {x.shape}"
        )
    return x


def square_arg(x: Any, fname: str, arg: str = "x") -> Array:
    """A (stack of) square matrices (LinAlgError, a ValueError, otherwise)."""
    # Note: integer and boolean inputs are accepted and promoted to float64, as NumPy does,
    # although the standard asks for floating-point input.
    x = matrix_arg(x, fname, arg)
    s = x._data.shape
    if s[-1] != s[-2]:
        raise LinAlgError(
            f"ruda.linalg.{fname}: {arg} must be a square matrix (or a stack of them), "
            f"got shape {s}"
        )
    return x


def pair(fname: str, x1: Any, x2: Any) -> tuple[Device, Any, Any]:
    """Common device and native data of two operands."""
    dev = common_device(f"linalg.{fname}", x1, x2)
    a = as_array(x1, f"linalg.{fname}", "x1", dev)._data
    b = as_array(x2, f"linalg.{fname}", "x2", dev)._data
    if fname in _FACTORING:
        refuse_bfloat16(f"linalg.{fname}", a.dtype, b.dtype)
    return dev, a, b
