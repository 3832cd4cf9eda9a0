"""The tiled matmul kernel (``ruda._kernels.matmul.gemm``): its variant space, and every dtype x
operand layout x a spread of variants rendered and compiled, WGSL through naga on the adapter
and CUDA C++ to PTX for sm_90 through NVRTC (the kernel is a tuning candidate beside cuBLAS).
Results against NumPy are in tests/gpu/test_linalg_products.py."""

from __future__ import annotations

import pytest

from ruda._kernels import ir
from ruda._kernels.matmul import defaults as md
from ruda._kernels.matmul import gemm as matmul
from ruda._kernels.matmul import space as matmul_space
from ruda._kernels.matmul import stream as matmul_stream
from ruda._kernels.render import cuda, nvrtc, wgsl

from .runner import adapter_or_skip

TYPES = [ir.F32, ir.F64, ir.F16, ir.I32, ir.I64, ir.I8, ir.U8, ir.I16, ir.U32, ir.BOOL,
         *ir.COMPLEX_TYPES]  # fmt: skip
LAYOUTS = [("n", "n"), ("t", "n"), ("n", "t"), ("t", "t"), ("s", "s")]
STREAM_TYPES = (ir.F32, ir.F64, ir.F16, ir.I8, ir.BOOL, ir.C64, ir.C128)  # NVRTC -G: 1 s each
SAMPLE = [
    dict(matmul.DEFAULTS),
    {"bm": 64, "bn": 64, "bk": 8, "tm": 4, "tn": 4, "vec": 4, "split": 4, "group": 8, "wide": 4},
    {"bm": 16, "bn": 128, "bk": 8, "tm": 1, "tn": 8, "vec": 1, "split": 1, "group": 1},
    {"bm": 32, "bn": 32, "bk": 16, "tm": 2, "tn": 2, "vec": 4, "split": 2, "group": 4,
     "direct": 1},
    {"bm": 64, "bn": 64, "bk": 16, "tm": 8, "tn": 8, "vec": 4, "split": 1, "group": 8, "wide": 4,
     "ku": 2},
]  # fmt: skip
BUILD_ARGS = ("bm", "bn", "bk", "tm", "tn", "split", "group", "wide", "direct", "ku")


