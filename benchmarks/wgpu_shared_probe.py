"""What a workgroup's memory costs: its zero fill, and how many such workgroups run at once.

WebGPU requires workgroup memory to start at zero, so wgpu (or the Vulkan driver) fills it at
each workgroup's start, and the memory a workgroup declares bounds how many run at once on a
multiprocessor. This probe times a kernel launched as ``--groups`` workgroups of ``--wg``
invocations, each declaring ``--sizes`` floats of workgroup memory and doing ``--work``
dependent multiply-adds per invocation. With no work the fill shows as the time over the
smallest size; with work, a time that steps up with the size says fewer workgroups fit at once
(compare sizes on one backend: the two compilers treat the loop differently).

    python3 benchmarks/wgpu_shared_probe.py --groups 8448 \\
        --sizes 32,2304,4608,9216 --work 4000 --json build/shared_probe.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune_sweep import Backend, measure, write  # noqa: E402


def kernel(size: int, wg: int, work: int) -> Any:
    """``out[g * wg + l] = sh[(l + 1) % wg] + 1 + x`` after each invocation stored ``sh[l] = l``,
    in a workgroup array of ``size`` floats (its other elements are never touched); ``x`` is
    ``min(l * 0.5 ** work, 0)``, 0 after ``work`` dependent multiply-adds the compiler cannot
    fold (it starts from the invocation's index)."""
    from ruda._kernels import ir
    from ruda._kernels.ir import F32, U32, Assign, Barrier, For, Let, Var

    out = ir.Buffer("out", F32, 0, "read_write")
    sh = ir.Shared("sh", F32, size)
    lid, g = ir.Builtin("lid"), Var("g", U32)
    x, i = Var("x", F32), Var("i", U32)
    body = (
        Let(g, ir.Builtin("wid", 0) + ir.Builtin("wid", 1) * ir.Builtin("nwg", 0)),
        Let(x, ir.cast(lid, F32), mutable=True),
        For(
            i,
            ir.Const(0, U32),
            ir.Const(work, U32),
            ir.Const(1, U32),
            (Assign(x, ir.call("fma", x, ir.Const(0.5, F32), ir.Const(0.0, F32))),),
        ),
        ir.store(sh, lid, ir.cast(lid, F32)),
        Barrier(),
        ir.store(
            out, g * wg + lid, sh[(lid + 1) % wg] + 1.0 + ir.call("min", x, ir.Const(0.0, F32))
        ),
    )
    return ir.with_features(ir.Kernel(f"shared_probe_{size}_{work}", (out,), (), body,
                                      (wg, 1, 1), (sh,)))  # fmt: skip


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--groups", type=int, default=2048)
    p.add_argument("--wg", type=int, default=32)
    p.add_argument("--sizes", default="32,2304,4608,9216")
    p.add_argument("--work", type=int, default=0)
    p.add_argument("--backend", choices=("cuda", "wgpu"), default="wgpu")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json")
    args = p.parse_args()

    from ruda._kernels.reduce import Launch, Plan

    be = Backend(args.backend)
    runner = be.runner()
    out = (numpy.float32, args.groups * args.wg)
    cands = {}
    sizes = [int(s) for s in args.sizes.split(",")]
    if min(sizes) < args.wg:  # each invocation stores its own element
        p.error(f"--sizes must be at least --wg ({args.wg}) floats")
    for size in sizes:
        plan = Plan([Launch(kernel(size, args.wg, args.work), ("out",), (), args.groups)])
        cands[f"{size} floats"] = runner.prepare(plan, {}, out)
    want = (numpy.arange(args.wg, dtype=numpy.float32) + 1) % args.wg + 1
    for c in cands.values():
        got = numpy.asarray(c.output()).reshape(args.groups, args.wg)
        assert (got == want).all(), "the probe kernel computed the wrong values"
    first = next(iter(cands))
    t = measure(be, {"default": cands[first], **cands}, 50, args.rounds)
    doc = {"args": vars(args), "target": str(be.target),
           "us": {k: v * 1e6 for k, v in t.items() if k != "default"}}  # fmt: skip
    for k, v in doc["us"].items():
        print(f"  {v:9.2f} us  {k}", flush=True)
    write(args.json, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
