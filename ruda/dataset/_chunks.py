"""Chunks: a row of one split's table holds ``n`` consecutive records, every field as raw bytes.

Packing many small records per row is what makes writes fast (few SQLite rows) while keeping
random access (record ``i`` lives in chunk ``i // chunk_records``). Each row carries a crc32 over
its id, count, shapes and bytes, checked whenever the row is read.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

import numpy

from .._dtypes import kind_of
from ._errors import CorruptDatasetError, SchemaError
from ._schema import Field, Schema

__all__ = [
    "check_row",
    "columns",
    "copy_chunk",
    "decode_chunk",
    "encode_chunk",
    "field_batch",
    "field_record",
]

_HEAD = struct.Struct("<qq")


def columns(schema: Schema) -> list[str]:
    """A split table's blob columns in order: ``f<i>``, and ``s<i>`` (shapes) for free fields."""
    out = []
    for i, f in enumerate(schema.fields):
        out.append(f"f{i}")
        if not f.fixed:
            out.append(f"s{i}")
    return out


def _host(value: Any) -> tuple[numpy.ndarray, bool]:
    """``value`` as a NumPy array, and whether it came with a dtype of its own."""
    if isinstance(value, numpy.ndarray):
        return value, True
    if hasattr(value, "__array_namespace__"):  # ruda (or other standard) arrays
        if hasattr(value, "to_device") and str(getattr(value, "device", "cpu")) != "cpu":
            value = value.to_device("cpu")
        return numpy.asarray(value), True
    return numpy.asarray(value), isinstance(value, numpy.generic)


def _cast(a: numpy.ndarray, typed: bool, f: Field) -> numpy.ndarray:
    if a.dtype == f.dtype:
        return a
    if typed and numpy.can_cast(a.dtype, f.dtype, "safe"):
        return a.astype(f.dtype)
    if not typed and kind_of(a.dtype) in "biuf" and kind_of(a.dtype) != "O":
        # Python numbers and lists: accept them when the values survive the conversion exactly.
        b = a.astype(f.dtype)
        with numpy.errstate(invalid="ignore"):
            if numpy.array_equal(b, a):
                return b
    raise SchemaError(
        f"ruda.dataset: field {f.name!r}: values of dtype {a.dtype} cannot be stored as "
        f"{f.dtype.name} "
        "without loss (cast them first)"
    )


def _le(a: numpy.ndarray, f: Field) -> numpy.ndarray:
    """Contiguous little-endian bytes in the field's dtype."""
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and not numpy.little_endian):
        a = a.astype(f.dtype)
    return a if a.flags.c_contiguous else a.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)


def field_record(f: Field, value: Any) -> numpy.ndarray:
    """One record of field ``f`` from ``value``, checked against the schema."""
    a, typed = _host(value)
    if not f.matches(a.shape):
        raise SchemaError(
            f"ruda.dataset: field {f.name!r}: a record must have shape {_fmt(f.shape)}, got "
            f"{a.shape}"
        )
    return _le(_cast(a, typed, f), f)


def field_batch(f: Field, value: Any) -> tuple[Any, int]:
    """Many records of field ``f`` (leading axis counts records) and their count."""
    if not f.fixed and isinstance(value, (list, tuple)):
        recs = [field_record(f, v) for v in value]
        return recs, len(recs)
    a, typed = _host(value)
    if a.ndim != len(f.shape) + 1 or not f.matches(a.shape[1:]):
        raise SchemaError(
            f"ruda.dataset: field {f.name!r}: extend needs shape (n, {_fmt(f.shape)[1:-1]}), "
            f"got {a.shape}"
            if f.shape
            else f"ruda.dataset: field {f.name!r}: extend needs shape (n,), got {a.shape}"
        )
    a = _le(_cast(a, typed, f), f)
    if f.fixed:
        return a, a.shape[0]
    return list(a), a.shape[0]


