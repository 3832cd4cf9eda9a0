"""Fixtures for the autotuner's tests: a WebGPU device (lavapipe in CI) and a private store."""

from __future__ import annotations

import os

import pytest

from ruda._kernels.tune import engine as tune

WANTED = {"shader-f16", "shader-f64", "shader-int64", "subgroup", "timestamp-query"}


def make_device():
    """A wgpu device with the features the kernels and the timers use, or None (no adapter)."""
    import wgpu

    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    adapter = wgpu.gpu.request_adapter_sync()
    if adapter is None:
        return None
    lim = adapter.limits
    limits = {k: lim[k] for k in ("max-compute-invocations-per-workgroup",
                                  "max-compute-workgroup-size-x",
                                  "max-compute-workgroup-storage-size") if k in lim}  # fmt: skip
    feats = sorted(WANTED & set(adapter.features))
    return adapter.request_device_sync(required_features=feats, required_limits=limits)


@pytest.fixture(scope="session")
def gpu():
    """(device, runner, target) on the first WebGPU adapter; skips when there is none."""
    pytest.importorskip("wgpu", reason="wgpu-py is not installed")
    from ruda._backends.wgpu import timing

    device = make_device()
    if device is None:
        pytest.skip("no WebGPU adapter (install a Vulkan driver, e.g. mesa-vulkan-drivers)")
    return device, timing.WgpuRunner(device), tune.Target.from_wgpu(device)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh RUDA_CACHE_DIR, mode ``cached``, and no decisions memoised from other tests."""
    monkeypatch.setenv("RUDA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("RUDA_TUNE", raising=False)
    monkeypatch.delenv("RUDA_TUNE_BUDGET", raising=False)
    tune.forget()
    yield tmp_path
    tune.forget()
