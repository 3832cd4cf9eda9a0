"""scikit-learn on ruda arrays through ``array_api_dispatch=True`` (SCIPY_ARRAY_API=1: conftest.py).

Each estimator / metric family runs on ruda arrays on every test device and on NumPy arrays
with dispatch off; the answers agree (rtol 1e-5 in float64, 1e-3 in float32) and the results
are ruda arrays on the input's device. The list of array-API capable estimators and metrics is
scikit-learn's own: estimators whose tags say ``array_api_support`` and the metrics in
``sklearn.metrics.tests.test_common.array_api_metric_checkers``, run through scikit-learn's
own checks.
"""

from __future__ import annotations

import os
import warnings

import numpy
import pytest

import ruda
from tests.helpers import to_numpy

assert os.environ.get("SCIPY_ARRAY_API") == "1", "tests/interop/conftest.py sets it"

import sklearn  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.linear_model import Ridge, RidgeClassifier, RidgeClassifierCV, RidgeCV  # noqa: E402
from sklearn.metrics import pairwise  # noqa: E402
from sklearn.metrics.tests.test_common import yield_metric_checker_combinations  # noqa: E402
from sklearn.preprocessing import (  # noqa: E402
    Binarizer,
    KernelCenterer,
    LabelEncoder,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    PolynomialFeatures,
    StandardScaler,
    maxabs_scale,
    minmax_scale,
    normalize,
)
from sklearn.utils import get_tags  # noqa: E402
from sklearn.utils._test_common.instance_generator import _tested_estimators  # noqa: E402
from sklearn.utils.estimator_checks import check_array_api_input  # noqa: E402

RTOL = {"float64": 1e-5, "float32": 1e-3}
# atol relative to the largest |reference| value: for entries near zero only an absolute
# tolerance is meaningful. float32 allows the full 1e-3 of the scale: singular vectors from
# ruda's float32 SVD on wgpu differ from LAPACK's by up to ~4e-4 (see the lead's notes).
ATOL = {"float64": 1e-7, "float32": 1e-3}
DTYPES = ["float64", "float32"]


@pytest.fixture(autouse=True)
def _quiet():
    # scikit-learn warns that array-API dispatch picks other solvers than with NumPy
    # (Ridge: 'svd', randomized PCA: QR); those are the documented behaviour, not failures.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning, module="sklearn")
        yield


@pytest.fixture
def host_exports(monkeypatch):
    """The scikit-learn modules that asked for a host copy of a device array (its ``move_to``
    through ``numpy.from_dlpack(x, device="cpu")``): the computation must stay on the device."""
    import traceback

    from ruda import _interop

    seen, export = [], _interop.dlpack_to_host

    def spy(x, **kw):
        frames = [f.filename for f in traceback.extract_stack() if "/sklearn/" in f.filename]
        seen.append(frames[-2] if len(frames) > 1 else "?")  # the caller of move_to
        return export(x, **kw)

    monkeypatch.setattr(_interop, "dlpack_to_host", spy)
    return seen


def _stayed_on_device(seen, allowed=()):
    """Only the allowed modules (scikit-learn's host-only label handling) left the device."""
    bad = [f for f in seen if not any(f.endswith(a) for a in allowed)]
    assert not bad, f"host copies of device arrays requested by {sorted(set(bad))}"


def _data(rng, dtype, n=120, p=8):
    # Well-separated singular values keep eigenvector comparisons well conditioned.
    X = rng.standard_normal((n, p)) * numpy.linspace(3.0, 0.5, p) + rng.uniform(-1, 1, p)
    y = X @ rng.standard_normal(p) + 0.1 * rng.standard_normal(n)
    yc = (y > numpy.median(y)).astype(numpy.int64) + (y > numpy.quantile(y, 0.8))
    return X.astype(dtype), y.astype(dtype), yc


