"""Reductions and scans on the wgpu backend (issue 3, point 8), beside two anchors of the same run.

1. ``sum`` f32 of 256M elements (the whole array), GB/s of the input read.
2. ``sum`` f32 of a 16k x 16k matrix along axis=1 and along axis=0, GB/s of the input read.
3. ``cumulative_sum`` f32 of 64M elements, GB/s of input read + output written.

Every case is checked first; then ``--warmup`` seconds of back-to-back sums keep the card busy
(a Vulkan process's first tens of milliseconds run at well under the card's bandwidth on the
H200) before anything is timed. Anchors, measured in the same process: the driver's buffer copy
(``copy_buffer_to_buffer`` of 1 GiB, GB/s of read + write) and, where CuPy imports, CuPy's
``sum``/``cumsum`` of the same data. Each case is checked against NumPy (float64) first, then
timed on the host over ``--reps`` calls between synchronisations, and its dispatches' GPU time
read from timestamp queries (``wgpu_profile.Profiler``). ``--sweep`` also times the plans'
variants (``reductions.VARIANTS``, ``scans.VARIANT``) and reports the best beside the default.

    python3 benchmarks/wgpu_reduce.py [--sweep] [--json F]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from _sweep import sweep as sweep_table  # noqa: E402  (the script's folder is on sys.path)
from wgpu_profile import Profiler  # noqa: E402

import ruda  # noqa: E402
from ruda._backends.wgpu import reductions, scans  # noqa: E402

SWEEP: dict[str, list[dict[str, Any]]] = {
    "full": [{"tiles": 0, "ipt": i, "wg": w, "combine": c} for i in (8, 16) for w in (256, 512)
             for c in ("tree", "subgroup")],
    "rows": [{"ipt": i, "wg": w} for i in (8, 16) for w in (256, 512, 1024)],
    "cols": [{"ipt": i, "wg": w, "rt": r} for i in (8, 16) for w in (128, 256) for r in (1, 4)],
    "scan": [{"algorithm": "chunked", "wg": w, "ipt": i, "chunks": c} for w in (128, 256, 512)
             for i in (4, 8) for c in (0, 8192)]
    + [{"algorithm": "reduce_then_scan", "wg": 256, "ipt": 4, "chunks": 0}],
}  # fmt: skip


def host_seconds(fn, sync, reps: int) -> float:  # noqa: ANN001
    """Seconds per call of ``fn`` over ``reps`` calls between two synchronisations."""
    fn()
    sync()
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    sync()
    return (time.perf_counter() - t) / reps


def gpu_seconds(fn, prof: Profiler, ctx, reps: int) -> float:  # noqa: ANN001
    """GPU seconds per call: the sum of its dispatches' timestamped passes."""
    prof.ticks, prof.names = [], []
    prof.on = True
    try:
        for _ in range(reps):
            fn()
        ctx.launcher.flush()
        ctx.launcher.synchronize()
    finally:
        prof.on = False
    return sum(prof.collect(ctx.device)) / 1e6 / reps


def copy_anchor(ctx, nbytes: int, reps: int) -> float:  # noqa: ANN001
    """GB/s (read + write) of the driver's buffer-to-buffer copy of ``nbytes``."""
    a, b = ctx.allocator.alloc(nbytes), ctx.allocator.alloc(nbytes)

    def copy() -> None:
        enc = ctx.device.create_command_encoder()
        for _ in range(reps):
            enc.copy_buffer_to_buffer(a.buffer, 0, b.buffer, 0, nbytes)
        ctx.device.queue.submit([enc.finish()])

    host_seconds(copy, ctx.launcher.synchronize, 1)
    t = host_seconds(copy, ctx.launcher.synchronize, 3) / reps
    return 2 * nbytes / t / 1e9


def cupy_gbps(host: numpy.ndarray, fn, nbytes: int, reps: int) -> float | None:  # noqa: ANN001
    """GB/s of CuPy's ``fn`` on a copy of ``host`` (None: no CuPy or no CUDA device)."""
    try:
        import cupy

        c = cupy.asarray(host)
    except Exception:  # noqa: BLE001  (not installed, or no CUDA driver here)
        return None
    return nbytes / host_seconds(lambda: fn(c), cupy.cuda.Device().synchronize, reps) / 1e9


def check(got, want: numpy.ndarray, what: str, rtol: float) -> None:  # noqa: ANN001
    g = numpy.asarray(got.to_device("cpu")).astype(numpy.float64)
    scale = float(numpy.max(numpy.abs(want))) or 1.0
    err = float(numpy.max(numpy.abs(g - want))) / scale
    if not err <= rtol:
        raise AssertionError(f"{what}: ruda differs from NumPy by {err:.3g} (relative)")


