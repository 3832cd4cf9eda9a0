"""bfloat16, the extra dtype beside float16: promotion, limits, casts, every float elementwise
function, reductions, scans, products, sorting and indexing, on every device that holds it.

The oracle is NumPy in float64 on the bfloat16 inputs, rounded once to bfloat16 (ml_dtypes'
rounding); results computed in float32 and rounded once may differ from it by one bfloat16
ulp where float32's own rounding tips the last bit. WebGPU has no bfloat16: there the dtype is
a clear TypeError.
"""

from __future__ import annotations

import ml_dtypes
import numpy
import pytest

import ruda
from ruda._dtypes import category_kinds
from ruda._ops import ELEMENTWISE

from .conftest import DEVICES
from .helpers import put, to_numpy

BF = numpy.dtype(ml_dtypes.bfloat16)
ULP = 2.0**-7  # bfloat16's spacing at 1 (8 significant bits)


# The devices that hold bfloat16: every one but WebGPU (whose refusal is tested on its own).
HOLDERS = [d for d in DEVICES if not d.startswith("wgpu")]


@pytest.fixture(params=HOLDERS)
def bdev(request) -> ruda.Device:
    return ruda.Device(request.param)


def _bf(a) -> numpy.ndarray:
    return numpy.asarray(a, dtype=numpy.float64).astype(BF)


def _close(actual, expected64, ulps: float = 1.0, atol: float = 0.0) -> None:
    """bfloat16 ``actual`` within ``ulps`` bfloat16 ulps of the float64 reference."""
    a = to_numpy(actual)
    assert a.dtype == BF, f"dtype {a.dtype}, expected bfloat16"
    e = numpy.asarray(expected64, dtype=numpy.float64)
    assert a.shape == e.shape
    numpy.testing.assert_allclose(a.astype(numpy.float64), e, rtol=ulps * ULP, atol=atol,
                                  equal_nan=True)  # fmt: skip


# -- the dtype itself ---------------------------------------------------------------------------
def test_dtype_identity_and_limits():
    assert ruda.bfloat16 == BF and ruda.dtype("bfloat16") is ruda.bfloat16
    assert ruda.bfloat16.kind == "f" and ruda.bfloat16.itemsize == 2
    f = ruda.finfo(ruda.bfloat16)
    assert (f.bits, f.eps, f.max) == (16, 2.0**-7, float(ml_dtypes.finfo(BF).max))
    assert ruda.isdtype(ruda.bfloat16, "real floating")
    assert not ruda.isdtype(ruda.bfloat16, ("integral", "complex floating"))


# Promotion: float16's rules with bfloat16 in its place; the two together are float32.
_PROMOTE = {
    "bool": "bfloat16", "int8": "bfloat16", "uint8": "bfloat16", "int16": "float32",
    "uint16": "float32", "int32": "float64", "uint32": "float64", "int64": "float64",
    "uint64": "float64", "float16": "float32", "bfloat16": "bfloat16", "float32": "float32",
    "float64": "float64", "complex64": "complex64", "complex128": "complex128",
}  # fmt: skip


@pytest.mark.parametrize("other", sorted(_PROMOTE))
def test_promotion(other):
    o = ruda.dtype(other)
    assert ruda.result_type(ruda.bfloat16, o).name == _PROMOTE[other]
    assert ruda.result_type(o, ruda.bfloat16).name == _PROMOTE[other]


def test_python_scalars_keep_bfloat16(bdev):
    x = put(_bf([1.5, -2.25]), bdev)
    assert (x + 1).dtype == ruda.bfloat16 and (x * 0.5).dtype == ruda.bfloat16
    assert (x + 1j).dtype == ruda.complex64
    _close(x * 0.5, [0.75, -1.125], ulps=0)


# -- casts: bit for bit with ml_dtypes ----------------------------------------------------------
_SPECIAL = [0.0, -0.0, 1.0, -1.5, 3.0e38, -3.4e38, 1e-40, -2.5e-41, numpy.inf, -numpy.inf,
            numpy.nan, 0.333333, 65504.0, 1 + 2**-8, 1 + 3 * 2**-9]  # fmt: skip


