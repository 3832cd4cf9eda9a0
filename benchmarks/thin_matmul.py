"""Thin f32 products (GEMV, an LLM's decoding step) on every GPU backend, beside CuPy's cuBLAS in
the same process: ruda's default, the stream form's heuristic and the tiled kernel's, each
queued back to back after a warm-up (so the card runs at its sustained clocks), host-timed.

    python benchmarks/thin_matmul.py \
        [--shapes 1x4096x4096,16x4096x11008] [--seconds 1.0] [--backend wgpu] [--json f]

Shapes are M x N x K (``C[M, N] = A[M, K] @ B[K, N]``). GB/s counts B's bytes (read once);
every variant is first checked against NumPy in float64.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import ruda  # noqa: E402
from ruda._array import _wrap  # noqa: E402
from ruda._backends import probe  # noqa: E402
from ruda._backends.gpu.matmul import Products  # noqa: E402
from ruda._kernels import ir  # noqa: E402
from ruda._kernels.matmul import defaults as md  # noqa: E402


def timed(fn: Any, sync: Any, seconds: float) -> float:
    """Seconds per call: calls queued for about ``seconds`` after as long a warm-up."""
    fn()
    sync()
    t, n = time.perf_counter(), 0
    while time.perf_counter() - t < seconds:  # warm-up, and the calls one pass takes
        fn()
        n += 1
        if n % 16 == 0:
            sync()
    sync()
    reps = max(8, n)
    t = time.perf_counter()
    for i in range(reps):
        fn()
        if i % 64 == 63:
            sync()  # bounded queues
    sync()
    return (time.perf_counter() - t) / reps


def products(kind: str) -> Any:
    """The backend's ``Products`` (its tiled and stream kernels behind ``Products.gemm``)."""
    name = "linalg_products" if kind == "wgpu" else "library_products"
    return importlib.import_module(f"ruda._backends.{kind}.{name}").PRODUCTS


def bench(kind: str, M: int, N: int, K: int, seconds: float) -> dict[str, Any]:
    dev = ruda.Device(f"{kind}:0")
    rng = numpy.random.default_rng(7)
    a, b = rng.standard_normal((M, K), numpy.float32), rng.standard_normal((K, N), numpy.float32)
    want = a.astype(numpy.float64) @ b
    x, y = ruda.asarray(a, device=dev), ruda.asarray(b, device=dev)
    P = products(kind)
    sync = dev.backend.synchronize
    variants = {"stream": md.stream_variant(ir.F32, M, N, K),
                "tiled": md.tiled_default(ir.F32, M, N, K)}  # fmt: skip
    runs: dict[str, Any] = {"ruda default": lambda: ruda.matmul(x, y)}
    for name, v in variants.items():
        runs[name] = lambda v=v: _gemm(P, v, x, y, dev)
    row: dict[str, Any] = {"backend": kind, "shape": [M, N, K], "us": {}, "GB/s": {}}
    for name, fn in runs.items():
        got = numpy.asarray(fn().to_device("cpu"), numpy.float64)
        err = numpy.abs(got - want).max() / numpy.abs(want).max()
        if err > 1e-5:
            raise SystemExit(f"{kind} {name} {M}x{N}x{K}: relative error {err:.2e}")
        s = timed(fn, sync, seconds)
        row["us"][name], row["GB/s"][name] = s * 1e6, 4 * K * N / s / 1e9
    if probe("cuda") is None:  # the anchor: CuPy's cuBLAS on the same card
        import cupy

        ca, cb = cupy.asarray(a), cupy.asarray(b)
        s = timed(lambda: ca @ cb, cupy.cuda.Device().synchronize, seconds)
        row["us"]["cupy"], row["GB/s"]["cupy"] = s * 1e6, 4 * K * N / s / 1e9
    return row


def _gemm(P: Any, v: dict[str, Any], x: Any, y: Any, dev: Any) -> Any:
    """``x @ y`` through the shared kernel path with variant ``v`` (cuda's own ``gemm`` would
    send floats to cuBLAS)."""
    old, P.variant = P.variant, v
    try:
        return _wrap(Products.gemm(P, x._data, y._data), dev)
    finally:
        P.variant = old


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", default="1x4096x4096,16x4096x11008,4x8192x8192")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--backend", choices=("cuda", "wgpu", "both"), default="both")
    p.add_argument("--json", default="")
    args = p.parse_args()
    rows = []
    for kind in ("cuda", "wgpu") if args.backend == "both" else (args.backend,):
        why = probe(kind)
        if why is not None:
            print(f"{kind}: not available ({why})")
            continue
        for s in args.shapes.split(","):
            M, N, K = (int(d) for d in s.split("x"))
            r = bench(kind, M, N, K, args.seconds)
            rows.append(r)
            cells = "  ".join(f"{k} {r['us'][k]:8.1f} us {r['GB/s'][k]:6.0f} GB/s" for k in r["us"])
            print(f"{kind:<5} {s:<14} {cells}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
