"""Communicators: ``init()``, the world communicator, ``Comm.split``; failure bookkeeping.

A ``Comm`` wraps a private duplicate of an mpi4py communicator, so ruda's messages never
match the application's own mpi4py traffic on the original.
"""

from __future__ import annotations

import atexit
import os
import sys
from typing import Any

from ._errors import DistributedError
from ._mpi import mpi

__all__ = ["Comm", "init", "get_world", "is_initialized"]


class Comm:
    """A group of ranks that run collectives together.

    >>> from ruda import distributed as dist
    >>> comm = dist.init()
    >>> (comm.rank, comm.size)   # outside mpiexec: one rank
    (0, 1)
    """

    __slots__ = ("_mpi", "rank", "size", "timeout", "check", "_broken", "_local", "nccl", "p2p")

    def __init__(self, mpi_comm: Any, *, timeout: float | None = None, check: bool = True):
        self._mpi = mpi_comm
        self.rank: int = mpi_comm.Get_rank()
        self.size: int = mpi_comm.Get_size()
        # Seconds a call may wait for the other ranks (None: forever); per-call timeout= wins.
        self.timeout = timeout
        # Exchange (function, shape, dtype, ...) before each collective to turn misuse into errors.
        self.check = check
        self._broken: str | None = None
        # (rank, size) among this host's ranks; Comm objects are made collectively, so here.
        node = mpi_comm.Split_type(mpi().COMM_TYPE_SHARED, self.rank)
        self._local = (node.Get_rank(), node.Get_size())
        node.Free()
        # NCCL communicators over these ranks, by local GPU index (made on first use).
        self.nccl: dict[int, Any] = {}
        self.p2p: Any = None  # point-to-point state of cuda messages (made on first use)

    def __repr__(self) -> str:
        return f"<ruda.distributed.Comm rank {self.rank} of {self.size}>"

    @property
    def mpi_comm(self) -> Any:
        """The underlying mpi4py communicator (ruda's private duplicate)."""
        return self._mpi

    @property
    def local_rank(self) -> int:
        """This rank's index among the ranks on its host (0 outside mpiexec)."""
        return self._local[0]

    @property
    def local_size(self) -> int:
        """How many ranks of this communicator run on this host."""
        return self._local[1]

    def local_device(self, kind: str = "cuda") -> Any:
        """This rank's device of ``kind``: for "cuda" the local rank modulo the host's GPUs
        (NCCL needs one GPU per rank); for other kinds, the kind's first device (its arrays are
        staged through host memory, so ranks may share one).

        >>> from ruda import distributed as dist
        >>> dist.init().local_device("cpu")
        Device('cpu')
        """
        from .._devices import Device

        if kind != "cuda":
            return Device(kind)
        return Device(kind, self.local_rank % Device(kind).backend.device_count())

    def split(self, color: int | None, key: int | None = None) -> Comm | None:
        """Sub-communicators: ranks passing the same ``color`` form one (collective call).

        ``key`` orders the ranks in the new communicator (default: their rank here); a rank
        passing ``color=None`` joins none and gets None.

        >>> from ruda import distributed as dist
        >>> sub = dist.init().split(0)
        >>> sub.size
        1
        """
        self.ensure_usable("Comm.split")
        MPI = mpi()
        c = MPI.UNDEFINED if color is None else int(color)
        k = self.rank if key is None else int(key)
        new = self._mpi.Split(c, k)
        if new == MPI.COMM_NULL:
            return None
        return Comm(new, timeout=self.timeout, check=self.check)

    def ensure_usable(self, fname: str) -> None:
        """Raise if an earlier timeout or MPI error left this communicator unusable."""
        if self._broken is not None:
            raise DistributedError(
                f"ruda.distributed.{fname}: the communicator is unusable after an earlier "
                f"failure ({self._broken})"
            )

    def mark_broken(self, reason: str) -> None:
        """Record a failure; the process then leaves at exit instead of hanging in Finalize."""
        self._broken = reason
        _exit_hard_at_exit()


_WORLD: list[Comm] = []


def init(*, timeout: float | None = None, check: bool = True) -> Comm:
    """Start MPI (if needed) and return the world communicator.

    Inside ``mpiexec -n N python script.py`` the world has N ranks; without mpiexec, one.
    ``timeout`` (seconds) becomes the default of every call on it (None: wait forever, or the
    ``RUDA_DIST_TIMEOUT`` environment variable); ``check=False`` skips the argument
    cross-check before each collective.

    >>> from ruda import distributed as dist
    >>> comm = dist.init()
    >>> comm.size >= 1
    True
    """
    if timeout is None and os.environ.get("RUDA_DIST_TIMEOUT"):
        timeout = float(os.environ["RUDA_DIST_TIMEOUT"])
    if _WORLD:
        w = _WORLD[0]
        w.timeout, w.check = timeout, check
        return w
    world = mpi().COMM_WORLD
    _WORLD.append(Comm(world.Dup(), timeout=timeout, check=check))
    return _WORLD[0]


def get_world() -> Comm:
    """The world communicator, initialised with defaults on first use."""
    return _WORLD[0] if _WORLD else init()


def is_initialized() -> bool:
    """Whether ``init()`` has run in this process."""
    return bool(_WORLD)


def resolve_comm(comm: Comm | None, fname: str) -> Comm:
    """The communicator a call runs on (``comm=`` or the world), checked usable."""
    c = get_world() if comm is None else comm
    if not isinstance(c, Comm):
        raise TypeError(
            f"ruda.distributed.{fname}: comm must be a ruda.distributed.Comm, "
            f"got {type(c).__name__}"
        )
    c.ensure_usable(fname)
    return c


_HARD_EXIT: list[bool] = []


def _exit_hard_at_exit() -> None:
    # MPI_Finalize waits for the dead or stuck peer forever: skip it once a call has failed.
    if _HARD_EXIT:
        return
    _HARD_EXIT.append(True)

    def _leave() -> None:
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:
                pass
        os._exit(1)

    atexit.register(_leave)
