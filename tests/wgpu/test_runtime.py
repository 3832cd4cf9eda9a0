"""The WebGPU runtime: arrays and views, allocator and pool, compiler cache, launcher batching,
creation and casts, in-place operators, and the errors it raises."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._array import _wrap
from ruda._backends.wgpu import launcher as wl
from tests.gpu.test_runtime import host, put
from tests.helpers import assert_close

pytestmark = pytest.mark.devices("wgpu")

NARROW = ["uint8", "int8", "int16", "uint16", "bool", "float16"]


# -- registration ---------------------------------------------------------------------------
def test_on_by_default_without_any_switch(monkeypatch) -> None:
    from ruda._backends import probe
    from ruda._backends.wgpu.context import adapters

    monkeypatch.delenv("RUDA_WGPU", raising=False)
    reason = probe("wgpu")
    if adapters():
        assert reason is None
    else:
        assert reason is not None and "adapter" in reason


def test_devices_one_per_adapter(device) -> None:
    from ruda._backends.wgpu.context import adapters, context

    found = adapters()
    types = [a.info["adapter_type"] for a in found]
    gpu_first = sorted(types, key=lambda t: t not in ("DiscreteGPU", "IntegratedGPU"))
    assert types == gpu_first
    assert context(0).name == "wgpu:0"
    with pytest.raises(ValueError, match="does not exist"):
        context(len(found))


def test_adapters_on_the_targeted_graphics_apis(device) -> None:
    import os
    import subprocess
    import sys

    import wgpu

    from ruda._backends.wgpu.context import DEFAULT_BACKENDS, adapters

    assert {a.info["backend_type"].lower() for a in adapters()} <= set(DEFAULT_BACKENDS)
    every = {a.info["backend_type"].lower() for a in wgpu.gpu.enumerate_adapters_sync()}
    # RUDA_WGPU_BACKENDS names the APIs instead (read once per process: a fresh one)
    code = ("from ruda._backends.wgpu.context import adapters; "
            "print(sorted({a.info['backend_type'].lower() for a in adapters()}))")  # fmt: skip
    for chosen in (["vulkan"], sorted(every)):
        env = {**os.environ, "RUDA_WGPU_BACKENDS": ",".join(chosen)}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=120, check=True).stdout  # fmt: skip
        assert out.strip() == str(sorted(set(chosen) & every))


def test_unimplemented_ops_say_so(device) -> None:
    from ruda._dispatch import lookup

    # an op the backend lacks: the dispatch table says so, naming the op and the kind (a made-up
    # name, as wgpu's coverage keeps growing: linalg.eig was the last real one)
    with pytest.raises(NotImplementedError, match=r"ruda\.no_such_op .*'wgpu'"):
        lookup("no_such_op", device)


@pytest.mark.parametrize("dtype", ["float32", "int64", *NARROW])
def test_views_share_the_buffer_and_read_back(dtype: str, device, rng) -> None:
    a = (rng.standard_normal((6, 9)) * 100).astype(dtype)
    d = put(a, device)._data
    for key in [(slice(1, 5), slice(None, None, 2)), (3,), (slice(None, None, -1), 4),
                (Ellipsis, None, slice(2, 3)), (2, 7), (slice(3, 3),)]:  # fmt: skip
        v = d[key]
        assert v.block is d.block
        e = a[key]
        assert v.shape == e.shape and v.ndim == e.ndim and v.size == e.size
        assert v.strides == e.strides and v.itemsize == e.itemsize and v.nbytes == e.nbytes
        numpy.testing.assert_array_equal(v.to_host(), e)
    t = d.T
    assert t.strides == a.T.strides
    numpy.testing.assert_array_equal(t.to_host(), a.T)
    r = d[1:3].reshape(9, 2)
    assert r.block is d.block
    numpy.testing.assert_array_equal(r.to_host(), a[1:3].reshape(9, 2))
    numpy.testing.assert_array_equal(d.T.reshape(-1).to_host(), a.T.reshape(-1))
    with pytest.raises(IndexError):
        d[6]
    with pytest.raises(IndexError):
        d[1, 2, 3]


def test_attributes_like_numpy(device, rng) -> None:
    a = rng.standard_normal((3, 4, 5)).astype("float32")
    d = put(a, device)._data
    for attr in ("shape", "ndim", "size", "itemsize", "nbytes", "strides"):
        assert getattr(d, attr) == getattr(a, attr), attr
    assert d.dtype == a.dtype and isinstance(d.dtype, numpy.dtype)
    x = put(a, device)
    assert x.T.shape == (5, 4, 3)
    numpy.testing.assert_array_equal(host(x.T), a.T)


# -- creation, casts, copies ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool",
                                   "float16", "int16"])  # fmt: skip
def test_full_zeros_ones(dtype: str, device) -> None:
    for fn, val in ((ruda.zeros, 0), (ruda.ones, 1)):
        x = fn((3, 5), dtype=dtype, device=device)
        numpy.testing.assert_array_equal(host(x), numpy.full((3, 5), val, dtype))
    v = True if dtype == "bool" else 7
    x = ruda.full((7,), v, dtype=dtype, device=device)
    numpy.testing.assert_array_equal(host(x), numpy.full(7, v, dtype))
    assert ruda.empty((2, 3), dtype=dtype, device=device).shape == (2, 3)


def test_creation_targets_the_named_device(device, monkeypatch) -> None:
    """device= reaches the backend as the Device itself (so wgpu:1 is not wgpu:0)."""
    from ruda._backends.wgpu import ops

    seen = []
    real = ops.OPS.context_for

    def spy(device=None):
        seen.append(device)
        return real(device)

    monkeypatch.setattr(ops.OPS, "context_for", spy)  # the creation methods look it up on OPS
    calls = [
        lambda: ruda.zeros(4, "float32", device=device),
        lambda: ruda.ones((2, 2), dtype="int32", device=device),
        lambda: ruda.empty(3, "float32", device=device),
        lambda: ruda.full(3, 2.5, dtype="float32", device=device),
        lambda: ruda.arange(5, device=device),
        lambda: ruda.zeros_like(ruda.zeros(2, "float32"), device=device),  # from the cpu
    ]
    for make in calls:
        seen.clear()
        x = make()
        assert x.device == device
        assert seen and all(d is device for d in seen), seen


@pytest.mark.parametrize(
    "src", ["float32", "float64", "int32", "int64", "uint8", "bool", "float16"]
)
@pytest.mark.parametrize(
    "dst", ["float32", "float64", "int32", "int64", "uint8", "bool", "float16"]
)
def test_astype(src: str, dst: str, device, rng) -> None:
    a = numpy.concatenate([rng.standard_normal(61) * 50, [0.0, -0.0, 1.0, -1.0, 0.5]])
    if numpy.dtype(src).kind in "ui" or numpy.dtype(dst).kind in "ui":
        a = numpy.abs(a) % 100  # conversions that overflow are undefined in C and WGSL alike
    a = a.astype(src)
    e = a.astype(dst)
    x = put(a, device)
    got = ruda.astype(x, dst)
    assert got.dtype == ruda.dtype(dst)
    numpy.testing.assert_array_equal(host(got), e)
    s = put(a.reshape(6, 11), device)._data.T[::2]  # strided source
    numpy.testing.assert_array_equal(
        _wrap(s.astype(dst), device).to_device("cpu").__array__(),
        a.reshape(6, 11).T[::2].astype(dst),
    )


# -- allocator and pool ---------------------------------------------------------------------------
def test_pool_reuses_buffers(ctx, device, rng) -> None:
    pool = ctx.allocator.pool
    a = rng.standard_normal(1000).astype("float32")
    x = put(a, device)
    for _ in range(3):  # warm the size classes used below
        y = (x + 1) * 2
    del y
    created = pool.created
    for _ in range(50):
        y = (x + 1) * 2
    assert pool.created == created, "temporaries should come from the pool"
    assert pool.reused > 0
    assert_close(y, (a + 1) * 2, device=device)


def test_size_classes() -> None:
    from ruda._backends.wgpu.allocator import size_class

    assert size_class(1) == 256 and size_class(257) == 512 and size_class(1 << 20) == 1 << 20
    for n in (1_000_001, 3 << 20, 67_108_864 + 1):
        s = size_class(n)
        assert n <= s <= n * 1.25 and s % 4 == 0


# -- compiler ------------------------------------------------------------------------------------
def test_pipelines_are_cached(ctx, device, rng) -> None:
    comp = ctx.compiler
    x = put(rng.standard_normal((4, 5)).astype("float32"), device)
    y = put(rng.standard_normal((5, 4)).astype("float32"), device)
    half = _wrap(x._data[::2], device)  # a strided view (native slicing)
    (x + x, x.T + y, half * 3.0)
    n = comp.compiled
    for _ in range(5):
        (x + x, x.T + y, half * 3.0)
    z = put(rng.standard_normal((7, 3)).astype("float32"), device)
    z.T + z.T  # another shape of a rank seen before: the same strided program
    assert comp.compiled == n


@pytest.mark.parametrize("checks", ["on", "off"])
def test_shader_modules_with_and_without_wgpu_checks(checks, ctx, device, rng, monkeypatch) -> None:
    """``RUDA_WGPU_CHECKS`` picks wgpu's checked modules or trusted ones (the default); ruda's
    kernels (tiled and thin matmul, edges past whole tiles) give NumPy's results either way."""
    from ruda._backends.wgpu import shader, timing
    from ruda._kernels import ir
    from ruda._kernels.matmul import gemm as matmul

    monkeypatch.setenv("RUDA_WGPU_CHECKS", checks)
    assert shader.checks() is (checks == "on")
    runner = timing.WgpuRunner(ctx.device)  # its own pipelines: compiled under this setting
    for m, n, k in ((70, 130, 45), (3, 260, 300)):
        a = rng.standard_normal((m, k)).astype("float32")
        b = rng.standard_normal((k, n)).astype("float32")
        plan = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(m, n, k))
        got = runner.prepare(plan, {"a": a, "b": b}, (numpy.float32, m * n)).output()
        numpy.testing.assert_allclose(got.reshape(m, n), a.astype("float64") @ b, rtol=1e-4,
                                      atol=1e-4)  # fmt: skip


