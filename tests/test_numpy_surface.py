"""Drop-in fidelity (issue 39): every public NumPy name is in ruda or listed with a reason, and
the names added for it match NumPy on every device (fresh random data, NumPy as the oracle)."""

from __future__ import annotations

import warnings

import numpy
import pytest

import ruda
from tests.helpers import assert_close, put, to_numpy

_LATER = "not yet: issue 39"

# Public NumPy names ruda lacks, each with its reason. The test fails on a missing name not
# listed here and on a listed name that ruda now has (drop it from the list then).
MISSING: dict[str, str] = {
    "core": "NumPy's private implementation package (deprecated numpy.core), not an API",
    "f2py": "NumPy's Fortran wrapper generator, a build tool, not an array function",
    "test": "NumPy's own test-suite runner; ruda's suite runs with pytest",
    "asmatrix": f"{_LATER} (numpy.matrix, a cpu-only NumPy subclass NumPy discourages)",
    "bmat": f"{_LATER} (numpy.matrix, a cpu-only NumPy subclass NumPy discourages)",
    "matrix": f"{_LATER} (numpy.matrix, a cpu-only NumPy subclass NumPy discourages)",
    "broadcast": f"{_LATER} (NumPy's iterator objects)",
    "flatiter": f"{_LATER} (NumPy's iterator objects)",
    "nditer": f"{_LATER} (NumPy's iterator objects)",
    "nested_iters": f"{_LATER} (NumPy's iterator objects)",
    "busday_count": f"{_LATER} (datetime64 dtypes)",
    "busday_offset": f"{_LATER} (datetime64 dtypes)",
    "busdaycalendar": f"{_LATER} (datetime64 dtypes)",
    "is_busday": f"{_LATER} (datetime64 dtypes)",
    "datetime_as_string": f"{_LATER} (datetime64 dtypes)",
    "datetime_data": f"{_LATER} (datetime64 dtypes)",
    "char": f"{_LATER} (string dtypes)",
    "strings": f"{_LATER} (string dtypes)",
    "character": f"{_LATER} (string dtypes)",
    "flexible": f"{_LATER} (string and record dtypes)",
    "rec": f"{_LATER} (record arrays, cpu-only NumPy objects)",
    "recarray": f"{_LATER} (record arrays, cpu-only NumPy objects)",
    "record": f"{_LATER} (record arrays, cpu-only NumPy objects)",
    "complex256": f"{_LATER} (x86 extended precision: no such dtype on ruda's devices)",
    "float128": f"{_LATER} (x86 extended precision: no such dtype on ruda's devices)",
    "ctypeslib": f"{_LATER} (ctypes pointers into host memory: cpu-only)",
    "memmap": f"{_LATER} (a file-backed host array: cpu-only NumPy object)",
    "ma": f"{_LATER} (masked arrays)",
    "dtypes": f"{_LATER} (NumPy's DType classes)",
    "typing": f"{_LATER} (static type aliases such as ArrayLike)",
    "ufunc": f"{_LATER} (ruda's elementwise functions are not numpy.ufunc objects)",
    "poly1d": f"{_LATER} (the polynomial class)",
    "polynomial": f"{_LATER} (the polynomial package)",
    "fromregex": f"{_LATER} (text parsing)",
    "fromstring": f"{_LATER} (text parsing)",
    "info": f"{_LATER} (interactive help)",
}


