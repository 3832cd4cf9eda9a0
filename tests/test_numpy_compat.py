"""The NumPy surface beyond the standard: error state, constants, helpers, stride tricks."""

from __future__ import annotations

import math

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put, to_numpy

REAL = ["float32", "float64"]
NUMERIC = ["int16", "int64", "uint8", "float32", "float64", "complex128"]


def _data(rng, dtype, shape=(4, 5)):
    """Random non-zero data of ``dtype`` with both signs where the dtype has them."""
    d = numpy.dtype(dtype)
    if d.kind == "u":
        return rng.integers(1, 50, size=shape).astype(d)
    if d.kind == "i":
        return rng.integers(-50, 50, size=shape).astype(d)
    if d.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(d)
    return (rng.standard_normal(shape) * 3).astype(d)


# -- constants and floating-point error state ---------------------------------------------------


def test_constants(device):
    assert ruda.euler_gamma == numpy.euler_gamma
    assert ruda.little_endian is numpy.little_endian
    assert not hasattr(ruda, "PINF") and not hasattr(ruda, "round_")


def test_errstate_context_manager(device):
    x = put(numpy.asarray([1.0, 2.0]), device)
    before = ruda.geterr()
    with ruda.errstate(divide="raise", invalid="ignore"):
        assert ruda.geterr()["divide"] == "raise"
        assert numpy.geterr()["invalid"] == "ignore"  # same state as NumPy's
        if device.kind == "cpu":  # Note: GPU backends do not trap
            with pytest.raises(FloatingPointError):
                x / 0.0
    assert ruda.geterr() == before
    with ruda.errstate(divide="ignore"):
        assert_close(x / 0.0, numpy.asarray([numpy.inf, numpy.inf]))


def test_errstate_decorator(device):
    @ruda.errstate(over="raise")
    def inner():
        return ruda.geterr()["over"]

    old = ruda.geterr()["over"]
    assert inner() == "raise"
    assert ruda.geterr()["over"] == old


def test_seterr_geterr_roundtrip(device):
    old = ruda.seterr(all="ignore")
    try:
        assert ruda.geterr() == dict.fromkeys(["divide", "over", "under", "invalid"], "ignore")
        assert numpy.geterr() == ruda.geterr()
    finally:
        ruda.seterr(**old)
    assert ruda.geterr() == old


def test_seterrcall(device):
    calls = []
    old_call = ruda.seterrcall(lambda kind, flag: calls.append(kind))
    try:
        assert ruda.geterrcall() is not None
        if device.kind == "cpu":
            with ruda.errstate(divide="call"):
                put(numpy.asarray([1.0]), device) / 0.0
            assert calls == ["divide by zero"]
    finally:
        ruda.seterrcall(old_call)
    assert ruda.geterrcall() is old_call


# -- math helpers -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", REAL + ["complex128"])
def test_sinc_angle(device, rng, dtype):
    a = _data(rng, dtype)
    a.flat[0] = 0
    x = put(a, device)
    assert_close(ruda.sinc(x), numpy.sinc(a), device=device)
    assert_close(ruda.angle(x), numpy.angle(a), device=device)
    assert_close(ruda.angle(x, deg=True), numpy.angle(a, deg=True), device=device)


@pytest.mark.parametrize("dtype", ["int64", *REAL])
def test_i0(device, rng, dtype):
    a = _data(rng, dtype)
    assert_close(ruda.i0(put(a, device)), numpy.i0(a), device=device)
    with pytest.raises(TypeError, match=r"ruda\.i0"):
        ruda.i0(put(a.astype(complex), device))


@pytest.mark.parametrize("dtype", REAL)
def test_isposinf_isneginf(device, rng, dtype):
    a = _data(rng, dtype)
    a.flat[:4] = [numpy.inf, -numpy.inf, numpy.nan, 0]
    x = put(a, device)
    assert_close(ruda.isposinf(x), numpy.isposinf(a), device=device)
    assert_close(ruda.isneginf(x), numpy.isneginf(a), device=device)
    out = put(numpy.ones(a.shape, dtype=bool), device)
    assert ruda.isposinf(x, out=out) is out
    assert_close(out, numpy.isposinf(a))
    with pytest.raises(TypeError, match=r"ruda\.isposinf"):
        ruda.isposinf(put(a.astype(complex), device))
    with pytest.raises(TypeError, match=r"ruda\.isneginf"):
        ruda.isneginf(put(a, device), out=numpy.zeros(a.shape, bool))


