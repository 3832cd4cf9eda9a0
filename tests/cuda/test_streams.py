"""``ruda.cuda``'s streams and events on a GPU: ``with stream:`` moves every kind of work (the C
fast path's launches, the Python launcher's, copies, cuBLAS) onto the stream; events time
device work; ``to_device(stream=)`` and ``__dlpack__(stream=)`` order the copy or export after
the work queued on the current stream; the pool's cap and ``empty_cache`` through CuPy's pool.

The stream tests race on purpose: a spin kernel holds a non-blocking stream for 50 ms, so work
that ran on another stream would read or write before the work it depends on.
Without a CUDA device every test here skips with the reason (``device``)."""

from __future__ import annotations

import time

import numpy
import pytest

import ruda
from ruda.cuda import Event, Stream, current_stream

pytestmark = pytest.mark.devices("cuda")

MiB = 1 << 20


_TIMER: list = []


def spin(ms: float = 50) -> None:
    """Hold the current stream for about ``ms`` milliseconds (one thread spinning on
    %globaltimer, CudaTimer's blocking kernel; capped at 50 ms)."""
    if not _TIMER:
        from ruda._kernels.tune.timing import CudaTimer

        _TIMER.append(CudaTimer())
    _TIMER[0].hold(round((ms * 1e-3 - 1e-3) / 1e-4))


def test_with_stream_makes_it_current_for_every_launch_path(device) -> None:
    from ruda._backends.cuda import driver

    ctx = device.backend.ctx
    outer = current_stream(device)
    s = Stream(device, non_blocking=True)
    assert s != outer and s.device is device and s.ptr != 0
    with s as entered:
        assert entered is s
        assert current_stream() == s and current_stream(device) == s
        assert ctx.launcher.stream_ptr() == s.ptr  # the Python launcher's stream
        assert ctx.allocator.stream().ptr == s.ptr  # copies'
        if driver.C_FAST:
            assert driver.driver().current_stream() == s.ptr  # the C fast path's getter
        inner = Stream(device)
        with inner:
            assert current_stream() == inner
        assert current_stream() == s  # nested blocks restore the previous stream
    assert current_stream() == outer


def test_work_under_a_busy_non_blocking_stream_stays_ordered(device, rng) -> None:
    a = rng.standard_normal((256, 256))
    # compile and prepare the fast path's entries outside, on the default stream
    w = ruda.asarray(a, device=device)
    ruda.sum((w * 2.0 + w) @ w, axis=0).to_device("cpu")
    spin(1)
    s = Stream(device, non_blocking=True)
    with s:
        spin(50)  # the stream is busy: anything on it queues behind
        x = ruda.asarray(a, device=device)  # host-to-device copy on s, after the spin
        y = x * 2.0 + x  # fast path elementwise
        z = y @ x  # cuBLAS
        t = ruda.sum(z, axis=0)  # a reduction kernel
        assert not s.query()  # still spinning: nothing above was waited for
        host = t.to_device("cpu")  # reads back on s: waits for it
    numpy.testing.assert_allclose(host, ((a * 3) @ a).sum(axis=0), rtol=1e-9, atol=1e-9)
    assert s.query()


def test_events_time_device_work(device) -> None:
    start, end = Event(), Event()
    assert start.query() and start.device is None  # not recorded yet
    s = Stream(device, non_blocking=True)
    t0 = time.perf_counter()
    with s:
        start.record()
        spin(30)
        end.record()
    assert start.device is device and end.device is device
    ms = start.elapsed_time(end)  # waits for end
    host_ms = (time.perf_counter() - t0) * 1e3
    assert 25 <= ms <= host_ms + 1
    assert end.query()
    assert end.elapsed_time(start) == pytest.approx(-ms)
    # record on an explicit stream, wait across streams
    other = Stream(device, non_blocking=True)
    with s:
        spin(30)
    e2 = s.record_event()
    other.wait_event(e2)  # other waits for the spin
    done = other.record_event()
    done.synchronize()
    assert s.query()


def test_event_errors(device) -> None:
    a, b = Event(), Event(enable_timing=False)
    with pytest.raises(ValueError, match="has not been recorded"):
        a.elapsed_time(Event())
    a.record()
    b.record()
    with pytest.raises(ValueError, match="enable_timing=False"):
        a.elapsed_time(b)
    with pytest.raises(TypeError, match="end must be a ruda.cuda.Event"):
        a.elapsed_time(1.0)
    with pytest.raises(ValueError, match="stream=0 is not valid"):
        a.record(0)
    with pytest.raises(TypeError, match="Stream.wait_event: expected a ruda.cuda.Event"):
        Stream(device).wait_event(object())


