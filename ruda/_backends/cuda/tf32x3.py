"""ruda's float32 products on tensor cores (``tf32x3_source``), as cuda runs them.

An ``algorithm`` of the tuner's ``matmul`` family on cuda beside ruda's tiled kernel and cuBLAS
(declared in ``ruda._kernels.tune_families``): never a default, it runs where a stored decision
names it, for float32 products of row-major operands. ``config`` picks the block shape and the
K split from the shape; ``launch`` queues the kernel (and the sum of the splits).

    >>> config(4096, 128, 4096, 1, 132)  # 128 blocks of 64 x 64: K split 4 ways
    ((64, 64, 32, 32), 4)
    >>> config(8192, 8192, 1024, 1, 132)
    ((64, 64, 32, 32), 1)
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

from ..._kernels.matmul import split_k
from . import tf32x3_source as src

NAME = "tf32x3"
MIN_ARCH = 80  # mma.sync with TF32 operands: Ampere on
MAX_GRID_YZ = 65535


def config(M: int, N: int, K: int, count: int, sms: int) -> tuple[tuple[int, int, int, int], int]:
    """(block shape, K split) for ``count`` products of ``M x K`` by ``K x N`` on ``sms``
    multiprocessors: 64 x 64 blocks (the fastest or within 5% of it at every shape timed on the
    H200, ``benchmarks/tf32x3_probe.py``), K split in powers of two (256 of K each at least)
    while the blocks stay within 4 per multiprocessor (4096 x 4096 x 128: 4 ways, as timed)."""
    shape = src.SHAPES[-1]
    tiles = count * -(-M // shape[0]) * -(-N // shape[1])
    split = 1
    while tiles * split * 2 <= 4 * sms and K // (split * 2) >= 256 and split < 16:
        split *= 2
    return shape, split


def fits(M: int, N: int, count: int, split: int, shape: tuple[int, ...]) -> bool:
    """Whether the grid of this launch is within CUDA's limits."""
    return -(-M // shape[0]) <= MAX_GRID_YZ and count * split <= MAX_GRID_YZ


def runs(ctx: Any, M: int, N: int, K: int, batch: tuple[int, ...]) -> bool:
    """Whether ``launch`` takes this product on ``ctx`` (its grid within CUDA's limits; else
    cuBLAS multiplies it)."""
    count = math.prod(batch)
    shape, split = config(M, N, K, count, ctx.sms)
    return int(ctx.arch) >= MIN_ARCH and fits(M, N, count, split, shape)


class _Program:
    """A loaded kernel of this module in the form ``Launcher.raw`` takes."""

    def __init__(self, module: Any, name: str, block: int, fmt: str) -> None:
        self.module, self.function = module, module.get_function(name)
        self.fptr, self.block, self.name = self.function.ptr, block, name
        self.pack = struct.Struct("<" + fmt).pack_into


_LOADED: dict[tuple[Any, ...], tuple[_Program, _Program]] = {}
_I = "i4x"  # a 32-bit int in its 8-byte argument slot


def _programs(ctx: Any, shape: tuple[int, int, int, int], vec: int) -> tuple[_Program, _Program]:
    hit = _LOADED.get((ctx.compiler, shape, vec))
    if hit is None:
        if int(ctx.arch) < MIN_ARCH:
            raise NotImplementedError(f"ruda {NAME}: needs sm_{MIN_ARCH}+, this is sm_{ctx.arch}")
        module = ctx.compiler.load_module(src.source(*shape, vec))
        hit = (_Program(module, src.KERNEL, src.threads(*shape), "QQQ" + _I * 7 + "qq"),
               _Program(module, src.SUM, 256, "QQq" + _I + "q"))  # fmt: skip
        _LOADED[(ctx.compiler, shape, vec)] = hit
    return hit


def launch(ctx: Any, a: Any, lda: int, sa: int, b: Any, ldb: int, sb: int, y: Any,
           M: int, N: int, K: int, count: int) -> None:  # fmt: skip
    """Queue ``y[z] = a[z] @ b[z]`` for ``z < count``: ``a`` and ``b`` row-major (rows ``lda``
    and ``ldb`` elements apart, matrices ``sa`` and ``sb``; 0 broadcasts one), ``y`` a new
    C-ordered float32 array of ``count`` x M x N."""
    shape, split = config(M, N, K, count, ctx.sms)
    split, kchunk = split_k(K, split, src.BK)
    if not fits(M, N, count, split, shape):
        raise ValueError(f"ruda {NAME}: {count} x {M} x {N} is past CUDA's grid")
    words = (lda, ldb, sa, sb, K, N)
    vec = int(all(w % 4 == 0 for w in words) and a.ptr % 16 == 0 and b.ptr % 16 == 0)
    kern, add = _programs(ctx, shape, vec)
    out = y if split == 1 else ctx.allocator.empty((count * split, M, N), np.dtype(np.float32))
    grid = (-(-N // shape[1]), -(-M // shape[0]), count * split)
    ctx.launcher.raw(kern, (a.ptr, b.ptr, out.ptr, M, N, K, lda, ldb, kchunk, split, sa, sb),
                     *grid)  # fmt: skip
    if split > 1:
        total = count * M * N
        ctx.launcher.raw(add, (out.ptr, y.ptr, M * N, split, total), -(-total // 256))


__all__ = ["MIN_ARCH", "NAME", "config", "fits", "launch", "runs"]
