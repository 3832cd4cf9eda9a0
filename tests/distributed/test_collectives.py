"""Collectives against NumPy: every rank knows every rank's data and checks its own result."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda import distributed as dist
from tests.helpers import assert_close, put, to_numpy

from .conftest import needs_dtype, per_rank

REDUCE = {
    "sum": lambda s: numpy.add.reduce(s, axis=0),
    "prod": lambda s: numpy.multiply.reduce(s, axis=0),
    "min": lambda s: numpy.minimum.reduce(s, axis=0),
    "max": lambda s: numpy.maximum.reduce(s, axis=0),
    "avg": lambda s: numpy.mean(s.astype(numpy.float64), axis=0),
}


def _expected_reduce(datas, op):
    e = REDUCE[op](numpy.stack(datas))
    return numpy.asarray(e).astype(datas[0].dtype)


def _sum_atol(datas, op="sum"):
    """MPI adds the ranks' values in its own order: a float sum may differ from NumPy's by the
    rounding of each addition, n * eps * sum(|x|), which no relative tolerance bounds where the
    terms cancel (CI drew a float32 sum of 4 terms near -2e-3 that was 6e-5 off relatively)."""
    st = numpy.stack(datas)
    if op not in ("sum", "avg") or st.dtype.kind not in "fc" or st.size == 0:
        return 0.0
    scale = numpy.abs(st).astype(numpy.float64).sum(axis=0).max()
    return float(len(datas) * numpy.finfo(st.dtype).eps * scale)


CASES = [
    ("float32", op) for op in REDUCE
] + [("float64", "sum"), ("float64", "avg"), ("int32", "prod"), ("int64", "max")] + [
    ("uint8", "min"), ("bool", "sum"), ("bool", "prod"), ("complex128", "sum"),
    ("float16", "max"), ("int16", "sum"),
]  # fmt: skip


@pytest.mark.parametrize("dtype,op", CASES)
def test_all_reduce(device, comm, shared_rng, dtype, op):
    needs_dtype(device, dtype)
    datas = per_rank(shared_rng, comm.size, (5, 3), dtype)
    x = put(datas[comm.rank], device)
    r = dist.all_reduce(x, op=op)
    rtol = 1e-2 if dtype == "float16" else None
    assert_close(
        r, _expected_reduce(datas, op), rtol=rtol, atol=_sum_atol(datas, op), device=device
    )
    assert r is not x and not numpy.shares_memory(to_numpy(r), to_numpy(x))
    assert_close(x, datas[comm.rank])  # the input is left alone


def test_all_reduce_shapes(device, comm, shared_rng):
    for shape in [(), (0,), (7,), (2, 3, 4)]:
        datas = per_rank(shared_rng, comm.size, shape, "float64")
        r = dist.all_reduce(put(datas[comm.rank], device))
        assert_close(r, _expected_reduce(datas, "sum"), device=device)


def test_all_reduce_noncontiguous_and_arraylike(device, comm, shared_rng):
    datas = per_rank(shared_rng, comm.size, (6, 4), "float64")
    x = put(datas[comm.rank], device)[::2, 1:]
    parts = [d[::2, 1:] for d in datas]
    assert_close(dist.all_reduce(x), _expected_reduce(parts, "sum"), atol=_sum_atol(parts))
    r = dist.all_reduce(datas[comm.rank].tolist(), op="max")  # NumPy surface: array-likes
    assert_close(r, _expected_reduce(datas, "max"))


def test_cpu_buffers_are_not_copied(comm):
    from ruda.distributed._paths import path_for

    x = ruda.ones((4, 4), dtype=ruda.float32)
    assert path_for(x.device, "all_reduce").send_buffer(x._data) is x._data


@pytest.mark.parametrize("shape,axis", [((2, 3), 0), ((2, 3), 1), ((2, 3, 2), -1), ((), 0)])
def test_all_gather(device, comm, shared_rng, shape, axis):
    datas = per_rank(shared_rng, comm.size, shape, "int64")
    r = dist.all_gather(put(datas[comm.rank], device), axis=axis)
    expected = numpy.concatenate([numpy.atleast_1d(d) for d in datas], axis=axis)
    assert_close(r, expected, device=device)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["sum", "max", "avg"])
def test_reduce_scatter(device, comm, shared_rng, axis, op):
    shape = [3, 3]
    shape[axis] = 2 * comm.size
    datas = per_rank(shared_rng, comm.size, tuple(shape), "float64")
    r = dist.reduce_scatter(put(datas[comm.rank], device), op=op, axis=axis)
    full = _expected_reduce(datas, op)
    expected = numpy.split(full, comm.size, axis=axis)[comm.rank]
    assert_close(r, expected, atol=_sum_atol(datas, op), device=device)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_all_to_all(device, comm, shared_rng, axis):
    shape = [2, 3, 2]
    shape[axis] = 3 * comm.size
    datas = per_rank(shared_rng, comm.size, tuple(shape), "float32")
    r = dist.all_to_all(put(datas[comm.rank], device), axis=axis)
    pieces = [numpy.split(d, comm.size, axis=axis)[comm.rank] for d in datas]
    assert_close(r, numpy.concatenate(pieces, axis=axis), device=device)


@pytest.mark.parametrize("pass_none", [False, True])
@pytest.mark.parametrize("dtype", ["complex64", "int16", "bool"])
def test_broadcast(device, comm, shared_rng, pass_none, dtype):
    needs_dtype(device, dtype)
    root = comm.size - 1
    datas = per_rank(shared_rng, comm.size, (3, 2), dtype)
    x = put(datas[comm.rank], device)
    r = dist.broadcast(None if pass_none and comm.rank != root else x, root=root)
    assert_close(r, datas[root])
    assert r is not x and not numpy.shares_memory(to_numpy(r), to_numpy(x))


def test_reduce_and_gather(device, comm, shared_rng):
    root = comm.size // 2
    datas = per_rank(shared_rng, comm.size, (2, 3), "int32")
    x = put(datas[comm.rank], device)
    r = dist.reduce(x, root=root, op="sum")
    g = dist.gather(x, root=root, axis=1)
    if comm.rank == root:
        assert_close(r, _expected_reduce(datas, "sum"), atol=_sum_atol(datas), device=device)
        assert_close(g, numpy.concatenate(datas, axis=1), device=device)
    else:
        assert r is None and g is None


@pytest.mark.parametrize("axis", [0, 1])
def test_scatter(device, comm, shared_rng, axis):
    root = 0
    shape = [2, 2]
    shape[axis] = 2 * comm.size
    full = per_rank(shared_rng, 1, tuple(shape), "float64")[0]
    x = put(full, device) if comm.rank == root else None
    r = dist.scatter(x, root=root, axis=axis)
    assert_close(r, numpy.split(full, comm.size, axis=axis)[comm.rank])


def test_split_subcommunicators(device, comm, shared_rng):
    sub = comm.split(comm.rank % 2)
    members = [r for r in range(comm.size) if r % 2 == comm.rank % 2]
    assert (sub.size, sub.rank) == (len(members), members.index(comm.rank))
    datas = per_rank(shared_rng, comm.size, (4,), "float64")
    r = dist.all_reduce(put(datas[comm.rank], device), comm=sub)
    mine = [datas[m] for m in members]
    assert_close(r, _expected_reduce(mine, "sum"), atol=_sum_atol(mine))
    g = dist.all_gather(put(datas[comm.rank], device), comm=sub)
    assert_close(g, numpy.concatenate([datas[m] for m in members]))
    assert comm.split(None) is None
    dist.barrier(comm=sub)


def test_timeout_path_gives_same_results(device, comm, shared_rng):
    # timeout= switches every call to non-blocking MPI + polling: same answers.
    datas = per_rank(shared_rng, comm.size, (4, 2 * comm.size), "float64")
    x = put(datas[comm.rank], device)
    assert_close(dist.all_reduce(x, op="max", timeout=30), _expected_reduce(datas, "max"))
    assert_close(dist.all_gather(x, timeout=30), numpy.concatenate(datas))
    rs = dist.reduce_scatter(x, axis=1, timeout=30)
    want = numpy.split(_expected_reduce(datas, "sum"), comm.size, 1)[comm.rank]
    assert_close(rs, want, atol=_sum_atol(datas))
    assert_close(dist.broadcast(x, root=0, timeout=30), datas[0])
    dist.barrier(timeout=30)


def test_without_crosscheck(device, comm, shared_rng):
    quick = comm.split(0)
    quick.check = False
    datas = per_rank(shared_rng, comm.size, (3,), "float32")
    x = put(datas[comm.rank], device)
    assert_close(
        dist.all_reduce(x, comm=quick), _expected_reduce(datas, "sum"), atol=_sum_atol(datas)
    )
    assert_close(dist.broadcast(x, root=0, comm=quick), datas[0])
    dist.barrier(comm=quick)
    if comm.rank != 0:
        with pytest.raises(ValueError, match="cross-check"):
            dist.broadcast(None, root=0, comm=quick)
