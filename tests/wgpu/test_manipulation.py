"""Manipulation ops on wgpu against NumPy: the shared tests of ``tests/gpu/manipulation.py``
(concat, stack, roll, tile, repeat, pad, where, clip, views...) per dtype, on lavapipe too."""

from __future__ import annotations

from tests.gpu.manipulation import *  # noqa: F403  (the shared tests, collected here)

GPU_DTYPES = ["bool", "uint8", "int8", "int16", "uint16", "float16", "int32", "float32",
              "int64", "uint64", "float64"]  # fmt: skip