@pytest.mark.parametrize("dtype", REAL + ["complex128"])
def test_nan_to_num(device, rng, dtype):
    a = _data(rng, dtype)
    a.flat[:3] = [numpy.nan, numpy.inf, -numpy.inf]
    x = put(a, device)
    assert_close(ruda.nan_to_num(x), numpy.nan_to_num(a), device=device)
    kw = {"nan": -1.5, "posinf": 7.0, "neginf": -7.0}
    assert_close(ruda.nan_to_num(x, **kw), numpy.nan_to_num(a, **kw), device=device)
    assert numpy.isnan(to_numpy(x)).any()  # copy=True leaves x alone
    r = ruda.nan_to_num(x, copy=False)
    assert r is x
    assert_close(x, numpy.nan_to_num(a))
    i = _data(rng, "int32")
    assert_close(ruda.nan_to_num(put(i, device)), i)


def test_real_if_close(device, rng):
    a = rng.standard_normal(6)
    close = put(a + 1e-16j, device)
    assert_close(ruda.real_if_close(close), numpy.real_if_close(a + 1e-16j), device=device)
    far = a + 1e-3j
    assert_close(ruda.real_if_close(put(far, device)), numpy.real_if_close(far))
    assert_close(ruda.real_if_close(put(far, device), tol=1e14), numpy.real_if_close(far, 1e14))
    x = put(a, device)
    assert ruda.real_if_close(x) is x


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unwrap(device, rng, axis):
    a = numpy.cumsum(rng.uniform(-4, 4, size=(6, 7)), axis=axis)
    x = put(a, device)
    assert_close(ruda.unwrap(x, axis=axis), numpy.unwrap(a, axis=axis), device=device)
    assert_close(ruda.unwrap(x, 1.0, axis), numpy.unwrap(a, 1.0, axis))
    assert_close(ruda.unwrap(x, axis=axis, period=5.0), numpy.unwrap(a, axis=axis, period=5.0))
    i = rng.integers(-10, 10, size=9).cumsum()
    assert_close(ruda.unwrap(put(i, device), period=6), numpy.unwrap(i, period=6))
    with pytest.raises(ruda.AxisError, match=r"ruda\.unwrap"):
        ruda.unwrap(x, axis=2)


@given(
    a=hnp.arrays(
        numpy.float64,
        hnp.array_shapes(min_dims=1, max_dims=3),
        elements=st.floats(-1e6, 1e6, allow_nan=False),
    )
)
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_unwrap_sinc_hypothesis(device, a):
    x = put(a, device)
    assert_close(ruda.unwrap(x), numpy.unwrap(a), atol=1e-6)
    assert_close(ruda.sinc(x), numpy.sinc(a), atol=1e-12)
    assert_close(ruda.ediff1d(x), numpy.ediff1d(a))


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_ediff1d(device, rng, dtype):
    a = _data(rng, dtype)
    x = put(a, device)
    assert_close(ruda.ediff1d(x), numpy.ediff1d(a), device=device)
    assert_close(ruda.ediff1d(x, to_end=[7, 8], to_begin=-1), numpy.ediff1d(a, [7, 8], -1))
    end = numpy.asarray([3, 4], dtype=dtype)
    assert_close(ruda.ediff1d(x, to_end=put(end, device)), numpy.ediff1d(a, to_end=end))


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "complex128"])
@pytest.mark.parametrize("decimals", [-1, 0, 2])
def test_around(device, rng, dtype, decimals):
    a = _data(rng, dtype) * 17
    x = put(a, device)
    assert_close(ruda.around(x, decimals), numpy.around(a, decimals), device=device)
    if a.dtype.kind == "i":
        return  # NumPy itself cannot round integers into an out= array (a float divide)
    out = put(numpy.empty_like(a), device)
    assert ruda.around(x, decimals=decimals, out=out) is out
    assert_close(out, numpy.around(a, decimals))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_iscomplex_isreal(device, rng, dtype):
    a = _data(rng, dtype)
    if a.dtype.kind == "c":
        a.flat[::2] = a.flat[::2].real
    x = put(a, device)
    assert_close(ruda.iscomplex(x), numpy.iscomplex(a), device=device)
    assert_close(ruda.isreal(x), numpy.isreal(a), device=device)
    assert ruda.iscomplexobj(x) is numpy.iscomplexobj(a)
    assert ruda.isrealobj(x) is numpy.isrealobj(a)
    assert ruda.iscomplexobj([1, 2j]) and ruda.isrealobj([1.0])


