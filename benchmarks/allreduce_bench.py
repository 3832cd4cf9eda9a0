"""ruda.distributed.all_reduce beside raw mpi4py ``Allreduce`` in the same run (issue 8, point 4).

    mpiexec -n 4 python benchmarks/allreduce_bench.py [--mib 64] [--repeats 15]

Both sum the same float32 array over all ranks; ruda runs with its default settings (the
argument cross-check on, a new result array each call), mpi4py into a preallocated buffer.
Calls alternate so drift hits both alike; the figure is raw time / ruda time (>= 0.95 wanted).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import ruda  # noqa: E402
from ruda import distributed as dist  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=float, default=64)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    comm = dist.init()
    raw = comm.mpi_comm.Dup()  # mpi4py's own communicator, as an application would use
    from mpi4py import MPI

    n = int(args.mib * 2**20) // 4
    host = numpy.random.default_rng(comm.rank).standard_normal(n).astype(numpy.float32)
    x = ruda.asarray(host)
    out = numpy.empty_like(host)

    def t_raw() -> float:
        raw.Barrier()
        t0 = time.perf_counter()
        raw.Allreduce(host, out, op=MPI.SUM)
        return time.perf_counter() - t0

    def t_ruda() -> float:
        raw.Barrier()
        t0 = time.perf_counter()
        dist.all_reduce(x, op="sum").device.synchronize()  # at once on the cpu; NCCL queues
        return time.perf_counter() - t0

    t_raw(), t_ruda()  # warm up (connections, first-touch of buffers)
    raws, rudas = [], []
    for _ in range(args.repeats):
        raws.append(t_raw())
        rudas.append(t_ruda())
    times = numpy.asarray([raws, rudas])
    raw.Allreduce(MPI.IN_PLACE, times, op=MPI.MAX)  # the slowest rank decides
    raws, rudas = times
    raw.Allreduce(host, out, op=MPI.SUM)
    assert numpy.array_equal(numpy.asarray(dist.all_reduce(x)), out)  # same sums
    if comm.rank == 0:
        r, u = numpy.median(raws), numpy.median(rudas)
        gib = args.mib / 1024
        print(f"all_reduce {args.mib:g} MiB float32 over {comm.size} ranks, {args.repeats} repeats")
        for name, t, ts in (
            ("mpi4py Allreduce (preallocated out)", r, raws),
            ("ruda all_reduce (default settings) ", u, rudas),
        ):
            print(f"  {name}: median {t * 1e3:8.2f} ms  min {min(ts) * 1e3:8.2f} ms", end="")
            print(f"  {gib / t:6.2f} GiB/s")
        print(f"  ratio raw / ruda: median {r / u:.3f}  best {min(raws) / min(rudas):.3f}")


if __name__ == "__main__":
    main()
