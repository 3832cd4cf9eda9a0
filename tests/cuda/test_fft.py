"""The fft extension on cuda (cuFFT; frequencies and shifts through the shared GPU kernels):
the shared tests of ``tests/gpu/fft.py``."""

from __future__ import annotations

from tests.gpu.fft import *  # noqa: F403  (the shared tests, collected here)
