"""ruda.distributed: collectives and messages between processes, over MPI (issue 8).

Launch with ``mpiexec -n N python script.py``; without mpiexec there is one rank.

    >>> import ruda as np
    >>> from ruda import distributed as dist
    >>> comm = dist.init()
    >>> dist.all_reduce(np.ones(3) * (comm.rank + 1), op="sum")   # one rank: 1 + nothing
    array([1., 1., 1.])

Every call takes ``comm=`` (a ``Comm``; default: the world) and ``timeout=`` (seconds). CPU
arrays go to MPI as their own buffers (no copies); WebGPU arrays are staged through host
memory; CUDA arrays go through NCCL, one GPU per rank (``comm.local_device("cuda")``: the
local rank modulo the host's GPUs), with MPI carrying the cross-check and the NCCL set-up.
Before each collective the ranks cross-check their arguments, so a mismatch raises
``MismatchError`` on every rank.
"""

from ._collectives import (
    all_gather,
    all_reduce,
    all_to_all,
    barrier,
    broadcast,
    gather,
    reduce,
    reduce_scatter,
    scatter,
)
from ._comm import Comm, get_world, init, is_initialized
from ._errors import CommTimeoutError, DistributedError, MismatchError
from ._p2p import Handle, irecv, isend, recv, send

__all__ = [
    "Comm",
    "CommTimeoutError",
    "DistributedError",
    "Handle",
    "MismatchError",
    "all_gather",
    "all_reduce",
    "all_to_all",
    "barrier",
    "broadcast",
    "gather",
    "get_world",
    "init",
    "irecv",
    "is_initialized",
    "isend",
    "recv",
    "reduce",
    "reduce_scatter",
    "scatter",
    "send",
]