def _kernels(cross: bool = True) -> list[ir.Kernel]:
    """The sample; without ``cross``, every type in the first layout and every layout only in
    float32 and complex64 (NVRTC takes 0.5 s a kernel even with -G: 2 minutes for them all)."""
    out = []
    for t in TYPES:
        acc = matmul.acc_type(t)
        layouts = LAYOUTS if cross or t in (ir.F32, ir.C64) else LAYOUTS[:1]
        for la, lb in layouts:
            for v in SAMPLE:
                if not matmul.valid(v, acc):
                    continue
                lanes = v["vec"] if t in (ir.F32, ir.I32, ir.U32) else 1
                va = lanes if la != "s" else 1
                vb = lanes if lb != "s" else 1
                args = {k: {**matmul.DEFAULTS, **v}[k] for k in BUILD_ARGS}
                out.append(matmul.build(t, t, t, la, lb, 2 if la == "s" else 0, va=va, vb=vb,
                                        **args))  # fmt: skip
            if matmul.valid(SAMPLE[1], acc):
                out.append(matmul.build_sum(acc, t, 4))
        for la, lb in layouts[::2] if t in STREAM_TYPES else ():  # the stream form, 1 and 16
            wide = min(4, 16 // acc.itemsize)  # columns of 16 rows in 64 registers
            # (rows, bn, tn, bk, ky, pipe, rg): the last shares the 16 rows among 4 invocations
            for rows, bn, tn, bk, ky, pipe, rg in ((1, 128, 4, 4, 4, 0, 1),
                                                   (16, 64, wide, 8, 2, 0, 1),
                                                   (16, 64, wide, 4, 2, 1, 4)):  # fmt: skip
                lanes = 4 if t is ir.F32 and tn % 4 == 0 else 1  # rows, vectors where they apply
                out.append(matmul_stream.build(t, t, t, la, lb, 2 if la == "s" else 0, rows,
                                               bn, tn, bk, ky, lanes if la == "n" else 1,
                                               lanes if lb == "n" else 1, 2, 0, pipe,
                                               rg))  # fmt: skip
    out.append(matmul.build(ir.I8, ir.F32, ir.F32, "n", "t", 1))  # mixed operand types
    out.append(matmul.build(ir.F16, ir.F16, ir.F16, "t", "s", 3, 64, 64, 8, 4, 4))
    return list({k.name: k for k in out}.values())


def test_variants_are_the_valid_points_of_the_whole_product(monkeypatch):
    """The per-form enumeration finds exactly the points (in the same order) that filtering
    the whole product through ``valid`` does, on a space small enough to walk."""
    import itertools

    # (5M points with every ``ky`` and ``rg``: held as dicts they took a CI worker's memory)
    small = {k: v[:2] if k in ("bm", "bn", "bk", "split", "group", "rg") else v
             for k, v in matmul.VARIANTS.items()}  # fmt: skip
    small["ky"] = (1, 2, 64)
    small["bn"] = (64, 128)
    monkeypatch.setattr(matmul_space, "VARIANTS", small)  # read by variants() there
    matmul._variants.cache_clear()
    try:
        for acc, wg, shared, M in ((ir.F32, 1024, 49152, 1), (ir.F64, 256, 16384, 3),
                                   (ir.U32, 256, 16384, 17), (ir.F32, 128, 8192, 16)):  # fmt: skip
            every = (dict(zip(small, vals, strict=True))
                     for vals in itertools.product(*small.values()))  # fmt: skip
            want = [p for p in every if matmul.valid(p, acc, wg, shared, M)]
            got = matmul.variants(acc, wg, shared, M)
            assert got == want and any(p["form"] == "stream" for p in got) == (M <= 16)
    finally:
        matmul._variants.cache_clear()


def test_variant_space():
    vs = matmul.variants(ir.F32)
    assert matmul.DEFAULTS in vs and len(vs) > 100
    assert all(matmul.threads(v) <= 256 and matmul.shared_bytes(v, ir.F32) <= 16384 for v in vs)
    assert not matmul.valid(matmul.DEFAULTS, ir.F64)  # 32 KiB of f64 slices
    for t in (ir.F32, ir.F64, ir.F16, ir.I8, ir.BOOL):
        for shape in ((8192, 8192, 8192), (3, 5, 7), (1, 4096, 100000), (300, 1, 20),
                      (16, 4096, 11008), (4096, 16, 512)):  # fmt: skip
            for p in (md.default_variant(t, *shape), md.tiled_default(t, *shape)):
                assert matmul.valid(p, matmul.acc_type(t), M=shape[0]), (t, shape, p)
    stream = [v for v in vs if v["form"] == "stream"]
    assert stream and all(matmul.threads(v) >= 32 for v in stream)  # a warp at least
    shared = [v for v in stream if v["rg"] > 1]  # rows shared among invocations: 16 rows only
    assert shared and all(16 // v["rg"] * v["tn"] <= matmul_stream.MAX_REGS for v in shared)
    assert not any(v["rg"] > 1 for v in matmul.variants(ir.F32, M=1))
    assert not any(v["rg"] > 4 for v in matmul.variants(ir.F32, M=3))  # 4 rows compiled
    with pytest.raises(ValueError, match="r16 rg3"):  # row groups must split the rows evenly
        matmul_stream.build(ir.F32, ir.F32, ir.F32, rows=16, rg=3)
    assert all(v["ky"] == 1 for v in vs if v["form"] == "tiled")  # no tiled point twice
    thin = {**matmul.DEFAULTS, "form": "stream", "bm": 16, "tm": 1, "group": 1, "tn": 4, "ky": 2}
    assert matmul.valid(thin, ir.F32, M=16) and not matmul.valid(thin, ir.F32, M=17)
    assert not matmul.valid({**thin, "tn": 8}, ir.F32, M=16)  # 128 accumulators
    assert md.default_variant(ir.F32, 1, 4096, 4096)["form"] == "stream"  # a GEMV
    assert md.default_variant(ir.F32, 1, 4096, 4096, lb="t")["form"] == "tiled"  # B^T
    assert md.default_variant(ir.F32, 16, 64, 4096)["form"] == "tiled"  # few columns
    big = md.default_variant(ir.F32, 8192, 8192, 8192)
    assert (big["bm"], big["bn"], big["tm"], big["tn"]) == (128, 128, 8, 8)
    assert md.default_variant(ir.F32, 64, 64, 1 << 16)["split"] > 1


def test_plans_split_and_vectorise():
    pr = matmul.Problem(100, 60, 5000)
    p = matmul.plan(ir.F32, ir.F32, ir.F32, pr, {"split": 4})
    assert [launch.kernel.name.startswith("matmul_sum") for launch in p.launches] == [False, True]
    assert p.temps and p.launches[0].kernel.vector_width == 4
    odd = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(7, 5, 3))
    assert odd.launches[0].kernel.vector_width == 1  # K = 3 rows cannot hold whole vectors


@pytest.fixture(scope="module")
def kernels() -> list[ir.Kernel]:
    return _kernels()


def test_wgsl_compiles(kernels):
    adapter = adapter_or_skip()
    feats = {"shader-f16", "shader-f64", "shader-int64"} & set(adapter.features)
    device = adapter.request_device_sync(required_features=sorted(feats))
    todo = [k for k in kernels if k.features <= feats]
    assert len(todo) > 60
    for k in todo:
        try:
            device.create_shader_module(code=wgsl.render(k))
        except Exception as e:  # the kernel's name and source help more than naga's span
            pytest.fail(f"{k.name}: {e}\n{wgsl.render(k)[:4000]}", pytrace=False)
    k = todo[0]  # the driver's compiler too, for the default variant
    module = device.create_shader_module(code=wgsl.render(k))
    device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": k.name})


def test_cuda_compiles_to_ptx():
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12): CUDA not compiled")
    kernels = _kernels(cross=False)
    assert len(kernels) > 60
    src = cuda.render_many(kernels)
    # -G: no device optimisation (halves the time; the front end checks everything)
    ptx = nvrtc.compile(src, options=(*nvrtc.DEFAULT_OPTIONS, "-w", "-G"))
    assert ptx.count(".entry ruda_matmul_") == len(kernels)
    # a stream kernel, optimised: B and A arrive as 128-bit loads, 4 x 4 x 4 multiply-adds a step
    for stage in (0, 1):  # and with A staged: its values as 128-bit reads of shared memory
        k = matmul_stream.build(ir.F32, ir.F32, ir.F32, "n", "n", 0, 4, 128, 4, 4, 2, 4, 4, 1,
                                stage)  # fmt: skip
        ptx = nvrtc.compile(cuda.render(k), options=(*nvrtc.DEFAULT_OPTIONS, "-w"))
        loads = ptx.count("ld.global.nc.v4.f32") + ptx.count("ld.global.v4.f32")
        assert loads >= 4 + 4 * (1 - stage)
        assert ptx.count("ld.shared.v4.f32") >= 4 * stage
        assert ptx.count("fma.rn.f32") >= 4 * 4 * 4
    # the default f32 kernel, optimised: its operands arrive as 128-bit vector loads
    k = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(4096, 4096, 4096)).launches[0].kernel
    ptx = nvrtc.compile(cuda.render(k), options=(*nvrtc.DEFAULT_OPTIONS, "-w"))
    assert "ld.global.nc.v4.f32" in ptx or "ld.global.v4.f32" in ptx
    assert "ld.shared.v4.f32" in ptx and "ld.shared.f32" not in ptx  # wide=4 slices, aligned
    assert ptx.count("fma.rn.f32") >= 8 * 8 * 8  # the 8 x 8 register tile, bk = 8 unrolled


