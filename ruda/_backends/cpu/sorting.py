"""CPU sorting with the standard's ``descending`` and ``stable`` keywords."""

from __future__ import annotations

import numpy as np

from ..._dispatch import register


def _value_kind(x: np.ndarray, stable: bool, kind: str | None) -> str | None:
    """The NumPy kind for sorting values: equal values are indistinguishable in the result."""
    # Note: the standard leaves the order of signed zeros (and NaNs) unspecified, so sorting
    # values never needs the slower stable algorithm; argsort does.
    return kind


@register("sort", "cpu")
def sort(x, axis=-1, descending=False, stable=True, kind=None, order=None):
    if not descending:
        if axis is None:
            return np.sort(x, axis=None, kind=kind, order=order)
        y = x.copy()  # the in-place method skips np.sort's wrapper layer
        y.sort(axis=axis, kind=kind, order=order)
        return y
    if axis is None:
        x, axis = x.reshape(-1), 0
    # Sorting the reversed array and reversing back keeps equal elements in their order.
    flipped = np.flip(x, axis=axis)
    return np.flip(np.sort(flipped, axis=axis, kind=_value_kind(x, stable, kind), order=order),
                   axis=axis)  # fmt: skip


@register("argsort", "cpu")
def argsort(x, axis=-1, descending=False, stable=True, kind=None, order=None):
    if kind is None and stable:
        kind = "stable"
    if not descending:
        return x.argsort(axis=axis, kind=kind, order=order)
    if axis is None:
        x, axis = x.reshape(-1), 0
    n = x.shape[axis]
    # Stable descending: argsort the reversed array, reverse, and map back to x's indices.
    i = np.argsort(np.flip(x, axis=axis), axis=axis, kind=kind, order=order)
    return (n - 1) - np.flip(i, axis=axis)