def _same(res, ref, device, dtype, what="", signs=False):
    """``res`` (dispatch on) matches ``ref`` (NumPy) and lives on ``device``; with ``signs``,
    up to the sign of each column (singular vectors have no canonical sign)."""
    if isinstance(ref, (tuple, list)):
        assert len(res) == len(ref)
        for a, b in zip(res, ref, strict=True):
            _same(a, b, device, dtype, what)
        return
    ref = numpy.asarray(ref)
    if ref.ndim == 0 and not isinstance(res, ruda.Array):
        got = numpy.asarray(res)  # scores that scikit-learn returns as Python floats
    else:
        assert isinstance(res, ruda.Array), f"{what}: got {type(res).__name__}, not a ruda array"
        assert res.device == device, f"{what}: result on {res.device}, input on {device}"
        got = to_numpy(res)
        if ref.dtype.kind == "f":
            # Note: some NumPy paths go through SciPy in float64 (manhattan distances);
            # under dispatch scikit-learn keeps the input's float dtype.
            assert got.dtype in (ref.dtype, numpy.dtype(dtype)), f"{what}: dtype {got.dtype}"
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    scale_ = max(float(numpy.max(numpy.abs(ref))), 1.0) if ref.size else 1.0
    if signs and got.ndim == 2:
        got = got * numpy.where(numpy.sum(got * ref, axis=0) < 0, -1, 1)
    numpy.testing.assert_allclose(
        got, ref, rtol=RTOL[dtype], atol=ATOL[dtype] * scale_, err_msg=what
    )


def _fit_both(est, X, y, device, methods, attrs):
    ref = clone(est).fit(X, y)
    Xr = ruda.asarray(X, device=device)
    yr = None if y is None else ruda.asarray(y, device=device)
    with sklearn.config_context(array_api_dispatch=True):
        got = clone(est).fit(Xr, yr)
        out = {m: getattr(got, m)(Xr) for m in methods}
    for a in attrs:
        yield a, getattr(got, a), getattr(ref, a)
    for m in methods:
        yield m, out[m], getattr(ref, m)(X)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("solver", ["full", "randomized", "covariance_eigh"])
def test_pca(device, rng, dtype, solver, host_exports):
    X, _, _ = _data(rng, dtype, n=200)
    est = PCA(n_components=4, svd_solver=solver, random_state=0, power_iteration_normalizer="QR")
    attrs = ["components_", "explained_variance_", "explained_variance_ratio_", "mean_"]
    for name, got, ref in _fit_both(est, X, None, device, ["transform"], attrs):
        _same(got, ref, device, dtype, f"PCA({solver}).{name}")
    _stayed_on_device(host_exports)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "est",
    [Ridge(alpha=0.5, solver="svd"), RidgeCV(alphas=(0.1, 1.0, 10.0)),
     RidgeClassifier(alpha=0.5, solver="svd"), RidgeClassifierCV(alphas=(0.1, 1.0))],
    ids=lambda e: type(e).__name__,
)  # fmt: skip
def test_ridge_family(device, rng, dtype, est, host_exports):
    X, y, yc = _data(rng, dtype)
    target = yc if "Classifier" in type(est).__name__ else y
    methods = ["predict"] + (["decision_function"] if hasattr(est, "decision_function") else [])
    for name, got, ref in _fit_both(est, X, target, device, methods, ["coef_", "intercept_"]):
        _same(got, ref, device, dtype, f"{type(est).__name__}.{name}")
    # the classifiers' LabelBinarizer encodes the labels on the host (scikit-learn's design)
    _stayed_on_device(host_exports, allowed=("preprocessing/_label.py",))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("solver", ["svd", "eigen"])
