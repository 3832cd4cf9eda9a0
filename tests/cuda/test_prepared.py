"""Chains of small elementwise ops through the C fast path (``_native/_cuda_fast.c``) on the device:
results against NumPy, and the count of launches made from C (``_cuda_fast.launches()``).

On a process that sees more than one GPU the prepared launchers switch devices in Python
(``ctx.multi``), so there the C launch count stays put; run with ``CUDA_VISIBLE_DEVICES=0`` to
check the C launches too.
"""

from __future__ import annotations

import threading

import numpy
import pytest

import ruda
from ruda._backends.cuda import driver
from tests.gpu.test_runtime import host

pytestmark = pytest.mark.devices("cuda")


@pytest.fixture
def fast(ctx) -> bool:
    """Whether prepared launches run in C here (one device); fails where the extension is
    missing, since this module is about it."""
    if not driver.C_FAST:
        pytest.fail("ruda._native._cuda_fast is not built: run scripts/build_ext.sh")
    return not ctx.multi


def c_launches() -> int:
    from ruda._native import _cuda_fast

    return _cuda_fast.launches()


def check_launches(fast: bool, before: int, want: int) -> None:
    assert c_launches() - before == (want if fast else 0)


def test_ops_are_the_c_objects(device, fast) -> None:
    from ruda._dispatch import lookup
    from ruda._native import _cuda_fast

    for name in ("add", "multiply", "negative", "sqrt"):
        assert type(lookup(name, device).__wrapped__) is _cuda_fast.Elementwise
    assert type(lookup("ldexp", device).__wrapped__) is not _cuda_fast.Elementwise


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "int16"])
def test_chain_matches_numpy(dtype: str, device, rng, fast) -> None:
    if dtype.startswith("float"):
        a = (rng.standard_normal(1000) * 50).astype(dtype)
    else:
        a = rng.integers(0 if dtype[0] == "u" else -50, 50, 1000).astype(dtype)
    s = rng.choice([-1, 1], 1000).astype(dtype) if dtype[0] != "u" else numpy.ones(1000, dtype)
    x, m = ruda.asarray(a, device=device), ruda.asarray(s, device=device)
    steps = 200

    def chain(z, xs, ms, neg):
        for _ in range(steps):
            z = neg(z * ms + xs)
        return z

    chain(x, x, m, ruda.negative)  # the first calls prepare the launchers
    before = c_launches()
    got = chain(x, x, m, ruda.negative)
    check_launches(fast, before, 3 * steps)
    with numpy.errstate(over="ignore"):
        want = chain(a, a, s, numpy.negative)
    numpy.testing.assert_array_equal(host(got), want)


def test_chain_of_1000_adds_and_unary_ops(device, rng, fast) -> None:
    a = rng.standard_normal((25, 40)).astype(numpy.float32)
    x = ruda.asarray(a, device=device)
    y, w = x + x, a + a
    ruda.sqrt(ruda.abs(y))  # the first calls prepare the launchers
    before = c_launches()
    for _ in range(1000):
        y, w = y + x, w + a
    u, v = ruda.sqrt(ruda.abs(y)), numpy.sqrt(numpy.abs(w))
    check_launches(fast, before, 1000 + 2)
    numpy.testing.assert_array_equal(host(y), w)
    numpy.testing.assert_allclose(host(u), v, rtol=2.5e-7)  # sqrt within one ulp


def test_other_layouts_and_dtypes_take_the_full_path(device, rng, fast) -> None:
    a = rng.standard_normal((30, 40)).astype(numpy.float32)
    b = rng.integers(-100, 100, (30, 40)).astype(numpy.int32)
    x, i = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    x + x  # prepared: float32 pairs of this size class take the C path from here on
    before = c_launches()
    numpy.testing.assert_array_equal(host(x.T + x.T), a.T + a.T)  # strided views
    numpy.testing.assert_array_equal(host(x + i), a + b)  # mixed dtypes: promoted in apply
    numpy.testing.assert_array_equal(host(x + i), a + b)
    numpy.testing.assert_array_equal(host(x[:, :20] + x[:, 20:]), a[:, :20] + a[:, 20:])
    numpy.testing.assert_array_equal(host(x + 1.5), a + numpy.float32(1.5))  # a scalar
    out = ruda.empty_like(x)
    ruda.add(x, x, out=out)  # out=
    numpy.testing.assert_array_equal(host(out), a + a)
    check_launches(fast, before, 0)
    numpy.testing.assert_array_equal(host(x + x), a + a)
    check_launches(fast, before, 1)


def test_launches_follow_the_current_stream(device, rng, fast) -> None:
    import cupy

    drv = driver.driver()
    assert drv.current_stream() == cupy.cuda.get_current_stream().ptr
    a = rng.standard_normal(1000).astype(numpy.float32)
    x = ruda.asarray(a, device=device)
    x + x
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        assert drv.current_stream() == s.ptr != 0
        before = c_launches()
        y = x
        for _ in range(100):
            y = y + x
        check_launches(fast, before, 100)
        s.synchronize()
        got = host(y)
    assert drv.current_stream() == cupy.cuda.get_current_stream().ptr
    w = a
    for _ in range(100):
        w = w + a
    numpy.testing.assert_array_equal(got, w)


def test_launches_from_a_new_thread(device, rng, fast) -> None:
    a = rng.standard_normal(1000).astype(numpy.float32)
    x = ruda.asarray(a, device=device)
    x + x
    out: list = []
    before = c_launches()

    def work() -> None:  # a thread whose first CUDA call is this launch
        y = x
        for _ in range(10):
            y = y + x
        out.append(y)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    check_launches(fast, before, 10)
    w = a
    for _ in range(10):
        w = w + a
    numpy.testing.assert_array_equal(host(out[0]), w)


def test_a_failed_launch_raises(device, ctx, rng, fast) -> None:
    from ruda._kernels import elementwise, ir
    from ruda._native import _cuda_fast

    x = ruda.asarray(rng.standard_normal(100).astype(numpy.float32), device=device)._data
    prog = ctx.compiler.program(elementwise.build("add", (ir.F32, ir.F32), ir.F32, None))
    # 4096 threads per block: the driver refuses the launch at once (not a sticky error)
    bad = _cuda_fast.Prepared(driver.driver(), ctx, ctx.allocator.pool_alloc,
                              numpy.dtype("float32"), prog.fptr, 4096, 4096, 2, "bad")  # fmt: skip
    with pytest.raises(RuntimeError, match=r"^ruda\.bad: cuLaunchKernel failed with CUDA error 1 "
                                           r"\(CUDA_ERROR_INVALID_VALUE: "):  # fmt: skip
        bad(x, x)
    assert bad.launches == 0
    # the device still works
    a = rng.standard_normal(100).astype(numpy.float32)
    y = ruda.asarray(a, device=device)
    numpy.testing.assert_array_equal(host(y + y), a + a)
