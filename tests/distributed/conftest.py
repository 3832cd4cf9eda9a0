"""Fixtures for the distributed tests, which run once per rank under mpiexec.

    mpiexec -n 2 python -m pytest tests/distributed -q -p no:cacheprovider
    mpiexec -n 4 python -m pytest tests/distributed -q -p no:cacheprovider

Without mpiexec they run on one rank (size-1 semantics), plus the scenarios that launch
their own mpiexec (a dead rank, a rank that never calls).
"""

from __future__ import annotations

import os

import numpy
import pytest

pytest.importorskip("mpi4py", reason="ruda.distributed needs mpi4py: pip install 'ruda[mpi]'")

import ruda  # noqa: E402
from ruda import distributed as dist  # noqa: E402

# A test that goes wrong on one rank only must not leave the others waiting forever.
TEST_TIMEOUT = float(os.environ.get("RUDA_DIST_TEST_TIMEOUT", "120"))


@pytest.fixture(scope="session")
def comm() -> dist.Comm:
    """The world, with a timeout so a misaligned test fails instead of hanging."""
    return dist.init(timeout=TEST_TIMEOUT)


@pytest.fixture
def device(request, comm) -> ruda.Device:
    """This rank's device of each tested kind (tests/conftest.py parametrises ``device``): one GPU
    per rank (local rank modulo GPUs)."""
    return comm.local_device(request.param.split(":")[0])


def needs_dtype(device, dtype: str) -> None:
    """Skip where the device lacks a standard dtype (the inspection API says which it has);
    NumPy-only dtypes such as float16 are left to the backend (every device has float16)."""
    info = ruda.__array_namespace_info__()
    if dtype in info.dtypes(device="cpu") and dtype not in info.dtypes(device=device):
        pytest.skip(f"{device} has no {dtype} (see __array_namespace_info__().dtypes)")


@pytest.fixture
def shared_rng(comm) -> numpy.random.Generator:
    """The same fresh random stream on every rank (rank 0 picks the seed)."""
    seed = int.from_bytes(os.urandom(4), "little") if comm.rank == 0 else None
    seed = comm.mpi_comm.bcast(seed, root=0)
    print(f"shared rng seed {seed}")
    return numpy.random.default_rng(seed)


def per_rank(rng, n: int, shape, dtype) -> list[numpy.ndarray]:
    """Known data for each of ``n`` ranks, generated identically on every rank."""
    dtype = numpy.dtype(dtype)
    out = []
    for _ in range(n):
        if dtype.kind == "b":
            a = rng.random(shape) < 0.5
        elif dtype.kind in "iu":
            a = rng.integers(1, 4, shape).astype(dtype)
        elif dtype.kind == "c":
            a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
        else:
            a = (rng.standard_normal(shape) + 0.25).astype(dtype)
        out.append(a)
    return out


def needs_ranks(comm, n: int = 2) -> None:
    if comm.size < n:
        pytest.skip(f"needs {n}+ ranks: run under mpiexec -n 2 / -n 4 (see conftest.py)")