def _numpy_public() -> set[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {n for n in dir(numpy) if not n.startswith("_")}


def test_every_numpy_name_is_present_or_listed():
    missing = sorted(n for n in _numpy_public() if not hasattr(ruda, n) and n not in MISSING)
    assert not missing, f"NumPy names missing from ruda without a listed reason: {missing}"


def test_listed_names_are_still_missing():
    present = sorted(n for n in MISSING if hasattr(ruda, n))
    assert not present, f"listed in MISSING but ruda has them now: {present}"
    assert all(MISSING.values())


def _raises(exc: type[BaseException], name: str):
    return pytest.raises(exc, match=rf"^ruda\.{name}:")


# -- window functions -------------------------------------------------------------------------

WINDOWS = ["bartlett", "blackman", "hamming", "hanning"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("M", [0, 1, 2, 7, 16, 9.0])
def test_windows(device, name, M):
    r = getattr(ruda, name)(M, device=device)
    assert r.device == device
    assert_close(r, getattr(numpy, name)(M), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("M", [0, 1, 2, 7, 12])
def test_kaiser(device, rng, M):
    beta = float(rng.uniform(0, 14))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = ruda.kaiser(M, beta, device=device)
    assert_close(r, numpy.kaiser(M, beta), rtol=1e-12, atol=1e-15)


def test_window_dtype_and_errors(device):
    r = ruda.hanning(6, device=device, dtype=ruda.float32)
    assert r.dtype == ruda.float32
    assert_close(r, numpy.hanning(6).astype(numpy.float32))
    with _raises(TypeError, "bartlett"):
        ruda.bartlett("a")
    with _raises(TypeError, "kaiser"):
        ruda.kaiser(3, "a")


# -- bits ---------------------------------------------------------------------------------------

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_bitwise_count(device, rng, dtype):
    if dtype == "bool":
        a = rng.integers(0, 2, 33).astype(bool)
    else:
        info = numpy.iinfo(dtype)
        a = rng.integers(0, 256, 64 * info.bits // 8, dtype=numpy.uint8).view(dtype)
        a = numpy.concatenate([a, numpy.array([info.min, info.max, 0], dtype=dtype)])
    assert_close(ruda.bitwise_count(put(a, device)), numpy.bitwise_count(a))


def test_bitwise_count_out_and_errors(device):
    a = numpy.array([3, -1, 255])
    out = ruda.empty(3, dtype=ruda.uint8, device=device)
    assert ruda.bitwise_count(put(a, device), out=out) is out
    assert_close(out, numpy.bitwise_count(a))
    with _raises(TypeError, "bitwise_count"):
        ruda.bitwise_count(ruda.asarray([1.0], device=device))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits_unpackbits(device, rng, axis, bitorder):
    a = rng.integers(-2, 3, (3, 11, 5))
    packed = numpy.packbits(a, axis=axis, bitorder=bitorder)
    assert_close(ruda.packbits(put(a, device), axis=axis, bitorder=bitorder), packed)
    for count in (None, 0, 5, -3, 100):
        r = ruda.unpackbits(put(packed, device), axis=axis, count=count, bitorder=bitorder)
        assert_close(r, numpy.unpackbits(packed, axis=axis, count=count, bitorder=bitorder))


def test_packbits_bool_and_errors(device, rng):
    a = rng.integers(0, 2, 19).astype(bool)
    assert_close(ruda.packbits(put(a, device)), numpy.packbits(a))
    with _raises(TypeError, "packbits"):
        ruda.packbits(ruda.asarray([1.0], device=device))
    with _raises(ValueError, "packbits"):
        ruda.packbits(put(a, device), bitorder="middle")
    with _raises(TypeError, "unpackbits"):
        ruda.unpackbits(ruda.asarray([1], device=device))
    with _raises(ValueError, "unpackbits"):
        ruda.unpackbits(ruda.asarray([1], dtype=ruda.uint8, device=device), count=-9)


# -- array helpers ------------------------------------------------------------------------------


def test_rollaxis(device, rng):
    a = rng.standard_normal((2, 3, 4))
    x = put(a, device)
    for axis in range(-3, 3):
        for start in range(-3, 4):
            assert_close(ruda.rollaxis(x, axis, start), numpy.rollaxis(a, axis, start))
    with pytest.raises(ValueError, match=r"^ruda\.rollaxis:"):
        ruda.rollaxis(x, 0, 5)


def test_copyto(device, rng):
    src = rng.standard_normal(4)
    mask = rng.random((3, 4)) > 0.5
    d, e = ruda.zeros((3, 4), device=device), numpy.zeros((3, 4))
    ruda.copyto(d, put(src, device), where=put(mask, device))
    numpy.copyto(e, src, where=mask)
    assert_close(d, e)
    ruda.copyto(d, 2.5)
    numpy.copyto(e, 2.5)
    assert_close(d, e)
    di, ei = ruda.zeros(4, dtype=ruda.int32, device=device), numpy.zeros(4, dtype=numpy.int32)
    ruda.copyto(di, put(src * 10, device), casting="unsafe")
    numpy.copyto(ei, src * 10, casting="unsafe")
    assert_close(di, ei)
    with _raises(TypeError, "copyto"):
        ruda.copyto(di, put(src, device))
    with _raises(TypeError, "copyto"):
        ruda.copyto(di, 1.5)
    with _raises(OverflowError, "copyto"):
        ruda.copyto(ruda.zeros(2, dtype=ruda.int8, device=device), 300)
    with _raises(ValueError, "copyto"):
        ruda.copyto(d, put(src[:2], device))
    with _raises(TypeError, "copyto"):
        ruda.copyto([0.0, 1.0], put(src, device))


def test_putmask(device, rng):
    a = rng.integers(0, 10, (3, 5))
    m = a > 4
    for values in (rng.integers(-9, 0, 4), rng.integers(-9, 0, 20), numpy.int8(-3)):
        x, e = put(a, device), a.copy()
        ruda.putmask(x, put(m, device), put(numpy.asarray(values), device))
        numpy.putmask(e, m, values)
        assert_close(x, e)
    for values in (7.9, [7.9, -1.2], -5):  # non-arrays convert to a's dtype
        x, e = put(a, device), a.copy()
        ruda.putmask(x, put(m, device), values)
        numpy.putmask(e, m, values)
        assert_close(x, e)
    with _raises(TypeError, "putmask"):
        ruda.putmask(put(a, device), put(m, device), put(numpy.array([1.5]), device))
    with _raises(OverflowError, "putmask"):
        ruda.putmask(put(a.astype(numpy.int8), device), put(m, device), 300)
    with _raises(ValueError, "putmask"):
        ruda.putmask(put(a, device), put(m[:2], device), 1)
    with _raises(TypeError, "putmask"):
        ruda.putmask([1, 2], [True, False], 1)


def test_piecewise(device, rng):
    a = rng.standard_normal(12)
    x = put(a, device)
    r = ruda.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 10])
    assert_close(r, numpy.piecewise(a, [a < 0, a >= 0], [lambda v: -v, lambda v: v * 10]))
    r = ruda.piecewise(x, x < -0.5, [lambda v: v**2, 3.0])  # one condition, an otherwise value
    assert_close(r, numpy.piecewise(a, a < -0.5, [lambda v: v**2, 3.0]))
    with _raises(ValueError, "piecewise"):
        ruda.piecewise(x, [x < 0], [1.0, 2.0, 3.0])


def test_asarray_chkfinite(device, rng):
    a = rng.standard_normal(5)
    assert_close(ruda.asarray_chkfinite(put(a, device)), a)
    assert_close(ruda.asarray_chkfinite([1, 2], dtype=ruda.float32), numpy.float32([1, 2]))
    a[2] = numpy.nan
    with _raises(ValueError, "asarray_chkfinite"):
        ruda.asarray_chkfinite(put(a, device))


@pytest.mark.parametrize("req", [None, "C", "F", "A", "W", "O", "E", ["C", "W"], "FA"])
def test_require(device, rng, req):
    a = rng.standard_normal((3, 4))
    r = ruda.require(put(a, device).T, requirements=req)
    assert r.device == device
    assert_close(r, numpy.require(a.T, requirements=req))
    if device.kind == "cpu":
        for flag, want in (("C", "C_CONTIGUOUS"), ("F", "F_CONTIGUOUS")):
            if req and flag in req:
                assert r.flags[want]
    r = ruda.require(put(a, device), dtype=ruda.float32, requirements="C")
    assert_close(r, numpy.require(a, dtype=numpy.float32, requirements="C"))


def test_require_errors(device):
    with _raises(ValueError, "require"):
        ruda.require(ruda.ones(3, device=device), requirements="CF")
    with pytest.raises(KeyError):
        ruda.require(ruda.ones(3, device=device), requirements="Q")


def test_mask_indices(device):
    for k in (-1, 0, 2):
        r = ruda.mask_indices(4, ruda.triu, k, device=device)
        for got, want in zip(r, numpy.mask_indices(4, numpy.triu, k), strict=True):
            assert_close(got, want)


def test_matvec_vecmat(device, rng):
    m = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    v = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    w = rng.standard_normal((2, 3)) - 1j * rng.standard_normal((2, 3))
    assert_close(ruda.matvec(put(m, device), put(v, device)), numpy.matvec(m, v), rtol=1e-12)
    assert_close(ruda.vecmat(put(w, device), put(m, device)), numpy.vecmat(w, m), rtol=1e-12)
    mr = rng.standard_normal((5, 4))
    assert_close(ruda.matvec(put(mr, device), put(v.real, device)), numpy.matvec(mr, v.real))
    out = ruda.empty(5, device=device)
    assert ruda.matvec(put(mr, device), put(v.real, device), out=out) is out
    assert_close(out, numpy.matvec(mr, v.real))
    with _raises(ValueError, "matvec"):
        ruda.matvec(put(mr, device), put(v.real[:3], device))
    with _raises(ValueError, "vecmat"):
        ruda.vecmat(put(v.real, device), put(v.real, device))


def test_polydiv(device, rng):
    for nu, nv in ((6, 3), (3, 3), (2, 4), (5, 1)):
        u, v = rng.standard_normal(nu), rng.standard_normal(nv)
        q, r = ruda.polydiv(put(u, device), put(v, device))
        eq, er = numpy.polydiv(u, v)
        assert_close(q, eq, rtol=1e-9, atol=1e-12)
        assert_close(r, er, rtol=1e-9, atol=1e-12)
    q, r = ruda.polydiv(put(numpy.array([1, -3, 2]), device), put(numpy.array([1, -1]), device))
    eq, er = numpy.polydiv([1, -3, 2], [1, -1])
    assert_close(q, eq)
    assert_close(r, er)


# -- emath --------------------------------------------------------------------------------------

EMATH = ["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"]


@pytest.mark.parametrize("name", EMATH)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "int64", "complex128"])
def test_emath(device, rng, name, dtype):
    a = rng.standard_normal(9) * 3
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(9)
    a = a.astype(dtype)
    a = a[a != 0] if dtype.startswith("int") else a  # the log of 0 divides by zero in NumPy too
    with numpy.errstate(all="ignore"):
        e = getattr(numpy.emath, name)(a)
    with ruda.errstate(all="ignore"):
        r = getattr(ruda.emath, name)(put(a, device))
    # single precision (int16 takes float32's loop): a GPU's log10f may be 1 ulp off NumPy's
    rtol = 1e-5 if e.dtype in (numpy.complex64, numpy.float32) else 1e-9
    assert_close(r, e, rtol=rtol, atol=1e-12)
    inside = numpy.abs(rng.standard_normal(5)) * 0.4 + 0.1  # the real domain: real results
    assert_close(getattr(ruda.emath, name)(put(inside, device)), getattr(numpy.emath, name)(inside))


