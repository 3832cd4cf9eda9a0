"""ruda's 3xTF32 tensor-core float32 product (``ruda._backends.cuda.tf32x3``): every block
shape compiles to PTX for sm_90 (NVRTC, in CI), the block shape and split fill the GPU, and on a
CUDA device ruda.matmul through it agrees with NumPy in float64 to float32's rounding: odd
sizes (one float at a time), K splits, batches and broadcasts, transposed and offset operands,
infinities and NaNs where NumPy puts them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ruda._backends.cuda import tf32x3
from ruda._backends.cuda import tf32x3_source as src
from ruda._kernels import nvrtc


@pytest.mark.parametrize("shape", src.SHAPES)
def test_every_block_shape_compiles_for_sm_90(shape):
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12)")
    for vec in (0, 1):
        ptx = nvrtc.compile(src.source(*shape, vec), options=(*nvrtc.DEFAULT_OPTIONS,
                                                               "--fmad=false"))  # fmt: skip
        assert f".entry {src.KERNEL}" in ptx and f".entry {src.SUM}" in ptx
        mt, nt = shape[2] // 16, shape[3] // 8
        per_path = 3 * mt * nt * (src.BK // 8)  # three products a term, a k8 step at a time
        # two paths: finite slices, and slices holding an infinity or NaN
        assert ptx.count("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") == 2 * per_path


def test_no_kernel_outside_the_declared_shapes():
    with pytest.raises(ValueError, match="no kernel"):
        src.source(256, 256, 64, 64, 1)


CONFIGS = [(4096, 128, 4096, 1), (8192, 8192, 1024, 1), (256, 256, 8192, 1), (64, 64, 64, 3),
           (16, 11008, 4096, 1), (100_000, 128, 512, 1)]  # fmt: skip


@pytest.mark.parametrize("M, N, K, count", CONFIGS)
def test_the_configuration_fills_the_gpu_without_overdoing_the_split(M, N, K, count):
    sms = 132
    shape, split = tf32x3.config(M, N, K, count, sms)
    assert shape in src.SHAPES and split in (1, 2, 4, 8, 16)
    blocks = count * -(-M // shape[0]) * -(-N // shape[1])
    assert blocks * split <= max(blocks, 4 * sms)  # no more splits than the GPU can take
    assert split == 1 or K // split >= 256  # each split keeps 256 of K
    if split < 16 and K // (2 * split) >= 256:  # stopped short only where the GPU is full
        assert blocks * split * 2 > 4 * sms
    assert tf32x3.fits(M, N, count, split, shape)


@pytest.fixture
def cuda_matmul(monkeypatch):
    """ruda.matmul on cuda with every float32 decision answered "tf32x3" (the launches of the
    kernel are counted), or a skip without a CUDA device."""
    import ruda
    from ruda._backends import probe

    if probe("cuda") is not None:
        pytest.skip(f"cuda backend unavailable: {probe('cuda')}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ruda._backends.cuda import library_blas as blas
    from ruda._kernels import tune

    class Tuner:
        def algorithm(self, family, key, ctx):
            return "tf32x3" if key.dtypes == ("f32",) * 3 else "cublas"

    monkeypatch.setattr(blas._ops.OPS, "tuner", Tuner())
    launched = []
    real = tf32x3.launch
    monkeypatch.setattr(tf32x3, "launch", lambda *a: (launched.append(a[-4:]), real(*a)))
    tune.forget()
    yield ruda.Device("cuda"), launched
    tune.forget()


def _check(got, a, b):
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    scale = np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    err = np.abs(np.asarray(got, np.float64) - want) / np.maximum(scale, 1e-30)
    assert err.max() < 4e-6 * max(1.0, a.shape[-1] ** 0.5 / 16)  # float32 sums' rounding


@pytest.mark.parametrize("M, K, N", [(1000, 999, 1001), (256, 8192, 256), (128, 3, 64),
                                     (17, 64, 130), (512, 512, 512)])  # fmt: skip
def test_products_agree_with_numpy(cuda_matmul, rng, M, K, N):
    import ruda

    dev, launched = cuda_matmul
    a = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    got = ruda.matmul(ruda.asarray(a, device=dev), ruda.asarray(b, device=dev))
    _check(np.asarray(got.to_device("cpu")), a, b)
    assert launched and launched[-1][:3] == (M, N, K)


def test_batches_views_and_nonfinite_values(cuda_matmul, rng):
    import ruda

    dev, launched = cuda_matmul
    a = rng.uniform(-1, 1, (3, 65, 40)).astype(np.float32)
    b = rng.uniform(-1, 1, (40, 72)).astype(np.float32)  # broadcast over the batch
    got = ruda.matmul(ruda.asarray(a, device=dev), ruda.asarray(b, device=dev))
    _check(np.asarray(got.to_device("cpu")), a, b)
    assert launched[-1][3] == 3
    # an offset (not 16-byte aligned) and a transposed operand
    big = rng.uniform(-1, 1, (70, 41)).astype(np.float32)
    bt = rng.uniform(-1, 1, (72, 40)).astype(np.float32)
    x = ruda.asarray(big, device=dev)[1:66, 1:]
    y = ruda.asarray(bt, device=dev).mT
    _check(np.asarray(ruda.matmul(x, y).to_device("cpu")), big[1:66, 1:], bt.T)
    # infinities and NaNs land where float64 puts them
    a2 = rng.uniform(-1, 1, (64, 64)).astype(np.float32)
    b2 = rng.uniform(-1, 1, (64, 64)).astype(np.float32)
    a2[3, 5], a2[7, 9], b2[2, 11] = np.inf, np.nan, -np.inf
    b2[5] = 1.0  # exact in TF32: its lo is 0 (inf * 0 must not enter)
    a2[10, 0] = np.finfo(np.float32).max  # rounds past FLT_MAX as TF32: truncated instead
    got = ruda.matmul(ruda.asarray(a2, device=dev), ruda.asarray(b2, device=dev))
    got = np.asarray(got.to_device("cpu"))
    want = np.matmul(a2.astype(np.float64), b2.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    fin = np.isfinite(want) & (np.arange(64)[:, None] != 10)
    assert np.allclose(got[fin], want[fin], rtol=1e-5, atol=1e-4)
