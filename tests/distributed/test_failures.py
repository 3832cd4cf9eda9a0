"""Errors instead of hangs: mismatched calls raise on every rank; dead ranks time out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

import ruda
from ruda import distributed as dist
from tests.helpers import assert_close, put

from .conftest import needs_ranks, per_rank


def test_mismatched_shape_raises_on_every_rank(device, comm):
    needs_ranks(comm)
    x = put(numpy.ones(3 if comm.rank == 0 else 4, dtype=numpy.float32), device)
    with pytest.raises(dist.MismatchError, match=r"rank 0: all_reduce\(shape=\(3,\)"):
        dist.all_reduce(x)
    assert_close(dist.all_reduce(put(numpy.ones(2), device)), numpy.full(2, comm.size * 1.0))


def test_mismatched_dtype_op_root_function(device, comm):
    needs_ranks(comm)
    first = comm.rank == 0
    x = put(numpy.ones(4, dtype=numpy.float32 if first else numpy.float64), device)
    with pytest.raises(dist.MismatchError, match="dtype=float32.*dtype=float64"):
        dist.all_reduce(x)
    y = put(numpy.ones(4), device)
    with pytest.raises(dist.MismatchError, match="op='max'"):
        dist.all_reduce(y, op="max" if first else "sum")
    with pytest.raises(dist.MismatchError, match="root=1"):
        dist.broadcast(y, root=1 if first else 0)
    with pytest.raises(dist.MismatchError, match="all_gather"):
        dist.all_reduce(y) if first else dist.all_gather(y)
    dist.barrier()


def test_bad_arguments_raise_on_every_rank(device, comm, shared_rng):
    x = put(per_rank(shared_rng, 1, (comm.size * 2 + 1, 2), "float64")[0], device)
    with pytest.raises(ValueError, match="ruda.distributed.all_reduce: op must be one of"):
        dist.all_reduce(x, op="mean")
    if comm.size > 1:  # 2 * size + 1 rows never split evenly over 2+ ranks
        with pytest.raises(ValueError, match="does not split evenly"):
            dist.reduce_scatter(x, axis=0)
    with pytest.raises(TypeError, match="avg' needs a floating-point"):
        dist.all_reduce(put(numpy.ones(2, dtype=numpy.int32), device), op="avg")
    with pytest.raises(TypeError, match="not defined for complex"):
        has = "complex64" in ruda.__array_namespace_info__().dtypes(device=device)
        cx = put(numpy.ones(2, dtype=numpy.complex64), device if has else ruda.Device("cpu"))
        dist.all_reduce(cx, op="max")
    with pytest.raises(ValueError, match="root 99 is not a rank"):
        dist.broadcast(x, root=99)
    with pytest.raises(ValueError, match="out of bounds"):
        dist.all_gather(x, axis=5)
    with pytest.raises(ValueError, match="timeout must be > 0"):
        dist.barrier(timeout=-1)
    with pytest.raises(TypeError, match="comm must be"):
        dist.barrier(comm="world")


def test_send_recv_ring(device, comm, shared_rng):
    datas = per_rank(shared_rng, comm.size, (3, 5), "float32")
    right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    h = dist.isend(put(datas[comm.rank], device), right, tag=7)
    like = put(numpy.zeros((3, 5), numpy.float32), device)
    assert_close(dist.recv(like=like, source=left, tag=7), datas[left], device=device)
    h.wait()
    h = dist.isend(put(datas[comm.rank][:, ::2], device), right)  # non-contiguous; no like
    r = dist.irecv(source=None).wait()
    assert_close(r, datas[left][:, ::2])
    h.wait()
    big = per_rank(shared_rng, comm.size, (300_000,), "float64")  # past the eager limit
    h = dist.isend(put(big[comm.rank], device), right)
    assert_close(dist.irecv(like=put(big[0], device), source=left).wait(timeout=30), big[left])
    assert h.wait() is None and h.test()


def test_recv_mismatch_is_an_error(device, comm):
    h = dist.isend(put(numpy.ones(4), device), (comm.rank + 1) % comm.size)
    like = put(numpy.ones(5), device)
    with pytest.raises(dist.MismatchError, match=r"sent shape \(4,\) float64"):
        dist.recv(like=like, source=(comm.rank - 1) % comm.size)
    if device.kind == "cuda" and comm.size > 1:
        # The data never left (NCCL moves it only when asked): the sender learns of the refusal.
        with pytest.raises(dist.MismatchError, match="refused the message"):
            h.wait()
    else:
        h.wait()
    dist.barrier()


def _clean_env() -> dict:
    # The child job must not think it is part of this process's MPI job.
    drop = ("PMI_", "PMIX_", "HYDRA_", "MPIR_", "MPI_LOCAL")
    return {k: v for k, v in os.environ.items() if not k.startswith(drop)}


@pytest.mark.parametrize("mode", ["dead", "absent"])
def test_dead_or_absent_rank_raises_instead_of_hanging(comm, mode):
    if comm.size > 1:
        pytest.skip("launches its own mpiexec: runs in the plain (no mpiexec) pytest run")
    mpiexec = Path(sys.executable).parent / "mpiexec"
    cmd = [str(mpiexec) if mpiexec.exists() else "mpiexec", "-n", "3", "-disable-auto-cleanup"]
    cmd += [sys.executable, "-m", "tests.distributed._scenario", mode]
    root = Path(__file__).resolve().parents[2]
    p = subprocess.run(cmd, cwd=root, env=_clean_env(), capture_output=True, text=True, timeout=90)
    out = p.stdout
    for r in (0, 2):
        assert f"rank {r}: RAISED" in out, out + p.stderr
        assert f"rank {r}: THEN DistributedError" in out, out + p.stderr
    assert "NO ERROR" not in out
    assert "waited 2 s for the other ranks" in out


def test_isend_progresses_inside_other_calls(device, comm, shared_rng):
    # Rank 1 receives while rank 0 already waits in a barrier: the send must still go out
    # (MPI progresses it inside MPI calls; cuda sends are answered inside ruda's waits).
    needs_ranks(comm)
    datas = per_rank(shared_rng, comm.size, (1000,), "float64")
    if comm.rank == 0:
        h = dist.isend(put(datas[0], device), 1)
        dist.barrier()
        h.wait()
    elif comm.rank == 1:
        got = dist.recv(like=put(datas[1], device), source=0)
        dist.barrier()
        assert_close(got, datas[0], device=device)
    else:
        dist.barrier()
