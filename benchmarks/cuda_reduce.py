"""Reductions and scans on the cuda backend beside CuPy's, in the same run.

1. ``sum`` f32 of 256M elements (the whole array), GB/s of the input read.
2. ``sum`` f32 of a 16k x 16k matrix along axis=1 and along axis=0, GB/s of the input read.
3. ``cumulative_sum`` f32 of 64M elements, GB/s of input read + output written.

Each is checked against CuPy's result first, then timed with CUDA events over ``--reps`` calls
after a warm-up. ``--sweep`` also times the plans' variants (``reductions.VARIANTS``,
``scans.VARIANT``) and reports the best of each beside the default.

    python3 benchmarks/cuda_reduce.py --json cuda_reduce.json
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
from _sweep import sweep as sweep_table  # noqa: E402

import ruda  # noqa: E402
from ruda._backends.cuda import reductions, scans  # noqa: E402

SWEEP = {
    "full": [{"tiles": t, "ipt": i, "wg": w} for t in (1, 4, 8) for i in (4, 8) for w in (256, 512)],  # noqa: E501
    "rows": [{"ipt": i, "wg": w, "tpr": w} for i in (4, 8) for w in (256, 512, 1024)],
    "cols": [{"ipt": i, "wg": w, "rt": r} for i in (4, 8) for w in (128, 256) for r in (1, 4, 8)],
    "scan": [{"algorithm": "lookback", "wg": w, "ipt": i} for w in (128, 256, 512, 1024)
             for i in (4, 8, 16)] + [{"algorithm": "reduce_then_scan", "wg": 512, "ipt": 4}]
    + [{"algorithm": "chunked", "wg": w, "ipt": i} for w in (256, 512) for i in (4, 8)],
}  # fmt: skip


def check(got: Any, want: Any, what: str, rtol: float) -> None:
    g = numpy.asarray(got.to_device("cpu")._data, dtype=numpy.float64)
    w = cupy.asnumpy(want).astype(numpy.float64)
    scale = float(numpy.max(numpy.abs(w))) or 1.0
    err = float(numpy.max(numpy.abs(g - w))) / scale if g.size else 0.0
    if not err <= rtol:
        raise AssertionError(f"{what}: ruda differs from CuPy by {err:.3g} (relative)")


def case(name: str, rfn, cfn, nbytes: int, reps: int, rtol: float, results: dict) -> None:
    check(rfn(), cfn(), name, rtol)
    t_r, t_c = event_seconds(rfn, reps), event_seconds(cfn, reps)
    results[name] = {"ruda_GBps": nbytes / t_r / 1e9, "cupy_GBps": nbytes / t_c / 1e9,
                     "ruda_ms": t_r * 1e3, "cupy_ms": t_c * 1e3}  # fmt: skip
    print(f"{name:28s} ruda {nbytes / t_r / 1e9:8.1f} GB/s   cupy {nbytes / t_c / 1e9:8.1f} GB/s")


def sweep(name: str, family: str, rfn, nbytes: int, reps: int, results: dict) -> None:
    """Time ``rfn`` under each variant of ``family``; keep the best in the results."""
    table = scans.VARIANT if family == "scan" else reductions.VARIANTS[family]
    r = sweep_table(table, SWEEP[family], family == "scan",
                    lambda: nbytes / event_seconds(rfn, reps) / 1e9)  # fmt: skip
    results[name].update(r)
    print(f"{'':28s} best variant {r['best_variant']}: {r['best_GBps']:.1f} GB/s")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=256 * 1024 * 1024)
    p.add_argument("--side", type=int, default=16 * 1024)
    p.add_argument("--scan-n", type=int, default=64 * 1024 * 1024)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--sweep", action="store_true")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--json", default="")
    args = p.parse_args()
    dev = ruda.Device(args.device)
    cupy.cuda.Device(dev.index).use()  # the events and CuPy's anchor on ruda's device
    rng = numpy.random.default_rng()
    results: dict[str, Any] = {}
    props = cupy.cuda.runtime.getDeviceProperties(dev.index)
    results["device"] = f"{dev} ({props['name'].decode()})"
    results["cupy"] = cupy.__version__

    a = rng.standard_normal(args.n, dtype=numpy.float32)
    x, c = ruda.asarray(a, device=dev), cupy.asarray(a)
    del a
    nb = 4 * args.n
    case("sum_f32_full", lambda: ruda.sum(x), lambda: cupy.sum(c), nb, args.reps, 1e-2, results)
    if args.sweep:
        sweep("sum_f32_full", "full", lambda: ruda.sum(x), nb, args.reps, results)
    del x, c

    s = args.side
    m = rng.standard_normal((s, s), dtype=numpy.float32)
    x, c = ruda.asarray(m, device=dev), cupy.asarray(m)
    del m
    nb = 4 * s * s
    for axis, fam in ((1, "rows"), (0, "cols")):
        name = f"sum_f32_axis{axis}"
        rfn = lambda axis=axis: ruda.sum(x, axis=axis)  # noqa: E731
        cfn = lambda axis=axis: cupy.sum(c, axis=axis)  # noqa: E731
        case(name, rfn, cfn, nb, args.reps, 1e-3, results)
        if args.sweep:
            sweep(name, fam, rfn, nb, args.reps, results)
    del x, c

    n = args.scan_n
    v = rng.uniform(-1, 1, n).astype(numpy.float32)
    x, c = ruda.asarray(v, device=dev), cupy.asarray(v)
    del v
    nb = 2 * 4 * n
    rfn = lambda: ruda.cumulative_sum(x)  # noqa: E731
    case("cumsum_f32", rfn, lambda: cupy.cumsum(c), nb, args.reps, 1e-3, results)
    if args.sweep:
        sweep("cumsum_f32", "scan", rfn, nb, args.reps, results)
    results["variants"] = {"reductions": reductions.VARIANTS, "scan": scans.VARIANT}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
