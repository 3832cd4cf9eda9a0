"""Making datasets from arrays, NumPy ``.npy``/``.npz`` files and CSV, with a progress bar."""

from __future__ import annotations

import csv
import os
from collections.abc import Mapping
from typing import Any

import numpy

from .._dtypes import kind_of
from ._chunks import _host
from ._dataset import DEFAULT_CHUNK_BYTES, Dataset, create, open
from ._errors import SchemaError
from ._progress import Progress
from ._schema import storage_dtype

__all__ = ["from_arrays", "from_csv", "from_npy", "from_npz"]

_COMMIT_BYTES = 256 << 20  # commit every ~256 MiB: bounded WAL, and a crash keeps what was done


def _infer(arrays: Mapping[str, Any]) -> dict[str, tuple[Any, tuple[int, ...]]]:
    out = {}
    for name, a in arrays.items():
        if a.ndim < 1:
            raise SchemaError(
                f"ruda.dataset: field {name!r}: needs a leading record axis, got a 0-d array"
            )
        out[name] = (a.dtype, a.shape[1:])
    return out


def from_arrays(
    path: str | os.PathLike,
    split: str = "train",
    *,
    schema: Mapping[str, Any] | None = None,
    overwrite: bool = False,
    progress: bool | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    **arrays: Any,
) -> Dataset:
    """Write ``arrays`` (one per field; leading axis = records) as ``split``; open it read-only.

    The schema is inferred from the arrays unless given. Long imports show a progress bar on a
    terminal (``progress=True`` forces it, ``False`` hides it).

    >>> import numpy, tempfile, os
    >>> from ruda import dataset
    >>> p = os.path.join(tempfile.mkdtemp(), "x.db")
    >>> img, lab = numpy.zeros((4, 2, 2), "uint8"), numpy.arange(4)
    >>> ds = dataset.from_arrays(p, split="train", image=img, label=lab)
    >>> ds.schema["image"], len(ds)
    (('uint8', (2, 2)), 4)
    """
    if not arrays:
        raise SchemaError("ruda.dataset.from_arrays: pass at least one array, e.g. image=images")
    host = {k: v if isinstance(v, numpy.ndarray) else _host(v)[0] for k, v in arrays.items()}
    _write(
        path, split, schema or _infer(host), host, overwrite, progress, chunk_bytes, "from_arrays"
    )
    return open(path, split=split)


