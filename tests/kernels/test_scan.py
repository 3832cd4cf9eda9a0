"""Scan kernels: the tile scan and the look-back scan render and compile (the look-back one for
CUDA only), and reduce-then-scan plans run on the WebGPU adapter against NumPy's cumsum/cumprod,
inclusive and with the initial element, flat and over the last axis, single- and multi-level."""

from __future__ import annotations

import numpy as np
import pytest

from ruda._kernels import ir, reduce, scan
from ruda._kernels.render import cuda, nvrtc, wgsl

from .test_reduce import DTYPES, data, gpu  # noqa: F401  (gpu: the fixture)


def _kernels(lookback: bool) -> list[ir.Kernel]:
    ks = []
    for t in DTYPES:
        for op in scan.OPS:
            out = reduce.result_type(scan._op(op), t)
            for initial in (False, True):
                if lookback:
                    ks.append(scan.build_lookback(op, t, out, 256, 4, initial))
                else:
                    ks.append(scan.build_scan(op, t, out, 256, 4, initial, initial))
                    ks.append(scan.build_chunk_scan(op, t, out, 128, 4, initial, not initial))
            ks.append(scan.build_scan(op, t, out, 64, 1, False, True))
    return ks


def test_variant_space():
    assert not any(v["algorithm"] == "lookback" for v in scan.variants())
    vs = scan.variants(cuda=True, acc=ir.F32)
    assert {v["algorithm"] for v in vs} == {"reduce_then_scan", "chunked", "lookback"}
    assert {v["chunks"] for v in vs if v["algorithm"] != "chunked"} == {0}
    for v in vs[::5]:
        p = scan.plan_scan("cumulative_sum", ir.F32, ir.F32, 3, 100003, v)
        assert p.launches


def test_wgsl_compiles(gpu):  # noqa: F811
    run, feats = gpu
    ks = [k for k in _kernels(False) if k.features <= feats]
    assert len(ks) > 40
    run.device.create_shader_module(code=wgsl.render_many(ks))


def test_cuda_compiles():
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12)")
    ks = {k.name: k for k in _kernels(False) + _kernels(True)}
    src = cuda.render_many(list(ks.values()))
    ptx = nvrtc.compile(src, options=(*nvrtc.DEFAULT_OPTIONS, "-w", "-G"))
    assert "atom.exch" in ptx and "membar.gl" in ptx


CASES = [
    ((1, 1), {}), ((1, 255), {}), ((1, 257), {"wg": 64, "ipt": 2}), ((1, 100003), {}),
    ((1, 100003), {"wg": 64, "ipt": 1}),  # tile totals scanned in two levels
    ((5, 3001), {"wg": 128, "ipt": 4}), ((37, 7), {}),
    ((1, 100003), {"algorithm": "reduce_then_scan"}),
    ((5, 3001), {"wg": 64, "ipt": 2, "algorithm": "reduce_then_scan"}),
    ((1, 100003), {"wg": 64, "ipt": 2, "chunks": 7}),  # chunks of 7 tiles (uneven last one)
    ((3, 70001), {"wg": 64, "ipt": 1, "chunks": 8192}),  # one-tile chunks, 1094 a row
]  # fmt: skip


@pytest.mark.parametrize("shape,variant", CASES, ids=lambda c: str(c).replace(" ", ""))
def test_matches_numpy(gpu, shape, variant, rng):  # noqa: F811
    run, feats = gpu
    for t in DTYPES:
        if not ir.features_of([t]) <= feats:
            continue
        for op in scan.OPS:
            out_t = reduce.result_type(scan._op(op), t)
            x = data(t, shape, "prod" if op == "cumulative_prod" else "sum", rng)
            fn = np.cumsum if op == "cumulative_sum" else np.cumprod
            exact = out_t.kind in "iub"
            want = fn(x if exact else x.astype(np.float64), axis=1)
            for initial in (False, True):
                plan = scan.plan_scan(op, t, out_t, *shape, variant, initial)
                w = want
                if initial:
                    w = np.concatenate([np.full((shape[0], 1), op == "cumulative_prod"), w], 1)
                got = run.run_plan(plan, {"x": x}, ir.numpy_of(out_t), w.size).reshape(w.shape)
                what = f"{op} {t.name} {shape} initial={initial}"
                if exact:
                    np.testing.assert_array_equal(got, w.astype(got.dtype), err_msg=what)
                else:
                    # a prefix sum's error bound: a few ulps of the running sum of magnitudes
                    mag = np.cumsum(np.abs(x.astype(np.float64)), axis=1)
                    if op == "cumulative_prod":
                        mag = np.abs(want) * np.arange(1, shape[1] + 1)
                    if initial:
                        mag = np.concatenate([np.zeros((shape[0], 1)), mag], 1)
                    err = np.abs(got.astype(np.float64) - w)
                    bound = 8 * np.finfo(got.dtype).eps * mag + 1e-300
                    assert np.all(err <= bound), f"{what}: max err {np.max(err - bound)}"


@pytest.mark.parametrize("t", [ir.F32, ir.F64, ir.U8, ir.C64, ir.C128])
@pytest.mark.parametrize("algorithm", scan.VARIANTS["scan"]["algorithm"])
def test_plans_fit_shared_memory(t, algorithm):
    # any declared wg/ipt: the plan shrinks the tile of wide types to what the backend allows
    # (the H200 refused a 68 KiB f64 tile: ptxas checks what NVRTC's PTX does not)
    room = scan.CUDA_SHARED_BYTES if algorithm == "lookback" else scan.SHARED_BYTES
    out = reduce.result_type("sum", t)
    for wg in scan.VARIANTS["scan"]["wg"]:
        acc = reduce.acc_type("sum", t, out)
        if not scan.fits(acc, wg, 1, algorithm):
            continue  # no tile of this workgroup fits (scan.variants leaves it out)
        for ipt in scan.VARIANTS["scan"]["ipt"]:
            v = {"wg": wg, "ipt": ipt, "algorithm": algorithm}
            p = scan.plan_scan("cumulative_sum", t, out, 2, 300_001, v)
            for launch in p.launches:
                k = launch.kernel
                used = sum(s.size * s.elem.itemsize for s in k.shared)
                assert used <= room, (k.name, used)