def test_shader_modules_without_the_trusted_api(ctx, device, rng, monkeypatch) -> None:
    """A wgpu-py without trusted modules: checked ones, a warning once, the same results."""
    from ruda._backends.wgpu import shader, timing
    from ruda._kernels import ir
    from ruda._kernels.matmul import gemm as matmul

    monkeypatch.delenv("RUDA_WGPU_CHECKS", raising=False)
    assert shader._trusted_api() is not None  # this environment's wgpu-py has them
    monkeypatch.setattr(shader, "_trusted_api", lambda: None)
    monkeypatch.setattr(shader, "_WARNED", set())
    a = rng.standard_normal((5, 7)).astype("float32")
    b = rng.standard_normal((7, 3)).astype("float32")
    plan = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(5, 3, 7))
    with pytest.warns(RuntimeWarning, match="cannot create trusted shader modules"):
        got = timing.WgpuRunner(ctx.device).prepare(plan, {"a": a, "b": b}, (numpy.float32, 15))
    numpy.testing.assert_allclose(got.output().reshape(5, 3), a.astype("float64") @ b,
                                  rtol=1e-4, atol=1e-5)  # fmt: skip


def test_shader_checks_setting(monkeypatch) -> None:
    from ruda._backends.wgpu import shader

    monkeypatch.delenv("RUDA_WGPU_CHECKS", raising=False)
    assert shader.checks() is False
    monkeypatch.setenv("RUDA_WGPU_CHECKS", " ON ")
    assert shader.checks() is True
    monkeypatch.setenv("RUDA_WGPU_CHECKS", "sometimes")
    with pytest.warns(RuntimeWarning, match="neither on nor off"):
        assert shader.checks() is False


