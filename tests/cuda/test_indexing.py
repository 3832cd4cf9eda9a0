"""Advanced indexing on cuda against NumPy: the shared tests of ``tests/gpu/indexing.py``
(integer and boolean array keys, ``__setitem__`` scatter, take, take_along_axis, extract,
compress, put, out-of-range indices)."""

from __future__ import annotations

from tests.gpu.indexing import *  # noqa: F403  (the shared tests, collected here)
