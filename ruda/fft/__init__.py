"""ruda.fft: the standard's FFT extension plus NumPy's 2-D forms.

>>> import ruda as np
>>> np.fft.fft(np.asarray([1.0, 1.0])).tolist()
[(2+0j), 0j]
"""

from __future__ import annotations

from ._helpers import fftfreq, fftshift, ifftshift, rfftfreq
from ._transforms import (
    fft,
    fft2,
    fftn,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)

__all__ = [
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift", "fft2", "ifft2", "rfft2", "irfft2",
]  # fmt: skip
