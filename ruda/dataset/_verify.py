"""`verify`: a full integrity check of a dataset file, reported in plain words."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field

from ._chunks import columns, decode_chunk
from ._errors import CorruptDatasetError, DatasetError
from ._store import check_format, check_header, connect, is_corrupt, read_splits

__all__ = ["VerifyReport", "verify"]


@dataclass
class VerifyReport:
    """What `verify` found: ``ok``, the records per split, and one line per problem.

    ``bool(report)`` is ``report.ok``; ``str(report)`` is a readable summary;
    ``raise_if_failed()`` raises CorruptDatasetError with that summary.
    """

    path: str
    ok: bool = True
    splits: dict[str, int] = field(default_factory=dict)
    chunks_checked: int = 0
    problems: list[str] = field(default_factory=list)

    def fail(self, msg: str) -> None:
        self.ok = False
        self.problems.append(msg)

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        head = f"ruda.dataset.verify {self.path}: " + (
            "OK" if self.ok else f"DAMAGED ({len(self.problems)} problem(s))"
        )
        lines = [head]
        lines += [f"  split {s!r}: {n:,} records" for s, n in self.splits.items()]
        lines.append(f"  {self.chunks_checked:,} chunks checked (checksums, lengths, order)")
        lines += [f"  problem: {p}" for p in self.problems]
        return "\n".join(lines)

    def raise_if_failed(self) -> None:
        """Raise CorruptDatasetError (with the report) unless the file is sound."""
        if not self.ok:
            raise CorruptDatasetError(str(self))


def verify(path: str | os.PathLike) -> VerifyReport:
    """Check the whole file: SQLite's own structure check, every checksum, every record count.

    Never raises for a damaged file: the report says what is wrong.

    >>> import numpy, tempfile, os
    >>> from ruda import dataset
    >>> p = os.path.join(tempfile.mkdtemp(), "v.db")
    >>> _ = dataset.from_arrays(p, x=numpy.arange(6))
    >>> report = dataset.verify(p)
    >>> report.ok, report.splits
    (True, {'train': 6})
    """
    path = os.fspath(path)
    rep = VerifyReport(path)
    if not os.path.exists(path):
        rep.fail("the file does not exist")
        return rep
    try:
        check_header(path)
        conn = connect(path, writable=False)
    except (CorruptDatasetError, DatasetError) as e:
        rep.fail(str(e))
        return rep
    try:
        _check(conn, path, rep)
    except (CorruptDatasetError, DatasetError) as e:
        rep.fail(str(e))
    except sqlite3.Error as e:
        rep.fail(f"SQLite reports {'damage' if is_corrupt(e) else 'an error'}: {e}")
    finally:
        conn.close()
    return rep


def _check(conn: sqlite3.Connection, path: str, rep: VerifyReport) -> None:
    rows = conn.execute("PRAGMA integrity_check(20)").fetchall()
    if [r[0] for r in rows] != ["ok"]:
        for (r,) in rows:
            rep.fail(f"SQLite structure: {r}")
    check_format(conn, path)
    for name, info in read_splits(conn, path).items():
        rep.splits[name] = info.count
        where = f"split {name!r}"
        C = info.chunk_records
        if info.count and not C:
            rep.fail(f"{where}: {info.count} records but no chunk size")
            continue
        expect_chunks = -(-info.count // C) if C else 0
        cols = ", ".join(columns(info.schema))
        seen = 0
        try:
            cur = conn.execute(f'SELECT chunk, n, crc, {cols} FROM "{info.table}" ORDER BY chunk')
            for row in cur:
                c, n = row[0], row[1]
                rep.chunks_checked += 1
                if c != seen:
                    if c > seen and seen < expect_chunks:
                        rep.fail(
                            f"{where}: chunks {seen}..{min(c, expect_chunks) - 1} (records "
                            f"{seen * C}..) are missing"
                        )
                    seen = max(seen, c)
                first = c * C
                try:
                    decode_chunk(info.schema, row, where)
                except CorruptDatasetError as e:
                    rep.fail(f"{where}: records {first}..{first + max(n, 1) - 1}: {e}")
                want = min(C, info.count - first) if c < expect_chunks else None
                if want is None:
                    if first >= info.count:
                        pass  # a chunk past the count is never read, so harmless
                elif n < want:
                    rep.fail(
                        f"{where}: chunk {c} holds {n} records, {want} expected (records lost)"
                    )
                seen = c + 1
        except sqlite3.Error as e:
            rep.fail(f"{where}: reading chunks failed after chunk {seen - 1}: {e}")
            continue
        if seen < expect_chunks:
            rep.fail(
                f"{where}: chunks {seen}..{expect_chunks - 1} (records "
                f"{seen * C}..{info.count - 1}) are missing"
            )
