"""CPU implementations of manipulation ops: ndarray methods, cheaper than NumPy's wrappers."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dispatch import register


@register("permute_dims", "cpu")
def permute_dims(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    return x.transpose(axes)


@register("squeeze", "cpu")
def squeeze(x: np.ndarray, axis: Any = None) -> np.ndarray:
    return x.squeeze(axis)


@register("expand_dims", "cpu")
def expand_dims(x: np.ndarray, axis: int | tuple[int, ...]) -> np.ndarray:
    # axes are normalised (non-negative, in the output's range) by the namespace function.
    axes = (axis,) if type(axis) is int else sorted(axis)
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    return x.reshape(shape)


# ndarray.reshape itself (a C method taking shape, order= and copy=): no Python frame per call.
register("reshape", "cpu")(np.ndarray.reshape)
