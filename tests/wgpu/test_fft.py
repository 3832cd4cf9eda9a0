"""The fft extension on wgpu (ruda's Stockham radix-4/2 and Bluestein kernels): which kernels run
for which lengths (the shared tests are in ``tests/gpu/test_fft.py``)."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._backends.wgpu.fft import FFT
from ruda._kernels import ir
from ruda._kernels.fft import stockham as kf
from tests.gpu.test_fft import check, need, signal

pytestmark = pytest.mark.devices("wgpu")


def test_long_rows_take_the_multi_pass_path(device, ctx, rng) -> None:
    # longer than the one-dispatch kernel takes: the global Stockham passes (odd log2: radix 2)
    n = 2 * kf.local_max(ir.C64)
    a = signal("complex64", (2, n), rng)
    launches = ctx.launcher.dispatches
    got = ruda.fft.fft(ruda.asarray(a, device=device))
    check(got, numpy.fft.fft(a.astype(numpy.complex128)), "complex64", n, device)
    assert ctx.launcher.dispatches - launches >= len(kf.radices(n))


def test_tables_are_cached(device, rng) -> None:
    a = ruda.asarray(signal("complex64", (3, 97), rng), device=device)
    ruda.fft.fft(a)
    count = len(FFT._tables)
    ruda.fft.fft(a)
    assert len(FFT._tables) == count


def test_short_rows_take_one_dispatch(device, ctx, rng) -> None:
    a = signal("complex64", (5, 256), rng)
    x = ruda.asarray(a, device=device)
    ruda.fft.fft(x)  # tables uploaded, pipelines built
    launches = ctx.launcher.dispatches
    got = ruda.fft.fft(x)
    assert ctx.launcher.dispatches - launches == 1
    check(got, numpy.fft.fft(a.astype(numpy.complex128)), "complex64", 256, device)


@pytest.mark.parametrize("t", ["c64", "c128"])
def test_stockham_variants_tune(t: str, device, ctx) -> None:
    # both variants agree with NumPy under the autotuner's checks (on either runner)
    from ruda._backends.gpu.tuning import PlanRunner
    from ruda._kernels.tune import engine as tune

    need(device, "complex64" if t == "c64" else "complex128")
    tuner = FFT.ops.tuner
    key = tune.Key("fft", (t, t), "rows", (8, 512))
    target = tuner.target(ctx)
    assert tune.FAMILIES["fft.stockham"].heuristic(key, target) == {"local": True}
    for runner in (tuner.runner(ctx), PlanRunner(FFT.ops, ctx)):
        dec = tune.tune("fft.stockham", key, target, runner, budget_s=30, persist=False)
        assert not dec.rejected and dec.tried == dec.total == 2
