"""Searching on cuda against NumPy: the shared tests of ``tests/gpu/searching.py`` (argmax,
argmin, count_nonzero, nonzero, argwhere, flatnonzero, searchsorted)."""

from __future__ import annotations

from tests.gpu.searching import *  # noqa: F403  (the shared tests, collected here)
