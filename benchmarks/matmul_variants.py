"""Chosen variants of one matmul key timed against its default: where the tuner's space has room.

For each shape (M x N x K, f32, C-ordered), a grid of variants: ``--base`` (a JSON object over the
key's default; default: the default itself) with every combination of the ``--vary`` values
(``name=v1,v2``), plus ``--also`` (a JSON list of whole variants); invalid points are dropped.
Each one is checked against the default's output (the family's tolerance) and timed beside the
default on the tuner's own runner (timestamp queries on wgpu, events on cuda, warm-up first),
``--rounds`` interleaved rounds (``tune_sweep.measure``); the ratio is default / variant (> 1:
faster than the default).

    python3 benchmarks/matmul_variants.py --backend wgpu \
        --shapes 16x4096x11008 --base '{"form": "tiled", "bm": 16, "tm": 8, "tn": 8}' \
        --vary split=16,32,64 bk=4,8 --json build/mv.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune_sweep import Backend, matmul_keys, measure, write  # noqa: E402


def grid(default: dict[str, Any], base: dict[str, Any], vary: list[str],
         also: list[dict[str, Any]]) -> list[dict[str, Any]]:  # fmt: skip
    """The variants to time: ``base`` over ``default`` with each ``--vary`` combination."""
    axes = []
    for spec in vary:
        name, _, vals = spec.partition("=")
        axes.append([(name, v if not v.lstrip("-").isdigit() else int(v)) for v in vals.split(",")])
    out = [{**default, **base, **dict(c)} for c in itertools.product(*axes)]
    out += [{**default, **p} for p in also]
    seen: list[dict[str, Any]] = []
    for p in out:
        if p not in seen and p != default:
            seen.append(p)
    return seen


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backend", choices=("cuda", "wgpu"), default="wgpu")
    p.add_argument("--shapes", required=True, help="MxNxK,...")
    p.add_argument("--base", default="{}", help="JSON object over the key's default")
    p.add_argument("--vary", nargs="*", default=[], help="name=v1,v2 ...")
    p.add_argument("--also", default="[]", help="JSON list of whole variants")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--max-seconds", type=float, default=500.0)
    p.add_argument("--json")
    args = p.parse_args()

    from ruda._kernels import tune

    t_end = time.perf_counter() + args.max_seconds
    be = Backend(args.backend)
    fam = tune.FAMILIES["matmul"]
    doc: dict[str, Any] = {"args": vars(args), "target": str(be.target), "cases": []}
    for shape, key, default in matmul_keys(be, args.shapes):
        pts = [q for q in grid(default, json.loads(args.base), args.vary, json.loads(args.also))
               if fam.accepts(q, key, be.target)]  # fmt: skip
        print(f"== {shape}: default {default}; {len(pts)} variants", flush=True)
        runner = be.runner()
        inputs = fam.inputs(key, numpy.random.default_rng(7))
        out, tol = fam.output(key), fam.tolerance(key)
        base = runner.prepare(tune.build("matmul", default, key), inputs, out)
        ref = base.output()
        reps = 20  # at most, per round: measure() fits them to about 0.25 s of work
        case: dict[str, Any] = {"shape": list(key.shape[1:]), "default": default, "rows": []}
        doc["cases"].append(case)
        for q in pts:
            if time.perf_counter() > t_end:
                case["stopped"] = "out of time"
                break
            row: dict[str, Any] = {"variant": {k: v for k, v in q.items() if default.get(k) != v}}
            try:
                cand = runner.prepare(tune.build("matmul", q, key), inputs, out)
                ok = tune.agrees(cand.output(), ref, tol)
            except Exception as e:  # a variant the device cannot compile or run
                row["error"] = f"{type(e).__name__}: {str(e)[:160]}"
                ok = None
            if ok:
                t = measure(be, {"default": base, "variant": cand}, reps, args.rounds)
                row["default_us"], row["us"] = t["default"] * 1e6, t["variant"] * 1e6
                row["ratio"] = row["default_us"] / row["us"]
            elif ok is False:
                row["error"] = "output differs from the default"
            case["rows"].append(row)
            print(f"  {row.get('ratio', float('nan')):6.3f}x {row.get('us', 0):10.1f} us "
                  f"{row['variant']} {row.get('error', '')}", flush=True)  # fmt: skip
            write(args.json, doc)
        runner.end_search()
        best = max((r for r in case["rows"] if "ratio" in r), key=lambda r: r["ratio"],
                   default=None)  # fmt: skip
        if best:
            print(f"  best {best['ratio']:.3f}x: {best['variant']}", flush=True)
    write(args.json, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
