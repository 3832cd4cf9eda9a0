"""`BatchIterator`: batches gathered from memory, or read ahead on a background thread.

Two ways to make a batch, chosen by measurement:

* The split fits the cache budget (fixed shapes) and the batches stay on the cpu: a background
  thread reads the whole split into memory in one streamed scan (only on the first pass after
  opening), then each batch is ``buf[idx]`` per field, gathered on demand in ``__next__``. A
  256-record gather costs ~20 µs, less than handing a batch over between threads (which halved
  the throughput), and gathering per batch keeps the output in cache (one fancy index over many
  batches was ~2x slower than one per batch). The memory of a batch the consumer has dropped is
  reused for a later one (see `_spare`), which spares the kernel's page faults on fresh memory.
* Otherwise (decoding chunk by chunk from the file, or copying to another device) a reader thread
  makes the batches and queues them, ``prefetch`` batches ahead, so the consumer is not starved.
"""

from __future__ import annotations

import queue
import sys
import threading
from typing import Any

import numpy

from .._array import _wrap
from .._creation import asarray
from .._devices import CPU, resolve

# A batch source is a ``_dataset.Dataset`` (typed Any: that module imports this one)
Dataset = Any

__all__ = ["BatchIterator"]

_GROUP_BYTES = 4 << 20  # small batches are handed over several at a time: one per ~4 MiB
_DONE = object()
_SPARES = 2  # earlier batches kept per field for reuse: the one the consumer holds, and one free


