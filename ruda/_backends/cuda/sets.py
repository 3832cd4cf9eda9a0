"""Set functions on cuda: unique_all, unique_counts, unique_inverse, unique_values (the shared
``gpu.sorting`` over this backend's ops: ruda's radix sort, flags, a scan and a scatter).
sort and argsort stay with CUB/Thrust (``library_sort``)."""

from __future__ import annotations

from typing import Any

from ..gpu.sorting import Sorting
from .ops import OPS

# Tiles of 2048 keys (22.5 KiB of shared memory); warp-shuffle scans.
VARIANT: dict[str, Any] = {"wg": 256, "ipt": 8, "bits": 8, "scan": "subgroup"}
SORTING = Sorting(OPS, VARIANT)
LIBRARY: dict[str, Any] = SORTING.set_library()
__all__ = ["LIBRARY", "SORTING", "VARIANT"]