def test_emath_power_logn(device, rng):
    x = rng.standard_normal(6) * 3
    p = rng.integers(-2, 3, 6)
    assert_close(ruda.emath.power(put(x, device), put(p, device)), numpy.emath.power(x, p))
    xi = rng.integers(-4, 5, 6)
    xi[xi == 0] = 1
    assert_close(ruda.emath.power(put(xi, device), put(p, device)), numpy.emath.power(xi, p))
    assert_close(ruda.emath.logn(put(numpy.array(2.0), device), put(x, device)),
                 numpy.emath.logn(2.0, x), rtol=1e-12)  # fmt: skip


# -- exceptions, testing, types and configuration -------------------------------------------


def test_exceptions():
    assert ruda.exceptions.AxisError is ruda.AxisError
    for name in numpy.exceptions.__all__:
        if name != "AxisError":
            assert getattr(ruda.exceptions, name) is getattr(numpy.exceptions, name)
    with pytest.raises(ruda.exceptions.AxisError):
        ruda.rollaxis(ruda.ones((2, 2)), 5)


def test_testing_takes_device_arrays(device, rng):
    a = rng.standard_normal(5)
    x = put(a, device)
    ruda.testing.assert_allclose(x, a)
    ruda.testing.assert_array_equal(x, [x, x][0])
    ruda.testing.assert_array_almost_equal(x, a + 1e-9)
    ruda.testing.assert_almost_equal(x, a)
    ruda.testing.assert_equal({"k": (x,)}, {"k": (a,)})
    ruda.testing.assert_array_less(x, a + 1)
    ruda.testing.assert_array_max_ulp(x, a)
    with pytest.raises(AssertionError):
        ruda.testing.assert_allclose(x, a + 1)
    ruda.testing.assert_raises(ValueError, ruda.asarray_chkfinite, put(a + numpy.inf, device))
    assert type(ruda.testing.to_host(x)) is numpy.ndarray


