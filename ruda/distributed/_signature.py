"""The argument cross-check: before a collective, every rank shares what it is about to do.

One small Allgather of a fixed-size int64 signature (function, root, op, dtype, device kind,
axis, shape: 576 bytes a rank) lets every rank see every other rank's call, so a mismatch
becomes the same ``MismatchError`` on every rank instead of a hang or garbage.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .._backends import KINDS as BACKEND_KINDS
from ._comm import Comm
from ._errors import MismatchError
from ._wait import run

__all__ = ["exchange", "OPS"]

FUNCTIONS = (
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "all_to_all",
    "broadcast",
    "reduce",
    "gather",
    "scatter",
    "barrier",
)
OPS = ("sum", "prod", "min", "max", "avg")
DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip
KINDS = BACKEND_KINDS  # a kind's code is its position in the backend registry
# Functions whose non-root ranks may pass x=None (the root's array defines the result).
ROOT_DEFINED = ("broadcast", "scatter")

_HEAD = 8
_MAXDIM = 64
_NONE = -2  # dtype slot: this rank passed x=None
_BAD = -1  # an argument this table cannot name (validated after the exchange)
_NOAXIS = -(2**62)


def _index(seq: tuple, value: Any) -> int:
    try:
        return seq.index(value)
    except ValueError:
        return _BAD


def _signature(fname: str, x: Any, root: int, op: Any, axis: Any) -> np.ndarray:
    sig = np.zeros(_HEAD + _MAXDIM, dtype=np.int64)
    sig[0] = FUNCTIONS.index(fname)
    sig[1] = root
    sig[2] = _index(OPS, op) if op is not None else _NONE
    try:
        sig[5] = _NOAXIS if axis is None else operator.index(axis)
    except TypeError:
        sig[5] = _BAD
    if x is None:
        sig[3] = _NONE
        return sig
    data = x._data
    sig[3] = _index(DTYPES, data.dtype.name)
    sig[4] = KINDS.index(x._device.kind)
    sig[6] = data.ndim
    sig[_HEAD : _HEAD + data.ndim] = data.shape
    return sig


def exchange(
    comm: Comm,
    fname: str,
    x: Any = None,
    *,
    timeout: float | None,
    root: int = 0,
    op: Any = None,
    axis: Any = None,
) -> np.ndarray:
    """Share this rank's call with all ranks; raise MismatchError everywhere if they disagree.

    Returns the table of signatures (one row a rank), from which callers read the root's shape.
    """
    sig = _signature(fname, x, root, op, axis)
    table = np.empty((comm.size, sig.size), dtype=np.int64)
    run(comm, fname, timeout, "Allgather", sig, table)
    if comm.size > 1:
        _compare(fname, table, comm)
    return table


def _compare(fname: str, table: np.ndarray, comm: Comm) -> None:
    first = table[0]
    if fname in ROOT_DEFINED and (table[:, :3] == first[:3]).all() and 0 <= first[1] < comm.size:
        # Only ranks that passed an array must match the root's; x=None is allowed elsewhere.
        ref = table[first[1]]
        given = table[:, 3] != _NONE
        same = (table[given][:, 3:] == ref[3:]).all() and ref[3] != _NONE
        same = same and (table[:, 5] == ref[5]).all()
    else:
        same = bool((table == first).all())
    if not same:
        raise MismatchError(
            f"ruda.distributed.{fname}: ranks called it with different arguments "
            f"(every rank raises this): {describe(table)}"
        )


def root_shape_dtype(table: np.ndarray, root: int) -> tuple[tuple[int, ...], np.dtype, str]:
    """The shape, dtype and device kind the root rank passed, read from the exchanged table."""
    row = table[root]
    shape = tuple(int(s) for s in row[_HEAD : _HEAD + int(row[6])])
    return shape, np.dtype(DTYPES[int(row[3])]), KINDS[int(row[4])]


def describe(table: np.ndarray) -> str:
    """'ranks 0, 2: all_reduce(shape=(4,), dtype=float32, op='sum'); rank 1: ...'."""
    groups: dict[str, list[int]] = {}
    for r, row in enumerate(table):
        groups.setdefault(_describe_row(row), []).append(r)
    parts = []
    for text, ranks in groups.items():
        who = ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))
        parts.append(f"{who}: {text}")
    return "; ".join(parts)


def _name(seq: tuple, code: int) -> str:
    return repr(seq[code]) if 0 <= code < len(seq) else "<unknown>"


def _describe_row(row: np.ndarray) -> str:
    fname = FUNCTIONS[int(row[0])]
    args = []
    if row[3] == _NONE:
        args.append("x=None")
    else:
        shape = tuple(int(s) for s in row[_HEAD : _HEAD + int(row[6])])
        dtype = DTYPES[int(row[3])] if 0 <= row[3] < len(DTYPES) else "<unsupported>"
        args += [f"shape={shape}", f"dtype={dtype}", f"device={KINDS[int(row[4])]}"]
    if row[2] != _NONE:
        args.append(f"op={_name(OPS, int(row[2]))}")
    if fname in ("broadcast", "reduce", "gather", "scatter"):
        args.append(f"root={int(row[1])}")
    if row[5] != _NOAXIS:
        args.append(f"axis={int(row[5])}" if row[5] != _BAD else "axis=<not an int>")
    return f"{fname}({', '.join(args)})"
