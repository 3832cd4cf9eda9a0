"""ruda.random on cuda against the CPU stream: the shared tests of ``tests/gpu/random.py``
(the Philox4x32-10 kernel's words, every Generator method bit for bit or within ulps, split
draws, odd and large sizes, no host transfers)."""

from __future__ import annotations

from tests.gpu.random import *  # noqa: F403  (the shared tests, collected here)