def test_linear_discriminant_analysis(device, rng, dtype, solver, host_exports):
    """scikit-learn documents array-API support for solver="svd" only: "eigen" on a GPU
    device must give NumPy's answer or a clear error, never a wrong one."""
    X, _, yc = _data(rng, dtype)
    est = LinearDiscriminantAnalysis(solver=solver)
    methods = ["predict_proba", "decision_function", "predict"]
    methods += ["transform"] if solver == "svd" else []
    attrs = ["coef_", "intercept_", "means_", "priors_", "classes_"]
    try:
        pairs = list(_fit_both(est, X, yc, device, methods, attrs))
    except (TypeError, ValueError) as e:
        if solver == "svd" or device == "cpu":
            raise
        # the error names what the caller did (test_sklearn_lda.py: NumPy's in-place add into
        # scikit-learn's NumPy covariance), not ruda's internals ("out must be a ruda array")
        assert str(e).startswith("ruda.") and "out must be" not in str(e), f"unclear: {e!r}"
        return
    for name, got, ref in pairs:
        # transform projects on singular vectors, whose signs LAPACK and ruda's SVD choose
        _same(got, ref, device, dtype, f"LDA({solver}).{name}", signs=name == "transform")
    _stayed_on_device(host_exports)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "est",
    [StandardScaler(), StandardScaler(with_mean=False), MinMaxScaler((-1, 2)), MaxAbsScaler(),
     Normalizer("l1"), Normalizer("l2"), Normalizer("max"), Binarizer(threshold=0.3),
     PolynomialFeatures(2)],
    ids=lambda e: repr(e).replace(" ", ""),
)  # fmt: skip
def test_scalers_and_normalisers(device, rng, dtype, est, host_exports):
    X, _, _ = _data(rng, dtype)
    methods = ["transform"]
    for name, got, ref in _fit_both(est, X, None, device, methods, []):
        _same(got, ref, device, dtype, f"{est!r}.{name}")
    if hasattr(est, "inverse_transform"):
        Xr = ruda.asarray(X, device=device)
        with sklearn.config_context(array_api_dispatch=True):
            fitted = clone(est).fit(Xr)
            back = fitted.inverse_transform(fitted.transform(Xr))
        _same(back, X, device, dtype, f"{est!r}.inverse_transform")
    _stayed_on_device(host_exports)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("func", [minmax_scale, maxabs_scale, normalize], ids=lambda f: f.__name__)
def test_preprocessing_functions(device, rng, dtype, func):
    X, _, _ = _data(rng, dtype)
    with sklearn.config_context(array_api_dispatch=True):
        got = func(ruda.asarray(X, device=device))
    _same(got, func(X), device, dtype, func.__name__)


@pytest.mark.parametrize("dtype", DTYPES)
def test_kernel_centerer(device, rng, dtype):
    X, _, _ = _data(rng, dtype, n=40)
    K = X @ X.T
    for name, got, ref in _fit_both(
        KernelCenterer(), K, None, device, ["transform"], ["K_fit_rows_"]
    ):
        _same(got, ref, device, dtype, f"KernelCenterer.{name}")


KERNELS = [
    "euclidean_distances", "manhattan_distances", "cosine_distances", "cosine_similarity",
    "linear_kernel", "polynomial_kernel", "rbf_kernel", "laplacian_kernel", "sigmoid_kernel",
    "chi2_kernel", "additive_chi2_kernel", "paired_euclidean_distances",
    "paired_manhattan_distances", "paired_cosine_distances",
]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", KERNELS)
def test_pairwise_kernels_and_distances(device, rng, dtype, name, host_exports):
    X, _, _ = _data(rng, dtype, n=30)
    Y = X[::-1] * 0.8 + 0.5
    if "chi2" in name:  # defined on non-negative features
        X, Y = numpy.abs(X), numpy.abs(X[::-1])
    f = getattr(pairwise, name)
    ref = f(X, Y)
    with sklearn.config_context(array_api_dispatch=True):
        got = f(ruda.asarray(X, device=device), ruda.asarray(Y, device=device))
    _same(got, ref, device, dtype, name)
    _stayed_on_device(host_exports)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine"])
