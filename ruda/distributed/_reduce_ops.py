"""Reduction names (``op="sum"``...) to MPI operations, per dtype."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtypes import kind_of
from ._mpi import mpi
from ._signature import OPS

__all__ = ["mpi_op", "finish_avg"]


def mpi_op(fname: str, op: Any, dtype: np.dtype) -> Any:
    """The MPI.Op computing ``op`` elementwise across ranks for arrays of ``dtype``."""
    if op not in OPS:
        raise ValueError(f"ruda.distributed.{fname}: op must be one of {OPS}, got {op!r}")
    MPI = mpi()
    kind = kind_of(dtype)
    if kind == "b":
        # Note: MPI has no arithmetic on booleans; NumPy's add/multiply/min/max of bools are
        # logical or/and, and that is what these compute.
        if op == "avg":
            raise TypeError(f"ruda.distributed.{fname}: op='avg' needs a floating-point dtype")
        return MPI.LOR if op in ("sum", "max") else MPI.LAND
    if op == "avg" and kind not in "fc":
        raise TypeError(
            f"ruda.distributed.{fname}: op='avg' needs a floating-point dtype, got {dtype.name}"
        )
    if kind == "c" and op in ("min", "max"):
        raise TypeError(f"ruda.distributed.{fname}: op={op!r} is not defined for complex dtypes")
    return {"sum": MPI.SUM, "avg": MPI.SUM, "prod": MPI.PROD, "min": MPI.MIN, "max": MPI.MAX}[op]


def finish_avg(host: np.ndarray, n: int) -> None:
    """Turn a sum over ``n`` ranks into the mean, in place on the host buffer."""
    # The MPI transport works on host buffers by construction (the NCCL path uses ncclAvg).
    np.divide(host, n, out=host)
