"""The matmul variant space: the parameters of both kernel forms (tiled and stream), their
defaults, and which points are valid on a device (invocations, workgroup memory).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.matmul import space
    >>> space.DEFAULTS in space.variants(ir.F32)
    True
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

from .. import ir
from ..ir import F32
from . import stream as matmul_stream

VARIANTS: dict[str, tuple[Any, ...]] = {
    "bm": (16, 32, 64, 128), "bn": (16, 32, 64, 128), "bk": (4, 8, 16, 32),
    "tm": (1, 2, 4, 8), "tn": (1, 2, 4, 8), "vec": (1, 4), "split": (1, 2, 4, 8, 16, 32, 64),
    "group": (1, 4, 8, 16), "wide": (1, 4), "form": ("tiled", "stream"),
    "ky": (1, 2, 4, 8, 16, 32, 64, 128), "stage": (0, 1), "pipe": (0, 1), "direct": (0, 1),
    "rg": (1, 2, 4, 8, 16),
    "ku": (0, 1, 2, 4),  # last: _variants adds it to each point checked without it
}  # fmt: skip


# 256 invocations of 8 x 8 outputs on 128 x 128 tiles: 16 KiB of double-buffered f32 slices.
DEFAULTS: dict[str, Any] = {"bm": 128, "bn": 128, "bk": 8, "tm": 8, "tn": 8, "vec": 4, "split": 1,
                            "group": 8, "wide": 1, "form": "tiled", "ky": 1,
                            "stage": 0, "pipe": 0, "direct": 0, "rg": 1, "ku": 0}  # fmt: skip


SHARED_BYTES = 16384  # WebGPU's guaranteed workgroup memory


def _stream(p: dict[str, Any]) -> bool:
    return p.get("form", "tiled") == "stream"


def threads(p: dict[str, Any]) -> int:
    """Invocations per workgroup of variant ``p``."""
    if _stream(p):
        return matmul_stream.threads(p)
    return (p["bm"] // p["tm"]) * (p["bn"] // p["tn"])


def shared_bytes(p: dict[str, Any], acc: ir.Type, M: int = matmul_stream.MAX_ROWS) -> int:
    """Workgroup memory of variant ``p``: two slices of A and of B (tiled; a stream variant's
    depends on the rows ``M``)."""
    if _stream(p):
        return matmul_stream.shared_bytes(p, acc, M)
    return 2 * p["bk"] * (p["bm"] + p["bn"]) * acc.itemsize


def valid(p: dict[str, Any], acc: ir.Type, max_workgroup: int = 256,
          shared_limit: int = SHARED_BYTES, M: int = matmul_stream.MAX_ROWS) -> bool:  # fmt: skip
    """Whether variant ``p`` fits a device with these limits for products of ``M`` rows (and
    is not a redundant point)."""
    if _stream(p):
        return matmul_stream.valid(p, acc, max_workgroup, shared_limit, M)
    if any(p.get(k, v) != v for k, v in _FIXED["tiled"].items()):  # the stream form's
        return False
    t = threads(p)
    if p["tm"] > p["bm"] or p["tn"] > p["bn"] or not 32 <= t <= max_workgroup:
        return False
    if p["vec"] > 1 and (p["bk"] % p["vec"] or p["bm"] % p["vec"] or p["bn"] % p["vec"]):
        return False
    wide = p.get("wide", 1)
    if wide > 1 and (p["tm"] % wide or p["tn"] % wide):
        return False
    if not _ku_fits(p.get("ku", 0), p["bk"]):
        return False
    return shared_bytes(p, acc) <= shared_limit


def variants(acc: ir.Type = F32, max_workgroup: int = 256, shared_limit: int = SHARED_BYTES,
             M: int = matmul_stream.MAX_ROWS) -> list[dict[str, Any]]:  # fmt: skip
    """Every valid variant for accumulator ``acc`` and ``M`` rows on a device with these
    limits (each form over its own parameters only, the others at their one value: the whole
    product is 1.8M points, and filtering it took the tuner 10 s of its budget per key)."""
    rows = matmul_stream.rows_of(M) if M <= matmul_stream.MAX_ROWS else 0
    return [dict(p) for p in _variants(acc, max_workgroup, shared_limit, rows)]


# each form's one value of the other form's parameters
_FIXED = {"tiled": {"ky": 1, "stage": 0, "pipe": 0, "rg": 1}, "stream": matmul_stream.PINNED}


def _ku_fits(ku: int, bk: int) -> bool:
    """Whether ``ku`` rows a pass walk a ``bk``-deep slice (``ku`` == ``bk`` is ``ku`` 0)."""
    return not ku or (ku < bk and bk % ku == 0)


@cache
def _variants(acc: ir.Type, max_workgroup: int, shared_limit: int,
              rows: int) -> tuple[dict[str, Any], ...]:  # fmt: skip
    """``variants`` for ``rows`` (0: more than the stream form takes), in the product's order.

    ``ku`` (the last parameter, only the tiled form's, valid by ``bk`` alone) is not walked:
    each valid point at ``ku`` 0 brings its other ``ku`` values along (4x fewer checks)."""
    names = [n for n in VARIANTS if n != "ku"]
    order = {n: {v: i for i, v in enumerate(vs)} for n, vs in VARIANTS.items()}
    groups = []
    for form in VARIANTS["form"]:
        fixed = {**_FIXED[form], "form": form, "ku": 0}
        if (form == "stream" and not rows) or any(v not in VARIANTS[k] for k, v in fixed.items()):
            continue
        axes = [(fixed[k],) if k in fixed else vs for k, vs in VARIANTS.items()]
        more = () if form == "stream" else VARIANTS["ku"][1:]
        for vals in itertools.product(*axes):
            p = dict(zip(VARIANTS, vals, strict=True))
            if valid(p, acc, max_workgroup, shared_limit, rows or matmul_stream.MAX_ROWS + 1):
                group = [p, *({**p, "ku": u} for u in more if _ku_fits(u, p["bk"]))]
                groups.append((tuple(order[n][p[n]] for n in names), group))
    groups.sort(key=lambda g: g[0])
    return tuple(p for _, g in groups for p in g)