# -- queries ----------------------------------------------------------------------------------


def test_isscalar_ndim_shape_size(device, rng):
    a = _data(rng, "float64", (3, 4, 2))
    x = put(a, device)
    for v in (3, 2.5, 1j, "s", b"b", numpy.float32(1)):
        assert ruda.isscalar(v) is numpy.isscalar(v)
    assert not ruda.isscalar(put(numpy.asarray(2.0), device))
    assert not ruda.isscalar([1])
    assert (ruda.ndim(x), ruda.shape(x), ruda.size(x)) == (3, (3, 4, 2), 24)
    assert ruda.ndim([[1, 2]]) == 2 and ruda.shape([[1, 2]]) == (1, 2) and ruda.shape(5) == ()
    for axis in (0, -1, (0, 2)):
        assert ruda.size(x, axis) == numpy.size(a, axis)
    assert ruda.size([[1, 2, 3]], 1) == 3
    with pytest.raises(ruda.AxisError, match=r"ruda\.size"):
        ruda.size(x, 3)


def test_isfortran(device, rng):
    a = _data(rng, "float64")
    x = put(a, device)
    assert ruda.isfortran(x) is numpy.isfortran(a) is False
    assert ruda.isfortran(x.T) is numpy.isfortran(a.T) is True
    assert ruda.isfortran(put(numpy.arange(3.0), device)) is False
    with pytest.raises(TypeError, match=r"ruda\.isfortran"):
        ruda.isfortran([[1, 2]])


def test_may_share_memory(device, rng):
    x = put(_data(rng, "float64", (10,)), device)
    y = put(_data(rng, "float64", (10,)), device)
    assert ruda.may_share_memory(x, x[2:])
    assert ruda.shares_memory(x, x[2:])
    assert not ruda.may_share_memory(x, y)
    assert not ruda.shares_memory(x, y)
    assert ruda.may_share_memory(x[::2], x[1::2])  # bounds overlap
    assert not ruda.shares_memory(x[::2], x[1::2])  # the exact answer
    assert not ruda.shares_memory(x, ruda.asarray(x, copy=True))


# -- Python functions over arrays ----------------------------------------------------------------


def test_vectorize(device, rng):
    a, b = _data(rng, "int64", (3, 4)), _data(rng, "int64", (4,))

    def f(p, q):
        return p - q if p > q else p + q

    x, y = put(a, device), put(b, device)
    r = ruda.vectorize(f)(x, y)
    assert isinstance(r, ruda.Array)
    assert_close(r, numpy.vectorize(f)(a, b), device=device)
    assert_close(
        ruda.vectorize(f, otypes=[ruda.float32])(x, 2), numpy.vectorize(f, otypes="f")(a, 2)
    )
    assert_close(ruda.vectorize(f, otypes="d")(x, 2), numpy.vectorize(f, otypes="d")(a, 2))
    assert ruda.vectorize(f, doc="hello").__doc__ == "hello"


def test_vectorize_ruda_inside(device, rng):
    a = _data(rng, "float64", (5,))

    @ruda.vectorize
    def g(v):
        # NumPy scripts call np functions on the scalars; ruda's 0-d results must be accepted.
        return ruda.sqrt(abs(v)) + 1

    assert_close(g(put(a, device)), numpy.sqrt(numpy.abs(a)) + 1, device=device)


