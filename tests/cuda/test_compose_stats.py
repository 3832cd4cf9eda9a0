"""diff, bincount and median on cuda against NumPy: the shared tests of
``tests/gpu/compose_stats.py``."""

from __future__ import annotations

from tests.gpu.compose_stats import *  # noqa: F403  (the shared tests, collected here)
