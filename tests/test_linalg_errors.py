"""ruda.linalg on non-finite and singular input, on every device, against numpy.linalg.

NumPy's LAPACK decides these on the cpu; the GPU devices check their input (``linalg/_finite.py``)
so that the same program raises the same LinAlgError, or gives the same NaN, everywhere.
"""

from __future__ import annotations

import math

import numpy
import pytest

import ruda
from tests.helpers import put, to_numpy

NAN, INF = math.nan, math.inf
A_NAN = numpy.array([[1.0, NAN], [2.0, 3.0]])  # the NaN above the diagonal: eigh does not read it
A_NAN_LOW = numpy.array([[1.0, 2.0], [NAN, 3.0]])
A_INF = numpy.array([[INF, 1.0], [1.0, 1.0]])
SINGULAR = numpy.array([[1.0, 2.0], [2.0, 4.0]])
_FLOATS = [numpy.float32, numpy.float64]


def _np_error(fn, *args):
    """The exception class numpy.linalg raises for fn(*args), or None."""
    try:
        with numpy.errstate(all="ignore"):
            fn(*args)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e)
    return None


# (name, ruda call, numpy call) of the functions whose NumPy result on A_NAN is a LinAlgError
_SVD_FAMILY = [
    ("svd", lambda m, a: m.linalg.svd(a)),
    ("svdvals", lambda m, a: m.linalg.svdvals(a)),
    ("pinv", lambda m, a: m.linalg.pinv(a)),
    ("matrix_rank", lambda m, a: m.linalg.matrix_rank(a)),
    ("cond", lambda m, a: m.linalg.cond(a)),
    ("norm2", lambda m, a: m.linalg.norm(a, 2)),
    ("norm-2", lambda m, a: m.linalg.norm(a, -2)),
    ("nuc", lambda m, a: m.linalg.matrix_norm(a, ord="nuc")),
    ("lstsq", lambda m, a: m.linalg.lstsq(a, m.ones(2, dtype=a.dtype, **_dev(m, a)))),
    ("eig", lambda m, a: m.linalg.eig(a)),
    ("eigvals", lambda m, a: m.linalg.eigvals(a)),
]


def _dev(m, a):
    return {"device": a.device} if m is ruda else {}


def _numpy_fn(name, fn):
    if name == "nuc":  # numpy has no matrix_norm before the array API: norm's ord
        return lambda m, a: m.linalg.norm(a, "nuc")
    return fn


@pytest.mark.parametrize("dtype", _FLOATS)
@pytest.mark.parametrize(("name", "fn"), _SVD_FAMILY, ids=[n for n, _ in _SVD_FAMILY])
def test_nan_raises_as_numpy(device, dtype, name, fn):
    a = A_NAN.astype(dtype)
    assert _np_error(lambda: _numpy_fn(name, fn)(numpy, a)) is numpy.linalg.LinAlgError
    with pytest.raises(numpy.linalg.LinAlgError, match=r"ruda\.linalg\."):
        fn(ruda, put(a, device))


@pytest.mark.parametrize("name", ["lstsq", "eig", "eigvals"])
def test_inf_raises_as_numpy(device, name):
    fn = dict(_SVD_FAMILY)[name]
    assert _np_error(lambda: fn(numpy, A_INF)) is numpy.linalg.LinAlgError
    with pytest.raises(numpy.linalg.LinAlgError):
        fn(ruda, put(A_INF, device))


@pytest.mark.parametrize("dtype", _FLOATS)
def test_svd_of_inf_gives_nan_singular_values(device, dtype):
    a = A_INF.astype(dtype)
    stack = numpy.stack([numpy.array([[3.0, 0.0], [0.0, 4.0]], dtype), a])
    want = numpy.linalg.svd(stack).S
    assert numpy.isnan(want[1]).all()  # NumPy's answer, the oracle
    got = ruda.linalg.svd(put(stack, device))
    numpy.testing.assert_allclose(to_numpy(got.S), want, rtol=1e-5)
    numpy.testing.assert_allclose(to_numpy(ruda.linalg.svdvals(put(stack, device))), want,
                                  rtol=1e-5)  # fmt: skip
    # the finite matrix of the stack keeps a true decomposition
    u, s, vh = (to_numpy(x)[0] for x in got)
    numpy.testing.assert_allclose(u * s @ vh, stack[0], atol=1e-5)


def test_svd_compositions_of_inf_match_numpy(device):
    x = put(A_INF, device)
    assert int(ruda.linalg.matrix_rank(x)) == int(numpy.linalg.matrix_rank(A_INF)) == 0
    assert float(ruda.linalg.cond(x)) == float(numpy.linalg.cond(A_INF)) == INF
    for ord in (2, -2, "nuc"):
        assert math.isnan(float(ruda.linalg.norm(x, ord)))
        assert math.isnan(float(numpy.linalg.norm(A_INF, ord)))


