"""Elementwise f32 add on the cuda backend beside CuPy's add, in the same run.

1. bandwidth: ``add(x, y, out=out)`` on 256M float32 elements (two reads and one write), timed
   with CUDA events over ``--reps`` launches after a warm-up; GB/s for ruda and for CuPy.
2. dispatch: a chain of 1000 small adds (``y = y + x``, 1000 elements, new result each time),
   host wall time including the final synchronize; microseconds per op for ruda and CuPy.

    python3 benchmarks/cuda_elementwise.py --json cuda_elementwise.json

``--sweep`` also times the contiguous kernel's variants (``elementwise.VARIANTS``) on the add;
``--profile FILE`` writes a cProfile of the chain (where the host's microseconds go);
``--breakdown`` times the chain's layers one by one (down to a launch that only records).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import itertools
import json
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import cupy  # noqa: E402
from _cuda_timing import event_seconds  # noqa: E402  (the script's folder is on sys.path)

import ruda  # noqa: E402


def chain_us(step, x, ops: int, sync) -> float:
    """Microseconds per op of ``ops`` chained ``step``s (median of 5 runs, warm)."""
    step(x, x)
    sync()
    runs = []
    for _ in range(5):
        y = x
        t = time.perf_counter()
        for _ in range(ops):
            y = step(y, x)
        sync()
        runs.append((time.perf_counter() - t) / ops * 1e6)
    return statistics.median(runs)


def bandwidth(dev: ruda.Device, n: int, reps: int) -> tuple[float, float]:
    """Seconds per f32 add of ``n`` elements: ruda, then CuPy (checked against NumPy first)."""
    rng = numpy.random.default_rng()
    a = rng.standard_normal(n, dtype=numpy.float32)
    b = rng.standard_normal(n, dtype=numpy.float32)
    x, y = ruda.asarray(a, device=dev), ruda.asarray(b, device=dev)
    out = ruda.empty_like(x)
    ruda.add(x, y, out=out)
    assert numpy.array_equal(numpy.asarray(out.to_device("cpu")), a + b), "ruda's add is wrong"
    ca, cb = cupy.asarray(a), cupy.asarray(b)
    cout = cupy.empty_like(ca)
    t_ruda = event_seconds(lambda: ruda.add(x, y, out=out), reps)
    t_cupy = event_seconds(lambda: cupy.add(ca, cb, out=cout), reps)
    return t_ruda, t_cupy


def sweep_add(dev: ruda.Device, n: int, reps: int) -> list[dict]:
    """GB/s of the f32 add under each contiguous variant (the elementwise default patched)."""
    from ruda._backends.cuda import ops as cuda_ops

    x = ruda.asarray(numpy.random.default_rng().standard_normal(n, dtype=numpy.float32), device=dev)
    y, out = x + 1, ruda.empty_like(x)
    want = x + y
    saved, rows = cuda_ops.default_variant, []
    space = itertools.product((1, 4), (1, 2, 4, 8), (128, 256, 512, 1024), ("tile", "grid"))
    try:
        for vec, ipt, wg, order in space:
            v = {"vec": vec, "ipt": ipt, "wg": wg, "order": order}
            cuda_ops.default_variant = lambda key, v=v: v
            cuda_ops.OPS.tuner._kernels.clear()
            try:
                ruda.add(x, y, out=out)
            except Exception as e:  # a variant the builder rejects
                rows.append({**v, "error": str(e)[:200], "GBps": 0.0})
                continue
            ok = bool(ruda.all(out == want))
            t = event_seconds(lambda: ruda.add(x, y, out=out), reps)
            rows.append({**v, "GBps": 12 * n / t / 1e9, "correct": ok})
    finally:
        cuda_ops.default_variant = saved
        cuda_ops.OPS.tuner._kernels.clear()
    rows.sort(key=lambda r: -r["GBps"])
    for r in rows[:8]:
        print(f"  {r}")
    return rows


def profile_chain(xs, ops: int, sync, path: str) -> None:
    """cProfile of five chains of ``ops`` adds: the top functions by own and cumulative time."""
    prof = cProfile.Profile()
    chain_us(lambda u, v: u + v, xs, 10, sync)
    prof.enable()
    for _ in range(5):
        y = xs
        for _ in range(ops):
            y = y + xs
        sync()
    prof.disable()
    buf = io.StringIO()
    for order in ("tottime", "cumulative"):
        pstats.Stats(prof, stream=buf).sort_stats(order).print_stats(30)
    Path(path).write_text(buf.getvalue())


def breakdown(xs, ops: int, sync) -> dict[str, float]:
    """Where the chain's microseconds go, each step its own loop (us/op): the Array operator
    with the small-block cache off and on, the backend's implementation on the native arrays,
    the prepared launch alone, the same launch with a recording driver (the host's share: the
    result's block, object and arguments), and a pool allocation freed at once."""
    from ruda._backends.cuda.driver import driver
    from ruda._native import _cuda_fast

    xn = xs._data
    add = xs.device.backend.resolve("add")
    out = {"backend_impl": chain_us(add, xn, ops, sync)}  # fills add.fast
    prepared = next(iter(add.fast.values()))
    t = _cuda_fast.test_functions()
    real = driver()
    ctx, alloc = xn.ctx, xn.ctx.allocator.pool_alloc
    rec = _cuda_fast.Driver(t["launch"], _cuda_fast.test_stream(0))
    recording = _cuda_fast.Prepared(rec, ctx, alloc, xn.dtype, 1, 256, 256, 2, "add")
    _cuda_fast.recorder_reset(0)
    nbytes = (xn.size * xn.dtype.itemsize + 7) & ~7
    was = _cuda_fast.cache_set(False)
    out["array_operator_pool"] = chain_us(lambda u, v: u + v, xs, ops, sync)
    out["prepared_recording_pool"] = chain_us(recording, xn, ops, sync)
    _cuda_fast.cache_set(True)
    out["array_operator_cached"] = chain_us(lambda u, v: u + v, xs, ops, sync)
    out["prepared_launch_cached"] = chain_us(prepared, xn, ops, sync)
    out["prepared_recording_cached"] = chain_us(recording, xn, ops, sync)
    # host-bound or device-bound: the loop's time before the final wait, and the whole chain
    # on a non-blocking stream (launches on the legacy default stream may cost the driver more)
    y, t0 = xs, time.perf_counter()
    for _ in range(ops):
        y = y + xs
    out["array_operator_host_only"] = (time.perf_counter() - t0) / ops * 1e6
    sync()
    with cupy.cuda.Stream(non_blocking=True) as s:
        out["array_operator_nonblocking_stream"] = chain_us(
            lambda u, v: u + v, xs, ops, s.synchronize
        )
    out["pool_alloc_free"] = chain_us(lambda u, v: (alloc(nbytes), u)[1], xn, ops, sync)
    out["stream_getter"] = chain_us(lambda u, v: (real.current_stream(), u)[1], xn, ops, sync)
    _cuda_fast.cache_set(was)
    for k, v in out.items():
        print(f"  {k:28s} {v:6.2f} us/op")
    print(f"  cache: {_cuda_fast.cache_info()}")
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=256 * 1024 * 1024)
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--small", type=int, default=1000)
    p.add_argument("--ops", type=int, default=1000)
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--json", default="")
    p.add_argument("--sweep", action="store_true")
    p.add_argument("--profile", default="")
    p.add_argument("--breakdown", action="store_true", help="time the chain's parts")
    args = p.parse_args()
    dev = ruda.Device(args.device)
    cupy.cuda.Device(dev.index).use()  # the events and CuPy's anchor on ruda's device
    sync = dev.backend.synchronize
    t_ruda, t_cupy = bandwidth(dev, args.n, args.reps)
    nbytes = 3 * 4 * args.n
    small = numpy.arange(args.small, dtype=numpy.float32)
    xs, cs = ruda.asarray(small, device=dev), cupy.asarray(small)
    us_ruda = chain_us(lambda u, v: u + v, xs, args.ops, sync)
    us_cupy = chain_us(lambda u, v: u + v, cs, args.ops, cupy.cuda.get_current_stream().synchronize)
    if args.profile:
        profile_chain(xs, args.ops, sync, args.profile)
    parts = breakdown(xs, args.ops, sync) if args.breakdown else {}
    props = cupy.cuda.runtime.getDeviceProperties(dev.index)
    results = {
        "device": f"{dev} ({props['name'].decode()})",
        "cupy": cupy.__version__,
        "n": args.n,
        "add_f32_ruda_GBps": nbytes / t_ruda / 1e9,
        "add_f32_cupy_GBps": nbytes / t_cupy / 1e9,
        "add_f32_ruda_ms": t_ruda * 1e3,
        "add_f32_cupy_ms": t_cupy * 1e3,
        "chain_ops": args.ops,
        "chain_elements": args.small,
        "chain_ruda_us_per_op": us_ruda,
        "chain_cupy_us_per_op": us_cupy,
    }
    if parts:
        results["chain_breakdown_us_per_op"] = parts
    print(f"f32 add, n={args.n:,} on {results['device']}")
    print(f"  ruda {nbytes / t_ruda / 1e9:8.1f} GB/s   cupy {nbytes / t_cupy / 1e9:8.1f} GB/s")
    print(f"chain of {args.ops} adds of {args.small} elements")
    print(f"  ruda {us_ruda:8.2f} us/op    cupy {us_cupy:8.2f} us/op")
    if args.sweep:
        print("add variants (best first):")
        results["add_f32_sweep"] = sweep_add(dev, args.n, args.reps)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
