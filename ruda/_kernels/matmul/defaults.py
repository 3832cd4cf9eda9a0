"""The matmul family's heuristic defaults: what runs where no tuning decision is stored.

``default_variant`` picks the form (``"stream"`` for at most 16 rows by 128 or more columns,
else ``"tiled"``) and each form's rule sets its parameters from the shape: tile sizes, the
invocations' share of the tile, and a K split that fills the GPU. ``one_pass_variant`` and
``anchors`` are seeds of the tuner's search, not defaults.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.matmul import defaults as md
    >>> v = md.default_variant(ir.F32, 4096, 4096, 4096)
    >>> v["form"], v["bm"], v["bn"], v["tm"], v["tn"], v["split"]
    ('tiled', 128, 128, 8, 8, 1)
    >>> v = md.default_variant(ir.F32, 1, 4096, 4096)
    >>> v["form"], v["bn"], v["ky"], v["split"]
    ('stream', 128, 4, 32)
"""

from __future__ import annotations

from typing import Any

from .. import ir
from ..ir import F32
from . import stream as matmul_stream
from .common import acc_type
from .space import DEFAULTS, SHARED_BYTES, VARIANTS, shared_bytes, valid


def _pow2_floor(n: int) -> int:
    """The largest power of two <= ``n`` (>= 1): the K splits."""
    return 1 << (n.bit_length() - 1)


def default_variant(out_t: ir.Type, M: int, N: int, K: int, max_workgroup: int = 256,
                    shared_limit: int = SHARED_BYTES, lb: str = "n") -> dict[str, Any]:  # fmt: skip
    """The heuristic: the stream form (``stream_variant``) for at most 16 rows by 128 or more
    columns of a B with contiguous rows (``lb`` "n"), else ``tiled_default``."""
    if M <= matmul_stream.MAX_ROWS and N >= 128 and lb == "n":
        p = stream_variant(out_t, M, N, K)
        if valid(p, acc_type(out_t), max_workgroup, shared_limit, M):
            return p
    return tiled_default(out_t, M, N, K, max_workgroup, shared_limit)


