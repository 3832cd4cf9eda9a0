"""eye, identity and diag on cuda against NumPy: the shared tests of
``tests/gpu/compose_diag.py``."""

from __future__ import annotations

from tests.gpu.compose_diag import *  # noqa: F403  (the shared tests, collected here)
