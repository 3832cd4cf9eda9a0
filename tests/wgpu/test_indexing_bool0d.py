"""0-d boolean indices on wgpu against NumPy: the shared tests of
``tests/gpu/indexing_bool0d.py``."""

from __future__ import annotations

from tests.gpu.indexing_bool0d import *  # noqa: F403  (the shared tests, collected here)
