"""The standard's special cases where NumPy differs, on wgpu: the shared tests of
``tests/gpu/special_cases.py``."""

from __future__ import annotations

from tests.gpu.special_cases import *  # noqa: F403  (the shared tests, collected here)
