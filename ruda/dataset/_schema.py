"""Schemas: one `Field` per named array, its little-endian dtype and its per-record shape."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy

from ._errors import SchemaError

__all__ = ["Field", "Schema", "parse_schema"]

# Stored dtypes: every dtype of the standard; bytes are always little-endian on disk.
_KINDS = frozenset("biufc")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def storage_dtype(spec: Any, where: str) -> numpy.dtype:
    """The little-endian NumPy dtype for ``spec`` (a name, NumPy dtype or ruda dtype)."""
    np_spec = getattr(spec, "_np", spec)  # ruda.DType carries its NumPy dtype
    try:
        dt = numpy.dtype(np_spec)
    except TypeError as e:
        raise SchemaError(f"ruda.dataset: {where}: {spec!r} is not a dtype") from e
    if dt.kind not in _KINDS or dt.fields is not None or dt.subdtype is not None:
        raise SchemaError(
            f"ruda.dataset: {where}: dtype {dt} cannot be stored (numeric or bool only)"
        )
    return dt.newbyteorder("<") if dt.itemsize > 1 else dt


@dataclass(frozen=True)
class Field:
    """One named array of every record: ``dtype`` and ``shape`` (``None`` marks a free axis)."""

    name: str
    dtype: numpy.dtype
    shape: tuple[int | None, ...]

    @property
    def fixed(self) -> bool:
        """True when every record has the same shape (no ``None`` in it)."""
        return None not in self.shape

    @property
    def record_bytes(self) -> int:
        """Bytes of one record of a fixed field (itemsize for a free shape)."""
        n = self.dtype.itemsize
        for s in self.shape:
            n *= 1 if s is None else s
        return n

    def matches(self, shape: tuple[int, ...]) -> bool:
        """Whether one record of ``shape`` fits this field."""
        return len(shape) == len(self.shape) and all(
            want is None or want == got for want, got in zip(self.shape, shape, strict=False)
        )

    def describe(self) -> tuple[str, tuple[int | None, ...]]:
        """The ``(dtype name, shape)`` pair the schema was written with."""
        return (self.dtype.name, self.shape)


class Schema(Mapping):
    """An ordered, read-only mapping ``field name -> (dtype name, shape)``.

    >>> from ruda.dataset import Schema
    >>> s = Schema.parse({"image": ("uint8", (28, 28)), "label": ("int64", ())})
    >>> s["image"]
    ('uint8', (28, 28))
    """

    def __init__(self, fields: list[Field]):
        self.fields = tuple(fields)
        self._by_name = {f.name: f for f in fields}

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> Schema:
        """A schema from ``{name: (dtype, shape)}`` (or ``{name: dtype}`` for scalars)."""
        return parse_schema(spec)

    def __getitem__(self, name: str):
        return self._by_name[name].describe()

    def __iter__(self):
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self.fields)

    def __repr__(self) -> str:
        return f"Schema({dict(self)!r})"

    def field(self, name: str) -> Field:
        """The `Field` called ``name``."""
        return self._by_name[name]

    @property
    def fixed(self) -> bool:
        """True when every field has a fixed per-record shape."""
        return all(f.fixed for f in self.fields)

    @property
    def record_bytes(self) -> int:
        """Bytes of one record over all fields (free axes counted as 1)."""
        return sum(f.record_bytes for f in self.fields)

    def to_json(self) -> str:
        """The stored form: a JSON list of ``[name, dtype.str, shape]``."""
        return json.dumps([[f.name, f.dtype.str, list(f.shape)] for f in self.fields])

    @classmethod
    def from_json(cls, text: str) -> Schema:
        """Inverse of `to_json`."""
        return cls([Field(n, numpy.dtype(d), tuple(s)) for n, d, s in json.loads(text)])


def parse_schema(spec: Mapping[str, Any]) -> Schema:
    """Validate ``{name: (dtype, shape)}``; errors name the field."""
    if isinstance(spec, Schema):
        return spec
    if not isinstance(spec, Mapping) or not spec:
        raise SchemaError("ruda.dataset: schema must be a non-empty dict {name: (dtype, shape)}")
    fields = []
    for name, entry in spec.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise SchemaError(
                f"ruda.dataset: field name {name!r} must be an identifier-like string"
            )
        dtype, shape = (
            entry if isinstance(entry, (tuple, list)) and len(entry) == 2 else (entry, ())
        )
        where = f"field {name!r}"
        dt = storage_dtype(dtype, where)
        if isinstance(shape, int):
            shape = (shape,)
        try:
            shape = tuple(None if s is None else int(s) for s in shape)
        except (TypeError, ValueError) as e:
            raise SchemaError(
                f"ruda.dataset: {where}: shape {shape!r} must hold ints or None"
            ) from e
        if any(s is not None and s < 0 for s in shape):
            raise SchemaError(f"ruda.dataset: {where}: shape {shape} has a negative size")
        fields.append(Field(name, dt, shape))
    return Schema(fields)


def meta_crc(*parts: Any) -> int:
    """Checksum of a metadata row, so a flipped byte in a schema or count is caught."""
    return zlib.crc32("\x1f".join(str(p) for p in parts).encode())
