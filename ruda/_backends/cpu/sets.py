"""CPU set functions: the standard's unique_* as plain tuples of NumPy arrays."""

from __future__ import annotations

import numpy as np

from ..._dispatch import register


@register("unique_all", "cpu")
def unique_all(x: np.ndarray) -> tuple[np.ndarray, ...]:
    # NaNs are distinct values (equal_nan=False), as the standard asks.
    r = np.unique_all(x)
    return r.values, r.indices, r.inverse_indices, r.counts


@register("unique_counts", "cpu")
def unique_counts(x: np.ndarray) -> tuple[np.ndarray, ...]:
    r = np.unique_counts(x)
    return r.values, r.counts


@register("unique_inverse", "cpu")
def unique_inverse(x: np.ndarray) -> tuple[np.ndarray, ...]:
    r = np.unique_inverse(x)
    return r.values, r.inverse_indices


@register("unique_values", "cpu")
def unique_values(x: np.ndarray) -> np.ndarray:
    # Note: NumPy 2.4 returns unique_values unordered (hashing); ruda sorts them, as
    # unique_all/unique_counts/unique_inverse do and as scikit-learn and CuPy assume.
    return np.sort(np.unique_values(x))
