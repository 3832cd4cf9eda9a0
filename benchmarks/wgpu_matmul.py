"""matmul on the wgpu backend: the tiled IR kernel's default and a few variants, in TFLOP/s
(the targets on the H200 through Vulkan: 8192^3 f32 at 25 TFLOP/s or more, f16 at 60 without
cooperative matrices; on lavapipe a smoke test).

    python benchmarks/wgpu_matmul.py [--n 8192] [--reps 10]
        [--dtype float32|float16] [--json f]

Each variant is checked first: 64 rows of the product against NumPy in float64.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import ruda  # noqa: E402
from ruda._kernels.matmul import defaults as md  # noqa: E402
from ruda._kernels.matmul import gemm as km  # noqa: E402

# The heuristic's choice first, then single changes to it (what the tuner would try first).
VARIANTS = [
    {},
    {"wide": 4},
    {"group": 1},
    {"bk": 16},
    {"bm": 64, "bn": 128, "tm": 4, "tn": 8},
    {"bm": 128, "bn": 64, "tm": 8, "tn": 4, "bk": 16},
    {"vec": 1},
]


def run(x, y, out, reps: int) -> float:
    """Seconds per product (queued back to back, one wait at the end)."""
    launcher = x.device.backend.launcher
    ruda.matmul(x, y, out=out)  # warm-up: compile the pipeline
    launcher.synchronize()
    t = time.perf_counter()
    for _ in range(reps):
        ruda.matmul(x, y, out=out)
    launcher.synchronize()
    return (time.perf_counter() - t) / reps


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--device", default="wgpu:0")
    p.add_argument("--dtype", default="float32", choices=("float32", "float16"))
    p.add_argument("--json", default="")
    args = p.parse_args()
    n = args.n
    rng = numpy.random.default_rng()
    a = rng.standard_normal((n, n)).astype(args.dtype)
    b = rng.standard_normal((n, n)).astype(args.dtype)
    dev = ruda.Device(args.device)
    x, y = ruda.asarray(a, device=dev), ruda.asarray(b, device=dev)
    out = ruda.empty((n, n), dtype=getattr(ruda, args.dtype), device=dev)
    want = a[:64].astype(numpy.float64) @ b.astype(numpy.float64)
    from ruda._backends.wgpu.linalg_products import PRODUCTS

    t = km.ir.F32 if args.dtype == "float32" else km.ir.F16
    base = md.default_variant(t, n, n, n)
    results = {"device": f"{dev} ({dev.backend.launcher.ctx.description})", "n": n,
               "dtype": args.dtype, "runs": []}  # fmt: skip
    print(f"{args.dtype} matmul {n}^3 on {results['device']}")
    for change in VARIANTS:
        v = {**base, **change}
        PRODUCTS.variant = v
        try:
            ruda.matmul(x, y, out=out)
            got = numpy.asarray(out[:64].to_device("cpu"), dtype=numpy.float64)
            err = float(numpy.abs(got - want).max() / numpy.abs(want).max())
            s = run(x, y, out, args.reps)
        except Exception as e:  # a variant the device refuses (workgroup memory...)
            print(f"  {change or 'default'}: {type(e).__name__}: {str(e)[:120]}")
            continue
        finally:
            PRODUCTS.variant = {}
        tf = 2 * n**3 / s / 1e12
        results["runs"].append({"variant": v, "seconds": s, "tflops": tf, "rel_err": err})
        print(
            f"  {str(change or 'default'):<48} {s * 1e3:9.2f} ms {tf:7.2f} TFLOP/s  err {err:.1e}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
