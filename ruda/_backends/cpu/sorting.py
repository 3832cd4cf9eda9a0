"""CPU sorting with the standard's ``descending`` and ``stable`` keywords."""

from __future__ import annotations

import numpy as np

from ..._dispatch import register


@register("sort", "cpu")
def sort(x, axis=-1, descending=False, stable=True, kind=None, order=None):
    # Note: equal values are indistinguishable in a sorted copy (the standard leaves the order
    # of signed zeros and NaNs unspecified), so ``stable`` needs no slower algorithm here.
    if not descending:
        if axis is None:
            return np.sort(x, axis=None, kind=kind, order=order)
        y = x.copy()  # the in-place method skips np.sort's wrapper layer
        y.sort(axis=axis, kind=kind, order=order)
        return y
    if axis is None:
        x, axis = x.reshape(-1), 0
    # Sorting the reversed array and reversing back keeps equal elements in their order.
    s = np.sort(np.flip(x, axis=axis), axis=axis, kind=kind, order=order)
    return np.flip(s, axis=axis)


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
