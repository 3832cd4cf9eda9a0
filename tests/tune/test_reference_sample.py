"""Past ``matmul_tuning.REFERENCE_WORK`` multiply-adds the tuner checks the default's product
against NumPy's float64 rows at a sample of rows (``tune_check.Sample``), not the whole
product. On a 2-core machine the whole product of 8192^3 takes about 12 s and the sample 0.3 s.
A 35 s search of 16384^3 on the H100's host, with the whole reference, tried 2 candidates. The
sample must agree with the whole product where it looks, and catch a wrong one."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ruda._kernels.matmul import gemm as matmul
from ruda._kernels.matmul import tuning as matmul_tuning
from ruda._kernels.tune import engine as tune
from ruda._kernels.tune.check import Sample, matches


def _whole(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.matmul(a.astype(np.float64), b.astype(np.float64)).reshape(-1)


@pytest.fixture
def sampled(monkeypatch):
    monkeypatch.setattr(matmul_tuning, "REFERENCE_WORK", 0)  # every product is "big"


@pytest.mark.parametrize("count,M,N,K", [(1, 300, 70, 2100), (3, 40, 33, 17)])
def test_a_sample_is_the_whole_product_where_it_looks(sampled, count, M, N, K):
    rng = np.random.default_rng(count * M + N)
    a = rng.uniform(-1, 1, (count, M, K)).astype(np.float32)
    b = rng.uniform(-1, 1, (count, K, N)).astype(np.float32)
    s = matmul_tuning.reference_product(a, b, np.dtype(np.float32))
    assert isinstance(s, Sample) and s.values.dtype == np.float32
    rows = np.unique(s.index // N)
    assert {0, count * M - 1} <= set(
        rows.tolist()
    ) and 2 < rows.size <= matmul_tuning.SAMPLE_ROWS + 2
    assert s.index.size == rows.size * N  # each sampled row whole
    np.testing.assert_allclose(s.values, _whole(a, b)[s.index], rtol=1e-6, atol=1e-6)
    if count > 1:
        assert np.unique(rows // M).size > 1  # rows of several batches


def test_an_integer_sample_is_exact(sampled):
    rng = np.random.default_rng(3)
    a = rng.integers(-50, 50, (2, 9, 3000)).astype(np.int32)
    b = rng.integers(-50, 50, (2, 3000, 5)).astype(np.int32)
    s = matmul_tuning.reference_product(a, b, np.dtype(np.int32))
    assert np.array_equal(s.values, np.matmul(a, b).reshape(-1)[s.index])


def test_a_wrong_product_fails_the_sample(sampled):
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (1, 200, 64)).astype(np.float32)
    b = rng.uniform(-1, 1, (1, 64, 50)).astype(np.float32)
    got = _whole(a, b).astype(np.float32)
    s = matmul_tuning.reference_product(a, b, np.dtype(np.float32))
    assert matches(got, s, 1e-4)
    wrong = got.copy()
    wrong[s.index[len(s.index) // 2]] += 1.0
    assert not matches(wrong, s, 1e-4)
    last = got.copy()
    last[-1] = -last[-1] - 1.0  # the last row is always looked at (the edges of the tiles)
    assert not matches(last, s, 1e-4)


def test_a_search_on_the_device_checks_its_default_against_a_sample(gpu, cache_dir, sampled):
    device, runner, target = gpu
    matmul.register_tuning()
    fam = tune.FAMILIES["matmul"]
    key = tune.Key("matmul", ("f32", "f32", "f32"), "nn", (1, 96, 80, 112))
    inputs = fam.inputs(key, np.random.default_rng(0))
    assert isinstance(fam.reference(key, inputs), Sample)
    cands = fam.candidates(key, target)[::4001][:3]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default agrees with the sampled rows
        dec = tune.tune("matmul", key, target, runner, candidates=cands, budget_s=20)
    assert dec.source == "tuned" and not dec.rejected and fam.accepts(dec.params, key, target)
