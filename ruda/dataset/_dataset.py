"""`Dataset`: one split of a dataset file, for appending records and reading them back."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Mapping
from typing import Any

import numpy

from .._creation import asarray
from .._dtypes import kind_of
from ._cache import ChunkCache
from ._chunks import columns, decode_chunk, encode_chunk, field_batch, field_record
from ._errors import CorruptDatasetError, DatasetError, SchemaError
from ._schema import Schema, parse_schema
from ._store import (
    SplitInfo,
    check_format,
    connect,
    corrupt_errors,
    init_meta,
    read_splits,
    split_table,
    write_split,
)

__all__ = ["Dataset", "create", "open"]

DEFAULT_CACHE_BYTES = 1 << 30
DEFAULT_CHUNK_BYTES = 1 << 16
_IN_LIMIT = 500  # ids per "IN (...)" query (SQLite's variable limit is far above)


class Dataset:
    """One split of a dataset file. Made by `create` or `open`, not directly.

    Reading: ``len(ds)``, ``ds[i]`` (one record), ``ds[i:j]`` and ``ds[[3, 1, 4]]`` (batched), each
    a dict ``field -> ruda array``; a field with a free axis gives a list of arrays when batched.
    Writing (``mode="a"``): `append`, `extend`, then `commit` (or leave a ``with`` block).
    """

    def __init__(
        self, path: str, conn: sqlite3.Connection, info: SplitInfo, writable: bool, cache_bytes: int
    ):
        self.path, self._conn, self._info, self.writable = path, conn, info, writable
        self._lock = threading.RLock()
        self._where = f"{path} split {info.name!r}"
        self._cols = columns(info.schema)
        self._cache_bytes = cache_bytes
        self._cache = ChunkCache(info.schema, max(1, info.chunk_records), cache_bytes, self._where)
        self._n = info.count
        self._in_tx = False
        self._spares: list | None = None  # reusable batch memory, handed from pass to pass
        self._synced = True  # the writer's tail is in the open transaction
        if writable:
            self._load_tail()

    # ---- metadata ---------------------------------------------------------------------------
    @property
    def split(self) -> str:
        """This split's name."""
        return self._info.name

    @property
    def schema(self) -> Schema:
        """``{field: (dtype name, shape)}``; ``None`` in a shape marks a per-record axis.

        >>> import ruda, numpy, tempfile, os
        >>> from ruda import dataset
        >>> p = os.path.join(tempfile.mkdtemp(), "s.db")
        >>> dataset.create(p, schema={"x": ("float32", (None, 2))}).schema["x"]
        ('float32', (None, 2))
        """
        return self._info.schema

    @property
    def splits(self) -> list[str]:
        """Names of every split in the file.

        >>> import tempfile, os
        >>> from ruda import dataset
        >>> p = os.path.join(tempfile.mkdtemp(), "s.db")
        >>> with dataset.create(p, schema={"y": "int64"}, split="test"):
        ...     pass
        >>> dataset.open(p).splits
        ['test']
        """
        with self._lock, corrupt_errors(self.path):
            return list(read_splits(self._conn, self.path))

    @property
    def mode(self) -> str:
        """``"a"`` when writable, else ``"r"``."""
        return "a" if self.writable else "r"

    def __repr__(self) -> str:
        return (
            f"<ruda.dataset {self.path!r} split={self.split!r} records={len(self)} "
            f"mode={self.mode!r}>"
        )

    def __len__(self) -> int:
        with self._lock:
            if not self.writable:
                self._refresh()
            return self._n

    def _refresh(self) -> None:
        """Re-read the committed count (another process may have appended)."""
        with corrupt_errors(self.path):
            info = read_splits(self._conn, self.path).get(self.split)
        if info is None:
            raise CorruptDatasetError(f"ruda.dataset: {self._where}: the split's metadata vanished")
        if info.chunk_records != self._info.chunk_records and self._info.chunk_records:
            raise CorruptDatasetError(f"ruda.dataset: {self._where}: chunk size changed (damaged)")
        if info.chunk_records and not self._info.chunk_records:
            self._cache = ChunkCache(
                info.schema, info.chunk_records, self._cache_bytes, self._where
            )
        self._info, self._n = info, info.count

    # ---- writing ------------------------------------------------------------------------------
    def _require_writable(self, what: str) -> None:
        if not self.writable:
            raise DatasetError(
                f"ruda.dataset: {what}: {self._where} is open read-only (use mode='a')"
            )
        if self._conn is None:
            raise DatasetError(f"ruda.dataset: {what}: {self._where} is closed")

    def _check_fields(self, values: Mapping[str, Any], what: str) -> None:
        if not isinstance(values, Mapping):
            raise SchemaError(
                f"ruda.dataset: {what} takes a dict {{field: values}}, got {type(values).__name__}"
            )
        names = set(self.schema)
        missing, extra = names - set(values), set(values) - names
        if missing or extra:
            parts = [f"missing field(s) {sorted(missing)}"] if missing else []
            parts += [f"unknown field(s) {sorted(extra)}"] if extra else []
            raise SchemaError(
                f"ruda.dataset: {what}: {' and '.join(parts)}; the schema has {list(self.schema)}"
            )

    def append(self, record: Mapping[str, Any]) -> None:
        """Add one record (a dict with every field); visible to others after `commit`.

        >>> import numpy, tempfile, os
        >>> from ruda import dataset
        >>> p = os.path.join(tempfile.mkdtemp(), "a.db")
        >>> schema = {"image": ("uint8", (2, 2)), "label": ("int64", ())}
        >>> with dataset.create(p, schema=schema) as ds:
        ...     ds.append({"image": numpy.eye(2, dtype="uint8"), "label": 3})
        >>> int(dataset.open(p)[0]["label"])
        3
        """
        self._require_writable("append")
        self._check_fields(record, "append")
        cols = []
        for f in self.schema.fields:
            r = field_record(f, record[f.name])
            cols.append(r[None] if f.fixed else [r])
        self._add(cols, 1)

    def extend(self, records: Mapping[str, Any]) -> None:
        """Add many records: the leading axis counts them (lists of arrays for free shapes).

        >>> import numpy, tempfile, os
        >>> from ruda import dataset
        >>> p = os.path.join(tempfile.mkdtemp(), "e.db")
        >>> with dataset.create(p, schema={"x": ("float32", (3,))}) as ds:
        ...     ds.extend({"x": numpy.ones((5, 3), "float32")})
        >>> len(dataset.open(p))
        5
        """
        self._require_writable("extend")
        self._check_fields(records, "extend")
        cols, counts = [], {}
        for f in self.schema.fields:
            c, k = field_batch(f, records[f.name])
            cols.append(c)
            counts[f.name] = k
        if len(set(counts.values())) > 1:
            raise SchemaError(
                f"ruda.dataset: extend: fields hold different numbers of records: {counts}"
            )
        self._add(cols, next(iter(counts.values())))

    def _add(self, cols: list[Any], k: int) -> None:
        if k == 0:
            return
        with self._lock:
            if not self._info.chunk_records:
                self._set_chunk_records(cols, k)
            C = self._info.chunk_records
            self._begin()
            off = 0
            if self._tail_n:
                take = min(C - self._tail_n, k)
                for p, c in zip(self._pieces, cols, strict=False):
                    p.append(_copy(c[:take]))
                self._tail_n += take
                off = take
                if self._tail_n == C:
                    self._write_tail()
                    self._tail_start += C
                    self._pieces, self._tail_n = [[] for _ in cols], 0
            full = (k - off) // C
            if full:
                first = self._tail_start // C
                rows = (
                    encode_chunk(
                        self.schema,
                        first + j,
                        [c[off + j * C : off + (j + 1) * C] for c in cols],
                        C,
                    )
                    for j in range(full)
                )
                self._executemany(rows)
                self._tail_start += full * C
                off += full * C
            if off < k:
                for p, c in zip(self._pieces, cols, strict=False):
                    p.append(_copy(c[off:k]))
                self._tail_n += k - off
            self._n = self._tail_start + self._tail_n
            self._synced = self._tail_n == 0

    def _set_chunk_records(self, cols: list[Any], k: int) -> None:
        """Free-shape schemas: pick records per chunk from the first batch's mean record size."""
        nbytes = sum(
            c.nbytes if isinstance(c, numpy.ndarray) else sum(r.nbytes for r in c) for c in cols
        )
        C = max(1, int(DEFAULT_CHUNK_BYTES // max(1, nbytes // k)))
        self._info.chunk_records = C
        self._cache = ChunkCache(self.schema, C, self._cache_bytes, self._where)

    def _begin(self) -> None:
        if not self._in_tx:
            with corrupt_errors(self.path):
                self._conn.execute("BEGIN IMMEDIATE")
            self._in_tx = True

    def _executemany(self, rows) -> None:
        cols, marks = ", ".join(self._cols), ", ".join("?" * (3 + len(self._cols)))
        sql = (
            f'INSERT OR REPLACE INTO "{self._info.table}" (chunk, n, crc, {cols}) VALUES ({marks})'
        )
        with corrupt_errors(self.path):
            self._conn.executemany(sql, rows)

    def _write_tail(self) -> None:
        cols = [
            numpy.concatenate(p) if f.fixed else [r for q in p for r in q]
            for f, p in zip(self.schema.fields, self._pieces, strict=False)
        ]
        self._pieces = [[c] for c in cols]  # keep it joined: later commits rewrite the same chunk
        self._executemany(
            [
                encode_chunk(
                    self.schema, self._tail_start // self._info.chunk_records, cols, self._tail_n
                )
            ]
        )

    def _sync(self) -> None:
        """Put the writer's partial chunk into the open transaction so its own reads see it."""
        if self.writable and not self._synced:
            self._begin()
            self._write_tail()
            self._synced = True

    def commit(self) -> None:
        """Make every record added so far durable and visible to readers, atomically.

        A process killed before `commit` leaves the file as it was at the previous commit.
        """
        self._require_writable("commit")
        with self._lock:
            if not self._in_tx:
                return
            self._sync()
            self._info.count = self._n
            with corrupt_errors(self.path):
                write_split(self._conn, self._info)
                self._conn.execute("COMMIT")
            self._in_tx = False

    def rollback(self) -> None:
        """Drop every record added since the last `commit`."""
        self._require_writable("rollback")
        with self._lock:
            if self._in_tx:
                with corrupt_errors(self.path):
                    self._conn.execute("ROLLBACK")
                self._in_tx = False
            self._cache.clear()
            self._refresh()
            self._load_tail()

    def _load_tail(self) -> None:
        """(Writer) keep the last, partial chunk in memory: the next commit rewrites it, longer."""
        C = self._info.chunk_records
        self._pieces, self._tail_n, self._synced = [[] for _ in self.schema.fields], 0, True
        self._tail_start = (self._n // C) * C if C else 0
        if C and self._n % C:
            ((_, m, data),) = self._fetch([self._n // C])
            self._pieces = [[d] for d in data]
            self._tail_n = m

    def close(self) -> None:
        """Close the file; uncommitted records are dropped (leave a ``with`` block to commit)."""
        with self._lock:
            if self._conn is not None:
                if self._in_tx:
                    try:
                        self._conn.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Dataset:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        # Commit on a clean exit; on an exception, keep the file as at the last commit.
        try:
            if self.writable and self._conn is not None and exc_type is None:
                self.commit()
        finally:
            self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # ---- reading ------------------------------------------------------------------------------
    def _fetch(self, chunk_ids: list[int]):
        """Decoded chunks ``(chunk, n, data)``; every row's checksum is checked."""
        cols = ", ".join(self._cols)
        out = []
        for s in range(0, len(chunk_ids), _IN_LIMIT):
            ids = chunk_ids[s : s + _IN_LIMIT]
            marks = ", ".join("?" * len(ids))
            sql = f'SELECT chunk, n, crc, {cols} FROM "{self._info.table}" WHERE chunk IN ({marks})'
            with corrupt_errors(self.path):
                rows = self._conn.execute(sql, ids).fetchall()
            for row in rows:
                n, data = decode_chunk(self.schema, row, self._where)
                out.append((row[0], n, data))
        return out

    def _scan(self, lo: int, hi: int):
        """Raw rows of chunks ``[lo, hi)`` in order, streamed (one range query, no id list)."""
        cols = ", ".join(self._cols)
        sql = (
            f'SELECT chunk, n, crc, {cols} FROM "{self._info.table}" '
            "WHERE chunk >= ? AND chunk < ? ORDER BY chunk"
        )
        return self._conn.execute(sql, (lo, hi))

    def _resident(self, n: int) -> list[numpy.ndarray] | None:
        """Per-field buffers holding records ``[0, n)`` when they are all in memory, else None."""
        with self._lock:  # (a writer's unsynced tail is not in the file yet: `_load` syncs it)
            return None if not self._synced else self._cache.resident_buffers(n)

    def _load(self, n: int) -> list[numpy.ndarray] | None:
        """Read records ``[0, n)`` into memory in bulk when the split fits the cache budget;
        returns the per-field buffers, or None when it does not fit (reads go chunk by chunk)."""
        with self._lock:
            if self._conn is None:
                raise DatasetError(f"ruda.dataset: {self._where} is closed")
            if not self._cache.resident(n):
                return None
            self._sync()
            with corrupt_errors(self.path):
                return self._cache.load(n, self._scan)

    def _indices(self, key: Any) -> tuple[numpy.ndarray, bool]:
        """Record indices for ``key`` and whether the result is batched."""
        if isinstance(key, (int, numpy.integer)) and not isinstance(key, bool):
            i = int(key)
            if not -self._n <= i < self._n:
                self._reread()
                if not -self._n <= i < self._n:
                    raise IndexError(
                        f"ruda.dataset: index {i} is out of range for {self._n} records"
                    )
            return numpy.array([i % self._n], numpy.int64), False
        if isinstance(key, slice):
            self._reread()
            return numpy.arange(self._n, dtype=numpy.int64)[key], True
        if isinstance(key, (str, bytes)) or key is None:
            raise TypeError(
                f"ruda.dataset: records are indexed by int, slice or a list of ints, not {key!r}"
            )
        idx = numpy.asarray(key)
        if idx.dtype == bool:
            self._reread()
            if idx.shape != (self._n,):
                raise IndexError(
                    f"ruda.dataset: a boolean mask needs shape ({self._n},), got {idx.shape}"
                )
            return numpy.flatnonzero(idx), True
        if idx.ndim != 1 or (idx.size and kind_of(idx.dtype) not in "iu"):
            raise TypeError(
                "ruda.dataset: records are indexed by int, slice or a 1-d list of ints, not "
                f"{key!r}"
            )
        idx = idx.astype(numpy.int64, copy=False)
        if idx.size and (idx.min() < -self._n or idx.max() >= self._n):
            self._reread()
            bad = idx[(idx < -self._n) | (idx >= self._n)]
            if bad.size:
                raise IndexError(
                    f"ruda.dataset: index {int(bad[0])} is out of range for {self._n} records"
                )
        return numpy.where(idx < 0, idx + self._n, idx), True

    def _reread(self) -> None:
        if not self.writable:
            self._refresh()

    def _gather(self, idx: numpy.ndarray) -> list[Any]:
        """Per-field NumPy data of records ``idx`` (already in range)."""
        with self._lock:
            if self._conn is None:
                raise DatasetError(f"ruda.dataset: {self._where} is closed")
            self._sync()
            if idx.size * 2 >= self._n and self._cache.resident(self._n):
                self._load(self._n)  # most of the split: one streamed scan beats id lookups
            return self._cache.gather(idx, self._n, self._fetch)

    def __getitem__(self, key: Any) -> dict[str, Any]:
        """Records as ``{field: ruda array}``: one record for an int, a batch for a slice or list.

        >>> import numpy, tempfile, os
        >>> from ruda import dataset
        >>> p = os.path.join(tempfile.mkdtemp(), "g.db")
        >>> ds = dataset.from_arrays(p, x=numpy.arange(10).reshape(5, 2))
        >>> ds[1]["x"]
        array([2, 3])
        >>> ds[[4, 0]]["x"].shape
        (2, 2)
        """
        with self._lock:
            idx, batched = self._indices(key)
            data = self._gather(idx)
        out = {}
        for f, d in zip(self.schema.fields, data, strict=False):
            if batched:
                out[f.name] = asarray(d) if f.fixed else [asarray(r) for r in d]
            else:
                out[f.name] = asarray(d[0])
        return out

    def to_arrays(self, device: Any = None) -> dict[str, Any]:
        """Every record as ``{field: ruda array}`` (a list of arrays for a free-shape field).

        >>> import numpy, tempfile, os
        >>> from ruda import dataset
        >>> p = os.path.join(tempfile.mkdtemp(), "t.db")
        >>> dataset.from_arrays(p, y=numpy.array([1, 2, 3])).to_arrays()["y"]
        array([1, 2, 3])
        """
        with self._lock:
            self._reread()
            data = self._gather(numpy.arange(self._n, dtype=numpy.int64))
        return {
            f.name: asarray(d, device=device) if f.fixed else [asarray(r, device=device) for r in d]
            for f, d in zip(self.schema.fields, data, strict=False)
        }

    def batches(
        self,
        batch_size: int = 256,
        shuffle: bool = False,
        seed: int | None = None,
        drop_last: bool = False,
        device: Any = None,
        prefetch: int = 2,
    ):
        """Iterate over batches ``{field: ruda array}``; the file is read on a background thread.

        ``shuffle`` draws a fresh permutation (reproducible with ``seed``); ``device`` is where the
        batches are placed. The iterator holds the records present when it was made (a snapshot).

        A split that fits ``cache_bytes`` is read into memory in one scan on a background thread
        (first pass only); cpu batches are then gathered on demand (cheaper than a thread
        hand-off: no read-ahead). Otherwise, or for another ``device``, a reader thread decodes
        and places batches ahead of the consumer; ``prefetch`` is how many may wait ready.

        >>> import numpy, tempfile, os
        >>> from ruda import dataset
        >>> p = os.path.join(tempfile.mkdtemp(), "b.db")
        >>> ds = dataset.from_arrays(p, x=numpy.arange(10))
        >>> [b["x"].shape[0] for b in ds.batches(batch_size=4)]
        [4, 4, 2]
        """
        from ._batches import BatchIterator

        return BatchIterator(self, batch_size, shuffle, seed, drop_last, device, prefetch)


def _copy(c: Any) -> Any:
    return c.copy() if isinstance(c, numpy.ndarray) else list(c)


def create(
    path: str | os.PathLike,
    schema: Mapping[str, Any],
    split: str = "train",
    *,
    overwrite: bool = False,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    cache_bytes: int = DEFAULT_CACHE_BYTES,
) -> Dataset:
    """Create ``split`` in the dataset file at ``path`` (made if missing) and open it for writing.

    ``schema`` maps each field to ``(dtype, shape)``; ``None`` in a shape is a per-record axis.
    ``overwrite`` replaces an existing split of that name. Records are packed ``chunk_bytes`` to a
    row; ``cache_bytes`` bounds the read cache.

    >>> import numpy, tempfile, os
    >>> from ruda import dataset
    >>> p = os.path.join(tempfile.mkdtemp(), "mnist.db")
    >>> with dataset.create(p, schema={"image": ("uint8", (28, 28)), "label": ("int64", ())}) as ds:
    ...     ds.extend({"image": numpy.zeros((3, 28, 28), "uint8"), "label": [1, 2, 3]})
    >>> len(dataset.open(p, split="train"))
    3
    """
    path = os.fspath(path)
    sch = parse_schema(schema)
    table = split_table(split)
    conn = connect(path, writable=True)
    try:
        with corrupt_errors(path):
            conn.execute("BEGIN IMMEDIATE")
            init_meta(conn, path)
            existing = read_splits(conn, path)
            if split in existing:
                if not overwrite:
                    raise DatasetError(
                        f"ruda.dataset: {path} already has split {split!r}; open it with "
                        "mode='a' or pass overwrite=True"
                    )
                conn.execute(f'DROP TABLE IF EXISTS "{table}"')
            cols = ", ".join(f"{c} BLOB" for c in columns(sch))
            conn.execute(
                f'CREATE TABLE "{table}" (chunk INTEGER PRIMARY KEY, n INTEGER NOT NULL, '
                f"crc INTEGER NOT NULL, {cols})"
            )
            C = (
                max(1, chunk_bytes // sch.record_bytes)
                if sch.fixed and sch.record_bytes
                else (1024 if sch.fixed else 0)
            )
            info = SplitInfo(split, table, sch, C, 0)
            write_split(conn, info)
            conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()
        raise
    return Dataset(path, conn, info, True, cache_bytes)


def open(  # noqa: A001 - the issue's name, as in dataset.open(...)
    path: str | os.PathLike,
    split: str | None = None,
    mode: str = "r",
    *,
    cache_bytes: int = DEFAULT_CACHE_BYTES,
) -> Dataset:
    """Open ``split`` of the dataset file at ``path``: read-only, or ``mode="a"`` to append.

    ``split`` may be left out when the file has one split. A damaged or truncated file raises
    `CorruptDatasetError`.

    >>> import numpy, tempfile, os
    >>> from ruda import dataset
    >>> p = os.path.join(tempfile.mkdtemp(), "o.db")
    >>> _ = dataset.from_arrays(p, split="train", y=numpy.arange(4))
    >>> ds = dataset.open(p, split="train")
    >>> len(ds), ds.mode
    (4, 'r')
    """
    path = os.fspath(path)
    if mode not in ("r", "a"):
        raise ValueError(f"ruda.dataset.open: mode must be 'r' or 'a', got {mode!r}")
    if not os.path.exists(path):
        raise DatasetError(f"ruda.dataset.open: {path} does not exist (use dataset.create)")
    conn = connect(path, writable=mode == "a")
    try:
        with corrupt_errors(path):
            check_format(conn, path)
            splits = read_splits(conn, path)
        if split is None:
            if len(splits) != 1:
                raise DatasetError(
                    f"ruda.dataset.open: {path} has splits {list(splits)}; name one with split="
                )
            split = next(iter(splits))
        if split not in splits:
            raise DatasetError(
                f"ruda.dataset.open: {path} has no split {split!r}; it has {list(splits)}"
            )
        return Dataset(path, conn, splits[split], mode == "a", cache_bytes)
    except BaseException:
        conn.close()
        raise