def sweep(family: str, fn, nbytes: int, prof, ctx, reps: int) -> dict[str, Any]:  # noqa: ANN001
    """GPU GB/s of ``fn`` under each variant of ``family``; the best."""
    table = scans.VARIANT if family == "scan" else reductions.VARIANTS[family]

    def gbps() -> float:
        fn()  # compiles the variant's kernels
        return nbytes / gpu_seconds(fn, prof, ctx, reps) / 1e9

    r = sweep_table(table, SWEEP[family], True, gbps)
    print(f"{'':24s} best of {len(r['sweep'])} variants {r['best_variant']}: "
          f"{r['best_GBps']:.0f} GB/s")  # fmt: skip
    return r


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=256 * 1024 * 1024)
    p.add_argument("--side", type=int, default=16 * 1024)
    p.add_argument("--scan-n", type=int, default=64 * 1024 * 1024)
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--sweep", action="store_true")
    p.add_argument("--only", help="comma-separated cases: sum, sum_axis1, sum_axis0, cumsum")
    p.add_argument("--device", default="wgpu:0")
    p.add_argument("--warmup", type=float, default=2.0, help="seconds of sums before timing")
    p.add_argument("--json", default="")
    args = p.parse_args()
    rng = numpy.random.default_rng()
    dev = ruda.Device(args.device)
    ctx = dev.backend.launcher.ctx
    prof = Profiler()
    prof.install()
    results: dict[str, Any] = {"device": f"{dev} ({ctx.description})"}
    flat = rng.standard_normal(args.n, dtype=numpy.float32)
    mat = flat[: args.side * args.side].reshape(args.side, args.side)
    sflat = flat[: args.scan_n]
    x, m, s = (ruda.asarray(a, device=dev) for a in (flat, mat, sflat))
    cases = {  # name: (ruda call, host array, NumPy reference, CuPy call, bytes, family, rtol)
        "sum": (lambda: ruda.sum(x), flat, lambda a: a.sum(dtype=numpy.float64),
                lambda c: c.sum(), flat.nbytes, "full", 1e-5),
        "sum_axis1": (lambda: ruda.sum(m, axis=1), mat, lambda a: a.sum(1, dtype=numpy.float64),
                      lambda c: c.sum(axis=1), mat.nbytes, "rows", 1e-5),
        "sum_axis0": (lambda: ruda.sum(m, axis=0), mat, lambda a: a.sum(0, dtype=numpy.float64),
                      lambda c: c.sum(axis=0), mat.nbytes, "cols", 1e-5),
        "cumsum": (lambda: ruda.cumulative_sum(s), sflat,
                   lambda a: numpy.cumsum(a, dtype=numpy.float64), lambda c: c.cumsum(),
                   2 * sflat.nbytes, "scan", 1e-4),
    }  # fmt: skip
    only = args.only.split(",") if args.only else list(cases)
    for name in only:
        fn, host, ref, _, _, _, rtol = cases[name]
        check(fn(), ref(host), name, rtol)
    end = time.perf_counter() + args.warmup
    while time.perf_counter() < end:
        host_seconds(lambda: ruda.sum(x), ctx.launcher.synchronize, 20)
    results["copy_GBps"] = copy_anchor(ctx, 1 << 30, args.reps)
    print(f"{results['device']}\n  anchor: buffer copy of 1 GiB {results['copy_GBps']:.0f} GB/s")
    for name in only:
        fn, host, _, cfn, nbytes, family, _ = cases[name]
        t_host = host_seconds(fn, ctx.launcher.synchronize, args.reps)
        t_gpu = gpu_seconds(fn, prof, ctx, args.reps)
        r: dict[str, Any] = {"host_GBps": nbytes / t_host / 1e9, "gpu_GBps": nbytes / t_gpu / 1e9}
        line = f"  {name:22s} ruda {r['host_GBps']:6.0f} GB/s host, {r['gpu_GBps']:6.0f} GPU"
        r["cupy_GBps"] = cupy_gbps(host, cfn, nbytes, args.reps)
        if r["cupy_GBps"] is not None:
            line += f"   cupy {r['cupy_GBps']:6.0f} GB/s"
        print(line)
        if args.sweep:
            r.update(sweep(family, fn, nbytes, prof, ctx, max(3, args.reps // 4)))
        results[name] = r
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