class BatchIterator:
    """Iterator over ``{field: ruda array}`` batches of a `Dataset` (see `Dataset.batches`).

    ``len()`` is the number of batches; ``close()`` (or dropping the iterator) stops the
    background thread.
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
        bs = int(batch_size)
        nb = n // bs if drop_last else -(-n // bs)
        # None: in order, so a batch is a slice copy rather than a fancy index.
        order = numpy.random.default_rng(seed).permutation(n) if shuffle else None
        self._order, self._bs, self._nb, self._n, self._snap = order, bs, nb, min(n, nb * bs), n
        self._names = tuple(f.name for f in ds.schema.fields)
        self._next_batch = 0
        self._bufs: list[numpy.ndarray] | None = None
        with ds._lock:  # the previous pass's spare batch memory (see `_spare`), if any
            rings, ds._spares = ds._spares, None
        self._rings: list[list] = rings or [[] for _ in self._names]
        self._stop = threading.Event()
        self._finished = False
        self._pending: list[Any] = []
        self._queue: queue.Queue | None = None
        self._thread: threading.Thread | None = None
        self._prefetch = int(prefetch)
        self._box: list[Any] = []  # the loader's result: the buffers, None, or its exception
        if self._device is CPU and ds.schema.fixed and ds._cache.resident(n):
            bufs = ds._resident(n)
            if bufs is not None:
                self._bufs = [buf[: self._snap] for buf in bufs]  # views ending at the snapshot
            else:
                # Not in memory yet: read the split on a background thread meanwhile.
                self._loaded = threading.Event()
                self._thread = threading.Thread(
                    target=_load,
                    args=(ds, n, self._loaded, self._box),
                    name="ruda.dataset.batches",
                    daemon=True,
                )
                self._thread.start()
            return
        self._start_reader(prefetch)

    def _start_reader(self, prefetch: int) -> None:
        ds, bs = self._ds, self._bs
        per = max(1, int(_GROUP_BYTES // max(1, bs * ds.schema.record_bytes)))
        self._queue = queue.Queue(maxsize=max(1, -(-max(1, prefetch) // per)))
        # The thread holds no reference to self, so dropping the iterator stops it (via __del__).
        args = (ds, self._order, self._n, bs, self._nb, per, self._device, self._queue, self._stop)
        self._thread = threading.Thread(
            target=_run, args=args, name="ruda.dataset.batches", daemon=True
        )
        self._thread.start()

    def __len__(self) -> int:
        return self._nb

    def __iter__(self) -> BatchIterator:
        return self

    def __next__(self) -> dict[str, Any]:
        bufs = self._bufs
        if bufs is not None:  # the hot path: a gather per field from memory
            b = self._next_batch
            if b >= self._nb or self._finished:
                self.close()
                raise StopIteration
            self._next_batch = b + 1
            s = b * self._bs
            e = min(s + self._bs, self._snap)
            idx = None if self._order is None else self._order[s:e]
            out = {}
            for name, buf, ring in zip(self._names, bufs, self._rings):  # noqa: B905
                o = _spare(ring, e - s, buf) if e - s == self._bs else numpy.empty_like(buf[s:e])
                if idx is None:
                    o[...] = buf[s:e]  # a copy: batches never alias the cache
                else:  # (indices are in range: "clip" skips numpy's buffering of `out`)
                    numpy.take(buf, idx, axis=0, out=o, mode="clip")
                out[name] = _wrap(o, CPU)
            return out
        if self._queue is None:
            return self._first()
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

    def _first(self) -> dict[str, Any]:
        """Wait for the loader thread, then gather from memory (or fall back to the reader)."""
        if self._finished:
            raise StopIteration
        self._loaded.wait()
        bufs = self._box[0]
        if isinstance(bufs, BaseException):
            self._finished = True
            raise bufs
        if bufs is None:  # too big for memory: a reader thread decodes chunk by chunk
            self._start_reader(self._prefetch)
        else:
            self._bufs = [buf[: self._snap] for buf in bufs]  # views ending at the snapshot
        return next(self)

    def close(self) -> None:
        """Stop the background thread."""
        self._stop.set()
        self._finished = True
        rings, self._rings = self._rings, []
        if any(rings):
            self._ds._spares = rings  # the next pass reuses this memory

    def __del__(self) -> None:
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()


def _refcounts(ring: list) -> list[int]:
    out = []
    for o in ring:
        out.append(sys.getrefcount(o))
    return out


# The count `_refcounts` sees for an array referenced by its ring alone (measured, not assumed:
# it varies between Python versions); recycling is off where refcounts cannot be trusted.
_FREE = (
    _refcounts([numpy.empty(0)])[0]
    if hasattr(sys, "getrefcount") and getattr(sys, "_is_gil_enabled", lambda: True)()
    else -1
)


def _spare(ring: list, k: int, buf: numpy.ndarray) -> numpy.ndarray:
    """An output array for ``k`` records of ``buf``: one of this iterator's earlier batches that
    nothing references any more (the consumer dropped it), else a new one.

    Reuse skips the kernel's page faults for fresh memory (a batch of 224x224x3 images is
    38 MiB) and finds the memory in cache. A batch still referenced anywhere (a variable, a
    view, a DLPack export) is never reused, just as its memory would never be freed.
    """
    for o, refs in zip(ring, _refcounts(ring)):  # noqa: B905
        if refs == _FREE and o.shape[0] == k:
            return o
    o = numpy.empty((k, *buf.shape[1:]), buf.dtype)
    ring.append(o)
    if len(ring) > _SPARES:
        del ring[0]
    return o


def _load(ds: Dataset, n: int, done: threading.Event, box: list) -> None:
    """The loader thread: read records ``[0, n)`` into memory; ``box`` gets the buffers."""
    try:
        box.append(ds._load(n))
    except BaseException as e:  # handed to the consumer, raised there
        box.append(e)
    done.set()


def _put(q: queue.Queue, stop: threading.Event, item: Any) -> bool:
    while not stop.is_set():
        try:
            q.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


def _run(
    ds: Dataset,
    order,
    n: int,
    bs: int,
    nb: int,
    per: int,
    dev: Any,
    q: queue.Queue,
    stop: threading.Event,
) -> None:
    """The reader thread: gather ``per`` batches at a time, place them on ``dev``, queue them."""
    fields = ds.schema.fields
    try:
        bufs = ds._load(n) if ds.schema.fixed else None
        for g in range(0, nb, per):
            if stop.is_set():
                return
            lo, hi = g * bs, min(n, (g + per) * bs)
            idx = numpy.arange(lo, hi) if order is None else order[lo:hi]
            # Resident: one gather per batch (output stays in cache); else decode the group.
            data = None if bufs is not None else ds._gather(idx)
            group = []
            for s in range(0, hi - lo, bs):
                e = min(s + bs, hi - lo)
                if data is None:
                    parts = [buf[idx[s:e]] for buf in bufs]
                else:
                    parts = [d[s:e] for d in data]
                group.append(
                    {
                        f.name: asarray(d, device=dev)
                        if f.fixed
                        else [asarray(r, device=dev) for r in d]
                        for f, d in zip(fields, parts, strict=False)
                    }
                )
            if not _put(q, stop, group):
                return
        _put(q, stop, _DONE)
    except BaseException as e:  # handed to the consumer, raised there
        _put(q, stop, e)
