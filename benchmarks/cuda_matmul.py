"""matmul and sort on the cuda backend beside CuPy's (cuBLAS, Thrust), in the same run.

1. ``matmul`` of two 8192 x 8192 matrices, float32 and float16 beside CuPy, bfloat16 beside torch
   (both cuBLAS; CuPy has no bfloat16) where torch is installed (``--tf32``: also float32 on
   TF32 tensor cores, ruda's ``library_blas.TF32`` beside CuPy's TF32 compute type for that
   row), TFLOP/s counted as 2 * n^3 per product.
2. ``sort`` of 64M float32 keys, G keys/s.

Each result is checked against CuPy's first, then timed with CUDA events over ``--reps`` calls
after a warm-up.

    python3 benchmarks/cuda_matmul.py --tf32 --json cuda_matmul.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import cupy  # noqa: E402
from _cuda_timing import event_seconds  # noqa: E402  (the script's folder is on sys.path)

import ruda  # noqa: E402
from ruda._backends.cuda import library_blas  # noqa: E402


def cupy_tf32(on: bool) -> None:
    """CuPy's float32 matmul on TF32 tensor cores or not (its compute-type switch; the
    CUPY_TF32 variable is read once, so it cannot be toggled per row)."""
    from cupy._core import _routines_linalg as lin

    lin.set_compute_type(numpy.float32, 7 if on else 0)  # COMPUTE_TYPE_TF32 / COMPUTE_TYPE_TBD


def host(x: Any) -> numpy.ndarray:
    return x._data.to_host()


def rel_err(got: numpy.ndarray, want: numpy.ndarray) -> float:
    g, w = got.astype(numpy.float64), want.astype(numpy.float64)
    return float(numpy.max(numpy.abs(g - w)) / (numpy.max(numpy.abs(w)) or 1.0))


def bench_matmul(n: int, dtype: str, reps: int, tf32: bool) -> dict[str, Any]:
    rng = numpy.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=numpy.float32).astype(dtype)
    b = rng.standard_normal((n, n), dtype=numpy.float32).astype(dtype)
    dev = ruda.Device("cuda:0")
    x, y = ruda.asarray(a, device=dev), ruda.asarray(b, device=dev)
    ca, cb = cupy.asarray(a), cupy.asarray(b)
    library_blas.TF32 = tf32
    cupy_tf32(tf32)
    try:
        got, want = host(x @ y)[:256], cupy.asnumpy(ca @ cb)[:256]
        err = rel_err(got, want)
        t_ruda = event_seconds(lambda: x @ y, reps)
        t_cupy = event_seconds(lambda: ca @ cb, reps)
    finally:
        library_blas.TF32 = False
        cupy_tf32(False)
    flop = 2.0 * n**3
    return {"what": f"matmul {n}^3 {dtype}{' tf32' if tf32 else ''}",
            "ruda_tflops": flop / t_ruda / 1e12, "cupy_tflops": flop / t_cupy / 1e12,
            "ratio": t_cupy / t_ruda, "max_rel_err_vs_cupy": err}  # fmt: skip


def bench_matmul_bf16(n: int, reps: int) -> dict[str, Any] | None:
    """bfloat16 ``matmul`` beside torch's (cuBLAS; CuPy has no bfloat16), or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    import ml_dtypes

    rng = numpy.random.default_rng(2)
    a, b = (rng.standard_normal((n, n), dtype=numpy.float32).astype(ml_dtypes.bfloat16)
            for _ in range(2))  # fmt: skip
    dev = ruda.Device("cuda:0")
    x, y = ruda.asarray(a, device=dev), ruda.asarray(b, device=dev)
    ta, tb = (torch.from_numpy(v.view(numpy.int16)).view(torch.bfloat16).cuda() for v in (a, b))
    got = host(x @ y)[:256].astype(numpy.float32)
    want = (ta @ tb)[:256].float().cpu().numpy()
    err = rel_err(got, want)
    t_ruda = event_seconds(lambda: x @ y, reps)
    t_torch = event_seconds(lambda: ta @ tb, reps)
    flop = 2.0 * n**3
    return {"what": f"matmul {n}^3 bfloat16", "ruda_tflops": flop / t_ruda / 1e12,
            "torch_tflops": flop / t_torch / 1e12, "ratio": t_torch / t_ruda,
            "max_rel_err_vs_torch": err, "torch": torch.__version__}  # fmt: skip


def bench_sort(n: int, reps: int) -> dict[str, Any]:
    rng = numpy.random.default_rng(1)
    a = rng.standard_normal(n, dtype=numpy.float32)
    x = ruda.asarray(a, device=ruda.Device("cuda:0"))
    ca = cupy.asarray(a)
    got = host(ruda.sort(x))
    want = cupy.asnumpy(cupy.sort(ca))
    if not numpy.array_equal(got, want):
        raise AssertionError("ruda.sort differs from cupy.sort")
    t_ruda = event_seconds(lambda: ruda.sort(x), reps)
    t_cupy = event_seconds(lambda: cupy.sort(ca), reps)
    return {"what": f"sort f32 {n}", "ruda_gkeys": n / t_ruda / 1e9,
            "cupy_gkeys": n / t_cupy / 1e9, "ratio": t_cupy / t_ruda}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=8192, help="matrix size")
    p.add_argument("--sort-n", type=int, default=64 << 20, help="keys to sort")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--tf32", action="store_true", help="also time float32 on TF32 tensor cores")
    p.add_argument("--json", help="write the results here")
    args = p.parse_args()
    rows = [bench_matmul(args.n, "float32", args.reps, False),
            bench_matmul(args.n, "float16", args.reps, False)]  # fmt: skip
    bf16 = bench_matmul_bf16(args.n, args.reps)
    if bf16 is not None:
        rows.append(bf16)
    if args.tf32:
        rows.append(bench_matmul(args.n, "float32", args.reps, True))
    rows.append(bench_sort(args.sort_n, args.reps))
    for r in rows:
        print(json.dumps(r))
    if args.json:
        info = {"device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                "cupy": cupy.__version__, "results": rows}  # fmt: skip
        Path(args.json).write_text(json.dumps(info, indent=1) + "\n")


if __name__ == "__main__":
    main()
