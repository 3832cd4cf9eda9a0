"""Probe wgpu's cooperative-matrix feature (tensor cores through WGSL) where an adapter offers it.

wgpu-native exposes ``cooperative-matrix`` (WGSL ``enable wgpu_cooperative_matrix;``) for 8x8 f32
tiles only. Issue 3 asks for f16 matmul through it where wgpu lets WGSL use it; before ruda's IR
grows cooperative-matrix nodes, this probe answers what a kernel can rely on: does a shader with
``coop_mat8x8<f32, A/B/C>``, ``coopLoad``, ``coopMultiplyAdd`` and ``coopStore`` compile and run,
how exact is the product (f32, or TF32's 10-bit mantissa), and how fast is a plain kernel (one
subgroup per workgroup, a ``TM x TN`` block of 8x8 tiles read straight from storage).

    python benchmarks/wgpu_coop_probe.py [--n 4096] [--json probe.json]

Prints a line per tiling on the first adapter with the feature (``--all``: on each), and one
per adapter without it: no adapter with the feature is an answer too.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
FEATURE = "cooperative-matrix"


def shader(n: int, tm: int, tn: int) -> str:
    """C[n, n] = A @ B, row-major f32; a workgroup of one subgroup owns a (8 tm) x (8 tn) block."""
    tiles = [(i, j) for i in range(tm) for j in range(tn)]
    # accumulators start from C (a fresh buffer is zeros: the first run is the checked one)
    at = "&c[(row + {}u) * N + col + {}u]"
    acc = "\n".join(
        f"    var c{i}{j} = coopLoad<coop_mat8x8<f32, C>>({at.format(8 * i, 8 * j)}, N);"
        for i, j in tiles
    )
    loads_a = "\n".join(
        f"        let a{i} = coopLoad<coop_mat8x8<f32, A>>(&a[(row + {8 * i}u) * N + k], N);"
        for i in range(tm)
    )
    loads_b = "\n".join(
        f"        let b{j} = coopLoad<coop_mat8x8<f32, B>>(&b[k * N + col + {8 * j}u], N);"
        for j in range(tn)
    )
    fmas = "\n".join(f"        c{i}{j} = coopMultiplyAdd(a{i}, b{j}, c{i}{j});" for i, j in tiles)
    stores = "\n".join(f"    coopStore(c{i}{j}, {at.format(8 * i, 8 * j)}, N);" for i, j in tiles)
    return f"""enable wgpu_cooperative_matrix;
const N: u32 = {n}u;
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wg: vec3<u32>) {{
    let row = wg.y * {8 * tm}u;
    let col = wg.x * {8 * tn}u;
{acc}
    for (var k: u32 = 0u; k < N; k += 8u) {{
{loads_a}
{loads_b}
{fmas}
    }}
{stores}
}}
"""


def probe(adapter, n: int, tm: int, tn: int, reps: int) -> dict:
    import wgpu

    dev = adapter.request_device_sync(required_features=[FEATURE])
    rng = numpy.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=numpy.float32)
    b = rng.standard_normal((n, n), dtype=numpy.float32)
    use = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
    ba = dev.create_buffer_with_data(data=a.tobytes(), usage=use)
    bb = dev.create_buffer_with_data(data=b.tobytes(), usage=use)
    bc = dev.create_buffer(size=n * n * 4, usage=use)
    module = dev.create_shader_module(code=shader(n, tm, tn))
    pipe = dev.create_compute_pipeline(
        layout="auto", compute={"module": module, "entry_point": "main"}
    )
    group = dev.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[
        {"binding": i, "resource": {"buffer": buf, "offset": 0, "size": buf.size}}
        for i, buf in enumerate((ba, bb, bc))])  # fmt: skip

    def run(times: int) -> None:
        enc = dev.create_command_encoder()
        p = enc.begin_compute_pass()
        p.set_pipeline(pipe)
        p.set_bind_group(0, group)
        for _ in range(times):
            p.dispatch_workgroups(n // (8 * tn), n // (8 * tm), 1)
        p.end()
        dev.queue.submit([enc.finish()])
        # a 4-byte read-back waits for the work before it (on_submitted_work_done_sync raises
        # TypeError in wgpu-py 0.32 with its bundled wgpu-native)
        dev.queue.read_buffer(bc, 0, 4)

    run(1)
    got = numpy.frombuffer(dev.queue.read_buffer(bc), numpy.float32).reshape(n, n)
    rows = slice(0, 64)
    want = a[rows].astype(numpy.float64) @ b.astype(numpy.float64)
    err = float(numpy.max(numpy.abs(got[rows] - want)) / numpy.max(numpy.abs(want)))
    f32 = a[rows] @ b  # what an f32 product (NumPy's sgemm) misses by
    f32_err = float(numpy.max(numpy.abs(f32 - want)) / numpy.max(numpy.abs(want)))
    t0 = time.perf_counter()
    run(reps)
    dt = (time.perf_counter() - t0) / reps
    return {"adapter": adapter.info.get("device"), "n": n, "tile": [8 * tm, 8 * tn],
            "rel_err": err, "numpy_f32_rel_err": f32_err,
            "tflops": 2 * n**3 / dt / 1e12}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json")
    ap.add_argument("--all", action="store_true", help="every adapter with it, not the first")
    args = ap.parse_args()
    import wgpu

    rows = []
    for ad in wgpu.gpu.enumerate_adapters_sync():
        name = f"{ad.info.get('device')} via {ad.info.get('backend_type')}"
        if FEATURE not in ad.features:
            print(f"{name}: no {FEATURE}")
            continue
        for tm, tn in ((1, 1), (2, 2), (4, 4)):
            try:
                r = probe(ad, args.n, tm, tn, args.reps)
            except Exception as e:  # the answer may be that it does not compile or run
                r = {"adapter": name, "tile": [8 * tm, 8 * tn], "error": f"{type(e).__name__}: {e}"}
            print(name, r, flush=True)
            rows.append(r)
        if not args.all:
            break
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
