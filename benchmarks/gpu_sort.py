"""ruda's radix sort (``ruda._kernels.sort``) on a GPU backend beside NumPy: keys per second of
sort/argsort, checked against NumPy, for the backend's default variant or each valid point of
the declared variant space (``--sweep``). On cuda, ``--impl ruda`` times the radix sort that the
set functions use and ``--impl backend`` the backend's own ``sort`` (CUB/Thrust).

    python benchmarks/gpu_sort.py --device wgpu:0 [--n 67108864] [--op sort] [--sweep]
    python benchmarks/gpu_sort.py --device cuda:0 --impl ruda --dtype float32
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import ruda  # noqa: E402
from ruda._kernels import ir  # noqa: E402
from ruda._kernels.sort import radix as ksort  # noqa: E402


def sorting_of(kind: str):
    """The backend's shared ``Sorting`` object (its radix variant is what ``--variant`` sets)."""
    module = "sets" if kind == "cuda" else "sorting"
    return importlib.import_module(f"ruda._backends.{kind}.{module}").SORTING


def runner(dev: ruda.Device, op: str, impl: str):
    """``f(x) -> result`` for ruda arrays on ``dev``."""
    if impl == "backend":
        return lambda x: getattr(ruda, op)(x)
    s = sorting_of(dev.kind)
    return lambda x: ruda._array._wrap(getattr(s, op)(x._data), dev)


def timed(f, x, reps: int, sync) -> float:
    f(x)
    sync()
    t = time.perf_counter()
    for _ in range(reps):
        r = f(x)
    sync()
    del r
    return (time.perf_counter() - t) / reps


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="wgpu:0")
    p.add_argument("--n", type=int, default=64 * 1024 * 1024)
    p.add_argument("--rows", type=int, default=1)
    p.add_argument("--dtype", default="float32")
    p.add_argument("--op", default="sort", choices=("sort", "argsort"))
    p.add_argument("--impl", default="ruda", choices=("ruda", "backend"))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--variant", default="", help='JSON, e.g. {"wg": 256, "ipt": 8}')
    p.add_argument("--sweep", action="store_true", help="every valid variant of the space")
    p.add_argument("--json", default="")
    args = p.parse_args()
    dev = ruda.Device(args.device)
    rng = numpy.random.default_rng()
    dt = numpy.dtype(args.dtype)
    shape = (args.rows, args.n // args.rows)
    a = (
        rng.standard_normal(shape).astype(dt)
        if dt.kind == "f"
        else rng.integers(numpy.iinfo(dt).min, numpy.iinfo(dt).max, shape, dtype=dt, endpoint=True)
    )
    x = ruda.asarray(a, device=dev)
    launcher = dev.backend.launcher
    f = runner(dev, args.op, args.impl)
    want = numpy.sort(a, axis=-1) if args.op == "sort" else numpy.argsort(a, axis=-1, kind="stable")
    s = sorting_of(dev.kind)
    default = dict(s.variant)
    if args.sweep:
        t = s.ops.tuner.target(launcher.ctx)
        space = [
            v
            for v in ksort.variants(cuda=True)  # then what this device allows
            if ksort.valid(v, t.max_workgroup, t.shared_bytes, "subgroup" in t.features)
        ]
    else:
        space = [{**default, **json.loads(args.variant or "{}")}]
    results = []
    t_np = time.perf_counter()
    numpy.sort(a, axis=-1)
    t_np = time.perf_counter() - t_np
    desc = getattr(launcher.ctx, "description", "")
    print(f"{args.op} {dt} {shape} on {dev} ({desc}); NumPy {t_np * 1e3:.1f} ms")
    for v in space:
        s.variant, s._plans, s._decided = v, {}, {}
        try:
            ok = numpy.array_equal(numpy.asarray(f(x).to_device("cpu")), want)
            sec = timed(f, x, args.reps, launcher.synchronize)
        except Exception as e:  # a variant the device rejects: report and go on
            print(f"  {v}: {type(e).__name__}: {e}")
            continue
        keys = args.n / sec / 1e9
        results.append({"variant": v, "s": sec, "gkeys_s": keys, "agrees": ok})
        print(f"  {json.dumps(v)}: {sec * 1e3:8.2f} ms  {keys:7.4f} G keys/s  agrees={ok}")
    s.variant, s._plans, s._decided = default, {}, {}
    if results:
        best = max(results, key=lambda r: r["gkeys_s"] if r["agrees"] else 0)
        print(f"best: {json.dumps(best['variant'])} {best['gkeys_s']:.4f} G keys/s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "device": str(dev),
                    "op": args.op,
                    "dtype": str(dt),
                    "shape": shape,
                    "ir_type": ir.type_of(dt).name,
                    "results": results,
                },
                fh,
                indent=1,
            )


if __name__ == "__main__":
    main()
