"""CPU sorting with the standard's ``descending`` and ``stable`` keywords."""

from __future__ import annotations

import numpy as np

from ..._dispatch import register


def _value_kind(x: np.ndarray, stable: bool, kind: str | None) -> str | None:
    """The NumPy kind for sorting values: stability is only visible for signed zeros."""
    if kind is not None or not stable:
        return kind
    k = x.dtype.kind
    if k in "biu":
        return None  # equal integers are indistinguishable: the fast sort is stable enough
    if k == "f" and not (x == 0).any():
        return None
    return "stable"


@register("sort", "cpu")
def sort(x, axis=-1, descending=False, stable=True, kind=None, order=None):
    if not descending:
        return np.sort(x, axis=axis, kind=_value_kind(x, stable, kind), order=order)
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
        return np.argsort(x, axis=axis, kind=kind, order=order)
    if axis is None:
        x, axis = x.reshape(-1), 0
    n = x.shape[axis]
    # Stable descending: argsort the reversed array, reverse, and map back to x's indices.
    i = np.argsort(np.flip(x, axis=axis), axis=axis, kind=kind, order=order)
    return (n - 1) - np.flip(i, axis=axis)
