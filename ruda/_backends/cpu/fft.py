"""CPU FFT pieces that are more than one NumPy call."""

from __future__ import annotations

import numpy as np

from ..._dispatch import register


@register("fft.fftfreq", "cpu")
def fftfreq(n: int, d: float, dtype: np.dtype) -> np.ndarray:
    # NumPy has no dtype= here; compute in float64 and cast once.
    return np.fft.fftfreq(n, d).astype(dtype, copy=False)


@register("fft.rfftfreq", "cpu")
def rfftfreq(n: int, d: float, dtype: np.dtype) -> np.ndarray:
    return np.fft.rfftfreq(n, d).astype(dtype, copy=False)
