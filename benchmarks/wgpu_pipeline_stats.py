"""What each compiler made of the same matmul kernels: registers and spills through Vulkan and CUDA.

For each shape (M x N x K, f32, C-ordered) and variant (``matmul_variants.py``'s ``--base``,
``--vary`` and ``--also``; the default when none), every launch's kernel is compiled on each
backend named. Through Vulkan the statistics come from the driver, asked by the layer of
``benchmarks/vkstats`` (VK_KHR_pipeline_executable_properties, which wgpu itself does not
enable); on CUDA from the loaded function's attributes (registers, local memory a thread spills
to, shared memory). The script builds the layer and restarts itself with it enabled.

    python3 benchmarks/wgpu_pipeline_stats.py \\
        --backend both --shapes 16x4096x11008 --base '{"form":"tiled","bm":16,"tm":8,"tn":8}' \\
        --vary ku=0,2 --json build/pipeline_stats.json
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matmul_variants import grid  # noqa: E402
from tune_sweep import Backend, matmul_keys, write  # noqa: E402

HERE = Path(__file__).resolve().parent
LAYER = "VK_LAYER_RUDA_vkstats"
# the loaded function's attributes worth comparing (CUfunction_attribute values)
CUDA_ATTRS = {"num_regs": 4, "local_size_bytes": 3, "shared_size_bytes": 1,
              "max_threads_per_block": 0}  # fmt: skip


def cuda_attributes(function: Any) -> dict[str, int]:
    from cupy.cuda import driver

    return {name: driver.funcGetAttribute(a, function.ptr) for name, a in CUDA_ATTRS.items()}


def relaunch_with_layer(out: Path, layer: str | None, spirv: bool) -> int | None:
    """Run this script again with the layer enabled (built into ``out`` unless ``layer`` names
    a folder holding it built); None: it is enabled already."""
    if os.environ.get("VK_INSTANCE_LAYERS") == LAYER:
        return None
    if layer is None:
        build = ["bash", str(HERE / "vkstats" / "build.sh"), str(out / "layer")]
        layer = subprocess.run(build, check=True, capture_output=True, text=True).stdout.split()[-1]
    env = {**os.environ, "VK_LAYER_PATH": str(Path(layer).resolve()), "VK_INSTANCE_LAYERS": LAYER,
           "RUDA_VKSTATS_OUT": str(out), "RUDA_VKSTATS_SPIRV": "1" if spirv else "0"}  # fmt: skip
    (out / "stats.tsv").unlink(missing_ok=True)
    return subprocess.call([sys.executable, *sys.argv], env=env)


def vulkan_stats(out: Path) -> dict[str, dict[str, str]]:
    """Entry point -> {statistic: value} as the layer wrote them (the last pipeline of a name)."""
    path = out / "stats.tsv"
    if not path.exists():
        return {}
    stats: dict[str, dict[str, str]] = {}
    with path.open() as f:
        for row in csv.reader(f, delimiter="\t"):
            if len(row) == 4:
                stats.setdefault(row[0], {})[f"{row[1]}: {row[2]}"] = row[3]
    return stats


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backend", choices=("cuda", "wgpu", "both"), default="both")
    p.add_argument("--shapes", required=True, help="MxNxK,...")
    p.add_argument("--base", default="{}", help="JSON object over the key's default")
    p.add_argument("--vary", nargs="*", default=[], help="name=v1,v2 ...")
    p.add_argument("--also", default="[]", help="JSON list of whole variants")
    p.add_argument("--out", default="build/pipeline_stats", help="the layer's files")
    p.add_argument("--layer", help="a folder with the layer built (default: build it)")
    p.add_argument("--spirv", action="store_true", help="also keep each module's SPIR-V")
    p.add_argument("--json")
    args = p.parse_args()
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    kinds = ["wgpu", "cuda"] if args.backend == "both" else [args.backend]
    if "wgpu" in kinds:
        rc = relaunch_with_layer(out, args.layer, args.spirv)
        if rc is not None:
            return rc

    from ruda._kernels import tune

    doc: dict[str, Any] = {"args": vars(args), "kernels": {}}
    names: dict[str, dict[str, Any]] = doc["kernels"]
    for kind in kinds:
        be = Backend(kind)
        doc[f"{kind}_target"] = str(be.target)
        fam = tune.FAMILIES["matmul"]
        for shape, key, default in matmul_keys(be, args.shapes):
            pts = [default] + grid(default, json.loads(args.base), args.vary, json.loads(args.also))
            if tune.ALGORITHM in default:  # cuda: ruda's own kernels, not the vendor's
                pts = [{**q, tune.ALGORITHM: "tiled"} for q in pts]
            for q in pts:
                if not fam.accepts(q, key, be.target):
                    continue
                plan = tune.build("matmul", q, key)
                for launch in getattr(plan, "launches", ()):
                    k = launch.kernel
                    row = names.setdefault(k.name, {"shape": shape, "variant": q})
                    prog = be.ctx.compiler.program(k)
                    if kind == "cuda":
                        row["cuda"] = cuda_attributes(prog.function)
    if "wgpu" in kinds:
        vk = vulkan_stats(out)
        if not vk:
            print("no Vulkan statistics: does the driver offer "
                  "VK_KHR_pipeline_executable_properties? (see the layer's messages)")  # fmt: skip
        for name, row in names.items():
            if name in vk:
                row["vulkan"] = vk[name]
    write(args.json, doc)
    for name, row in names.items():
        print(f"== {name}")
        for side in ("vulkan", "cuda"):
            for stat, value in row.get(side, {}).items():
                print(f"   {side:6s} {stat}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
