"""Sorting and set functions on wgpu: sort, argsort, unique_all, unique_counts, unique_inverse,
unique_values (the shared ``gpu.sorting`` over this backend's ops: ruda's radix sort)."""

from __future__ import annotations

from typing import Any

from ..gpu.sorting import Sorting
from .ops import OPS

# Tiles of 1024 keys: the local sort's workgroup memory stays within WebGPU's guaranteed 16 KiB;
# subgroup scans where the adapter has them (else Hillis-Steele: ``Sorting.decided``).
VARIANT: dict[str, Any] = {"wg": 256, "ipt": 4, "bits": 8, "scan": "subgroup"}
SORTING = Sorting(OPS, VARIANT)
LIBRARY: dict[str, Any] = SORTING.library()
__all__ = ["LIBRARY", "SORTING", "VARIANT"]
