"""The errors ruda.distributed raises instead of hanging."""

from __future__ import annotations

__all__ = ["DistributedError", "MismatchError", "CommTimeoutError"]


class DistributedError(RuntimeError):
    """A collective or point-to-point call failed (MPI error, or a broken communicator)."""


class MismatchError(DistributedError, ValueError):
    """Ranks called a collective with disagreeing arguments (shape, dtype, op, root, function).

    Raised on every rank of the call, with the same message, so no rank is left waiting.
    """


class CommTimeoutError(DistributedError, TimeoutError):
    """The other ranks did not complete the call within ``timeout`` seconds.

    Usually a rank died or called something else; the communicator is unusable afterwards.
    """