def test_vectorize_excluded_signature_outputs(device, rng):
    a = _data(rng, "float64", (3, 5))

    def poly(v, coeffs):
        return sum(c * v**i for i, c in enumerate(coeffs))

    vp = ruda.vectorize(poly, excluded={1, "coeffs"})
    npp = numpy.vectorize(poly, excluded={1, "coeffs"})
    assert_close(vp(put(a, device), [1.0, 2.0]), npp(a, [1.0, 2.0]), device=device)
    assert_close(vp(put(a, device), coeffs=[3.0]), npp(a, coeffs=[3.0]))

    def stats(v):
        return v.mean(), v.max()

    vs = ruda.vectorize(stats, signature="(n)->(),()")
    m, mx = vs(put(a, device))
    em, emx = numpy.vectorize(stats, signature="(n)->(),()")(a)
    assert_close(m, em, device=device)
    assert_close(mx, emx, device=device)

    @ruda.vectorize(otypes=[float, float])
    def two(v):
        return v * 2, v + 1

    p, q = two(put(a, device))
    assert_close(p, a * 2)
    assert_close(q, a + 1)


def test_frompyfunc(device, rng):
    a = _data(rng, "int64", (3, 4))
    x = put(a, device)
    if device.kind != "cpu":
        # Object arrays live on the host only.
        with pytest.raises((NotImplementedError, TypeError)):
            ruda.frompyfunc(oct, 1, 1)(x)
        return
    f = ruda.frompyfunc(lambda p, q: p * 10 + q, 2, 1)
    g = numpy.frompyfunc(lambda p, q: p * 10 + q, 2, 1)
    assert (f.nin, f.nout, f.nargs) == (2, 1, 3)
    r = f(x, 3)
    assert isinstance(r, ruda.Array)
    numpy.testing.assert_array_equal(to_numpy(r), g(a, 3))
    assert to_numpy(r).dtype == object
    numpy.testing.assert_array_equal(to_numpy(f.reduce(x, axis=1)), g.reduce(a, axis=1))
    numpy.testing.assert_array_equal(to_numpy(f.accumulate(x)), g.accumulate(a))
    numpy.testing.assert_array_equal(to_numpy(f.outer(x[0], x[1])), g.outer(a[0], a[1]))
    octs = ruda.frompyfunc(oct, 1, 1)(x)
    assert to_numpy(octs).tolist() == numpy.frompyfunc(oct, 1, 1)(a).tolist()
    divmod_ = ruda.frompyfunc(divmod, 2, 2)
    q, m = divmod_(x, 7)
    assert to_numpy(q).tolist() == (a // 7).tolist() and to_numpy(m).tolist() == (a % 7).tolist()
    with pytest.raises(TypeError, match=r"ruda\.frompyfunc"):
        ruda.frompyfunc(3, 1, 1)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_apply_along_axis(device, rng, axis):
    a = _data(rng, "float64", (3, 4, 5))
    x = put(a, device)
    seen = []

    def first_last(v):
        seen.append(type(v))
        return v[0] + v[-1]

    assert_close(
        ruda.apply_along_axis(first_last, axis, x),
        numpy.apply_along_axis(lambda v: v[0] + v[-1], axis, a),
        device=device,
    )
    assert set(seen) == {ruda.Array}  # the function is given ruda arrays
    assert_close(
        ruda.apply_along_axis(lambda v, k: ruda.sort(v)[:k], axis, x, 2),
        numpy.apply_along_axis(lambda v, k: numpy.sort(v)[:k], axis, a, 2),
    )
    assert_close(
        ruda.apply_along_axis(lambda v: ruda.linalg.outer(v, v), axis, x),
        numpy.apply_along_axis(lambda v: numpy.outer(v, v), axis, a),
    )


def test_apply_along_axis_errors(device, rng):
    x = put(_data(rng, "float64"), device)
    with pytest.raises(ruda.AxisError, match=r"ruda\.apply_along_axis"):
        ruda.apply_along_axis(lambda v: v, 2, x)
    with pytest.raises(ValueError, match=r"ruda\.apply_along_axis"):
        ruda.apply_along_axis(lambda v: v, 1, put(numpy.ones((0, 3)), device))


def test_apply_over_axes(device, rng):
    a = _data(rng, "float64", (3, 4, 5))
    x = put(a, device)
    for axes in ([0, 2], 1, (-1, 0)):
        assert_close(
            ruda.apply_over_axes(ruda.sum, x, axes),
            numpy.apply_over_axes(numpy.sum, a, axes),
            device=device,
        )
    with pytest.raises(ruda.AxisError, match=r"ruda\.apply_over_axes"):
        ruda.apply_over_axes(ruda.sum, x, [3])


# -- stride tricks ------------------------------------------------------------------------------


def test_lib_reachable(device):
    import ruda.lib.stride_tricks as st_mod

    assert ruda.lib.stride_tricks is st_mod
    assert "lib" in ruda.__all__


@pytest.mark.parametrize(
    ("shape", "window", "axis"),
    [((10,), 3, None), ((6, 7), (2, 3), None), ((6, 7), 3, 1), ((6, 7), (2, 2), (0, -1))],
)
def test_sliding_window_view(device, rng, shape, window, axis):
    swv = ruda.lib.stride_tricks.sliding_window_view
    a = _data(rng, "float32", shape)
    x = put(a, device)
    r = swv(x, window, axis)
    assert_close(r, numpy.lib.stride_tricks.sliding_window_view(a, window, axis), device=device)
    if device.kind == "cpu":
        assert ruda.shares_memory(r, x)
        with pytest.raises(ValueError):
            r[(0,) * r.ndim] = 1  # read-only unless writeable=True


def test_sliding_window_view_errors(device, rng):
    swv = ruda.lib.stride_tricks.sliding_window_view
    x = put(_data(rng, "float64", (4, 5)), device)
    with pytest.raises(ValueError, match=r"ruda\.lib\.stride_tricks\.sliding_window_view"):
        swv(x, 3)
    with pytest.raises(ValueError, match="larger"):
        swv(x, 6, axis=1)
    with pytest.raises(ValueError, match="negative"):
        swv(x, (-1, 2))
    with pytest.raises(ruda.AxisError, match="sliding_window_view"):
        swv(x, 2, axis=2)


def test_as_strided(device, rng):
    a = _data(rng, "int64", (12,))
    x = put(a, device)
    shape, strides = (5, 4), (16, 8)
    r = ruda.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)
    e = numpy.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)
    assert_close(r, e, device=device)
    assert ruda.lib.stride_tricks.as_strided(x).shape == (12,)
    if device.kind == "cpu":
        x[2] = 1000  # a view: writes to the base show through
        assert int(r[1, 0]) == 1000