def test_type_objects_and_tables():
    assert ruda.True_ is numpy.True_ and ruda.False_ is numpy.False_
    assert ruda.long == numpy.long and ruda.ulong == numpy.ulong
    assert ruda.ScalarType is numpy.ScalarType
    assert ruda.typecodes == numpy.typecodes and ruda.sctypeDict == numpy.sctypeDict


def test_pure_python_helpers(rng):
    for n in rng.integers(-1000, 1000, 10).tolist():
        for base in (2, 3, 16, 36):
            assert ruda.base_repr(n, base, padding=2) == numpy.base_repr(n, base, padding=2)
        assert ruda.binary_repr(n) == numpy.binary_repr(n)
        assert ruda.binary_repr(n, width=12) == numpy.binary_repr(n, width=12)
    assert ruda.base_repr(ruda.asarray(255), 16) == "FF"
    with _raises(ValueError, "base_repr"):
        ruda.base_repr(3, 40)
    with _raises(ValueError, "binary_repr"):
        ruda.binary_repr(-5, width=2)
    for obj in ([1], 2, "ab", ruda.asarray([1, 2]), ruda.asarray(1)):
        assert ruda.iterable(obj) == numpy.iterable(numpy.asarray(obj) if isinstance(
            obj, ruda.Array) else obj)  # fmt: skip
    for chars in (["d", "f"], "fF", ["i"], [ruda.asarray([1.0], dtype=ruda.float32)]):
        want = [c if isinstance(c, str) else "f" for c in chars]
        assert ruda.mintypecode(chars) == numpy.mintypecode(want)
    for c in "dfibBhHlLqQ?FDG":
        assert ruda.typename(c) == numpy.typename(c)


def test_configuration(capsys):
    old = ruda.getbufsize()
    assert old == numpy.getbufsize()
    assert ruda.setbufsize(16384) == old and numpy.getbufsize() == 16384
    ruda.setbufsize(old)
    assert ruda.get_include() == numpy.get_include()
    cfg = ruda.show_config(mode="dicts")
    assert cfg["ruda"]["version"] == ruda.__version__ and "cpu" in cfg["devices"]
    ruda.show_config()
    out = capsys.readouterr().out
    assert "devices:" in out and ruda.__version__ in out
    ruda.show_runtime()
    assert "cpu" in capsys.readouterr().out
    assert to_numpy(ruda.asarray([1])).tolist() == [1]