@pytest.mark.parametrize("src", ["float32", "float64", "float16", "int8", "int64", "uint16",
                                 "bool", "complex64"])  # fmt: skip
def test_casts_to_bfloat16(bdev, src, rng):
    if src in ("float32", "float64", "complex64"):
        vals = numpy.concatenate([_SPECIAL, rng.standard_normal(200) * 10.0 ** rng.integers(
            -30, 30, 200)]).astype(src)  # fmt: skip
    elif src == "float16":
        vals = numpy.concatenate([[0.0, -0.0, 1.0, numpy.inf, numpy.nan, 6e-8, 65504.0],
                                  rng.standard_normal(200) * 100]).astype(src)  # fmt: skip
    elif src == "bool":
        vals = rng.integers(0, 2, 50).astype(bool)
    else:
        info = numpy.iinfo(src)
        vals = rng.integers(info.min, info.max, 300, dtype=src, endpoint=True)
    x = put(vals, bdev)
    with numpy.errstate(all="ignore"):
        want = (vals.real if src == "complex64" else vals).astype(BF)
    got = to_numpy(ruda.astype(x if src != "complex64" else ruda.real(x), ruda.bfloat16))
    numpy.testing.assert_array_equal(got.view(numpy.uint16), want.view(numpy.uint16))


@pytest.mark.parametrize("dst", ["float32", "float64", "float16", "int32", "uint8", "bool",
                                 "complex64"])  # fmt: skip
def test_casts_from_bfloat16(bdev, dst, rng):
    vals = _bf(numpy.concatenate([[0.0, -0.0, 1.0, -1.0, 2.5, 100.0],
                                  rng.uniform(-100, 100, 200)]))  # fmt: skip
    if dst in ("float32", "float64", "float16", "complex64", "bool"):
        vals = numpy.concatenate([vals, _bf([numpy.inf, -numpy.inf, numpy.nan, 1e-40, 3e38])])
    if dst == "uint8":
        vals = numpy.abs(vals)
    got = to_numpy(ruda.astype(put(vals, bdev), ruda.dtype(dst)))
    with numpy.errstate(all="ignore"):
        want = vals.astype(numpy.float32).astype(dst)  # exact: bfloat16 is float32's top half
    assert got.dtype == want.dtype
    numpy.testing.assert_array_equal(got, want)


# -- elementwise: every float function of the op table ------------------------------------------
# Inputs inside each function's domain (away from poles), so float64 is a fair reference.
_DOMAIN = {"acosh": (1.1, 8.0), "acos": (-0.95, 0.95), "asin": (-0.95, 0.95),
           "atanh": (-0.9, 0.9), "log": (0.05, 50.0), "log2": (0.05, 50.0),
           "log10": (0.05, 50.0), "log1p": (-0.9, 50.0), "sqrt": (0.0, 100.0),
           "reciprocal": (0.25, 8.0), "tan": (-1.2, 1.2), "pow": (0.25, 4.0),
           "divide": (0.25, 8.0), "float_power": (0.25, 4.0)}  # fmt: skip
# Functions whose float32 evaluation loses more than rounding near cancellation points.
_ULPS = {"expm1": 2.0, "log1p": 2.0, "logaddexp": 2.0, "logaddexp2": 2.0, "tan": 2.0,
         "cosh": 2.0, "sinh": 2.0, "pow": 2.0, "hypot": 2.0}  # fmt: skip
_SKIP = {"frexp", "modf", "divmod", "isnat", "float_power", "ldexp", "nextafter", "spacing",
         "real", "imag", "conj"}  # fmt: skip
_FLOAT_OPS = [op for op in ELEMENTWISE
              if op.name not in _SKIP and "f" in category_kinds(op.category)]  # fmt: skip