def test_param_struct_layout() -> None:
    from ruda._backends.wgpu.compiler import param_struct
    from ruda._kernels import ir

    ps = (ir.Param("a", ir.U32), ir.Param("b", ir.F64), ir.Param("c", ir.F16),
          ir.Param("d", ir.I64), ir.Param("e", ir.I32))  # fmt: skip
    st, size = param_struct(ps)
    assert size == 48 and st.size == 48  # a@0 b@8 c@16 d@24 e@32, rounded to 16
    raw = st.pack(1, 2.0, 3.0, -4, 5)
    assert numpy.frombuffer(raw[8:16], "<f8")[0] == 2.0
    assert numpy.frombuffer(raw[16:18], "<f2")[0] == 3.0
    assert numpy.frombuffer(raw[24:32], "<i8")[0] == -4
    assert numpy.frombuffer(raw[32:36], "<i4")[0] == 5
    st, size = param_struct((ir.Param("n", ir.U32),))
    assert size == 16


# -- launcher ------------------------------------------------------------------------------------
def _ramp_submits(dispatches: int, first: int, cap: int) -> int:
    """Submits the launcher makes for ``dispatches`` after a host wait: batches of ``first``,
    doubling up to ``cap``."""
    submits, count, limit = 0, 0, first
    for _ in range(dispatches):
        if count >= min(limit, cap):
            submits, count, limit = submits + 1, 0, min(2 * limit, cap)
        count += 1
    return submits