def test_wrong_device_name(device):
    with pytest.raises(ValueError, match=r"ruda\.Device"):
        ruda.asarray([1.0], device="tpu")
    x = put(numpy.asarray([1.0, math.pi]), device)
    assert_close(ruda.sinc(x), numpy.sinc([1.0, math.pi]), atol=1e-15)


@given(
    a=hnp.arrays(
        st.sampled_from([numpy.float32, numpy.float64]),
        hnp.array_shapes(min_dims=0, max_dims=3),
        elements={"allow_nan": True, "allow_infinity": True, "allow_subnormal": False},
    ),
    window=st.integers(1, 3),
)
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_nonfinite_and_windows_hypothesis(device, a, window):
    x = put(a, device)
    assert_close(ruda.nan_to_num(x), numpy.nan_to_num(a))
    assert_close(ruda.isposinf(x), numpy.isposinf(a))
    assert_close(ruda.isneginf(x), numpy.isneginf(a))
    assert_close(ruda.iscomplex(x), numpy.iscomplex(a))
    if a.ndim and a.shape[-1] >= window:
        swv = ruda.lib.stride_tricks.sliding_window_view
        e = numpy.lib.stride_tricks.sliding_window_view(a, window, axis=-1)
        assert_close(swv(x, window, axis=-1), e)