def _write(path, split, schema, host, overwrite, progress, chunk_bytes, what) -> None:
    counts = {k: len(v) for k, v in host.items()}
    if len(set(counts.values())) > 1:
        raise SchemaError(
            f"ruda.dataset.{what}: fields hold different numbers of records: {counts}"
        )
    n = next(iter(counts.values()))
    rec = sum(v[0].nbytes if n else 0 for v in host.values()) or 1
    step = max(1, min(n, (8 << 20) // rec))  # write ~8 MiB at a time (memmapped inputs stay lazy)
    every = max(step, _COMMIT_BYTES // rec)
    bar = Progress(n, f"ruda.dataset: {what} {split!r}", progress)
    with create(path, schema, split, overwrite=overwrite, chunk_bytes=chunk_bytes) as ds:
        since = 0
        for s in range(0, n, step):
            ds.extend({k: v[s : s + step] for k, v in host.items()})
            since += step
            if since >= every:
                ds.commit()
                since = 0
            bar.update(min(step, n - s))
    bar.close()


def from_npy(
    path: str | os.PathLike,
    split: str = "train",
    *,
    overwrite: bool = False,
    progress: bool | None = None,
    **files: str | os.PathLike,
) -> Dataset:
    """A split from ``.npy`` files, one per field (memory-mapped, so larger than memory is fine).

    >>> import numpy, tempfile, os
    >>> from ruda import dataset
    >>> d = tempfile.mkdtemp()
    >>> numpy.save(os.path.join(d, "y.npy"), numpy.arange(5))
    >>> len(dataset.from_npy(os.path.join(d, "y.db"), y=os.path.join(d, "y.npy")))
    5
    """
    arrays = {
        k: numpy.load(os.fspath(f), mmap_mode="r", allow_pickle=False) for k, f in files.items()
    }
    if not arrays:
        raise SchemaError("ruda.dataset.from_npy: pass one file per field, e.g. image='images.npy'")
    _write(
        path, split, _infer(arrays), arrays, overwrite, progress, DEFAULT_CHUNK_BYTES, "from_npy"
    )
    return open(path, split=split)


def from_npz(
    path: str | os.PathLike,
    npz: str | os.PathLike,
    split: str = "train",
    *,
    overwrite: bool = False,
    progress: bool | None = None,
) -> Dataset:
    """A split from a ``.npz`` file: each array in it becomes a field.

    >>> import numpy, tempfile, os
    >>> from ruda import dataset
    >>> d = tempfile.mkdtemp()
    >>> numpy.savez(os.path.join(d, "a.npz"), x=numpy.ones((3, 2)), y=numpy.arange(3))
    >>> sorted(dataset.from_npz(os.path.join(d, "a.db"), os.path.join(d, "a.npz")).schema)
    ['x', 'y']
    """
    with numpy.load(os.fspath(npz), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    if not arrays:
        raise SchemaError(f"ruda.dataset.from_npz: {npz} holds no arrays")
    _write(
        path, split, _infer(arrays), arrays, overwrite, progress, DEFAULT_CHUNK_BYTES, "from_npz"
    )
    return open(path, split=split)


def _parse_column(
    name: str, values: list[str], dtype: numpy.dtype | None, line0: int
) -> numpy.ndarray:
    """A CSV column as ``dtype`` (inferred: int64, else float64); errors name column and line."""
    kind = None if dtype is None else kind_of(dtype)
    try:
        if kind in (None, "i", "u", "b"):
            a = numpy.array([int(v) for v in values], dtype=numpy.int64)
            if dtype is None or dtype == a.dtype:
                return a
            b = a.astype(dtype)
            if not numpy.array_equal(a, b):
                raise SchemaError(
                    f"ruda.dataset.from_csv: column {name!r} has values outside {dtype.name}"
                )
            return b
        return numpy.array(values, dtype=numpy.float64).astype(dtype)
    except (ValueError, OverflowError):
        if kind is None:
            try:
                return numpy.array(values, dtype=numpy.float64)
            except ValueError:
                pass
        conv = int if kind in ("i", "u", "b") else float
        for i, v in enumerate(values):
            try:
                conv(v)
            except ValueError:
                what = (
                    "an integer (pass schema= to read it as float)" if conv is int else "a number"
                )
                raise SchemaError(
                    f"ruda.dataset.from_csv: column {name!r} line {line0 + i}: {v!r} is not {what}"
                ) from None
        raise


def from_csv(
    path: str | os.PathLike,
    csv_file: str | os.PathLike,
    split: str = "train",
    *,
    schema: Mapping[str, Any] | None = None,
    delimiter: str = ",",
    overwrite: bool = False,
    progress: bool | None = None,
    block: int = 65536,
) -> Dataset:
    """A split from a CSV file with a header row: each column becomes a scalar field.

    Column dtypes come from ``schema`` (``{column: dtype}``) or are inferred from the first block
    of rows (int64 when every value is an integer, else float64). Non-numeric values raise
    SchemaError naming the column and line.

    >>> import tempfile, os
    >>> from ruda import dataset
    >>> d = tempfile.mkdtemp()
    >>> with __builtins__["open"](os.path.join(d, "t.csv"), "w") as fh:
    ...     _ = fh.write("x,y\\n1,0.5\\n2,1.5\\n")
    >>> ds = dataset.from_csv(os.path.join(d, "t.db"), os.path.join(d, "t.csv"))
    >>> ds.schema["x"], ds.schema["y"]
    (('int64', ()), ('float64', ()))
    """
    import builtins

    csv_file = os.fspath(csv_file)
    size = max(1, os.path.getsize(csv_file))
    with builtins.open(csv_file, newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header = next(reader, None)
        if not header:
            raise SchemaError(f"ruda.dataset.from_csv: {csv_file} has no header row")
        header = [h.strip() for h in header]
        given = {
            k: storage_dtype(v[0] if isinstance(v, tuple) else v, f"column {k!r}")
            for k, v in (schema or {}).items()
        }
        if schema is not None and set(given) != set(header):
            raise SchemaError(
                f"ruda.dataset.from_csv: schema fields {sorted(given)} differ from the columns "
                f"{header}"
            )
        bar = Progress(size, f"ruda.dataset: from_csv {split!r}", progress, unit="bytes")
        ds = None
        line = 2
        try:
            while True:
                rows = []
                for row in reader:
                    rows.append(row)
                    if len(rows) == block:
                        break
                if not rows:
                    break
                for i, r in enumerate(rows):
                    if len(r) != len(header):
                        raise SchemaError(
                            f"ruda.dataset.from_csv: line {line + i} has {len(r)} values, the "
                            f"header has {len(header)}"
                        )
                cols = list(zip(*rows, strict=False))
                if ds is None:
                    parsed = {
                        h: _parse_column(h, list(c), given.get(h), line)
                        for h, c in zip(header, cols, strict=False)
                    }
                    dtypes = {h: a.dtype for h, a in parsed.items()}
                    ds = create(
                        path, {h: (dtypes[h], ()) for h in header}, split, overwrite=overwrite
                    )
                else:
                    parsed = {
                        h: _parse_column(h, list(c), dtypes[h], line)
                        for h, c in zip(header, cols, strict=False)
                    }
                ds.extend(parsed)
                line += len(rows)
                bar.update(sum(len(delimiter.join(r)) + 1 for r in rows))
            if ds is None:
                raise SchemaError(f"ruda.dataset.from_csv: {csv_file} has a header but no rows")
            ds.commit()
        finally:
            if ds is not None:
                ds.close()
        bar.done = size
        bar.close()
    return open(path, split=split)
