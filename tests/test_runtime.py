"""The runtime API on every device: ``Device.synchronize``, ``memory_info``, the pool's cap
(``set_memory_limit``, ``RUDA_GPU_MEMORY_LIMIT``) and ``empty_cache``; the standard's
``stream=`` of ``to_device`` and ``__dlpack__``; ``ruda.wgpu``'s timing events; ``ruda.cuda``
without a GPU. Streams and events on a real GPU: ``tests/cuda/test_streams.py``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy
import pytest

import ruda
from ruda._devices import MEMORY_LIMIT_ENV, MemoryInfo, env_memory_limit

MiB = 1 << 20


ROOT = Path(__file__).resolve().parents[1]


def _in_fresh_process(device: ruda.Device, body: str) -> None:
    """``body(device)`` in a new process on a GPU: a pool's figures are exact only where nothing
    else has used the pool (CuPy serves a new block from a freed chunk that another test's live
    block keeps held, so neither the pool nor its cap would move)."""
    if device.kind == "cpu":
        globals()[body](device)
        return
    code = f"import ruda, tests.test_runtime as t; t.{body}(ruda.Device({str(device)!r}))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       cwd=ROOT)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr


def _fresh(device: ruda.Device) -> MemoryInfo:
    """memory_info after the pool gave its cached blocks back (nothing cached to count)."""
    device.synchronize()
    device.empty_cache()
    return device.memory_info()


# -- synchronize ------------------------------------------------------------------------------
def test_synchronize_waits_and_results_stand(device, rng) -> None:
    a = rng.standard_normal((300, 200))
    x = ruda.asarray(a, device=device)
    y = (x * 2.0 + 1.0) @ x.T
    assert device.synchronize() is None
    numpy.testing.assert_allclose(y.to_device("cpu"), (a * 2 + 1) @ a.T, rtol=1e-4, atol=1e-4)
    device.synchronize()  # nothing queued: returns


# -- memory_info --------------------------------------------------------------------------------
def test_memory_info_fields_are_sane(device) -> None:
    m = device.memory_info()
    assert isinstance(m, MemoryInfo) and m._fields == (
        "free", "total", "pool_held", "pool_in_use", "pool_limit")  # fmt: skip
    assert 0 <= m.pool_in_use <= m.pool_held
    if device.kind == "cpu" or (device.kind == "wgpu"
                                and device.backend.ctx.adapter_type == "CPU"):  # fmt: skip
        assert m.total is not None and m.free is not None  # the host's memory
    if device.kind == "cuda":
        assert m.total is not None
    if m.total is not None:
        assert m.total > 0
        assert m.free is None or 0 <= m.free <= m.total
        assert m.pool_held <= m.total
    if device.kind == "cpu":
        assert (m.pool_held, m.pool_in_use, m.pool_limit) == (0, 0, None)
    elif not os.environ.get(MEMORY_LIMIT_ENV):
        assert m.pool_limit is None


def test_pool_grows_with_arrays_and_empty_cache_releases(device) -> None:
    _in_fresh_process(device, "_pool_grows_and_empty_cache_releases")


def _pool_grows_and_empty_cache_releases(device: ruda.Device) -> None:
    before = _fresh(device)
    n = 4 * MiB // 8
    x = ruda.ones(n, device=device)
    assert float(x[n - 1]) == 1.0
    mid = device.memory_info()
    del x
    after_free = device.memory_info()
    device.empty_cache()
    after = device.memory_info()
    if device.kind == "cpu":  # NumPy allocates: ruda holds no pool
        assert mid.pool_held == after.pool_held == 0
        return
    assert mid.pool_in_use >= before.pool_in_use + n * 8
    assert mid.pool_held >= before.pool_held + n * 8
    assert after_free.pool_in_use <= mid.pool_in_use - n * 8  # the array's block is free...
    assert after.pool_held <= after_free.pool_held - n * 8  # ...cached until empty_cache
    assert after.pool_held <= before.pool_held + MiB


# -- the pool's cap --------------------------------------------------------------------------------
def test_memory_limit_raises_memory_error_naming_it_and_lifts(device) -> None:
    _in_fresh_process(device, "_memory_limit_raises_and_lifts")


def _memory_limit_raises_and_lifts(device: ruda.Device) -> None:
    rng = numpy.random.default_rng()
    if device.kind == "cpu":
        with pytest.raises(ValueError, match="cpu has no ruda memory pool"):
            device.set_memory_limit(1 << 30)
        return
    old = device.memory_info().pool_limit
    base = _fresh(device)
    cap = base.pool_held + 2 * MiB
    try:
        device.set_memory_limit(cap)
        assert device.memory_info().pool_limit == cap
        small = ruda.asarray(a := rng.standard_normal(1000), device=device)  # fits
        numpy.testing.assert_array_equal(small.to_device("cpu"), a)
        with pytest.raises(MemoryError, match=rf"limit of {cap} bytes") as info:
            ruda.ones(8 * MiB // 8, device=device)
        assert "set_memory_limit" in str(info.value)
        device.synchronize()
        numpy.testing.assert_array_equal(small.to_device("cpu"), a)  # nothing broke
    finally:
        device.set_memory_limit(old)
    assert device.memory_info().pool_limit == old
    big = ruda.ones(8 * MiB // 8, device=device)  # lifted: fits again
    assert float(ruda.sum(big)) == 8 * MiB // 8


def test_memory_limit_fraction_and_validation(device) -> None:
    where = r"ruda\.Device\.set_memory_limit"
    with pytest.raises(ValueError, match=f"{where}: give nbytes or fraction, not both"):
        device.set_memory_limit(1 << 30, fraction=0.5)
    if device.kind == "cpu":
        with pytest.raises(ValueError, match="cpu has no ruda memory pool"):
            device.set_memory_limit(fraction=0.5)
        return
    for bad in (0, -5):
        with pytest.raises(ValueError, match=f"{where}: nbytes must be a positive"):
            device.set_memory_limit(bad)
    for bad in (1.5, True, "1GB"):
        with pytest.raises(TypeError, match=f"{where}: nbytes must be an int"):
            device.set_memory_limit(bad)
    for bad in (0, 1.5, -0.1):
        with pytest.raises(ValueError, match=f"{where}: fraction must be in"):
            device.set_memory_limit(fraction=bad)
    old = device.memory_info().pool_limit
    total = device.memory_info().total
    try:
        if total is None:  # a wgpu GPU: WebGPU does not say how much memory it has
            with pytest.raises(ValueError, match="give the limit in bytes"):
                device.set_memory_limit(fraction=0.5)
        else:
            device.set_memory_limit(fraction=0.5)
            assert device.memory_info().pool_limit == int(total * 0.5)
    finally:
        device.set_memory_limit(old)


def test_env_memory_limit_parses_bytes_and_percentages(monkeypatch) -> None:
    monkeypatch.delenv(MEMORY_LIMIT_ENV, raising=False)
    assert env_memory_limit("wgpu:0", lambda: 1000) is None
    for raw, want in (("123456", 123456), (" 50% ", 500), ("100%", 1000), ("12.5%", 125)):
        monkeypatch.setenv(MEMORY_LIMIT_ENV, raw)
        assert env_memory_limit("cuda:0", lambda: 1000) == want, raw
    for raw in ("abc", "0", "-3", "0%", "150%", "1GB"):
        monkeypatch.setenv(MEMORY_LIMIT_ENV, raw)
        with pytest.raises(ValueError, match=MEMORY_LIMIT_ENV):
            env_memory_limit("cuda:0", lambda: 1000)
    monkeypatch.setenv(MEMORY_LIMIT_ENV, "50%")
    with pytest.raises(ValueError, match="does not report its total memory"):
        env_memory_limit("wgpu:0", lambda: None)


def test_env_memory_limit_caps_each_gpu_when_it_starts(device) -> None:
    code = (f"import ruda; d = ruda.Device({str(device)!r}); ruda.ones(3, device=d); "
            "print(d.memory_info().pool_limit)")  # fmt: skip
    env = {**os.environ, MEMORY_LIMIT_ENV: "123456789"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()  # fmt: skip
    # the cpu has no pool to cap
    assert out[-1] == ("None" if device.kind == "cpu" else "123456789")


# -- the standard's stream= ----------------------------------------------------------------------
def test_to_device_stream_argument(device, rng) -> None:
    a = rng.standard_normal(257)
    x = ruda.asarray(a, device=device)
    for target in {"cpu", str(device)}:
        cuda_side = "cuda" in (device.kind, ruda.Device(target).kind)
        numpy.testing.assert_array_equal(x.to_device(target, stream=None).to_device("cpu"), a)
        if not cuda_side:  # cpu and wgpu have no streams: None only
            for bad in (1, 2, -1, 0, "s"):
                with pytest.raises(ValueError, match=r"ruda\.Array\.to_device: stream must be "
                                                     r"None .*no streams"):  # fmt: skip
                    x.to_device(target, stream=bad)
            continue
        for bad in (0, -2):
            with pytest.raises(ValueError, match=r"ruda\.Array\.to_device: stream=.* not valid"):
                x.to_device(target, stream=bad)
        for bad in ("s", 1.0, True):
            with pytest.raises(TypeError, match=r"ruda\.Array\.to_device: stream must be an int"):
                x.to_device(target, stream=bad)
        for good in (1, 2, -1, ruda.cuda.Stream(), ruda.cuda.Stream(non_blocking=True)):
            y = x.to_device(target, stream=good)
            assert y.device == ruda.Device(target)
            numpy.testing.assert_array_equal(y.to_device("cpu"), a)


def test_dlpack_stream_argument(device, rng) -> None:
    a = rng.standard_normal(33)
    x = ruda.asarray(a, device=device)
    if device.kind != "cuda":  # no streams: None only
        for bad in (1, 2, -1, 0, "s"):
            with pytest.raises(ValueError, match=r"ruda\.Array\.__dlpack__: stream must be None"):
                x.__dlpack__(stream=bad)
        if device.kind == "cpu":
            numpy.testing.assert_array_equal(numpy.from_dlpack(x), a)
        return
    for bad in (0, -2):
        with pytest.raises(ValueError, match=r"ruda\.Array\.__dlpack__: stream=.* not valid"):
            x.__dlpack__(stream=bad)
    with pytest.raises(TypeError, match=r"ruda\.Array\.__dlpack__: stream must be an int"):
        x.__dlpack__(stream="s")
    for good in (-1, 1, 2, ruda.cuda.Stream()):
        assert x.__dlpack__(stream=good) is not None


def test_stream_pointer_follows_the_standard() -> None:
    """The CUDA values of ``stream=`` (the standard's table), checked without a GPU."""
    from ruda.cuda import stream_pointer

    for v in (-1, 1, 2, 3, 0x7F00_0000_1234):
        assert stream_pointer(v, "f") == v

    class Foreign:  # CuPy's and PyTorch's streams speak the CUDA stream protocol
        def __init__(self, ptr: int) -> None:
            self.ptr = ptr

        def __cuda_stream__(self) -> tuple[int, int]:
            return (0, self.ptr)

    assert stream_pointer(Foreign(0xABC0), "f") == 0xABC0
    assert stream_pointer(Foreign(0), "f") == 1  # the legacy default stream's handle is 0
    for bad in (0, -2, -100):
        with pytest.raises(ValueError, match="f: stream=.* not valid on CUDA.*0 is ambiguous"):
            stream_pointer(bad, "f")
    for bad in ("1", 1.0, True, None):
        with pytest.raises(TypeError, match="f: stream must be an int"):
            stream_pointer(bad, "f")


# -- ruda.cuda and ruda.wgpu: device arguments; ruda.cuda without a GPU ----------------------------
def test_runtime_modules_check_the_device_kind() -> None:
    for fn, kind in ((ruda.cuda.synchronize, "cuda"), (ruda.wgpu.synchronize, "wgpu"),
                     (ruda.cuda.current_stream, "cuda")):  # fmt: skip
        with pytest.raises(ValueError, match=f"cpu is not a {kind} device"):
            fn("cpu")


@pytest.mark.skipif(ruda.cuda.is_available(), reason="a CUDA GPU is here: tests/cuda covers it")
def test_cuda_module_without_a_gpu_says_why() -> None:
    from ruda._backends import probe

    reason = probe("cuda")
    assert reason
    for use in (ruda.cuda.Stream, ruda.cuda.current_stream, ruda.cuda.synchronize,
                lambda: ruda.cuda.Event().record(), lambda: ruda.Device("cuda").synchronize(),
                lambda: ruda.Device("cuda").memory_info()):  # fmt: skip
        with pytest.raises(ruda.DeviceUnavailableError, match="cuda"):
            use()
    ev = ruda.cuda.Event()  # nothing touches CUDA before record
    assert ev.query() and ev.synchronize() is None


# -- ruda.wgpu: synchronize and timing events -----------------------------------------------------
@pytest.mark.devices("wgpu")
def test_wgpu_synchronize(device, rng) -> None:
    a = rng.standard_normal((64, 64)).astype(numpy.float32)
    x = ruda.asarray(a, device=device)
    y = x @ x
    device.synchronize()
    z = x * 2.0
    assert device.backend.ctx.launcher.pending  # recorded, not yet submitted
    ruda.wgpu.synchronize()
    assert not device.backend.ctx.launcher.pending
    ruda.wgpu.synchronize(device)
    ruda.wgpu.synchronize(0)
    numpy.testing.assert_allclose(y.to_device("cpu"), a @ a, rtol=1e-4, atol=1e-4)
    numpy.testing.assert_array_equal(z.to_device("cpu"), a * 2)


@pytest.mark.devices("wgpu")
def test_wgpu_events_time_gpu_work(device, rng) -> None:
    if not ruda.wgpu.has_timestamps(device):
        pytest.skip(f"{device} ({device.backend.ctx.description}) lacks timestamp-query; "
                    "test_wgpu_event_without_timestamps covers that branch")  # fmt: skip
    # enough work that it outlasts an empty pass: 256 on a CPU adapter, 2048 on a GPU
    n = 2048 if device.backend.ctx.adapter_type in ("DiscreteGPU", "IntegratedGPU") else 256
    a = rng.standard_normal((n, n)).astype(numpy.float32)
    x = ruda.asarray(a, device=device)
    y = x @ x
    device.synchronize()  # compiled, idle
    start, end, idle = ruda.wgpu.Event(), ruda.wgpu.Event(), ruda.wgpu.Event()
    t0 = time.perf_counter()
    start.record()
    for _ in range(4):
        y = (y @ x) * (1 / n**0.5)
    end.record()
    idle.record()  # nothing runs between end and idle
    end.synchronize()
    host_ms = (time.perf_counter() - t0) * 1e3
    busy_ms = start.elapsed_time(end)
    assert 0 < busy_ms <= host_ms * 1.05 + 1  # GPU time within the host's wall time
    assert 0 <= end.elapsed_time(idle) < busy_ms
    assert end.elapsed_time(start) == pytest.approx(-busy_ms)
    want = a.astype(numpy.float64) @ a
    for _ in range(4):
        want = (want @ a) * (1 / n**0.5)
    numpy.testing.assert_allclose(y.to_device("cpu"), want, rtol=1e-3, atol=1e-2 * abs(want).max())
    start.record()  # recorded again: a new point, after idle
    assert start.elapsed_time(idle) <= 0.0


@pytest.mark.devices("wgpu")
def test_wgpu_event_without_timestamps(device, monkeypatch) -> None:
    ctx = device.backend.ctx
    monkeypatch.setattr(ctx, "features", frozenset(ctx.features - {"timestamp-query"}))
    assert not ruda.wgpu.has_timestamps(device)
    with pytest.raises(RuntimeError, match=r"ruda\.wgpu\.Event: timing needs the adapter "
                                           r"feature 'timestamp-query', which wgpu:0"):  # fmt: skip
        ruda.wgpu.Event(device)
    a, b = ruda.wgpu.Event(enable_timing=False), ruda.wgpu.Event(enable_timing=False)
    x = ruda.ones(1000, device=device) * 3
    a.record()
    b.record()
    b.synchronize()
    assert not ctx.launcher.pending and float(x[999]) == 3.0
    with pytest.raises(ValueError, match="enable_timing=False"):
        a.elapsed_time(b)


@pytest.mark.devices("wgpu")
def test_wgpu_event_errors(device) -> None:
    if not ruda.wgpu.has_timestamps(device):
        pytest.skip(
            f"{device} lacks timestamp-query (covered by test_wgpu_event_without_timestamps)"
        )
    a, b = ruda.wgpu.Event(device), ruda.wgpu.Event()
    a.synchronize()  # never recorded: no wait
    with pytest.raises(ValueError, match="has not been recorded"):
        a.elapsed_time(b)
    with pytest.raises(ValueError, match="stream must be None"):
        a.record(stream=1)
    with pytest.raises(TypeError, match="end must be a ruda.wgpu.Event"):
        a.elapsed_time(0.0)
    with pytest.raises(ValueError, match="cpu is not a wgpu device"):
        ruda.wgpu.Event("cpu")