@pytest.mark.parametrize("op", _FLOAT_OPS, ids=lambda op: op.name)
def test_elementwise_matches_float64(bdev, op, rng):
    lo, hi = _DOMAIN.get(op.name, (-6.0, 6.0))
    args64 = [_bf(rng.uniform(lo, hi, (37, 23))).astype(numpy.float64) for _ in range(op.arity)]
    args = [put(a.astype(BF), bdev) for a in args64]
    if op.arity == 2:  # strided and broadcast operands too
        args[1] = args[1][:, ::-1]
        args64[1] = args64[1][:, ::-1]
    r = getattr(ruda, op.name)(*args)
    with numpy.errstate(all="ignore"):
        ref = getattr(numpy, op.numpy or op.name)(*args64)
    if op.result == "bool":
        numpy.testing.assert_array_equal(to_numpy(r), ref)
        return
    _close(r, ref.astype(BF).astype(numpy.float64), ulps=_ULPS.get(op.name, 1.0),
           atol=2.0**-126)  # fmt: skip


def test_nextafter_and_spacing_bit_for_bit(bdev):
    a = _bf([0.0, -0.0, 1.0, -1.0, 3.0, numpy.inf, -numpy.inf, numpy.nan, 1e-40, 3.3e38])
    b = _bf([1.0, 1.0, 2.0, -2.0, 3.0, 0.0, 0.0, 1.0, -1.0, numpy.inf])
    with numpy.errstate(all="ignore"):
        na, sp = numpy.nextafter(a, b), numpy.spacing(a)
    x, y = put(a, bdev), put(b, bdev)
    got = to_numpy(ruda.nextafter(x, y)).view(numpy.uint16)
    numpy.testing.assert_array_equal(got, na.view(numpy.uint16))
    got = to_numpy(ruda.spacing(x)).astype(numpy.float32)  # NaNs: any payload
    numpy.testing.assert_array_equal(got, sp.astype(numpy.float32))


# -- reductions, scans, products: accumulated in float32 ----------------------------------------
def test_sums_do_not_stall(bdev):
    # bfloat16 accumulation would stop at 256 (256 + 1 rounds back to 256)
    x = put(numpy.ones(4608, BF), bdev)  # 4608 = 144 * 32: a bfloat16 (5000 is not)
    _close(ruda.sum(x), 4608.0, ulps=0)
    _close(ruda.cumulative_sum(x)[-1], 4608.0, ulps=0)
    _close(ruda.mean(x), 1.0, ulps=0)