def tiled_default(out_t: ir.Type, M: int, N: int, K: int, max_workgroup: int = 256,
                  shared_limit: int = SHARED_BYTES) -> dict[str, Any]:  # fmt: skip
    """The tiled kernel's heuristic: 128 x 128 tiles of 8 x 8 per invocation for large 32-bit
    products, 64 x 64 of 4 x 4 for 64-bit ones (their slices take twice the memory) and small
    matrices; split K when the tiles alone cannot fill a GPU."""
    acc = acc_type(out_t)
    big = M * N >= 256 * 256 and acc.itemsize == 4
    p = dict(DEFAULTS) if big else {**DEFAULTS, "bm": 64, "bn": 64, "tm": 4, "tn": 4}
    if big and out_t is F32:  # 4 neighbouring rows/columns per invocation: 8192^3 on the H200
        p["wide"] = 4  # through Vulkan at 26.0 TFLOP/s against 24.4 (float16: 17.7 against 22.8)
    if M <= 16:  # thin products: the workgroup spreads along the long edge
        p.update(bm=16, bn=128, tm=1, tn=8, wide=1)  # (one row: no blocks of 4)
    elif N <= 16:
        p.update(bm=128, bn=16, tm=8, tn=1, wide=1)
    elif M <= 32 and acc.itemsize == 4:
        # a QR panel's V^H A (32 x n x m): 32-row tiles and deeper slices, K split 64 ways,
        # 272 us against 800 for 64 x 64 tiles split 16 ways (32 x 480 x 100000, H200 Vulkan)
        p.update(bm=32, bn=128, bk=16, tm=4, tn=4)
        if shared_bytes(p, acc) > shared_limit:  # 20 KiB: past WebGPU's guaranteed 16
            p["bk"] = 8
    tiles = -(-M // p["bm"]) * -(-N // p["bn"])
    # at least 64 of K per split, up to ~256 workgroups: 512^3 and 1024^3 through Vulkan on
    # the H200 ran 4.3x and 1.9x faster split 8 and 4 ways than whole (the tuner's sweep)
    if tiles < 128 and K >= 256:
        most = min(64, 256 // tiles, K // 64)
        p["split"] = _pow2_floor(most)
    if not valid(p, acc, max_workgroup, shared_limit):
        p = {**p, "bk": 4}
    return p


def stream_variant(out_t: ir.Type, M: int, N: int, K: int) -> dict[str, Any]:
    """The stream form's heuristic for ``M`` <= 16 rows: a warp across 32 vectors of columns,
    4 invocations along K, the columns per invocation as many as 64 registers of sums allow,
    and K split until about 1024 workgroups run (each invocation keeping 4+ steps)."""
    acc = acc_type(out_t)
    words = matmul_stream.rows_of(M) * max(1, acc.itemsize // 4)
    tn = max(1, min(4, matmul_stream.MAX_REGS // words))
    p = {**DEFAULTS, **matmul_stream.PINNED, "form": "stream", "bn": 32 * tn, "tn": tn,
         "bk": 4, "vec": 4 if tn == 4 else 1, "ky": 4}  # fmt: skip
    most = max(1, min(64, 1024 // -(-N // p["bn"]), K // (4 * p["bk"] * p["ky"])))
    p["split"] = _pow2_floor(most)
    return p


def one_pass_variant(out_t: ir.Type, M: int, N: int, K: int, max_workgroup: int = 256,
                     shared_limit: int = SHARED_BYTES) -> dict[str, Any] | None:  # fmt: skip
    """The stream form in one pass over K (no split, no second kernel summing partial
    products): 16 invocations across columns and as many along K as the workgroup and its
    tree's memory allow. A seed of the tuner's search, not a default: it wants workgroups of
    1024 invocations (1 x 4096 x 4096 through Vulkan on the H200: 23.3 us against 26.1 for
    the split default; lavapipe runs a workgroup on one CPU thread). None where none fits.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.matmul import gemm as matmul, defaults as md
    >>> v = md.one_pass_variant(ir.F32, 1, 4096, 4096, 1024, 49152)
    >>> v["split"], v["bn"], v["ky"], matmul.threads(v)
    (1, 64, 64, 1024)
    """
    p = {**stream_variant(out_t, M, N, K), "split": 1}
    p["bn"] = 16 * p["tn"]
    acc = acc_type(out_t)
    ky = min(VARIANTS["ky"][-1], max_workgroup // 16)
    while ky > 1 and not valid({**p, "ky": ky}, acc, max_workgroup, shared_limit, M):
        ky //= 2
    return {**p, "ky": ky} if ky > 1 else None


def thin_tiled_variant(out_t: ir.Type, M: int, N: int, K: int, max_workgroup: int = 256,
                       shared_limit: int = SHARED_BYTES) -> dict[str, Any] | None:  # fmt: skip
    """The tiled form for at most 16 rows as the H200 ran it fastest on both backends: 16 x 128
    tiles of 8 x 8 per invocation (32 invocations), the slice's rows walked 2 at a time (``ku``;
    16 x 4096 x 11008 through Vulkan: 91.5 us against 125.0 unrolled), K split until about
    2048 workgroups run with 128+ of K each. A seed of the tuner's search, not a default.
    None where it does not fit.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.matmul import defaults as md
    >>> shapes = ((4096, 11008), (11008, 4096))
    >>> [md.thin_tiled_variant(ir.F32, 16, n, k)["split"] for n, k in shapes]
    [64, 16]
    """
    p = {**tiled_default(out_t, M, N, K, max_workgroup, shared_limit), "bm": 16, "bn": 128,
         "bk": 8, "tm": 8, "tn": 8, "wide": 1, "group": 1, "ku": 2}  # fmt: skip
    most = max(1, min(64, 2048 // -(-N // 128), K // 128))
    p["split"] = _pow2_floor(most)
    return p if valid(p, acc_type(out_t), max_workgroup, shared_limit, M) else None


def row_group_variant(out_t: ir.Type, M: int, N: int, K: int, max_workgroup: int = 256,
                      shared_limit: int = SHARED_BYTES) -> dict[str, Any] | None:  # fmt: skip
    """The stream form with its rows shared by invocations (``rg``: at most 8 rows each), B's
    next 8 rows held ahead (``pipe``), 2 invocations along K and K split until about 512
    workgroups run (16 x 4096 x 11008 through Vulkan on the H100: 85.0 us against 101.2 for
    the default). A seed of the tuner's search, not a default. None where it does not fit
    (a single row has nothing to share).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.matmul import gemm as matmul, defaults as md
    >>> v = md.row_group_variant(ir.F32, 16, 4096, 11008)
    >>> v["rg"], v["split"], matmul.threads(v)
    (2, 16, 128)
    """
    rows = matmul_stream.rows_of(M)
    if rows < 2:
        return None
    p = {**stream_variant(out_t, M, N, K), "bn": 128, "tn": 4, "vec": 4, "bk": 8, "ky": 2,
         "pipe": 1, "rg": max(1, rows // 8)}  # fmt: skip
    most = max(1, min(64, 512 // -(-N // p["bn"]), K // 512))
    p["split"] = _pow2_floor(most)
    return p if valid(p, acc_type(out_t), max_workgroup, shared_limit, M) else None


def anchors(out_t: ir.Type, M: int, N: int, K: int, t: Any) -> list[dict[str, Any]]:
    """Seeds of the tuner's search besides the default, for thin products: each form's
    heuristic, the one-pass stream variant, the thin tiled one and the stream form with rows
    shared among invocations."""
    if M > matmul_stream.MAX_ROWS:
        return []
    one = one_pass_variant(out_t, M, N, K, t.max_workgroup, t.shared_bytes)
    thin = thin_tiled_variant(out_t, M, N, K, t.max_workgroup, t.shared_bytes)
    shared = row_group_variant(out_t, M, N, K, t.max_workgroup, t.shared_bytes)
    return [stream_variant(out_t, M, N, K), tiled_default(out_t, M, N, K),
            *(v for v in (one, thin, shared) if v)]  # fmt: skip


def key_default(key: Any) -> dict[str, Any]:
    """``default_variant`` for a tuning key (what a backend launches with no decision)."""
    out = {t.name: t for t in (*ir.ALL_TYPES, *ir.COMPLEX_TYPES)}[key.dtypes[-1]]
    return default_variant(out, *key.shape[1:], lb=key.layout[1])


__all__ = ["anchors", "default_variant", "key_default", "one_pass_variant", "row_group_variant",
           "stream_variant", "thin_tiled_variant", "tiled_default"]  # fmt: skip