def test_batching_many_dispatches_one_read(ctx, device, rng) -> None:
    launcher = ctx.launcher
    a = rng.standard_normal(4097).astype("float32")
    x = put(a, device)
    host(x)  # the host waits: the next batch starts small
    submits, dispatches = launcher.submits, launcher.dispatches
    y = x
    e = a.copy()
    for k in range(40):
        y = y * 1.01 + 0.5 if k % 2 else y - 0.25
        e = e * numpy.float32(1.01) + numpy.float32(0.5) if k % 2 else e - numpy.float32(0.25)
    n = launcher.dispatches - dispatches
    assert n >= 40
    ramp = _ramp_submits(n, wl.FIRST_BATCH, launcher.batch_limit)
    assert 0 < ramp < n // wl.FIRST_BATCH  # batches grow: fewer submits than fixed small ones
    assert launcher.submits - submits == ramp, "a submit per batch, none per dispatch"
    out = host(y)
    assert launcher.submits - submits == ramp + 1, "the read submits the rest"
    numpy.testing.assert_allclose(out, e, rtol=1e-4)


@pytest.mark.parametrize("cap", [8, None])
def test_batch_limit_flushes(cap, ctx, device, rng, monkeypatch) -> None:
    launcher = ctx.launcher
    if cap is not None:
        monkeypatch.setattr(launcher, "batch_limit", cap)
    x = put(rng.standard_normal(64).astype("float32"), device)
    host(x)
    before, dispatches = launcher.submits, launcher.dispatches
    y = x
    steps = launcher.batch_limit * 2 + 3
    for _ in range(steps):
        y = y + 1.0
    n = launcher.dispatches - dispatches
    assert n == steps
    assert launcher.submits - before == _ramp_submits(n, wl.FIRST_BATCH, launcher.batch_limit)
    assert_close(y, host(x) + numpy.float32(steps), device=device)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex128"])
def test_element_assignments_batch_into_one_dispatch(dtype, ctx, device, rng) -> None:
    """``a[i, i] = v`` in a loop (scikit-learn's ``_fill_diagonal``) queues word copies: one
    scatter dispatch for the loop, later assignments to an element winning, in order with
    the work before and after it."""
    launcher = ctx.launcher
    if ctx.missing_feature(numpy.dtype(dtype)):
        pytest.skip(f"{device} lacks {dtype}")
    a = (rng.standard_normal((40, 40)) * 10).astype(dtype)
    v = numpy.asarray(3.25 - 1j if "complex" in dtype else 7, dtype)
    w = (v * 2 + 1).astype(dtype)
    x, dv, dw = put(a, device), put(v, device), put(w, device)
    x = x + 1  # pending work that the assignments must follow
    e = a + 1
    launcher.flush()
    before = launcher.dispatches
    for i in range(40):
        x[i, i] = dv
        e[i, i] = v
    x[5, 5] = dw  # the same element again: the later value wins
    x[7, 3] = dw
    e[5, 5] = e[7, 3] = w
    assert launcher.dispatches - before <= 1 and launcher._words, "queued, not yet recorded"
    y = x * 2  # recorded after the assignments
    assert launcher.dispatches - before == 3  # one scatter per source array, then the multiply
    numpy.testing.assert_array_equal(host(x), e)
    numpy.testing.assert_array_equal(host(y), e * 2)


