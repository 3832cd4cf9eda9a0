"""NumPy arrays as ``out=`` of NumPy calls on device arrays (issue 32, point 4): scikit-learn's
``LinearDiscriminantAnalysis(solver="eigen")`` accumulates a covariance into a NumPy array
(``cov = np.zeros(...); cov += prior * class_cov``), which NumPy runs as
``np.add(cov, rhs, out=(cov,))`` on ruda's ``__array_ufunc__``.

On the cpu that is NumPy's own operation. On a GPU device the result would be copied to the host
implicitly: the error names that in-place NumPy call (not an internal ``out=``), and inside
``ruda.implicit_transfer()`` the copy is made. (scikit-learn documents array-API support for
LDA's "svd" solver only; tests/interop/test_sklearn.py runs both solvers.)
"""

from __future__ import annotations

import numpy
import pytest
import sklearn
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

import ruda
from tests.helpers import to_numpy

_CALLER = (
    r"ruda\.add: NumPy called add with out= a numpy\.ndarray \(an in-place operator "
    r"such as `ndarray \+= x`"
)


def test_ndarray_plus_equals_device_array(device, rng):
    h, a = rng.standard_normal(5), rng.standard_normal(5)
    want = h + 2.0 * a
    x = ruda.asarray(a, device=device)
    host = h
    if device.kind != "cpu":
        before = h.copy()
        with pytest.raises(TypeError, match=_CALLER) as err:
            h += 2.0 * x
        assert str(device) in str(err.value) and "implicit_transfer" in str(err.value)
        assert numpy.array_equal(h, before)  # nothing written
    with ruda.implicit_transfer(device.kind != "cpu"):
        h += 2.0 * x
        r = numpy.multiply(host, x, out=host)
    # as on the cpu: the NumPy array holds the result, returned as a cpu array sharing it
    for got in (h, r):
        assert isinstance(got, ruda.Array) and got.device == ruda.Device("cpu")
        assert numpy.shares_memory(to_numpy(got), host) or to_numpy(got) is host
    numpy.testing.assert_allclose(host, want * a, rtol=1e-15)


def test_lda_eigen(device, rng):
    X = rng.standard_normal((90, 5))
    y = rng.integers(0, 3, 90)
    X[y == 1] += 1.5
    ref = LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    Xr, yr = ruda.asarray(X, device=device), ruda.asarray(y, device=device)
    with sklearn.config_context(array_api_dispatch=True):
        est = LinearDiscriminantAnalysis(solver="eigen")
        if device.kind != "cpu":
            # scikit-learn's eigen solver mixes NumPy arrays with the input's namespace
            with pytest.raises(TypeError, match=_CALLER):
                est.fit(Xr, yr)
            return
        est.fit(Xr, yr)
        pred = est.predict(Xr)
    for name in ("coef_", "intercept_", "means_"):
        numpy.testing.assert_allclose(to_numpy(getattr(est, name)), getattr(ref, name),
                                      rtol=1e-10, atol=1e-12, err_msg=name)  # fmt: skip
    assert numpy.array_equal(to_numpy(pred), ref.predict(X))
