"""Each launch of a matmul plan timed alone beside the whole plan: what a second pass costs.

For each shape (M x N x K, f32, C-ordered) the key's default plan, and each ``--variant`` (a
JSON object over the default), is timed whole and one launch at a time (the split partial
products, then their sum), interleaved on the tuner's own runner (timestamp queries on wgpu,
events on cuda, warm-up first). A pass's fixed cost shows as the whole plan's time less its main
launch's.

    python3 benchmarks/matmul_launches.py --backend wgpu \
        --shapes 1x4096x4096,16x4096x11008 --variant '{"form":"tiled","bm":16,"split":64}' \
        --json build/launches.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune_sweep import Backend, matmul_keys, measure, write  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backend", choices=("cuda", "wgpu"), default="wgpu")
    p.add_argument("--shapes", required=True, help="MxNxK,...")
    p.add_argument("--variant", action="append", default=[], help="JSON over the default")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json")
    args = p.parse_args()

    from ruda._kernels import tune
    from ruda._kernels.reduce import Plan

    be = Backend(args.backend)
    fam = tune.FAMILIES["matmul"]
    doc: dict[str, Any] = {"args": vars(args), "target": str(be.target), "cases": []}
    for shape, key, default in matmul_keys(be, args.shapes):
        runner = be.runner()
        inputs, out = fam.inputs(key, numpy.random.default_rng(7)), fam.output(key)
        variants = [default] + [{**default, **json.loads(v)} for v in args.variant]
        cands: dict[str, Any] = {}
        for vi, variant in enumerate(variants):
            plan = tune.build("matmul", variant, key)
            cands[f"v{vi} whole"] = runner.prepare(plan, inputs, out)
            alone = list(getattr(plan, "launches", ()))  # a vendor's plan: timed whole only
            for i, launch in enumerate(alone):  # its temps bound, none cleared: no fill
                one = Plan([launch], dict(plan.temps), set(plan.temps))
                cands[f"v{vi} {i}: {launch.kernel.name} x {launch.groups}"] = runner.prepare(
                    one, inputs, out
                )
        for c in cands.values():
            c.output()  # the warm-up
        t = measure(be, {"default": cands["v0 whole"], **cands}, 20, args.rounds)
        case = {"shape": list(key.shape[1:]), "variants": variants,
                "us": {k: v * 1e6 for k, v in t.items() if k != "default"}}  # fmt: skip
        doc["cases"].append(case)
        print(f"== {shape}", flush=True)
        for k, v in case["us"].items():
            print(f"  {v:9.1f} us  {k}", flush=True)
        runner.end_search()
        write(args.json, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