@pytest.mark.parametrize("fname", ["sum", "prod", "mean", "var", "std", "max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions(bdev, fname, axis, rng):
    lo, hi = (0.9, 1.1) if fname == "prod" else (-4.0, 4.0)
    a = _bf(rng.uniform(lo, hi, (96, 130)))
    r = getattr(ruda, fname)(put(a, bdev), axis=axis)
    ref = getattr(numpy, fname)(a.astype(numpy.float64), axis=axis)
    # one float32 accumulation error (far below a bfloat16 ulp) plus the final rounding
    _close(r, ref, ulps=1.0, atol=1e-2 if fname in ("sum", "mean") else 0.0)


def test_cumulative_sum_and_prod(bdev, rng):
    a = _bf(rng.uniform(0.5, 1.5, (5, 300)))
    _close(ruda.cumulative_sum(put(a, bdev), axis=1),
           numpy.cumsum(a.astype(numpy.float64), axis=1), ulps=1.0)  # fmt: skip
    b = _bf(rng.uniform(0.98, 1.02, 200))
    _close(ruda.cumulative_prod(put(b, bdev)), numpy.cumprod(b.astype(numpy.float64)), ulps=1.0)


@pytest.mark.parametrize("shape", [((64, 96), (96, 48)), ((3, 17, 40), (40, 9)), ((300,), (300,)),
                                   ((1, 512), (512, 700))])  # fmt: skip
def test_matmul(bdev, shape, rng):
    a, b = (_bf(rng.uniform(-1, 1, s)) for s in shape)
    r = ruda.matmul(put(a, bdev), put(b, bdev))
    ref = numpy.matmul(a.astype(numpy.float64), b.astype(numpy.float64))
    # float32 accumulation (cuBLAS and ruda's kernel alike), one rounding to bfloat16
    _close(r, ref, ulps=1.0, atol=1e-3 * numpy.sqrt(shape[0][-1]))


def test_vecdot_and_tensordot(bdev, rng):
    a, b = _bf(rng.uniform(-1, 1, (6, 50))), _bf(rng.uniform(-1, 1, (6, 50)))
    x, y = put(a, bdev), put(b, bdev)
    a64, b64 = a.astype(numpy.float64), b.astype(numpy.float64)
    _close(ruda.vecdot(x, y), numpy.sum(a64 * b64, axis=-1), ulps=1.0, atol=1e-2)
    _close(ruda.tensordot(x, y, axes=([1], [1])), a64 @ b64.T, ulps=1.0, atol=1e-2)


def test_factorisations_refuse_bfloat16(bdev):
    x = put(_bf(numpy.eye(3) * 2), bdev)
    for fname in ("inv", "det", "cholesky", "qr", "svd", "eigh"):
        with pytest.raises(TypeError, match="bfloat16 is unsupported in linalg"):
            getattr(ruda.linalg, fname)(x)


# -- sorting, searching, indexing, creation -----------------------------------------------------
def test_sort_argsort_unique(bdev, rng):
    a = _bf(numpy.concatenate([rng.uniform(-50, 50, 500), [numpy.nan, -0.0, 0.0, numpy.inf,
                                                            -numpy.inf, 1.0, 1.0]]))  # fmt: skip
    rng.shuffle(a)
    x = put(a, bdev)
    s = to_numpy(ruda.sort(x))
    want = numpy.sort(a.astype(numpy.float32)).astype(BF)
    numpy.testing.assert_array_equal(s.astype(numpy.float32), want.astype(numpy.float32))
    order = to_numpy(ruda.argsort(x, stable=True))
    numpy.testing.assert_array_equal(order, numpy.argsort(a.astype(numpy.float32), stable=True))
    u = to_numpy(ruda.unique_values(x)).astype(numpy.float32)
    numpy.testing.assert_array_equal(u, numpy.unique(a.astype(numpy.float32)))
    assert int(ruda.argmax(x)) == int(numpy.argmax(a.astype(numpy.float32)))
    assert int(ruda.argmin(x)) == int(numpy.argmin(a.astype(numpy.float32)))


def test_indexing_and_where(bdev, rng):
    a = _bf(rng.uniform(-3, 3, (20, 30)))
    x = put(a, bdev)
    numpy.testing.assert_array_equal(to_numpy(x[3:17:2, ::-3]), a[3:17:2, ::-3])
    mask = a > 0
    numpy.testing.assert_array_equal(to_numpy(x[put(mask, bdev)]), a[mask])
    idx = rng.integers(0, 20, 15)
    numpy.testing.assert_array_equal(to_numpy(ruda.take(x, put(idx, bdev), axis=0)), a[idx])
    y = ruda.asarray(x, copy=True)
    y[2, 5] = 7.5
    y[4] = ruda.asarray(_bf(numpy.arange(30)), device=bdev)
    b = a.copy()
    b[2, 5], b[4] = 7.5, numpy.arange(30)
    numpy.testing.assert_array_equal(to_numpy(y), b)
    w = ruda.where(x > 0, x, 0.5)
    assert w.dtype == ruda.bfloat16
    numpy.testing.assert_array_equal(to_numpy(w), numpy.where(mask, a, _bf(0.5)))


def test_creation(bdev):
    kw = dict(dtype=ruda.bfloat16, device=bdev)
    numpy.testing.assert_array_equal(to_numpy(ruda.full((3, 4), 1.1, **kw)),
                                     numpy.full((3, 4), 1.1).astype(BF))  # fmt: skip
    numpy.testing.assert_array_equal(to_numpy(ruda.ones(5, **kw)), numpy.ones(5, BF))
    numpy.testing.assert_array_equal(to_numpy(ruda.eye(4, **kw)), numpy.eye(4).astype(BF))
    _close(ruda.arange(0, 30, 0.5, **kw), numpy.arange(0, 30, 0.5), ulps=0)
    _close(ruda.linspace(-1, 1, 9, **kw), numpy.linspace(-1, 1, 9), ulps=0)
    c = ruda.concat([ruda.ones(2, **kw), ruda.zeros(3, **kw)])
    numpy.testing.assert_array_equal(to_numpy(c), numpy.array([1, 1, 0, 0, 0], BF))


def test_printing():
    assert "bfloat16" in repr(ruda.asarray(_bf([1.5, 2.0])))


@pytest.mark.parametrize("kind", [d for d in DEVICES if d.startswith("wgpu")])
def test_wgpu_refuses_bfloat16(kind):
    with pytest.raises(TypeError, match="bfloat16 is not supported on device wgpu"):
        ruda.asarray(_bf([1.0, 2.0]), device=ruda.Device(kind))


def test_norms_fft_search_and_nan_functions(bdev, rng):
    a = _bf(rng.uniform(-2, 2, (40, 30)))
    x = put(a, bdev)
    a64 = a.astype(numpy.float64)
    _close(ruda.linalg.vector_norm(x), numpy.linalg.norm(a64), ulps=1.0)
    _close(ruda.linalg.matrix_norm(x, ord="fro"), numpy.linalg.norm(a64), ulps=1.0)
    _close(ruda.linalg.vector_norm(x, axis=0, ord=1), numpy.abs(a64).sum(axis=0), ulps=1.0)
    f = ruda.fft.rfft(x, axis=1)  # bfloat16 transforms in single precision, as float16 does
    assert f.dtype == ruda.complex64
    numpy.testing.assert_allclose(to_numpy(f), numpy.fft.rfft(a64, axis=1), rtol=1e-4, atol=1e-4)
    s = numpy.sort(a.ravel().astype(numpy.float32)).astype(BF)
    q = _bf(rng.uniform(-2, 2, 50))
    got = to_numpy(ruda.searchsorted(put(s, bdev), put(q, bdev)))
    numpy.testing.assert_array_equal(got, numpy.searchsorted(s.astype(numpy.float32),
                                                             q.astype(numpy.float32)))  # fmt: skip
    c = to_numpy(ruda.clip(x, -1.0, 0.5))
    numpy.testing.assert_array_equal(c, numpy.clip(a64, -1.0, 0.5).astype(BF))
    b = a.copy()
    b[::7, ::3] = numpy.nan
    _close(ruda.nanmean(put(b, bdev), axis=0), numpy.nanmean(b.astype(numpy.float64), axis=0),
           ulps=1.0, atol=1e-2)  # fmt: skip
    _close(ruda.nanmax(put(b, bdev), axis=1), numpy.nanmax(b.astype(numpy.float64), axis=1), ulps=0)


def test_least_squares_and_rank_refuse_bfloat16(bdev):
    # NumPy refuses float16 here and would take bfloat16 to float64 without a word
    x = put(_bf(numpy.eye(4) * 2), bdev)
    calls = (
        lambda: ruda.linalg.matrix_rank(x),
        lambda: ruda.linalg.lstsq(x, x[:, 0]),
        lambda: ruda.linalg.tensorinv(x, ind=1),
        lambda: ruda.polyfit(x[0], x[1], 1),
    )
    for call in calls:
        with pytest.raises(TypeError, match="array type bfloat16 is unsupported in linalg"):
            call()


def test_widened_compositions_stay_bfloat16(bdev, rng):
    a = _bf(rng.uniform(0.5, 2.0, (5, 5)) / 3)
    x = put(a, bdev)
    a64 = a.astype(numpy.float64)
    _close(ruda.linalg.matrix_power(x, 3), numpy.linalg.matrix_power(a64, 3), ulps=1.0, atol=1e-3)
    _close(ruda.sinc(x), numpy.sinc(a64), ulps=1.0, atol=1e-3)
    _close(ruda.trapezoid(x, axis=0), numpy.trapezoid(a64, axis=0), ulps=1.0, atol=1e-2)
    assert ruda.ldexp(x, 2).dtype == ruda.bfloat16
