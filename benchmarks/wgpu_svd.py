"""The reduced SVD of a tall float32 matrix on wgpu (scikit-learn's PCA of 100k x 512), step by
step: wall time to a read-back of the result, best of ``--reps`` after a warm-up.

    python3 benchmarks/wgpu_svd.py [--m 100000] [--n 512] [--reps 3]

Rows: the QR (R only, and Q with R), the SVD of the square R (with and without vectors), the
whole SVD, and the Gram product X^T X for scale. Singular values are checked against NumPy's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import ruda  # noqa: E402


def best_ms(fn, reps: int) -> float:
    """Milliseconds of ``fn`` to the host read of its (last) result, best of ``reps``."""

    def run() -> None:
        y = fn()
        y = y[1] if isinstance(y, tuple) else y
        numpy.asarray(y.to_device("cpu"))

    run()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--m", type=int, default=100_000)
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--device", default="wgpu:0")
    args = p.parse_args()
    host = numpy.random.default_rng(0).standard_normal((args.m, args.n), dtype=numpy.float32)
    x = ruda.asarray(host, device=ruda.Device(args.device))
    r = ruda.linalg.qr(x, mode="r")
    want = numpy.linalg.svd(host.astype(numpy.float64), compute_uv=False)
    got = numpy.asarray(ruda.linalg.svdvals(x).to_device("cpu"), numpy.float64)
    print(f"singular values: max error / s_max {numpy.max(numpy.abs(got - want)) / want[0]:.1e}")
    rows = {
        "qr, R only": lambda: ruda.linalg.qr(x, mode="r"),
        "qr, Q and R": lambda: ruda.linalg.qr(x),
        "svd of R": lambda: ruda.linalg.svd(r, full_matrices=False),
        "svdvals of R": lambda: ruda.linalg.svdvals(r),
        "svd of X": lambda: ruda.linalg.svd(x, full_matrices=False),
        "X^T X": lambda: x.mT @ x,
    }
    for label, fn in rows.items():
        print(f"  {label:14s} {best_ms(fn, args.reps):8.2f} ms")


if __name__ == "__main__":
    main()
