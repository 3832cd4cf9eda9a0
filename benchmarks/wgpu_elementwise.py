"""Binary elementwise f32 add on the wgpu backend beside NumPy (a smoke test on lavapipe;
the figures that matter come from the H200 through Vulkan).

    python benchmarks/wgpu_elementwise.py [--n 16777216] [--reps 20]

``--chain`` also times a chain of 1000 small adds (``y = y + x`` on 1000 elements, a new result
each time, one read-back at the end): microseconds per op, median of 5 runs, beside CuPy's
chain in the same run where CuPy finds a CUDA device.

The add is timed once cold, then again after ``--warmup`` seconds of back-to-back adds: on the
H200 a Vulkan process's first tens of milliseconds of work run at well under the card's
bandwidth (the driver raises the clocks after sustained load), so the warm figures are the ones
to compare.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import ruda  # noqa: E402


def gbps(n: int, seconds: float) -> float:
    return 3 * 4 * n / seconds / 1e9  # two reads and one write of float32


def bench_numpy(a: numpy.ndarray, b: numpy.ndarray, reps: int) -> float:
    out = numpy.empty_like(a)
    numpy.add(a, b, out=out)
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        numpy.add(a, b, out=out)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_wgpu(x, y, reps: int, per_submit: int) -> float:
    """Seconds per add with ``per_submit`` dispatches per submit (host waits at the end)."""
    launcher = x.device.backend.launcher
    out = x + y  # warm-up: compile and allocate
    launcher.synchronize()
    old = launcher.batch_limit
    launcher.batch_limit = per_submit
    try:
        t = time.perf_counter()
        for _ in range(reps):
            ruda.add(x, y, out=out)
        launcher.synchronize()
        return (time.perf_counter() - t) / reps
    finally:
        launcher.batch_limit = old


def chain_us(x, read, ops: int = 1000, recorded: list | None = None) -> float:  # noqa: ANN001
    """Microseconds per op of ``ops`` chained small adds, the result read back once (``read``);
    ``recorded`` gets the median time until the last op returned (before the read-back)."""
    times, issue = [], []
    for _ in range(6):  # the first run warms up
        y = x
        t = time.perf_counter()
        for _ in range(ops):
            y = y + x
        issue.append((time.perf_counter() - t) / ops * 1e6)
        read(y)
        times.append((time.perf_counter() - t) / ops * 1e6)
    if recorded is not None:
        recorded.append(statistics.median(issue[1:]))
    return statistics.median(times[1:])


def cupy_chain_us(host: numpy.ndarray) -> float | None:
    """CuPy's chain on the same data (None: no CuPy or no CUDA device here)."""
    try:
        import cupy

        c = cupy.asarray(host)
    except Exception:  # noqa: BLE001  (not installed, or no CUDA driver)
        return None
    return chain_us(c, cupy.asnumpy)


def warm_up(x, y, seconds: float) -> None:  # noqa: ANN001
    """Back-to-back adds for ``seconds`` (the clocks rise under sustained load)."""
    launcher = x.device.backend.launcher
    out = x + y
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(50):
            ruda.add(x, y, out=out)
        launcher.synchronize()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=16 * 1024 * 1024)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--device", default="wgpu:0")
    p.add_argument("--json", default="")
    p.add_argument("--chain", action="store_true", help="also the chain of 1000 small adds")
    p.add_argument("--warmup", type=float, default=2.0, help="seconds of adds before timing")
    args = p.parse_args()
    rng = numpy.random.default_rng()
    a = rng.standard_normal(args.n, dtype=numpy.float32)
    b = rng.standard_normal(args.n, dtype=numpy.float32)
    dev = ruda.Device(args.device)
    x, y = ruda.asarray(a, device=dev), ruda.asarray(b, device=dev)
    ctx = dev.backend.launcher.ctx
    check = numpy.asarray((x + y).to_device("cpu"))
    assert numpy.array_equal(check, a + b), "wgpu add disagrees with NumPy"
    results = {
        "device": f"{dev} ({ctx.description})",
        "n": args.n,
        "numpy_s": bench_numpy(a, b, args.reps),
        "wgpu_cold_50_per_submit_s": bench_wgpu(x, y, args.reps, 50),
    }
    warm_up(x, y, args.warmup)
    results["wgpu_1_per_submit_s"] = bench_wgpu(x, y, args.reps, 1)
    results["wgpu_50_per_submit_s"] = bench_wgpu(x, y, args.reps, 50)
    print(f"f32 add, n={args.n:,} on {results['device']} (warm: after {args.warmup} s of adds)")
    for k in ("numpy_s", "wgpu_cold_50_per_submit_s", "wgpu_1_per_submit_s",
              "wgpu_50_per_submit_s"):  # fmt: skip
        s = results[k]
        print(f"  {k[:-2]:<22} {s * 1e3:9.3f} ms   {gbps(args.n, s):8.1f} GB/s")
    if args.chain:
        small = ruda.asarray(a[:1000], device=dev)
        issue: list[float] = []
        read = lambda r: numpy.asarray(r.to_device("cpu"))  # noqa: E731
        results["chain_us_per_op"] = chain_us(small, read, recorded=issue)
        results["chain_issue_us_per_op"] = issue[0]
        results["cupy_chain_us_per_op"] = cupy_chain_us(a[:1000])
        line = (f"  chain of 1000 adds of 1000 elements: {results['chain_us_per_op']:.2f} us/op "
                f"({issue[0]:.2f} until the last op returned)")  # fmt: skip
        if results["cupy_chain_us_per_op"] is not None:
            line += f"; CuPy {results['cupy_chain_us_per_op']:.2f}"
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
