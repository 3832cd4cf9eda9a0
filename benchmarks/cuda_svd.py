"""The reduced SVD of a tall float32 matrix on cuda (scikit-learn's PCA of 100k x 512), step by
step, beside CuPy's and torch's cuSOLVER drivers in the same run (CUDA events, after a warm-up).

    python3 benchmarks/cuda_svd.py [--m 100000] [--n 512] [--reps 5]

Rows: ruda's whole call (QR, the small square's SVD, U = Q U_R), its QR alone, the square's SVD
alone; CuPy's svd of the whole matrix; torch's svd of the square R with each cuSOLVER driver
(gesvd, gesvdj, gesvda), where torch is installed. Singular values are checked against NumPy's.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import cupy  # noqa: E402
from _cuda_timing import event_seconds  # noqa: E402  (the script's folder is on sys.path)

import ruda  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--m", type=int, default=100_000)
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--json", default="")
    args = p.parse_args()
    rng = numpy.random.default_rng(0)
    host = rng.standard_normal((args.m, args.n), dtype=numpy.float32)
    host -= host.mean(axis=0)
    want = numpy.linalg.svd(host.astype(numpy.float64), compute_uv=False)
    dev = ruda.Device("cuda:0")
    x = ruda.asarray(host, device=dev)
    r = ruda.linalg.qr(x, mode="r")
    rows: dict[str, float] = {}

    def check(label: str, s) -> None:
        got = numpy.asarray(s, dtype=numpy.float64)
        err = float(numpy.max(numpy.abs(got - want) / want[0]))
        print(f"  {label:28s} singular values: max error / s_max {err:.1e}")

    check("ruda svd", ruda.linalg.svd(x, full_matrices=False)[1].to_device("cpu"))
    rows["ruda_svd_ms"] = event_seconds(lambda: ruda.linalg.svd(x, full_matrices=False), args.reps)
    rows["ruda_qr_ms"] = event_seconds(lambda: ruda.linalg.qr(x), args.reps)
    rows["ruda_square_svd_ms"] = event_seconds(
        lambda: ruda.linalg.svd(r, full_matrices=False), args.reps
    )
    c = cupy.asarray(host)
    check("cupy svd", cupy.asnumpy(cupy.linalg.svd(c, full_matrices=False)[1]))
    rows["cupy_svd_ms"] = event_seconds(lambda: cupy.linalg.svd(c, full_matrices=False), args.reps)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tr = torch.as_tensor(cupy.asarray(numpy.asarray(r.to_device("cpu"))), device="cuda")
        for driver in ("gesvd", "gesvdj", "gesvda"):
            s = torch.linalg.svd(tr, full_matrices=False, driver=driver)[1]
            r_s = numpy.linalg.svd(
                numpy.asarray(r.to_device("cpu"), numpy.float64), compute_uv=False
            )
            err = float(numpy.max(numpy.abs(s.cpu().numpy() - r_s) / r_s[0]))
            print(f"  torch {driver:22s} singular values of R: max error / s_max {err:.1e}")
            rows[f"torch_square_{driver}_ms"] = event_seconds(
                lambda d=driver: torch.linalg.svd(tr, full_matrices=False, driver=d), args.reps
            )
    rows = {k: v * 1e3 for k, v in rows.items()}
    for k, v in rows.items():
        print(f"  {k:28s} {v:8.2f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps({"m": args.m, "n": args.n, **rows}, indent=1))


if __name__ == "__main__":
    main()
