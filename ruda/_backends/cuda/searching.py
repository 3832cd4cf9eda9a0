"""Searching and advanced indexing on cuda: argmax, argmin, count_nonzero, nonzero, argwhere,
flatnonzero, searchsorted, take, take_along_axis, extract, compress, put (the shared
``gpu.searching`` and ``gpu.indexing`` over this backend's ops, reductions and scans).
Importing it also gives the native arrays' ``__getitem__``/``__setitem__`` their boolean
masks (``ops.searching.nonzero``)."""

from __future__ import annotations

from typing import Any

from ..gpu.indexing import Indexing
from ..gpu.searching import Searching
from .ops import OPS
from .reductions import REDUCTIONS
from .scans import SCANS

SEARCHING = Searching(OPS, REDUCTIONS, SCANS)
INDEXING = Indexing(OPS)
LIBRARY: dict[str, Any] = {**SEARCHING.library(), **INDEXING.library()}
__all__ = ["INDEXING", "LIBRARY", "SEARCHING"]