def _fmt(shape: tuple) -> str:
    inner = ", ".join("None" if s is None else str(s) for s in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def encode_chunk(schema: Schema, chunk: int, cols: list[Any], n: int) -> tuple:
    """The table row ``(chunk, n, crc, blobs...)`` for ``n`` records given per field in ``cols``."""
    blobs: list[bytes] = []
    crc = zlib.crc32(_HEAD.pack(chunk, n))
    for f, c in zip(schema.fields, cols, strict=False):
        if f.fixed:
            b = c.tobytes()
            crc = zlib.crc32(b, crc)
            blobs.append(b)
        else:
            shapes = numpy.array([r.shape for r in c], dtype="<i8").reshape(n, len(f.shape))
            b = b"".join(r.tobytes() for r in c)
            s = shapes.tobytes()
            crc = zlib.crc32(s, zlib.crc32(b, crc))
            blobs += (b, s)
    return (chunk, n, crc, *blobs)


def check_row(row: tuple, where: str) -> int:
    """A table row's record count after checking its crc; raises CorruptDatasetError."""
    chunk, n, crc = row[0], row[1], row[2]
    if not isinstance(n, int) or n < 0:
        raise CorruptDatasetError(f"ruda.dataset: {where} chunk {chunk}: bad record count {n!r}")
    want = zlib.crc32(_HEAD.pack(chunk, n))
    for b in row[3:]:
        if not isinstance(b, bytes):
            raise CorruptDatasetError(
                f"ruda.dataset: {where} chunk {chunk}: a column is not a blob"
            )
        want = zlib.crc32(b, want)  # C speed, and the GIL is released for big blobs
    if want != crc:
        raise CorruptDatasetError(
            f"ruda.dataset: {where} chunk {chunk}: checksum mismatch (stored {crc}, computed "
            f"{want}); "
            "the file is damaged — run ruda.dataset.verify() for a full report"
        )
    return n


def _bad_length(where: str, chunk: int, f: Field, got: int, n: int) -> CorruptDatasetError:
    return CorruptDatasetError(
        f"ruda.dataset: {where} chunk {chunk}: field {f.name!r} holds {got} bytes, "
        f"expected {n * f.record_bytes}"
    )


def copy_chunk(
    schema: Schema, row: tuple, where: str, views: list[memoryview], start: int, m: int
) -> int:
    """Check a row of a fixed-shape schema and copy its first ``m`` records into ``views``.

    ``views`` are flat byte views of per-field buffers; the records land at record ``start``.
    Returns the row's record count. No intermediate arrays: one memcpy per field.
    """
    n = check_row(row, where)
    m = min(m, n)
    for f, b, v in zip(schema.fields, row[3:], views, strict=False):
        rb = f.record_bytes
        if len(b) != n * rb:
            raise _bad_length(where, row[0], f, len(b), n)
        v[start * rb : (start + m) * rb] = b if m == n else memoryview(b)[: m * rb]
    return n


def decode_chunk(schema: Schema, row: tuple, where: str) -> tuple[int, list[Any]]:
    """``(n, per-field data)`` from a table row; raises CorruptDatasetError on any mismatch."""
    chunk = row[0]
    n = check_row(row, where)
    blobs = row[3:]
    out: list[Any] = []
    k = 0
    for f in schema.fields:
        b = blobs[k]
        k += 1
        if f.fixed:
            if len(b) != n * f.record_bytes:
                raise _bad_length(where, chunk, f, len(b), n)
            out.append(numpy.frombuffer(b, f.dtype).reshape((n, *f.shape)))
        else:
            shapes = numpy.frombuffer(blobs[k], "<i8").reshape(n, len(f.shape))
            k += 1
            sizes = (
                shapes.prod(axis=1, dtype=numpy.int64) if f.shape else numpy.ones(n, numpy.int64)
            )
            flat = numpy.frombuffer(b, f.dtype)
            if sizes.sum() != flat.size or (shapes < 0).any():
                raise CorruptDatasetError(
                    f"ruda.dataset: {where} chunk {chunk}: field {f.name!r} shapes do not match "
                    "its bytes"
                )
            ends = numpy.cumsum(sizes)
            out.append(
                [
                    flat[e - s : e].reshape(tuple(sh))
                    for e, s, sh in zip(
                        ends.tolist(), sizes.tolist(), shapes.tolist(), strict=False
                    )
                ]
            )
    return n, out
