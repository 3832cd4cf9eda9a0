"""linspace, meshgrid, tril, triu, isin and asarray of nested arrays on cuda against NumPy: the
shared tests of ``tests/gpu/compose_create.py``."""

from __future__ import annotations

from tests.gpu.compose_create import *  # noqa: F403  (the shared tests, collected here)
