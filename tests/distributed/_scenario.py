"""A failure scenario run under its own mpiexec by test_failures.py (not a test module).

    mpiexec -n 3 -disable-auto-cleanup python -m tests.distributed._scenario dead|absent

Rank 1 dies (``os._exit``) or never calls; the others call all_reduce with a timeout and
print what happened, one line each.
"""

from __future__ import annotations

import os
import sys
import time

import ruda
from ruda import distributed as dist


def main(mode: str) -> None:
    comm = dist.init()
    dist.barrier(timeout=30)
    if comm.rank == 1:
        if mode == "dead":
            os._exit(3)
        time.sleep(8)  # alive, but never joins the collective
        os._exit(0)
    t0 = time.monotonic()
    try:
        dist.all_reduce(ruda.ones(1000), timeout=2)
        print(f"rank {comm.rank}: NO ERROR", flush=True)
    except dist.CommTimeoutError as e:
        print(f"rank {comm.rank}: RAISED after {time.monotonic() - t0:.1f}s: {e}", flush=True)
    try:
        dist.barrier()
    except dist.DistributedError as e:
        print(f"rank {comm.rank}: THEN {type(e).__name__}: {e}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
