"""complex64/complex128 on cuda: the shared tests of ``tests/gpu/complex.py`` (creation, casts,
views, indexing, manipulation, vecdot, errors). Elementwise functions on complex run in
``test_elementwise_ops.py``, reductions and scans in ``test_reductions.py``."""

from __future__ import annotations

from tests.gpu.complex import *  # noqa: F403  (the shared tests, collected here)
