"""Tuning decisions in SQLite: ``$RUDA_CACHE_DIR/tune.sqlite`` (default ``~/.cache/ruda``).

One row per (device, driver, ruda version, family, op, dtypes, layout, shape bucket) holding the
winning parameters (JSON) and how they were measured. The file is opened in WAL mode with a busy
timeout and every write is one upsert in its own transaction, so several processes can tune at
once. A file that is not a database, fails its integrity check or carries another schema version
is rebuilt with a warning, never raised to the caller. Compiled binaries live elsewhere
(``$RUDA_CACHE_DIR/cuda``...): this file holds decisions only.

    >>> from ruda._kernels.tune.store import Store
    >>> import tempfile, os
    >>> s = Store(os.path.join(tempfile.mkdtemp(), "tune.sqlite"))
    >>> row = dict(device="d", driver="v", version="0", family="f", op="sum", dtypes="f32",
    ...            layout="full", bucket="1024", params={"wg": 128})
    >>> s.put(row); s.get(row)["params"]
    {'wg': 128}
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import warnings
from typing import Any

SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 30.0
KEY_COLUMNS = ("device", "driver", "version", "family", "op", "dtypes", "layout", "bucket")
VALUE_COLUMNS = ("params", "time_s", "default_s", "clock", "tried", "total", "rejected", "updated")
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS decisions (
    {", ".join(f"{c} TEXT NOT NULL" for c in KEY_COLUMNS)},
    params TEXT NOT NULL, time_s REAL, default_s REAL, clock TEXT,
    tried INTEGER, total INTEGER, rejected INTEGER, updated REAL,
    PRIMARY KEY ({", ".join(KEY_COLUMNS)})
);
"""


class StoreWarning(RuntimeWarning):
    """The tuning store was unusable (corrupt, stale, unwritable): rebuilt or bypassed."""


def _create(conn: sqlite3.Connection) -> None:
    """The tables and the schema version, inside the caller's transaction."""
    for stmt in _SCHEMA.split(";"):
        if stmt.strip():
            conn.execute(stmt)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))


def default_path() -> str:
    """``$RUDA_CACHE_DIR/tune.sqlite``, the cache directory defaulting to ``~/.cache/ruda``."""
    root = os.environ.get("RUDA_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "ruda"
    )
    return os.path.join(root, "tune.sqlite")