def test_element_assignments_between_arrays_keep_order(ctx, device, rng) -> None:
    """An array read by queued copies and then written (or the reverse) keeps program order."""
    a = rng.standard_normal((6, 6)).astype("float32")
    b = rng.standard_normal(6).astype("float32")
    x, y = put(a, device), put(b, device)
    xa, yb = a.copy(), b.copy()
    for i in range(6):
        x[i, i] = y[i]  # reads y's element i
        xa[i, i] = yb[i]
        y[(i + 1) % 6] = x[0, i]  # writes y, reads x: the queue is recorded in between
        yb[(i + 1) % 6] = xa[0, i]
    numpy.testing.assert_array_equal(host(x), xa)
    numpy.testing.assert_array_equal(host(y), yb)
    z = put(b, device)
    z[0,] = y[3]  # queued: reads y's element 3 ...
    y[3,] = put(numpy.float32(9.5), device)  # ... which is written after it
    zb = b.copy()
    zb[0], yb[3] = yb[3], 9.5
    del y  # the queued copies keep y's buffer out of the pool until they are recorded
    t = put(numpy.zeros(6, "float32") + 4, device)
    numpy.testing.assert_array_equal(host(z), zb)
    numpy.testing.assert_array_equal(host(t), numpy.zeros(6, "float32") + 4)


def test_two_dimensional_grid(ctx, device) -> None:
    from ruda._backends.wgpu.compiler import Program  # noqa: F401

    class P:
        items_per_thread, workgroup = 1, 256

    assert ctx.launcher.grid(P, 256 * 65535) == (65535, 1)
    assert ctx.launcher.grid(P, 256 * 65535 + 1) == (65535, 2)
    n = 256 * 65535 + 300  # past the per-dimension cap: the y dimension is used
    x = ruda.full((n,), 2.0, dtype="float32", device=device)
    y = x + x
    h = host(y)
    assert h.shape == (n,) and (h == 4.0).all()


# -- errors ----------------------------------------------------------------------------------------
def test_missing_feature_errors(ctx, device, monkeypatch) -> None:
    from ruda._backends.wgpu.context import FeatureError
    from ruda._kernels import ir

    monkeypatch.setattr(ctx, "features", frozenset(ctx.features - {"shader-f64"}))
    with pytest.raises(TypeError, match=r"wgpu:0.*|shader-f64") as info:
        ruda.asarray(numpy.ones(3), device=device)
    assert "shader-f64" in str(info.value) and "wgpu:0" in str(info.value)
    dts = ruda.__array_namespace_info__().dtypes(device=device)
    assert "float64" not in dts and "float32" in dts
    x = ruda.asarray(numpy.ones(3, "float32"), device=device)
    with pytest.raises(TypeError, match="shader-f64"):
        ruda.astype(x, ruda.float64)
    k = ir.Kernel(
        "needs_f64", (ir.Buffer("o", ir.F64, 0, "read_write"),), (), (), features=frozenset({"f64"})
    )
    with pytest.raises(FeatureError, match="needs_f64.*shader-f64.*wgpu:0"):
        ctx.compiler.program(k)


def test_cross_device_mixing(device, rng) -> None:
    a = rng.standard_normal(5).astype("float32")
    x, c = put(a, device), put(a, "cpu")
    with pytest.raises(ValueError, match="different devices"):
        x + c
    with pytest.raises(TypeError, match="host data"):
        x + a
    from ruda._backends.wgpu.context import adapters

    if len(adapters()) > 1:
        other = ruda.Device("wgpu:1")
        try:
            y = put(a, other)
        except Exception as e:  # an adapter that cannot create a device here
            pytest.skip(f"wgpu:1 unusable: {e}")
        with pytest.raises(ValueError, match="wgpu:0.*wgpu:1|wgpu:1.*wgpu:0"):
            x + y
        from ruda._backends.wgpu.ops import apply
        from ruda._ops import OPS

        with pytest.raises(ValueError, match="different devices"):
            apply(OPS["add"], (x._data, y._data))
