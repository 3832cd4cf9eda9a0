"""Point-to-point messages of cuda arrays: matched over MPI, moved by NCCL.

MPI keeps its matching rules (tags, any source, header checks): the sender posts the usual
header, carrying a message id. The receiver, once it has matched a header, answers with a
clear-to-send naming that id (and, the first time, the unique id of an NCCL communicator for
that direction), then queues ``ncclRecv``. The sender, in ``wait()``, answers clear-to-sends
in the order they arrive with ``ncclSend``s, so both sides queue their NCCL calls in the same
order, which is how NCCL pairs them. A receiver that rejects a message (wrong ``like=``)
answers with a refusal, and the sender's ``wait()`` raises too. Messages to oneself are a
device copy made at ``isend``.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

import numpy as np

from ._comm import Comm
from ._errors import CommTimeoutError, DistributedError, MismatchError
from ._mpi import mpi
from ._nccl import POLL_S, NcclComm, draw_uid, make_communicator, nccl_module

__all__ = ["P2P", "state"]

_CTS_WORDS = 2 + 16  # message id (negative: refused), has-uid flag, the 128-byte NCCL unique id


class P2P:
    """One communicator's cuda message state: outgoing buffers, pair communicators, self mail."""

    def __init__(self, comm: Comm) -> None:
        self.comm = comm
        self.ids = itertools.count()
        # dest -> id -> (contiguous native array, event: its data is ready on the device)
        self.pending: dict[int, dict[int, tuple[Any, Any]]] = {}
        # id -> (array, event: its NCCL send is over), until the sender's wait() joins it
        self.inflight: dict[int, tuple[Any, Any]] = {}
        self.refused: dict[int, str] = {}  # id -> why the receiver refused it
        self.selfmail: dict[int, Any] = {}  # id -> copy, for messages to this rank
        self.pairs: dict[tuple[int, int], NcclComm] = {}  # (sender, receiver) -> 2-rank comm
        self.tag = comm.mpi_comm.Get_attr(mpi().TAG_UB)  # reserved for clear-to-send

    # -- sender ---------------------------------------------------------------------------------
    def post(self, x: Any, dest: int) -> int:
        """Register a contiguous array for ``dest``; returns the id its header carries."""
        mid = next(self.ids)
        if dest == self.comm.rank:
            self.selfmail[mid] = x.copy()  # the receiver takes it from here: no NCCL to oneself
        else:
            # The send may be queued much later (when the receiver asks): it waits for this
            # point of the device's stream only, not for whatever is queued after it.
            with x.ctx.device:
                ready = x.ctx.allocator.stream().record()
            self.pending.setdefault(dest, {})[mid] = (x, ready)
        return mid

    def sent(self, dest: int, mid: int) -> bool:
        return dest == self.comm.rank or mid not in self.pending.get(dest, {})

    def progress(self, dest: int, mid: int, fname: str, timeout: float | None) -> None:
        """Answer clear-to-sends until message ``mid`` to ``dest`` is sent (or refused)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.sent(dest, mid):
            if self.service():
                continue
            if deadline is not None and time.monotonic() > deadline:
                c = self.comm
                c.mark_broken(f"{fname} timed out after {timeout:g} s")
                raise CommTimeoutError(
                    f"ruda.distributed.{fname}: rank {c.rank} waited {timeout:g} s for rank "
                    f"{dest} to receive; it may have died, or never called recv"
                )
            time.sleep(POLL_S)
        why = self.refused.pop(mid, None)
        if why is not None:
            raise MismatchError(f"ruda.distributed.{fname}: {why}")
        sent = self.inflight.pop(mid, None)
        if sent is not None:  # MPI's rule: after wait() the buffer may change, so join the send
            buf, done = sent
            nc = self.pairs[(self.comm.rank, dest)]
            if deadline is not None:
                nc.wait_done(fname, max(deadline - time.monotonic(), 1e-3), done)
            with buf.ctx.device:
                buf.ctx.allocator.stream().wait_event(done)

    def service(self) -> bool:
        """Answer every clear-to-send that has arrived (queue the NCCL sends); any answered?"""
        MPI = mpi()
        c, status, answered = self.comm, MPI.Status(), False
        while c.mpi_comm.Iprobe(MPI.ANY_SOURCE, self.tag, status):
            src, cts = status.Get_source(), np.empty(_CTS_WORDS, np.int64)
            c.mpi_comm.Recv(cts, src, self.tag)
            got, answered = int(cts[0]), True
            if got < 0:
                self.pending[src].pop(-got - 1, None)
                self.refused[-got - 1] = f"rank {src} refused the message (shape or dtype)"
                continue
            buf, ready = self.pending[src].pop(got)
            nc = self._pair(c.rank, src, buf.ctx, cts, "send", None)
            done = nc.send("send", None, buf, 1, ready=ready, join=False)
            self.inflight[got] = (buf, done)
        return answered

    # -- receiver -------------------------------------------------------------------------------
    def refuse(self, source: int, mid: int) -> None:
        if source == self.comm.rank:
            self.selfmail.pop(mid, None)
            return
        cts = np.zeros(_CTS_WORDS, np.int64)
        cts[0] = -mid - 1
        self.comm.mpi_comm.Send(cts, source, self.tag)

    def take(self, source: int, mid: int, out: Any, fname: str, timeout: float | None) -> Any:
        """Receive message ``mid`` from ``source`` into ``out`` (or the self copy)."""
        c = self.comm
        if source == c.rank:
            return self.selfmail.pop(mid)
        cts = np.zeros(_CTS_WORDS, np.int64)
        cts[0] = mid
        if (source, c.rank) not in self.pairs:
            cts[1] = 1
            cts[2:] = draw_uid(nccl_module(fname))
        c.mpi_comm.Send(cts, source, self.tag)
        self._pair(source, c.rank, out.ctx, cts, fname, timeout).recv(fname, timeout, out, 0)
        return out

    def _pair(self, sender: int, receiver: int, ctx: Any, cts: np.ndarray, fname: str,
              timeout: float | None) -> NcclComm:  # fmt: skip
        """The 2-rank NCCL communicator for messages sender -> receiver (sender is its rank 0)."""
        key = (sender, receiver)
        nc = self.pairs.get(key)
        if nc is not None:
            if nc.ctx is not ctx:
                raise ValueError(
                    f"ruda.distributed.{fname}: messages {sender} -> {receiver} went through "
                    f"{nc.ctx.name} before, now {ctx.name}: NCCL binds a rank to one GPU"
                )
            return nc
        import cupy

        nccl = nccl_module(fname)
        uid = cts[2:].copy()
        me = 0 if self.comm.rank == sender else 1
        made: list[Any] = []

        def init() -> None:
            try:
                with ctx.device:
                    handle = make_communicator(nccl, 2, uid, me)
                    side = cupy.cuda.Stream(non_blocking=True)
                    # NCCL connects a pair on its first send/recv, inside a host call that
                    # blocks until the peer connects too: do that here, off the main thread.
                    probe = cupy.zeros(8, cupy.uint8)
                    op = handle.send if me == 0 else handle.recv
                    op(probe.data.ptr, 1, nccl.NCCL_UINT8, 1 - me, side.ptr)
                    side.synchronize()
                made.append((handle, side))
            except Exception as e:  # reported by the waiting thread
                made.append(e)

        # NCCL's init and first connection block until the peer joins, and the peer may itself
        # be waiting for one of our clear-to-sends: set up on a thread while this one keeps
        # answering them.
        t = threading.Thread(target=init, name="ruda-nccl-init", daemon=True)
        t.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        while t.is_alive():
            if not self.service():
                time.sleep(POLL_S)
            if deadline is not None and time.monotonic() > deadline:
                self.comm.mark_broken(f"{fname}: NCCL initialisation timed out")
                raise CommTimeoutError(
                    f"ruda.distributed.{fname}: rank {self.comm.rank} waited {timeout:g} s for "
                    f"rank {sender if me else receiver} to set up NCCL"
                )
        if isinstance(made[0], Exception):
            self.comm.mark_broken(f"{fname}: NCCL initialisation failed")
            raise DistributedError(
                f"ruda.distributed.{fname}: NCCL initialisation failed on rank "
                f"{self.comm.rank}: {made[0]}"
            ) from made[0]
        handle, side = made[0]
        nc = NcclComm(self.comm, ctx, nccl, handle, side=side, on_poll=self.service)
        self.pairs[key] = nc
        return nc


def state(c: Comm) -> P2P:
    """The communicator's cuda message state (made on first use; no collective call)."""
    if c.p2p is None:
        c.p2p = P2P(c)
    return c.p2p
