"""Sorting and set functions on wgpu against NumPy: the shared tests of ``tests/gpu/sorting.py``
(sort, argsort, unique_all, unique_counts, unique_inverse, unique_values)."""

from __future__ import annotations

from tests.gpu.sorting import *  # noqa: F403  (the shared tests, collected here)