def test_tuning_family_runs_candidates():
    """The tuner's family: its candidates build, and a spread of them run on the adapter
    through the tuner's own runner and agree with NumPy (the check the tuner applies)."""
    import numpy as np

    from ruda._backends.wgpu import timing
    from ruda._kernels.tune import engine as tune

    adapter = adapter_or_skip()
    device = adapter.request_device_sync(required_features=[])
    matmul.register_tuning()
    fam = tune.FAMILIES["matmul"]
    target = tune.Target.from_wgpu(device)
    runner = timing.WgpuRunner(device)
    rng = np.random.default_rng()
    for layout, shape in (
        ("nn", (1, 40, 72, 36)),
        ("tn", (2, 33, 20, 64)),
        ("nt", (1, 8, 300, 12)),
        ("nn", (1, 3, 200, 130)),  # thin: the stream form's candidates too
    ):
        key = tune.Key("matmul", ("f32", "f32", "f32"), layout, shape)
        cands = fam.candidates(key, target)
        assert fam.heuristic(key, target) in cands
        arrays = fam.inputs(key, rng)
        want = fam.reference(key, arrays)
        stream = [p for p in cands if p["form"] == "stream"]
        assert bool(stream) == (shape[1] <= 16), (shape, len(stream))
        for p in [fam.heuristic(key, target), *cands[:: max(1, len(cands) // 6)],
                  *stream[:: max(1, len(stream) // 4)]]:  # fmt: skip
            got = runner.prepare(fam.build(p, key), arrays, fam.output(key)).output()
            assert tune.agrees(got, want, fam.tolerance(key)), (layout, p)


@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
def test_wide_tiles_read_workgroup_memory_as_vectors(layout):
    """``wide`` 4 with a 32-bit accumulator: the slices sit in workgroup memory as 4-lane
    vectors, read one vector per block of 4 (B's rows also stored as vectors where its lanes
    run along them); results against NumPy on the adapter, edges and splits included."""
    import re

    import numpy as np

    from ruda._backends.wgpu import timing
    from ruda._kernels.tune import engine as tune

    adapter = adapter_or_skip()
    device = adapter.request_device_sync(required_features=[])
    matmul.register_tuning()
    fam = tune.FAMILIES["matmul"]
    runner = timing.WgpuRunner(device)
    rng = np.random.default_rng()
    variants = [
        {**matmul.DEFAULTS, "wide": 4},
        {**matmul.DEFAULTS, "bm": 64, "bn": 32, "tm": 8, "tn": 4, "wide": 4, "split": 2},
        {**matmul.DEFAULTS, "bm": 32, "bn": 64, "bk": 16, "tm": 4, "tn": 8, "wide": 4},
    ]
    for dt in ("f32", "i32"):
        key = tune.Key("matmul", (dt, dt, dt), layout, (2, 70, 136, 40))  # 4-lane loads
        arrays = fam.inputs(key, rng)
        want = fam.reference(key, arrays)
        for p in variants:
            plan = fam.build(p, key)
            src = wgsl.render(plan.launches[0].kernel)
            assert "var<workgroup> sha: array<vec4<" in src and "= sha[" in src
            stored = re.search(r"\bshb\[[^\n]*\] = vec4<", src) is not None
            assert stored is (layout[1] == "n")  # B's lanes run along its rows
            got = runner.prepare(plan, arrays, fam.output(key)).output()
            assert tune.agrees(got, want, fam.tolerance(key)), (dt, layout, p)
