"""Why the tuner's wgpu timings of matmul sit far below CUDA's for the same kernels: the same
candidates timed on the tuner's runner cold, after its copy warm-up, after sustained compute,
and after an idle pause (a compile's length), beside the same plans on cuda.

    python benchmarks/wgpu_clock_probe.py --json F
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tune_sweep import Backend  # noqa: E402

SHAPES = [(1, 4096, 4096), (16, 4096, 11008), (4096, 4096, 128), (8192, 1024, 8192)]
EXTRA = {  # variants of 4096x4096x128 beside its default
    "t64": {"bm": 64, "bn": 64, "tm": 4, "tn": 4, "wide": 1},
    "w1": {"wide": 1},
    "bk16": {"bk": 16},
    "g1": {"group": 1},
}


def spin_compute(x, seconds: float) -> None:
    """Back-to-back adds on the SMs (not the copy engine) for ``seconds``."""
    import ruda

    y = x + x
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(20):
            ruda.add(x, x, out=y)
        y.device.backend.launcher.synchronize()


def time_all(kind: str, cands: dict, doc: dict, phase: str) -> None:
    """Every candidate's median of 10 runs, in microseconds, as ``doc[kind][phase]``."""
    row = {n: statistics.median(c.time(10)) * 1e6 for n, c in cands.items()}
    doc.setdefault(kind, {})[phase] = row
    print(kind, phase, {k: round(v, 1) for k, v in row.items()}, flush=True)


def ramp(kind: str, cands: dict, doc: dict) -> None:
    """How fast the clocks fall when idle and rise under load: each candidate's own timings
    from cold (time from the first, us per run), then idle pauses after warm work."""
    out = doc.setdefault(kind, {})
    for n, c in cands.items():
        time.sleep(3.0)
        t0, curve = time.perf_counter(), []
        while time.perf_counter() - t0 < 2.5:
            curve.append((time.perf_counter() - t0, statistics.median(c.time(5)) * 1e6))
        out[f"ramp:{n}"] = curve
        marks = [x for x in curve if x[0] > 0][:: max(1, len(curve) // 25)]
        print(kind, "ramp", n, [(round(a, 3), round(b, 1)) for a, b in marks], flush=True)
        idle = {}
        for pause in (0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 1.0, 1.5):
            end = time.perf_counter() + 1.5
            while time.perf_counter() < end:
                c.time(5)
            time.sleep(pause)
            idle[pause] = statistics.median(c.time(5)) * 1e6
        out[f"idle:{n}"] = idle
        print(kind, "idle", n, {k: round(v, 1) for k, v in idle.items()}, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--backends", default="wgpu,cuda")
    ap.add_argument("--ramp", action="store_true")
    ap.add_argument("--spin", type=float, default=3.0)
    ap.add_argument("--shapes", help="MxNxK,... (default: the issue's four)")
    args = ap.parse_args()
    import ruda
    from ruda._kernels import tune

    doc: dict = {}
    for kind in args.backends.split(","):
        be = Backend(kind)
        runner = be.runner()
        fam = tune.FAMILIES["matmul"]
        cands = {}
        shapes = SHAPES
        if args.shapes:
            shapes = [tuple(map(int, t.split("x"))) for t in args.shapes.split(",")]
        for s in shapes:
            key = tune.Key("matmul", ("f32",) * 3, "nn", (1, *s))
            d = fam.heuristic(key, be.target, vendors=False)
            inputs = fam.inputs(key, numpy.random.default_rng(1))
            name = "x".join(map(str, s))
            cands[name] = runner.prepare(tune.build("matmul", d, key), inputs, fam.output(key))
            if s == (4096, 4096, 128) and not args.ramp:
                for tag, ch in EXTRA.items():
                    p = {**d, **ch}
                    if fam.accepts(p, key, be.target):
                        cands[f"{name}:{tag}"] = runner.prepare(
                            tune.build("matmul", p, key), inputs, fam.output(key)
                        )
        for c in cands.values():
            c.output()
        if args.ramp:
            ramp(kind, cands, doc)
            continue
        if hasattr(runner, "warm"):
            runner.warm = True  # phase "cold": no warm-up yet

        timeall = functools.partial(time_all, kind, cands, doc)
        timeall("cold")
        if hasattr(runner, "warm"):
            runner.warm = False
            runner.warm_up()
            timeall("after_copy_warmup")
        x = ruda.ones((1 << 26,), dtype=ruda.float32, device=ruda.Device(f"{kind}:0"))
        spin_compute(x, args.spin)
        timeall("after_3s_adds")
        timeall("again")
        time.sleep(2.0)
        timeall("after_2s_idle")
        spin_compute(x, args.spin)
        for c in cands.values():  # each candidate on its own for 0.5 s first
            end = time.perf_counter() + 0.5
            while time.perf_counter() < end:
                c.time(20)
        timeall("each_sustained")
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
