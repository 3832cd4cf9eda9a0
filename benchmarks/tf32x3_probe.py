"""Time ruda's 3xTF32 tensor-core float32 product (``ruda._backends.cuda.tf32x3_source``)
against cuBLAS's float32 GEMM in the same run, block shape by block shape and split by split,
and measure both products' error against float64 (CuPy only, no ruda dispatch).

    python3 benchmarks/tf32x3_probe.py --json out.json [--shapes 4096x4096x128,...]

Shapes are M x K x N. Each line: the block shape, split, median microseconds (CUDA events,
after warm-up), the ratio cuBLAS time / this time, and the worst error relative to
(|A| @ |B|) next to cuBLAS's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from ruda._backends.cuda import tf32x3_source as src  # noqa: E402
from ruda._kernels.matmul import split_k  # noqa: E402

SHAPES = ",".join(("1000x999x1001", "4096x4096x128", "8192x1024x8192", "16x4096x11008",
                   "2048x2048x2048", "4096x4096x4096", "8192x8192x8192"))  # fmt: skip


def median_time(cp, fn, reps: int) -> float:
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
    times.sort()
    return times[len(times) // 2]


def launcher(cp, mods, a, b, shape, M, N, K, split):
    """(run, c): one product through the 3xTF32 kernel into ``c`` (plus the sum of splits)."""
    bm, bn, _, _ = shape
    nsplit, kchunk = split_k(K, split, src.BK)
    kern, ksum = mods[shape, int(K % 4 == 0 and N % 4 == 0)]
    c = cp.full((M, N), cp.nan, cp.float32)
    part = cp.empty((nsplit, M, N), cp.float32) if nsplit > 1 else c
    grid, block = (-(-N // bn), -(-M // bm), nsplit), (src.threads(*shape),)
    i32, i64 = cp.int32, cp.int64
    kargs = (a, b, part, i32(M), i32(N), i32(K), i32(K), i32(N), i32(kchunk), i32(nsplit),
             i64(0), i64(0))  # fmt: skip
    sargs = (part, c, i64(M * N), i32(nsplit), i64(M * N))

    def run():
        kern(grid, block, kargs)
        if nsplit > 1:
            ksum((-(-M * N // 256),), (256,), sargs)

    return run, c, nsplit


def probe_shape(cp, mods, rng, text: str, reps: int) -> list[dict]:
    """Every block shape and split of one M x K x N product beside cuBLAS."""
    M, K, N = (int(x) for x in text.split("x"))
    a = rng.random((M, K), dtype=cp.float32) * 2 - 1
    b = rng.random((K, N), dtype=cp.float32) * 2 - 1
    ref = a.astype(cp.float64) @ b.astype(cp.float64)
    scale = cp.abs(a).astype(cp.float64) @ cp.abs(b).astype(cp.float64)

    def err(c):
        return float(cp.max(cp.abs(c.astype(cp.float64) - ref) / scale))

    c_blas = cp.empty((M, N), cp.float32)
    cublas = median_time(cp, lambda: cp.matmul(a, b, out=c_blas), reps)
    e_blas = err(c_blas)
    print(f"{text}: cuBLAS {cublas:.1f} us err {e_blas:.2e}", flush=True)
    rows: list[dict] = []
    for shape in src.SHAPES:
        tiles = -(-M // shape[0]) * -(-N // shape[1])
        for split in (1, 2, 4, 8, 16):
            if split > 1 and tiles * split > 8 * 132:
                continue
            run, c, nsplit = launcher(cp, mods, a, b, shape, M, N, K, split)
            t = median_time(cp, run, reps)
            e = err(c)
            rows.append({"shape": text, "block": shape, "split": nsplit, "us": t,
                         "cublas_us": cublas, "vs_cublas": cublas / t, "err": e,
                         "cublas_err": e_blas})  # fmt: skip
            print(f"  {shape} split {nsplit}: {t:.1f} us  {cublas / t:.3f}x  err {e:.2e}",
                  flush=True)  # fmt: skip
    best = min(rows, key=lambda r: r["us"])
    print(f"{text}: best {best['block']} split {best['split']} {best['vs_cublas']:.3f}x",
          flush=True)  # fmt: skip
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import cupy as cp

    mods = {}
    for shape in src.SHAPES:
        for vec in (0, 1):
            m = cp.RawModule(code=src.source(*shape, vec), options=("--std=c++17", "--fmad=false"))
            mods[shape, vec] = (m.get_function(src.KERNEL), m.get_function(src.SUM))
    rows = []
    rng = cp.random.default_rng(1)
    for text in args.shapes.split(","):
        rows += probe_shape(cp, mods, rng, text, args.reps)
        cp.get_default_memory_pool().free_all_blocks()
    # non-finite values: inf and nan must land where float64 puts them
    a = rng.random((64, 64), dtype=cp.float32) * 2 - 1
    b = rng.random((64, 64), dtype=cp.float32) * 2 - 1
    a[3, 5], a[7, 9], b[2, 11] = cp.inf, cp.nan, -cp.inf
    b[5] = 1.0  # exact in TF32: its lo is 0 (inf * 0 must not enter)
    run, c, _ = launcher(cp, mods, a, b, (64, 64, 32, 32), 64, 64, 64, 1)
    run()
    want = a.astype(cp.float64) @ b.astype(cp.float64)
    same = bool(cp.all(cp.isnan(c) == cp.isnan(want)) and cp.all(cp.isinf(c) == cp.isinf(want)))
    print(f"non-finite pattern matches float64: {same}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "nonfinite_ok": same}, f, indent=1)


if __name__ == "__main__":
    main()