@pytest.mark.parametrize("fname", ["eigh", "eigvalsh"])
@pytest.mark.parametrize("dtype", _FLOATS)
def test_eigh_of_inf_is_nan(device, fname, dtype):
    a = A_INF.astype(dtype)
    want = numpy.linalg.eigvalsh(a)
    assert numpy.isnan(want).all()
    r = getattr(ruda.linalg, fname)(put(a, device))
    w = to_numpy(r.eigenvalues if fname == "eigh" else r)
    assert w.dtype == want.dtype and numpy.isnan(w).all()


def test_eigh_reads_one_triangle(device):
    # a NaN outside the triangle read changes nothing, as in NumPy (UPLO="L" and "U")
    for a, uplo in ((A_NAN, "L"), (A_NAN_LOW, "U")):
        want = numpy.linalg.eigvalsh(a, UPLO=uplo)
        got = to_numpy(ruda.linalg.eigvalsh(put(a, device), UPLO=uplo))
        numpy.testing.assert_allclose(got, want, rtol=1e-10)
    # an infinity inside it: NaN, as NumPy's
    b = numpy.array([[1.0, INF], [1.0, 1.0]])
    assert numpy.isnan(numpy.linalg.eigvalsh(b, UPLO="U")).all()
    assert numpy.isnan(to_numpy(ruda.linalg.eigh(put(b, device), UPLO="U").eigenvalues)).all()
    assert not numpy.isnan(to_numpy(ruda.linalg.eigvalsh(put(b, device)))).any()


@pytest.mark.parametrize("fname", ["inv", "solve", "matrix_power", "tensorinv", "tensorsolve"])
def test_singular_raises_as_numpy(device, fname):
    calls = {
        "inv": lambda m, a: m.linalg.inv(a),
        "solve": lambda m, a: m.linalg.solve(a, m.ones(2, **_dev(m, a))),
        "matrix_power": lambda m, a: m.linalg.matrix_power(a, -1),
        "tensorinv": lambda m, a: m.linalg.tensorinv(a, ind=1),
        "tensorsolve": lambda m, a: m.linalg.tensorsolve(a, m.ones(2, **_dev(m, a))),
    }
    fn = calls[fname]
    assert _np_error(lambda: fn(numpy, SINGULAR)) is numpy.linalg.LinAlgError
    with pytest.raises(numpy.linalg.LinAlgError, match="Singular matrix"):
        fn(ruda, put(SINGULAR, device))


def test_singular_det_and_slogdet_as_numpy(device):
    x = put(SINGULAR, device)
    d = to_numpy(ruda.linalg.det(x))
    assert d == 0.0 and not numpy.signbit(d)  # NumPy's +0.0
    sign, logabs = (to_numpy(v) for v in ruda.linalg.slogdet(x))
    want = numpy.linalg.slogdet(SINGULAR)
    assert sign == want.sign == 0.0 and not numpy.signbit(sign)
    assert logabs == want.logabsdet == -INF


@pytest.mark.parametrize(
    "a",
    [A_NAN, numpy.full((2, 2), NAN), numpy.array([[1.0, 1.0], [1.0, NAN]])],
    ids=["upper", "all", "last"],
)
def test_nan_inverse_and_solve_as_numpy(device, a):
    # NumPy gives NaN (LAPACK meets no exact zero pivot in these); so does every device
    numpy.testing.assert_array_equal(to_numpy(ruda.linalg.inv(put(a, device))),
                                     numpy.linalg.inv(a))  # fmt: skip
    b = numpy.ones(2)
    numpy.testing.assert_array_equal(
        to_numpy(ruda.linalg.solve(put(a, device), put(b, device))), numpy.linalg.solve(a, b)
    )
    with numpy.errstate(invalid="ignore"):
        want = numpy.linalg.slogdet(a)
        assert math.isnan(float(ruda.linalg.det(put(a, device))))
        sign, logabs = ruda.linalg.slogdet(put(a, device))
    # Note: the sign of a NaN determinant is the parity of the pivots a NaN happened to leave
    # (LAPACK's idamax on the cpu, cuSOLVER's getrf on cuda); NumPy documents no value
    assert abs(float(sign)) == 1.0 and abs(float(want.sign)) == 1.0 and math.isnan(float(logabs))


def test_check_can_be_skipped(device, monkeypatch):
    monkeypatch.setenv("RUDA_LINALG_CHECK", "off")
    x = put(A_NAN, device)
    if device.kind == "cpu":  # NumPy's own check: never skipped
        with pytest.raises(numpy.linalg.LinAlgError):
            ruda.linalg.svdvals(x)
    else:  # the kernels' numbers, no error (and no host wait)
        assert to_numpy(ruda.linalg.svdvals(x)).shape == (2,)
