"""Running an MPI call: blocking when there is no deadline, else non-blocking plus polling.

Every MPI error or missed deadline becomes a ruda error naming the function, and marks the
communicator unusable (an unfinished collective cannot be cancelled in MPI).
"""

from __future__ import annotations

import os
import time
from typing import Any

from ._comm import Comm
from ._errors import CommTimeoutError, DistributedError
from ._mpi import mpi

__all__ = ["run", "wait_request", "effective_timeout"]


def effective_timeout(comm: Comm, timeout: float | None, fname: str) -> float | None:
    """The call's timeout (``timeout=``, else the communicator's default), validated."""
    t = comm.timeout if timeout is None else timeout
    if t is not None and not t > 0:
        raise ValueError(f"ruda.distributed.{fname}: timeout must be > 0 seconds, got {t!r}")
    return t


def run(comm: Comm, fname: str, timeout: float | None, name: str, *args: Any) -> Any:
    """``comm.<name>(*args)``; with a timeout, its non-blocking form polled until the deadline."""
    c = comm._mpi
    try:
        if timeout is None and not sends_pending(comm):
            return getattr(c, name)(*args)
        req = getattr(c, "I" + name.lower())(*args)
    except mpi().Exception as e:
        raise _mpi_failure(comm, fname, e) from e
    wait_request(comm, fname, req, timeout)
    return None


def wait_request(comm: Comm, fname: str, req: Any, timeout: float | None, status: Any = None):
    """Complete ``req`` (an mpi4py Request) before the deadline; raise and mark broken if not."""
    MPI = mpi()
    try:
        if timeout is None and not sends_pending(comm):
            req.Wait(status)
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        spins = 0
        while not req.Test(status):
            spins += 1
            if spins & 63 == 0:
                if sends_pending(comm):
                    comm.p2p.service()  # a peer may be waiting on our cuda isend to go out
                if deadline is not None and time.monotonic() > deadline:
                    break
                # Ranks may share cores (mpiexec oversubscribes): let the peers run.
                os.sched_yield() if spins < 100_000 else time.sleep(1e-4)
        else:
            return
    except MPI.Exception as e:
        raise _mpi_failure(comm, fname, e) from e
    reason = f"{fname} timed out after {timeout:g} s"
    comm.mark_broken(reason)
    raise CommTimeoutError(
        f"ruda.distributed.{fname}: rank {comm.rank} of {comm.size} waited {timeout:g} s for "
        "the other ranks; one may have died, or called a different function"
    )


def sends_pending(comm: Comm) -> bool:
    """Whether this rank has cuda isends whose receivers may ask for the data (see _nccl_p2p):
    then every wait keeps answering them, as MPI progresses its own sends inside MPI calls."""
    p = comm.p2p
    return p is not None and any(p.pending.values())


def _mpi_failure(comm: Comm, fname: str, e: Exception) -> DistributedError:
    msg = e.Get_error_string() if hasattr(e, "Get_error_string") else str(e)
    comm.mark_broken(f"{fname}: MPI error")
    return DistributedError(f"ruda.distributed.{fname}: MPI error on rank {comm.rank}: {msg}")
