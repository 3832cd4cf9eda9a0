"""Creation on cuda devices: empty, zeros, ones, full, the *_like forms and arange.

The argument handling is the shared ``gpu.creation.CreationOps``; ``full`` writes the value's
bytes with the word-fill kernel (zero bytes: the driver's memset) and ``arange`` runs the IR
kernel ``start + i * step`` in a 32- or 64-bit type, then converts (``CudaOps`` in ops.py).
These names are the methods of the backend's one ``CudaOps``.
"""

from __future__ import annotations

from .ops import OPS

empty, zeros, ones, full, arange, like, fill = (
    OPS.empty, OPS.zeros, OPS.ones, OPS.full, OPS.arange, OPS.like, OPS.fill
)  # fmt: skip
__all__ = ["arange", "empty", "fill", "full", "like", "ones", "zeros"]
