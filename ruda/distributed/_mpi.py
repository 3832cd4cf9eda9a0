"""mpi4py, imported on first use, with one clear error when it is missing."""

from __future__ import annotations

from typing import Any

_MPI: list[Any] = []


def mpi() -> Any:
    """The ``mpi4py.MPI`` module (importing it initialises MPI: one rank outside mpiexec)."""
    if not _MPI:
        try:
            from mpi4py import MPI
        except ImportError as e:
            raise ImportError(
                "ruda.distributed needs mpi4py and an MPI library: pip install 'ruda[mpi]' "
                "(the mpich wheel provides the runtime and mpiexec)"
            ) from e
        _MPI.append(MPI)
    return _MPI[0]
