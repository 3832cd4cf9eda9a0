"""The exceptions ruda.dataset raises: each names the file, split, field or record at fault."""

from __future__ import annotations

__all__ = ["CorruptDatasetError", "DatasetError", "SchemaError"]


class DatasetError(Exception):
    """A dataset could not be created, opened or written (wrong mode, missing split, ...)."""


class SchemaError(DatasetError, ValueError):
    """Values do not match the split's schema; the message names the field."""


class CorruptDatasetError(DatasetError):
    """The file is truncated or damaged: a checksum, length or SQLite structure check failed."""