class Store:
    """The decisions table of one SQLite file; one connection per process (reopened after fork)."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path or default_path()
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1

    # -- opening, checking, rebuilding ----------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                               check_same_thread=False)  # fmt: skip
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        return conn

    def _check(self, conn: sqlite3.Connection) -> str | None:
        """Why the open file is unusable (None when it is fine); creates the schema when empty."""
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            return f"journal mode {mode!r} instead of WAL"
        ok = conn.execute("PRAGMA quick_check").fetchone()[0]
        if ok != "ok":
            return f"integrity check: {ok}"
        conn.execute("BEGIN IMMEDIATE")  # one process creates or upgrades the schema at a time
        try:
            tables = {
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if not tables:
                _create(conn)
                conn.execute("COMMIT")
                return None
            ver = None
            if "meta" in tables:
                r = conn.execute("SELECT v FROM meta WHERE k='schema_version'").fetchone()
                ver = r[0] if r else None
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        if ver != str(SCHEMA_VERSION) or "decisions" not in tables:
            return f"schema version {ver} (expected {SCHEMA_VERSION})"
        return None

    def _rebuild_schema(self, conn: sqlite3.Connection, why: str) -> None:
        """Drop and recreate the tables in one transaction (a stale but valid database)."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            r = None
            try:
                r = conn.execute("SELECT v FROM meta WHERE k='schema_version'").fetchone()
            except sqlite3.DatabaseError:
                pass
            if r is None or r[0] != str(SCHEMA_VERSION):  # another process may have done it
                names = [r[0] for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type='table'")]  # fmt: skip
                for t in names:
                    conn.execute(f'DROP TABLE IF EXISTS "{t}"')
                _create(conn)
                warnings.warn(f"ruda: tuning store {self.path}: {why}; rebuilt it empty",
                              StoreWarning, stacklevel=4)  # fmt: skip
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _replace_file(self, ino: int | None, why: str) -> None:
        """Move a file that is not a usable database aside (unless another process already did)."""
        try:
            cur = os.stat(self.path).st_ino
        except FileNotFoundError:
            cur = None
        if cur is not None and (ino is None or cur == ino):
            aside = f"{self.path}.corrupt-{os.getpid()}"
            try:
                os.replace(self.path, aside)
                for ext in ("-wal", "-shm"):
                    if os.path.exists(self.path + ext):
                        os.replace(self.path + ext, aside + ext)
                done = f"moved it to {aside} and started a new one"
            except OSError as e:
                done = f"could not move it aside ({e})"
            warnings.warn(f"ruda: tuning store {self.path} is unusable ({why}); {done}",
                          StoreWarning, stacklevel=4)  # fmt: skip

    def conn(self) -> sqlite3.Connection:
        """The checked connection of this process (opened, verified or rebuilt on first use)."""
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                return self._conn
            for attempt in range(3):
                ino = os.stat(self.path).st_ino if os.path.exists(self.path) else None
                conn = None
                try:
                    conn = self._connect()
                    why = self._check(conn)
                    if why is not None and why.startswith("schema"):
                        self._rebuild_schema(conn, why)
                        why = None
                    if why is None:
                        self._conn, self._pid = conn, os.getpid()
                        return conn
                except sqlite3.OperationalError as e:
                    if "locked" in str(e) or "busy" in str(e):
                        if conn is not None:
                            conn.close()
                        if attempt == 2:
                            raise
                        continue
                    why = str(e)
                except sqlite3.DatabaseError as e:  # "file is not a database", malformed...
                    why = str(e)
                if conn is not None:
                    conn.close()
                self._replace_file(ino, why)
            raise sqlite3.DatabaseError(f"ruda: cannot open the tuning store {self.path}")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    # -- rows ------------------------------------------------------------------------------------
    def get(self, key: dict[str, Any]) -> dict[str, Any] | None:
        """The stored row for ``key`` (the ``KEY_COLUMNS`` of it), params decoded; or None."""
        where = " AND ".join(f"{c} = ?" for c in KEY_COLUMNS)
        cols = ", ".join(VALUE_COLUMNS)
        vals = tuple(str(key[c]) for c in KEY_COLUMNS)
        with self._lock:
            if self._conn is None and not os.path.exists(self.path):
                return None  # reading never creates the store (every GPU launch may read)
            r = self.conn().execute(f"SELECT {cols} FROM decisions WHERE {where}", vals).fetchone()
        if r is None:
            return None
        row = dict(zip(VALUE_COLUMNS, r, strict=True))
        try:
            row["params"] = json.loads(row["params"])
        except (TypeError, ValueError):
            return None  # an unreadable row is no decision
        return {**{c: key[c] for c in KEY_COLUMNS}, **row}

    def put(self, row: dict[str, Any]) -> None:
        """Insert or replace the decision for ``row``'s key (last writer wins), atomically."""
        values = {c: None for c in VALUE_COLUMNS}
        values.update({k: v for k, v in row.items() if k in VALUE_COLUMNS})
        values["params"] = json.dumps(row["params"], sort_keys=True)
        values["updated"] = values["updated"] or time.time()
        cols = KEY_COLUMNS + VALUE_COLUMNS
        args = tuple(str(row[c]) for c in KEY_COLUMNS) + tuple(values[c] for c in VALUE_COLUMNS)
        sql = (f"INSERT INTO decisions ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
               f"ON CONFLICT ({', '.join(KEY_COLUMNS)}) DO UPDATE SET "
               + ", ".join(f"{c} = excluded.{c}" for c in VALUE_COLUMNS))  # fmt: skip
        with self._lock:
            conn = self.conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(sql, args)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def rows(self) -> list[dict[str, Any]]:
        """Every stored decision, params decoded, ordered by key."""
        cols = KEY_COLUMNS + VALUE_COLUMNS
        with self._lock:
            cur = self.conn().execute(
                f"SELECT {', '.join(cols)} FROM decisions ORDER BY {', '.join(KEY_COLUMNS)}"
            )
            out = [dict(zip(cols, r, strict=True)) for r in cur]
        for row in out:
            try:
                row["params"] = json.loads(row["params"])
            except (TypeError, ValueError):
                row["params"] = None
        return out

    def clear(self) -> None:
        with self._lock:
            self.conn().execute("DELETE FROM decisions")
