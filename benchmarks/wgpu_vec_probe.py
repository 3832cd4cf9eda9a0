"""Does the Vulkan driver compile a register tile of WGSL ``vec4`` sums better than scalar ones?

ruda's IR has no vector arithmetic: the tiled matmul kernel keeps its ``tm x tn`` sums as scalar
``var c{i}_{j}: f32`` and updates each with its own ``fma``. This probe runs another benchmark
script (``matmul_variants.py``, ``matmul_launches.py``, ...) with the WGSL of every kernel whose
name matches ``--match`` rewritten after rendering: each row's sums held as ``vec4<f32>`` and four
scalar ``fma`` of one ``A`` value become one vector ``fma``. Run the same script once with and
once without ``--match`` on one card, and compare the times (``matmul_variants.py`` also checks
every rewritten kernel's output against the default's).

    python3 benchmarks/wgpu_vec_probe.py --match '^matmul_f32_f32_f32_nn' \\
        benchmarks/matmul_variants.py --backend wgpu --shapes 16x4096x11008 \\
        --base '{"form":"tiled","bm":16,"tm":8,"tn":8,"ku":2}' --vary split=16,32
"""

from __future__ import annotations

import argparse
import re
import runpy
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

DECL = re.compile(r"^(\s*)var c(\d+)_(\d+): f32 = 0\.0f;$")
FMA = re.compile(r"^(\s*)c(\d+)_(\d+) = fma\((\w+), (\w+), c\2_\3\);$")
USE = re.compile(r"\bc(\d+)_(\d+)\b")
LANES = "xyzw"


def vectorise(src: str) -> str:
    """``src`` with its scalar sums ``c{i}_{j}`` held as ``cv{i}_{j // 4}`` (vec4), their fmas
    grouped four at a time; unchanged where a row's sums are not a multiple of 4.

    >>> s = "\\n".join([*(f"var c0_{j}: f32 = 0.0f;" for j in range(4)),
    ...                 *(f"c0_{j} = fma(a0, b{j}, c0_{j});" for j in range(4)), "o = c0_2;"])
    >>> print(vectorise(s))
    var cv0_0: vec4<f32> = vec4<f32>(0.0f);
    cv0_0 = fma(vec4<f32>(a0), vec4<f32>(b0, b1, b2, b3), cv0_0);
    o = cv0_0.z;
    """
    lines = src.split("\n")
    cols: dict[str, int] = {}
    for line in lines:
        if m := DECL.match(line):
            cols[m[2]] = max(cols.get(m[2], 0), int(m[3]) + 1)
    if not cols or any(n % 4 for n in cols.values()):
        return src
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := DECL.match(line):
            if int(m[3]) % 4 == 0:
                out.append(f"{m[1]}var cv{m[2]}_{int(m[3]) // 4}: vec4<f32> = vec4<f32>(0.0f);")
            i += 1
            continue
        if m := FMA.match(line):
            four = [FMA.match(x) for x in lines[i : i + 4]]
            if int(m[3]) % 4 or not all(
                f and f[2] == m[2] and int(f[3]) == int(m[3]) + n and f[4] == m[4]
                for n, f in enumerate(four)
            ):
                raise ValueError(f"wgpu_vec_probe: an fma outside a group of four: {line!r}")
            cv = f"cv{m[2]}_{int(m[3]) // 4}"
            bs = ", ".join(f[5] for f in four if f)
            out.append(f"{m[1]}{cv} = fma(vec4<f32>({m[4]}), vec4<f32>({bs}), {cv});")
            i += 4
            continue
        out.append(USE.sub(lambda u: f"cv{u[1]}_{int(u[2]) // 4}.{LANES[int(u[2]) % 4]}", line))
        i += 1
    return "\n".join(out)


def install(match: str) -> None:
    """Rewrite the WGSL of kernels whose name matches ``match`` wherever ruda renders it (the
    backend's compiler and the tuner's runner both call ``wgsl.render``)."""
    from ruda._kernels import wgsl

    render: Callable[..., str] = wgsl.render
    pattern = re.compile(match)

    def rewritten(kernel: Any, *args: Any, **kwargs: Any) -> str:
        src = render(kernel, *args, **kwargs)
        if not pattern.search(kernel.name):
            return src
        out = vectorise(src)
        if out == src:  # a silent no-op would time the scalar kernel as the vector one
            raise ValueError(f"wgpu_vec_probe: {kernel.name} has no sums to hold as vec4")
        print(f"wgpu_vec_probe: vec4 sums in {kernel.name}", file=sys.stderr, flush=True)
        return out

    wgsl.render = rewritten  # type: ignore[assignment]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--match", default="", help="regex on kernel names (none: no rewrite)")
    p.add_argument("script", help="the benchmark script to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    args = p.parse_args()
    if args.match:
        install(args.match)
    sys.argv = [args.script, *args.args]
    sys.path.insert(0, str(Path(args.script).resolve().parent))
    runpy.run_path(args.script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
