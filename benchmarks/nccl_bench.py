"""ruda.distributed on cuda arrays beside raw NCCL through CuPy, in the same run (issues 8 and 9).

    NCCL_NVLS_ENABLE=0 mpiexec -n 2 python benchmarks/nccl_bench.py [--mib 1,64,1024] [--json F]

Each rank drives its own GPU (``comm.local_device("cuda")``). For every size and collective,
ruda (default settings: the argument cross-check over MPI, a new result array each call) and
a raw ``NcclCommunicator`` call into preallocated buffers alternate. Bus bandwidth is timed as
nccl-tests does: from a barrier, ``iters`` calls queued back to back, then one stream sync.
Beside it, one call with a sync after it (latency, host work not overlapped). Which of the two
goes first alternates, the slowest rank decides, medians are reported. Sizes follow
nccl-tests: all_reduce and reduce_scatter count a rank's input, all_gather its output; bus
bandwidth = algbw x 2(n-1)/n for all_reduce and x (n-1)/n for the other two.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import ruda  # noqa: E402
from ruda import distributed as dist  # noqa: E402

OPS = ("all_reduce", "all_gather", "reduce_scatter")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", default="1,4,16,64,256,1024,4096")
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    import cupy
    from cupy.cuda import nccl
    from mpi4py import MPI

    comm = dist.init()
    dev = comm.local_device("cuda")
    cupy.cuda.Device(dev.index).use()
    raw_mpi = comm.mpi_comm.Dup()
    uid = raw_mpi.bcast(nccl.get_unique_id() if comm.rank == 0 else None, root=0)
    raw = nccl.NcclCommunicator(comm.size, uid, comm.rank)
    rows = []
    for mib in (float(m) for m in args.mib.split(",")):
        rows += _one_size(comm, raw_mpi, raw, dev, mib, args.ops.split(","), args.repeats, MPI)
        cupy.get_default_memory_pool().free_all_blocks()
    if comm.rank == 0 and args.json:
        name = cupy.cuda.runtime.getDeviceProperties(dev.index)["name"].decode()
        Path(args.json).write_text(json.dumps(dict(rows=rows, gpus=comm.size, device=name)))


def _one_size(comm, raw_mpi, raw, dev, mib, ops, repeats, MPI) -> list[dict]:  # noqa: N803
    import cupy
    from cupy.cuda import nccl

    n, f32 = comm.size, nccl.NCCL_FLOAT32
    count = int(mib * 2**20) // 4 // n * n  # divisible by the ranks
    host = numpy.random.default_rng(comm.rank).standard_normal(count, numpy.float32)
    x = ruda.asarray(host, device=dev)
    xs = ruda.asarray(host[: count // n], device=dev)
    big, part = cupy.asarray(host), cupy.asarray(host[: count // n])
    out_full, out_part = cupy.empty_like(big), cupy.empty_like(part)
    stream = cupy.cuda.get_current_stream()
    _check(comm, x, xs, big, raw, stream)
    calls = {
        "all_reduce": (
            lambda: dist.all_reduce(x),
            lambda: raw.allReduce(
                big.data.ptr, out_full.data.ptr, count, f32, nccl.NCCL_SUM, stream.ptr
            ),  # fmt: skip
            2 * (n - 1) / n,
        ),
        "all_gather": (
            lambda: dist.all_gather(xs),
            lambda: raw.allGather(part.data.ptr, out_full.data.ptr, count // n, f32, stream.ptr),
            (n - 1) / n,
        ),
        "reduce_scatter": (
            lambda: dist.reduce_scatter(x),
            lambda: raw.reduceScatter(
                big.data.ptr, out_part.data.ptr, count // n, f32, nccl.NCCL_SUM, stream.ptr
            ),  # fmt: skip
            (n - 1) / n,
        ),
    }

    def timed(fn, iters: int) -> float:
        """Seconds per call over ``iters`` calls queued back to back, then one sync: how
        nccl-tests measures bus bandwidth (host work overlaps the transfers in flight)."""
        raw_mpi.Barrier()
        stream.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        stream.synchronize()
        return (time.perf_counter() - t0) / iters

    rows = []
    iters = max(2, min(20, int(2048 / mib)))
    for op in ops:
        ours, theirs, factor = calls[op]
        timed(ours, 2), timed(theirs, 2)  # warm-up: connections, pool blocks, kernels
        t = numpy.empty((repeats, 4))
        for i in range(repeats):  # who goes first after the barrier alternates
            order = ((0, ours, iters), (1, theirs, iters), (2, ours, 1), (3, theirs, 1))
            for j, fn, k in order if i % 2 == 0 else order[::-1]:
                t[i, j] = timed(fn, k)
        raw_mpi.Allreduce(MPI.IN_PLACE, t, op=MPI.MAX)  # the slowest rank decides
        tr, tn, lr, ln = numpy.median(t, axis=0)
        nbytes = count * 4
        row = dict(op=op, mib=mib, ranks=n, iters=iters, ruda_ms=tr * 1e3, nccl_ms=tn * 1e3,
                   ruda_busbw=nbytes / tr * factor / 1e9, nccl_busbw=nbytes / tn * factor / 1e9,
                   ratio=tn / tr, ruda_single_ms=lr * 1e3, nccl_single_ms=ln * 1e3,
                   single_ratio=ln / lr)  # fmt: skip
        rows.append(row)
        if comm.rank == 0:
            print(f"{op:15s} {mib:7g} MiB x{n}: ruda {row['ruda_busbw']:7.1f} GB/s  "
                  f"NCCL {row['nccl_busbw']:7.1f} GB/s  ratio {row['ratio']:.3f}  "
                  f"| one synced call: ruda {lr * 1e3:.3f} ms NCCL {ln * 1e3:.3f} ms "
                  f"ratio {ln / lr:.3f}", flush=True)  # fmt: skip
    return rows


def _check(comm, x, xs, big, raw, stream) -> None:
    """The answers agree with NCCL's (bitwise: the same reduction order on the same data)."""
    import cupy
    from cupy.cuda import nccl

    out = cupy.empty_like(big)
    raw.allReduce(big.data.ptr, out.data.ptr, big.size, nccl.NCCL_FLOAT32, nccl.NCCL_SUM,
                  stream.ptr)  # fmt: skip
    ours = dist.all_reduce(x)
    same = bool(cupy.array_equal(cupy.from_dlpack(ours), out))
    g = cupy.from_dlpack(dist.all_gather(xs))
    same = same and g.shape == big.shape
    if not same:
        raise SystemExit(f"rank {comm.rank}: ruda's result differs from NCCL's")


if __name__ == "__main__":
    main()
