"""Discrete Fourier transforms on wgpu: fft, ifft, rfft, irfft, hfft, ihfft, their n-D forms
(fft2 & co. reach these through the namespace), fftfreq, rfftfreq, fftshift and ifftshift
(the shared ``gpu.fft`` over this backend's ops: ruda's Stockham and Bluestein kernels)."""

from __future__ import annotations

from typing import Any

from ..gpu.fft import Fft
from .ops import OPS

FFT = Fft(OPS)
LIBRARY: dict[str, Any] = FFT.library()
__all__ = ["FFT", "LIBRARY"]
