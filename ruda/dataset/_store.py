"""The SQLite file: connecting (WAL, pragmas), the metadata tables, and SQLite errors in our words.

Layout: ``_ruda_meta`` (format marker), ``_ruda_splits`` (one row per split: its table, schema,
records per chunk, committed record count and a crc over the row) and one table per split whose
rows are chunks (see ``_chunks``).
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import struct
from collections.abc import Iterator
from dataclasses import dataclass

from ._errors import CorruptDatasetError, DatasetError
from ._schema import Schema, meta_crc

__all__ = ["SplitInfo", "check_header", "connect", "corrupt_errors", "read_splits"]

FORMAT = "ruda.dataset"
VERSION = 1
PAGE_SIZE = 65536  # big pages: fewer overflow pages per blob, faster bulk reads
_SPLIT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")
# Messages with which SQLite reports a damaged file.
_CORRUPT = (
    "malformed",
    "not a database",
    "disk i/o error",
    "file is encrypted",
    "corrupt",
    "short read",
)


@dataclass
class SplitInfo:
    """One row of ``_ruda_splits``."""

    name: str
    table: str
    schema: Schema
    chunk_records: int
    count: int

    def crc(self) -> int:
        return meta_crc(
            self.name, self.table, self.schema.to_json(), self.chunk_records, self.count
        )


def split_table(split: str) -> str:
    """The table name of ``split`` (validated, so it can be quoted safely)."""
    if not isinstance(split, str) or not _SPLIT.match(split):
        raise DatasetError(
            f"ruda.dataset: split name {split!r} must match [A-Za-z0-9_][A-Za-z0-9_.-]*"
        )
    return f"split:{split}"


def check_header(path: str) -> None:
    """Raise CorruptDatasetError unless ``path`` is an SQLite file as long as its header says."""
    size = os.path.getsize(path)
    if size == 0:
        return  # a fresh, empty file: SQLite initialises it
    with open(path, "rb") as fh:
        head = fh.read(100)
    if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
        raise CorruptDatasetError(
            f"ruda.dataset: {path} is not a dataset file (bad or truncated SQLite header)"
        )
    page = struct.unpack(">H", head[16:18])[0]
    page = 65536 if page == 1 else page
    pages, valid_for, changes = struct.unpack(">I", head[28:32])[0], head[92:96], head[24:28]
    if page < 512 or page & (page - 1):
        raise CorruptDatasetError(f"ruda.dataset: {path}: header has an invalid page size {page}")
    if size % page:
        raise CorruptDatasetError(
            f"ruda.dataset: {path} is truncated or damaged: {size} bytes is not a whole number "
            f"of {page}-byte pages"
        )
    if valid_for == changes and pages * page > size:
        raise CorruptDatasetError(
            f"ruda.dataset: {path} is truncated: {size} bytes, but its header records {pages} "
            "pages "
            f"of {page} bytes ({pages * page} bytes)"
        )


def is_corrupt(e: sqlite3.Error) -> bool:
    """Whether an SQLite error means a damaged file (rather than, say, a lock)."""
    if isinstance(e, (sqlite3.OperationalError, sqlite3.DatabaseError)):
        msg = str(e).lower()
        return any(m in msg for m in _CORRUPT) or type(e) is sqlite3.DatabaseError
    return False


@contextlib.contextmanager
def corrupt_errors(path: str) -> Iterator[None]:
    """Turn SQLite's reports of a damaged file into CorruptDatasetError naming ``path``."""
    try:
        yield
    except sqlite3.Error as e:
        if is_corrupt(e):
            raise CorruptDatasetError(
                f"ruda.dataset: {path} is damaged (SQLite: {e}); run ruda.dataset.verify() for "
                "a report"
            ) from e
        raise DatasetError(f"ruda.dataset: {path}: SQLite error: {e}") from e


def connect(path: str, writable: bool) -> sqlite3.Connection:
    """An autocommit connection (transactions are explicit) in WAL mode."""
    if not writable and not os.path.exists(path):
        raise DatasetError(f"ruda.dataset: {path} does not exist")
    check_header(path) if os.path.exists(path) else None
    with corrupt_errors(path):
        if writable:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
            if conn.execute("PRAGMA page_count").fetchone()[0] == 0:
                conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
            conn.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a killed process loses no commit (power loss may drop the last ones).
            conn.execute("PRAGMA synchronous=NORMAL")
        else:
            uri = (
                "file:" + os.path.abspath(path).replace("?", "%3f").replace("#", "%23") + "?mode=ro"
            )
            conn = sqlite3.connect(
                uri, uri=True, isolation_level=None, check_same_thread=False, timeout=30
            )
        conn.execute("PRAGMA cache_size=-65536")  # 64 MiB page cache
        conn.execute("PRAGMA mmap_size=1073741824")  # read pages straight from the mapping
        return conn


def init_meta(conn: sqlite3.Connection, path: str) -> None:
    """Create the metadata tables (once) and check the format marker."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _ruda_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
    )
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _ruda_splits (name TEXT PRIMARY KEY, tbl TEXT NOT NULL, "
        "schema TEXT NOT NULL, chunk_records INTEGER NOT NULL, count INTEGER NOT NULL, crc "
        "INTEGER NOT NULL)"
    )
    conn.execute("INSERT OR IGNORE INTO _ruda_meta VALUES ('format', ?)", (f"{FORMAT} {VERSION}",))
    check_format(conn, path)


def check_format(conn: sqlite3.Connection, path: str) -> None:
    """Raise unless ``conn`` holds a ruda dataset this version can read."""
    try:
        row = conn.execute("SELECT value FROM _ruda_meta WHERE key='format'").fetchone()
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):
            raise DatasetError(
                f"ruda.dataset: {path} is an SQLite file but not a ruda dataset"
            ) from e
        raise
    if row is None or not str(row[0]).startswith(FORMAT + " "):
        raise CorruptDatasetError(
            f"ruda.dataset: {path}: format marker missing or damaged ({row!r})"
        )
    if row[0] != f"{FORMAT} {VERSION}":
        raise DatasetError(
            f"ruda.dataset: {path} has format {row[0]!r}; this ruda reads version {VERSION}"
        )


def read_splits(conn: sqlite3.Connection, path: str) -> dict[str, SplitInfo]:
    """Every split's metadata, each row's crc checked."""
    out = {}
    for name, tbl, schema, chunk_records, count, crc in conn.execute(
        "SELECT name, tbl, schema, chunk_records, count, crc FROM _ruda_splits ORDER BY name"
    ):
        try:
            info = SplitInfo(name, tbl, Schema.from_json(schema), int(chunk_records), int(count))
            ok = info.crc() == crc
        except (ValueError, TypeError, KeyError):
            ok = False
        if not ok:
            raise CorruptDatasetError(
                f"ruda.dataset: {path}: the metadata of split {name!r} is damaged (checksum "
                "mismatch)"
            )
        out[name] = info
    return out


def write_split(conn: sqlite3.Connection, info: SplitInfo) -> None:
    """Insert or update a split's metadata row (inside the caller's transaction)."""
    conn.execute(
        "INSERT OR REPLACE INTO _ruda_splits VALUES (?, ?, ?, ?, ?, ?)",
        (info.name, info.table, info.schema.to_json(), info.chunk_records, info.count, info.crc()),
    )
