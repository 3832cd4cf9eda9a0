"""`BatchIterator`: batches read ahead on a background thread and placed on the requested device."""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING, Any

import numpy

from .._creation import asarray
from .._devices import resolve

if TYPE_CHECKING:
    from ._dataset import Dataset

__all__ = ["BatchIterator"]

_GROUP_BYTES = 4 << 20  # small batches are read several at a time: one hand-off per ~4 MiB
_DONE = object()


class BatchIterator:
    """Iterator over ``{field: ruda array}`` batches of a `Dataset` (see `Dataset.batches`).

    A reader thread gathers the records (several small batches per read), copies them to the
    device and queues them; iterating takes them off the queue. ``len()`` is the number of
    batches; ``close()`` (or dropping the iterator) stops the thread.
    """

    def __init__(
        self,
        ds: Dataset,
        batch_size: int,
        shuffle: bool,
        seed: int | None,
        drop_last: bool,
        device: Any,
        prefetch: int,
    ):
        if (
            isinstance(batch_size, bool)
            or not isinstance(batch_size, (int, numpy.integer))
            or batch_size < 1
        ):
            raise ValueError(
                f"ruda.dataset.batches: batch_size must be a positive int, got {batch_size!r}"
            )
        if (
            isinstance(prefetch, bool)
            or not isinstance(prefetch, (int, numpy.integer))
            or prefetch < 0
        ):
            raise ValueError(
                f"ruda.dataset.batches: prefetch must be an int >= 0, got {prefetch!r}"
            )
        self._ds, self._device = ds, resolve(device)
        n = len(ds)  # a snapshot: records committed later belong to the next pass
        order = (
            numpy.random.default_rng(seed).permutation(n)
            if shuffle
            else numpy.arange(n, dtype=numpy.int64)
        )
        nb = n // batch_size if drop_last else -(-n // batch_size)
        self._order, self._bs, self._nb = (
            order[: nb * batch_size] if drop_last else order,
            int(batch_size),
            nb,
        )
        per = max(1, int(_GROUP_BYTES // max(1, batch_size * ds.schema.record_bytes)))
        self._group = per
        self._queue: queue.Queue = queue.Queue(maxsize=max(1, -(-max(1, prefetch) // per)))
        self._stop = threading.Event()
        # The thread holds no reference to self, so dropping the iterator stops it (via __del__).
        args = (ds, self._order, self._bs, self._nb, per, self._device, self._queue, self._stop)
        self._thread = threading.Thread(
            target=_run, args=args, name="ruda.dataset.batches", daemon=True
        )
        self._thread.start()
        self._pending: list[Any] = []
        self._finished = False

    def __len__(self) -> int:
        return self._nb

    def __iter__(self) -> BatchIterator:
        return self

    def __next__(self) -> dict[str, Any]:
        if not self._pending:
            if self._finished:
                raise StopIteration
            item = self._queue.get()
            if item is _DONE:
                self._finished = True
                raise StopIteration
            if isinstance(item, BaseException):
                self._finished = True
                raise item
            self._pending = item[::-1]
        return self._pending.pop()

    def close(self) -> None:
        """Stop the reader thread."""
        self._stop.set()
        self._finished = True

    def __del__(self) -> None:
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()


def _put(q: queue.Queue, stop: threading.Event, item: Any) -> bool:
    while not stop.is_set():
        try:
            q.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


def _run(
    ds: Dataset, order, bs: int, nb: int, per: int, dev: Any, q: queue.Queue, stop: threading.Event
) -> None:
    """The reader thread: gather ``per`` batches at a time, place them on ``dev``, queue them."""
    fields = ds.schema.fields
    try:
        for g in range(0, nb, per):
            if stop.is_set():
                return
            hi = min(nb, g + per)
            idx = order[g * bs : hi * bs]
            data = ds._gather(idx)
            group = []
            for b in range(hi - g):
                s, e = b * bs, min((b + 1) * bs, idx.size)
                group.append(
                    {
                        f.name: asarray(d[s:e], device=dev)
                        if f.fixed
                        else [asarray(r, device=dev) for r in d[s:e]]
                        for f, d in zip(fields, data, strict=False)
                    }
                )
            if not _put(q, stop, group):
                return
        _put(q, stop, _DONE)
    except BaseException as e:  # handed to the consumer, raised there
        _put(q, stop, e)
