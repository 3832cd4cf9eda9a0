"""linalg.tensorsolve and linalg.tensorinv on the GPU backends: NumPy's reshapes to one square
matrix around the backend's ``linalg.solve`` / ``linalg.inv`` (all on the device)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .common import (
    compositions,
    rd,
)

LinAlgError = np.linalg.LinAlgError


def tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    """``x`` with ``tensordot(a, x, b.ndim) == b``: one ``solve`` of the flattened system
    (``axes``: axes of ``a`` moved to the end first, as in NumPy)."""
    x, y = a, b
    an = x.ndim
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k)
            order.insert(an, k)
        x = rd.permute_dims(x, tuple(order))
    old = x.shape[-(an - y.ndim) :]
    n = math.prod(old)
    if x.size != n**2:
        raise LinAlgError("Input arrays must satisfy the requirement prod(a.shape[b.ndim:]) == "
                          "prod(a.shape[:b.ndim])")  # fmt: skip
    res = rd.linalg.solve(rd.reshape(x, (n, n)), rd.reshape(y, (-1,)))
    return rd.reshape(res, old)


def tensorinv(a: Any, ind: int = 2) -> Any:
    """The inverse of ``a`` under ``tensordot(., ., ind)``: one ``inv`` of ``a`` as a matrix of
    its first ``ind`` axes by the rest; the result has shape ``a.shape[ind:] + a.shape[:ind]``."""
    x = a
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    old = x.shape
    n = math.prod(old[ind:])
    if n == 0 or x.size % n:
        raise ValueError(f"cannot reshape array of size {x.size} into shape ({n}, -1)")
    inv = rd.linalg.inv(rd.reshape(x, (n, x.size // n)))
    return rd.reshape(inv, old[ind:] + old[:ind])


compositions({"linalg.tensorsolve": tensorsolve, "linalg.tensorinv": tensorinv})


__all__ = ["tensorinv", "tensorsolve"]