def test_pairwise_distances_and_argmin(device, rng, dtype, metric):
    X, _, _ = _data(rng, dtype, n=40)
    Y = X[:15] * 0.7 - 0.2
    Xr, Yr = ruda.asarray(X, device=device), ruda.asarray(Y, device=device)
    with sklearn.config_context(array_api_dispatch=True):
        got = pairwise.pairwise_distances(Xr, Yr, metric=metric)
        kern = pairwise.pairwise_kernels(Xr, Yr, metric="rbf", gamma=0.1)
        amin = pairwise.pairwise_distances_argmin(Xr, Yr, metric=metric)
    _same(got, pairwise.pairwise_distances(X, Y, metric=metric), device, dtype, metric)
    _same(kern, pairwise.pairwise_kernels(X, Y, metric="rbf", gamma=0.1), device, dtype, "rbf")
    ref = pairwise.pairwise_distances_argmin(X, Y, metric=metric)
    assert isinstance(amin, ruda.Array) and amin.device == device
    numpy.testing.assert_array_equal(to_numpy(amin), ref)


# -- scikit-learn's own lists and checks ------------------------------------------------------

_METRIC_CASES = list(yield_metric_checker_combinations())


def _metric_id(case):
    metric, checker = case
    name = getattr(metric, "__name__", None) or getattr(metric, "func", metric).__name__
    return f"{name}-{checker.__name__.replace('check_array_api_', '')}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", _METRIC_CASES, ids=[_metric_id(c) for c in _METRIC_CASES])
def test_metric_sklearn_check(device, dtype, case):
    """scikit-learn's own array-API metric check (compares with NumPy, mixed inputs too)."""
    metric, checker = case
    checker(metric, "ruda", str(device), dtype)


# Label transformers (fit(y), e.g. LabelEncoder) have their own test below.
_ESTIMATORS = [
    e for e in _tested_estimators()
    if get_tags(e).array_api_support and get_tags(e).input_tags.two_d_array
]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("est", _ESTIMATORS, ids=lambda e: repr(e).split("(")[0])
def test_estimator_sklearn_check(device, dtype, est):
    """scikit-learn's check for every estimator its tags mark as array-API capable: namespace,
    device, shape and dtype of every fitted attribute and method output."""
    check_array_api_input(type(est).__name__, est, "ruda", str(device), dtype)


def test_label_encoder(device, rng):
    y = rng.integers(3, 9, 50)
    ref = LabelEncoder().fit(y)
    with sklearn.config_context(array_api_dispatch=True):
        got = LabelEncoder().fit(ruda.asarray(y, device=device))
        codes = got.transform(ruda.asarray(y, device=device))
        back = got.inverse_transform(codes)
    for res, exp in ((got.classes_, ref.classes_), (codes, ref.transform(y)), (back, y)):
        assert isinstance(res, ruda.Array) and res.device == device
        numpy.testing.assert_array_equal(to_numpy(res), exp)


def test_partial_fit_warnings_follow_numpy(device, rng):
    """StandardScaler.partial_fit divides 0 by 0 on its first call; scikit-learn silences
    NumPy's warning with numpy.errstate only for the NumPy namespace.

    Decision: ruda keeps NumPy's floating-point warnings and errstate (the drop-in promise:
    ``import ruda as np`` code relies on ``np.errstate``/``np.seterr`` to silence them or to
    turn them into errors, and ``ruda.errstate`` must keep working). The cost is a spurious
    RuntimeWarning from scikit-learn on the cpu device; results are the same, and
    ``ruda.errstate`` silences it. GPU kernels set no floating-point flags, so GPU devices
    emit none (like CuPy and PyTorch).
    """
    X, _, _ = _data(rng, "float64")
    Xr = ruda.asarray(X, device=device)
    ref = StandardScaler().partial_fit(X[:60]).partial_fit(X[60:])
    with sklearn.config_context(array_api_dispatch=True):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = StandardScaler().partial_fit(Xr[:60]).partial_fit(Xr[60:])
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            with ruda.errstate(divide="ignore", invalid="ignore"):
                StandardScaler().partial_fit(Xr[:60])
    _same(got.mean_, ref.mean_, device, "float64", "mean_")
    _same(got.var_, ref.var_, device, "float64", "var_")
    runtime = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    if device == "cpu":
        assert runtime, "ruda on the cpu keeps NumPy's floating-point warnings"
        assert all("invalid value" in str(w.message) for w in runtime)
