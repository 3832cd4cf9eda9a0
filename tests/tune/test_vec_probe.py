"""``benchmarks/wgpu_vec_probe.py``: the WGSL it rewrites (tiled matmul sums as ``vec4``) still
computes the product, so what it times is the same kernel held in vectors, on the first WebGPU
adapter (lavapipe in CI)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ruda._kernels import ir, matmul, tune, wgsl

from ._bench import load

probe = load("wgpu_vec_probe")
F32 = ir.F32
# thin 16-row tiles in a loop of 2 rows, and big square tiles read as vectors (wide 4)
POINTS = [
    {"form": "tiled", "bm": 16, "bn": 128, "bk": 8, "tm": 8, "tn": 8, "ku": 2, "split": 2},
    {"form": "tiled", "bm": 64, "bn": 64, "bk": 8, "tm": 8, "tn": 4, "wide": 4, "group": 4},
]


@pytest.mark.parametrize("point", POINTS)
def test_every_sum_becomes_a_vector(point):
    p = {**matmul.DEFAULTS, **point}
    k = matmul.build(F32, F32, F32, "n", "n", 0, p["bm"], p["bn"], p["bk"], p["tm"], p["tn"],
                     4, 4, p["split"], p["group"], p["wide"], p["direct"], p["ku"])  # fmt: skip
    out = probe.vectorise(wgsl.render(k))
    assert not re.search(r"\bc\d+_\d+\b", out)  # no scalar sum is left
    rows = p["bk"] if not p["ku"] else p["ku"]  # the multiplies written out per pass
    fmas = re.findall(r"cv\d+_\d+ = fma\(vec4<f32>", out)
    assert len(fmas) == rows * p["tm"] * p["tn"] // 4


def test_a_kernel_with_no_grouping_is_refused():
    k = matmul.build(F32, F32, F32, "n", "n", 0, 16, 32, 8, 2, 2, 1, 1)
    src = wgsl.render(k)
    assert probe.vectorise(src) == src  # rows of 2 sums: nothing to group


@pytest.mark.parametrize("point", POINTS)
def test_the_rewritten_kernel_computes_the_product(gpu, point, monkeypatch):
    _, runner, target = gpu
    M, N, K = 16, 192, 96
    key = tune.Key("matmul", ("f32",) * 3, "nn", (1, M, N, K))
    matmul.register_tuning()
    fam = tune.FAMILIES["matmul"]
    q = {**matmul.DEFAULTS, **point}
    if not fam.accepts(q, key, target):
        pytest.skip(f"{point} does not fit this adapter's limits")
    monkeypatch.setattr(wgsl, "render", wgsl.render)  # restored after the test
    probe.install(r"^matmul_f32_f32_f32_nn_b0_")
    inputs = fam.inputs(key, np.random.default_rng(3))
    got = runner.prepare(tune.build("matmul", q, key), inputs, fam.output(key)).output()
    a, b = (np.asarray(v, np.float64) for v in inputs.values())
    want = a.reshape(M, K) @ b.reshape(K, N)
    np.testing.assert_allclose(np.asarray(got).reshape(M, N), want, rtol=1e-4, atol=1e-4)