def test_synchronize_waits_for_every_stream(device) -> None:
    s1, s2 = Stream(device, non_blocking=True), Stream(device, non_blocking=True)
    with s1:
        spin(30)
    with s2:
        spin(30)
    assert not (s1.query() and s2.query())
    ruda.cuda.synchronize(device)
    assert s1.query() and s2.query()
    with s1:
        spin(20)
    device.synchronize()
    assert s1.query()


@pytest.mark.parametrize("kind", ["stream", "non_blocking", "pointer", 1, 2, -1])
def test_to_device_on_a_stream_waits_for_the_producer(device, rng, kind) -> None:
    a = rng.standard_normal(100_000)
    base = ruda.asarray(a, device=device)
    float(ruda.sum(base * 3.0))  # compiled
    s = Stream(device, non_blocking=kind != "stream")
    stream = {"stream": s, "non_blocking": s, "pointer": s.ptr}.get(kind, kind)
    spin(50)  # the current stream is busy; y is queued behind the spin
    y = base * 3.0
    numpy.testing.assert_array_equal(y.to_device("cpu", stream=stream), a * 3)
    # to the device on the stream, then used on the current stream
    spin(50)
    d = ruda.asarray(a[:10]).to_device(device, stream=stream) * 2.0
    numpy.testing.assert_array_equal(d.to_device("cpu"), a[:10] * 2)
    assert base.to_device(device, stream=stream) is base  # same device: no copy


def test_to_device_stream_between_devices_without_streams_is_refused(device) -> None:
    with pytest.raises(ValueError, match="stream must be None"):
        ruda.ones(4).to_device("cpu", stream=Stream(device))


def test_dlpack_export_waits_on_the_consumers_stream(device, rng) -> None:
    cupy = pytest.importorskip("cupy")
    a = rng.standard_normal(100_000)
    base = ruda.asarray(a, device=device)
    float(ruda.sum(base + 1.0))
    s = Stream(device, non_blocking=True)

    class Consumer:  # a library working on its own stream s asks for y on s
        def __dlpack_device__(self) -> tuple[int, int]:
            return y.__dlpack_device__()

        def __dlpack__(self, **kw) -> object:
            return y.__dlpack__(stream=s.ptr)

    spin(50)
    y = base + 1.0  # pending on the current stream, behind the spin
    view = cupy.from_dlpack(Consumer())
    with s.cupy:
        host = (view * 1.0).get()  # on s: must see y finished
    numpy.testing.assert_array_equal(host, a + 1)
    for good in (s.ptr, s, 1, 2, -1):
        cap = y.__dlpack__(stream=good)
        assert cap is not None
    with pytest.raises(ValueError, match="stream=0 is not valid"):
        y.__dlpack__(stream=0)


def test_pool_cap_on_the_fast_path_and_empty_cache(device) -> None:
    from ruda._backends.cuda import driver

    mib = 1 << 20
    x = ruda.ones(mib // 8, device=device)  # float64: fast-path results of 1 MiB each
    y = x + x  # prepared fast-path entry
    del y
    old = device.memory_info().pool_limit
    device.empty_cache()
    if driver.C_FAST:
        assert driver._cuda_fast.cache_info()["free"] == 0  # the small-block cache, emptied
    m = device.memory_info()
    # CuPy's pool serves a request from the free part of a chunk it holds without growing: the
    # cap is on the bytes held, so up to (held - in use) more MiB may come before it binds
    spare = (m.pool_held - m.pool_in_use) // mib
    keep = []
    try:
        device.set_memory_limit(m.pool_held + 4 * mib)
        keep.append(x + x)  # fits
        with pytest.raises(MemoryError, match="limit"):
            for _ in range(spare + 8):  # past the cap within these
                keep.append(x + x)
        assert 4 <= len(keep) <= spare + 5
    finally:
        device.set_memory_limit(old)
    del keep
    z = ruda.ones(1000, device=device) + 1.0
    assert float(z[0]) == 2.0


def test_device_argument_forms(device) -> None:
    for form in (None, 0, "cuda", "cuda:0", device):
        assert Stream(form).device is device
        assert current_stream(form).device is device
    with pytest.raises(ValueError, match="does not exist"):
        Stream(99)
