"""The read cache: decoded chunks kept in memory so random batches cost a NumPy gather.

When every field has a fixed shape and the split fits in the budget, chunks are copied into one
resident buffer per field as they are first read (a buffer pool the size of the split): a
shuffled batch is then ``buf[idx]``, as fast as fancy indexing a memmap. Otherwise an LRU of
decoded chunks within the budget serves the batch chunk by chunk.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from ._chunks import copy_chunk
from ._errors import CorruptDatasetError
from ._schema import Schema

__all__ = ["ChunkCache"]

Fetch = Callable[[list[int]], Iterable[tuple[int, int, list[Any]]]]
Scan = Callable[[int, int], Iterable[tuple]]  # raw table rows of chunks [lo, hi), in order


class ChunkCache:
    """Decoded chunks of one split; ``gather`` returns per-field batches for record indices."""

    def __init__(self, schema: Schema, chunk_records: int, budget: int, where: str):
        self.schema, self.C, self.budget, self.where = schema, chunk_records, budget, where
        self.rb = max(1, schema.record_bytes)
        self.clear()

    def clear(self) -> None:
        """Forget everything (after a rollback)."""
        self.cap = 0
        self.bufs: list[numpy.ndarray] | None = None
        self.loaded = numpy.zeros(0, numpy.int64)  # records present per chunk in the buffers
        self.lru: OrderedDict[int, tuple[int, list[Any], int]] = OrderedDict()
        self.lru_bytes = 0

    def resident(self, n: int) -> bool:
        """Whether a split of ``n`` records is served from resident buffers."""
        return self.schema.fixed and n * self.rb <= self.budget

    def _grow(self, n: int) -> None:
        if n <= self.cap and self.bufs is not None:
            return
        cap = max(n, min(2 * self.cap, self.budget // self.rb))
        bufs = [numpy.empty((cap, *f.shape), f.dtype) for f in self.schema.fields]
        if self.bufs is not None:
            for new, old in zip(bufs, self.bufs, strict=False):
                new[: self.cap] = old
        nchunks = -(-cap // self.C)
        loaded = numpy.zeros(nchunks, numpy.int64)
        loaded[: self.loaded.size] = self.loaded
        self.bufs, self.loaded, self.cap = bufs, loaded, cap

    def gather(self, idx: numpy.ndarray, n: int, fetch: Fetch) -> list[Any]:
        """Per-field data of records ``idx`` (all in ``[0, n)``): arrays, lists for free shapes."""
        if self.resident(n):
            return self._gather_resident(idx, n, fetch)
        self.bufs, self.cap, self.loaded = None, 0, numpy.zeros(0, numpy.int64)
        return self._gather_lru(idx, fetch)

    def _gather_resident(self, idx: numpy.ndarray, n: int, fetch: Fetch) -> list[Any]:
        self._grow(n)
        C = self.C
        chunks = idx // C
        pos = idx - chunks * C
        need = self.loaded[chunks] <= pos
        if need.any():
            for c, m, data in fetch(numpy.unique(chunks[need]).tolist()):
                s = c * C
                m = min(
                    m, self.cap - s
                )  # a writer may have committed more than this reader counted
                for buf, d in zip(self.bufs, data, strict=False):
                    buf[s : s + m] = d[:m]
                self.loaded[c] = m
            self._check(self.loaded[chunks] <= pos, idx)
        return [buf[idx] for buf in self.bufs]

    def _missing(self, n: int) -> numpy.ndarray:
        """Chunks of records ``[0, n)`` not (fully) in the resident buffers."""
        C, nc = self.C, -(-n // self.C)
        want = numpy.full(nc, C, numpy.int64)
        if nc:
            want[-1] = n - (nc - 1) * C
        have = self.loaded[:nc] if self.bufs is not None else numpy.zeros(nc, numpy.int64)
        if have.size < nc:
            have = numpy.concatenate([have, numpy.zeros(nc - have.size, numpy.int64)])
        return numpy.flatnonzero(have < want)

    def resident_buffers(self, n: int) -> list[numpy.ndarray] | None:
        """The per-field buffers when records ``[0, n)`` are all resident, else None.

        Records below ``n`` in them never change afterwards (the store is append-only and a
        rollback or regrowth makes new buffers), so a caller may gather from them unlocked.
        """
        if not self.resident(n) or self.bufs is None or self._missing(n).size:
            return None
        return list(self.bufs)

    def load(self, n: int, scan: Scan) -> list[numpy.ndarray]:
        """Make records ``[0, n)`` resident in bulk: one streamed range query per run of missing
        chunks, each row checked (crc, lengths) and copied straight into the buffers."""
        self._grow(n)
        C = self.C
        miss = self._missing(n)
        if miss.size:
            views = [memoryview(b.reshape(-1).view(numpy.uint8)) for b in self.bufs]
            cuts = numpy.flatnonzero(numpy.diff(miss) != 1) + 1  # runs of consecutive chunks
            for run in numpy.split(miss, cuts):
                for row in scan(int(run[0]), int(run[-1]) + 1):
                    c = row[0]
                    s = c * C
                    m = min(C, self.cap - s)  # a writer may have committed more than counted
                    if copy_chunk(self.schema, row, self.where, views, s, m) > C:
                        raise CorruptDatasetError(
                            f"ruda.dataset: {self.where} chunk {c}: holds more than {C} records "
                            "(damaged)"
                        )
                    self.loaded[c] = min(m, row[1])
            bad = self._missing(n)
            if bad.size:
                i = int(bad[0]) * C + int(self.loaded[bad[0]])
                raise CorruptDatasetError(
                    f"ruda.dataset: {self.where}: record {i} is counted but missing from the file "
                    "(damaged)"
                )
        return list(self.bufs)

    def _check(self, bad: numpy.ndarray, idx: numpy.ndarray) -> None:
        if bad.any():
            i = int(idx[bad][0])
            raise CorruptDatasetError(
                f"ruda.dataset: {self.where}: record {i} is counted but missing from the file "
                "(damaged)"
            )

    def _gather_lru(self, idx: numpy.ndarray, fetch: Fetch) -> list[Any]:
        C = self.C
        chunks = idx // C
        pos = idx - chunks * C
        uniq, inv = numpy.unique(chunks, return_inverse=True)
        maxpos = numpy.zeros(uniq.size, numpy.int64)
        numpy.maximum.at(maxpos, inv, pos)
        have: dict[int, tuple[int, list[Any], int]] = {}
        missing = []
        for c, mp in zip(uniq.tolist(), maxpos.tolist(), strict=False):
            e = self.lru.get(c)
            if e is not None and e[0] > mp:
                self.lru.move_to_end(c)
                have[c] = e
            else:
                missing.append(c)
        if missing:
            for c, m, data in fetch(missing):
                nbytes = sum(
                    d.nbytes if isinstance(d, numpy.ndarray) else sum(r.nbytes for r in d)
                    for d in data
                )
                e = (m, data, nbytes)
                have[c] = e
                old = self.lru.pop(c, None)
                self.lru_bytes += nbytes - (old[2] if old else 0)
                self.lru[c] = e
            while self.lru_bytes > self.budget and self.lru:
                self.lru_bytes -= self.lru.popitem(last=False)[1][2]
        self._check(
            numpy.array(
                [
                    have.get(c, (0,))[0] <= mp
                    for c, mp in zip(uniq.tolist(), maxpos.tolist(), strict=False)
                ]
            )[inv],
            idx,
        )
        order = numpy.argsort(inv, kind="stable")
        bounds = numpy.searchsorted(inv[order], numpy.arange(uniq.size + 1))
        out: list[Any] = []
        for k, f in enumerate(self.schema.fields):
            if f.fixed:
                o = numpy.empty((idx.size, *f.shape), f.dtype)
                for j, c in enumerate(uniq.tolist()):
                    rows = order[bounds[j] : bounds[j + 1]]
                    o[rows] = have[c][1][k][pos[rows]]
            else:
                o = [None] * idx.size
                for j, c in enumerate(uniq.tolist()):
                    recs = have[c][1][k]
                    for r in order[bounds[j] : bounds[j + 1]].tolist():
                        o[r] = recs[int(pos[r])]
            out.append(o)
        return out
