"""fftfreq, rfftfreq, fftshift and ifftshift on cuda: the shared GPU glue (``gpu.fft``: a
frequency kernel and ruda's roll); the transforms themselves are cuFFT's (``library_fft``)."""

from __future__ import annotations

from typing import Any

from ..gpu.fft import Fft
from .ops import OPS

_HELPERS = ("fft.fftfreq", "fft.rfftfreq", "fft.fftshift", "fft.ifftshift")
LIBRARY: dict[str, Any] = {k: v for k, v in Fft(OPS).library().items() if k in _HELPERS}
__all__ = ["LIBRARY"]
