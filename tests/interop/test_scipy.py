"""SciPy's array-API capable functions on ruda arrays (SCIPY_ARRAY_API=1: see conftest.py).

SciPy lists what supports the array API in ``scipy._lib._array_api.xp_capabilities_table``
(filled by its ``@xp_capabilities`` decorator). Each function below is checked to be in that
table and not NumPy-only, then called on ruda arrays and on NumPy arrays: same answer, and the
results are ruda arrays on the input's device. On a GPU device a function whose SciPy path
is host-only (``cpu_only``, or SciPy's NumPy fallback for array libraries it does not know,
as for ``scipy.special``) must instead raise ruda's clear transfer error. A ruda op missing
on the device fails the test. Never a wrong answer.
"""

from __future__ import annotations

import importlib
import os

import numpy
import pytest

import ruda
from tests.helpers import to_numpy

assert os.environ.get("SCIPY_ARRAY_API") == "1", "tests/interop/conftest.py sets it"

import scipy  # noqa: E402,F401
from scipy._lib._array_api import xp_capabilities_table  # noqa: E402

SUBMODULES = ("special", "stats", "fft", "signal", "signal.windows", "cluster.vq",
              "cluster.hierarchy", "linalg", "ndimage",
              "spatial.transform", "integrate", "optimize", "differentiate")  # fmt: skip
for _m in SUBMODULES:  # the decorators fill the table on import
    importlib.import_module(f"scipy.{_m}")

SOS = numpy.array([[0.2, 0.3, 0.1, 1.0, -0.2, 0.05]])

# name -> function of (a, b, M, S) giving the positional arguments (NumPy arrays or scalars)
# and keywords. a, b: positive vectors (50); M: 20 x 5; S: 6 x 6 symmetric positive definite.
CASES = {
    "special.gammaln": lambda a, b, M, S: ((a,), {}),
    "special.erf": lambda a, b, M, S: ((a - 0.5,), {}),
    "special.logsumexp": lambda a, b, M, S: ((M,), {"axis": 0}),
    "special.softmax": lambda a, b, M, S: ((M,), {"axis": 1}),
    "special.xlogy": lambda a, b, M, S: ((a, b), {}),
    "special.expit": lambda a, b, M, S: ((a - 0.5,), {}),
    "special.i0": lambda a, b, M, S: ((a,), {}),
    "special.entr": lambda a, b, M, S: ((a,), {}),
    "special.rel_entr": lambda a, b, M, S: ((a, b), {}),
    "special.ndtr": lambda a, b, M, S: ((a,), {}),
    "special.betainc": lambda a, b, M, S: ((a, b, a / 2), {}),
    "stats.zscore": lambda a, b, M, S: ((M,), {}),
    "stats.skew": lambda a, b, M, S: ((a,), {}),
    "stats.kurtosis": lambda a, b, M, S: ((M,), {"axis": 0}),
    "stats.moment": lambda a, b, M, S: ((a,), {"order": 3}),
    "stats.describe": lambda a, b, M, S: ((a,), {}),
    "stats.ttest_ind": lambda a, b, M, S: ((a, b), {}),
    "stats.ttest_1samp": lambda a, b, M, S: ((a, 0.5), {}),
    "stats.pearsonr": lambda a, b, M, S: ((a, b), {}),
    "stats.gmean": lambda a, b, M, S: ((a,), {}),
    "stats.hmean": lambda a, b, M, S: ((a,), {}),
    "stats.variation": lambda a, b, M, S: ((a,), {}),
    "stats.sem": lambda a, b, M, S: ((M,), {}),
    "stats.entropy": lambda a, b, M, S: ((a, b), {}),
    "stats.rankdata": lambda a, b, M, S: ((a,), {}),
    "stats.quantile": lambda a, b, M, S: ((a, 0.3), {}),
    "stats.trim_mean": lambda a, b, M, S: ((a, 0.1), {}),
    "stats.skewtest": lambda a, b, M, S: ((a,), {}),
    "stats.chisquare": lambda a, b, M, S: ((a * 10,), {}),
    "stats.f_oneway": lambda a, b, M, S: ((a, b), {}),
    "stats.bartlett": lambda a, b, M, S: ((a, b), {}),
    "stats.circmean": lambda a, b, M, S: ((a,), {}),
    "stats.pmean": lambda a, b, M, S: ((a, 2.0), {}),
    "fft.fft": lambda a, b, M, S: ((a,), {}),
    "fft.rfft": lambda a, b, M, S: ((a,), {}),
    "fft.ifft": lambda a, b, M, S: ((a,), {}),
    "fft.fftn": lambda a, b, M, S: ((M,), {}),
    "fft.irfftn": lambda a, b, M, S: ((M,), {}),
    "fft.dct": lambda a, b, M, S: ((a,), {}),
    "fft.fftshift": lambda a, b, M, S: ((a,), {}),
    "fft.hfft": lambda a, b, M, S: ((a,), {}),
    "signal.convolve": lambda a, b, M, S: ((a, b[:5]), {}),
    "signal.fftconvolve": lambda a, b, M, S: ((a, b), {}),
    "signal.correlate": lambda a, b, M, S: ((a, b), {}),
    "signal.lfilter": lambda a, b, M, S: ((b[:3], numpy.array([1.0, -0.3]), a), {}),
    "signal.filtfilt": lambda a, b, M, S: ((b[:3], numpy.array([1.0, -0.2]), a), {}),
    "signal.sosfilt": lambda a, b, M, S: ((SOS, a), {}),
    "signal.detrend": lambda a, b, M, S: ((a,), {}),
    "signal.convolve2d": lambda a, b, M, S: ((M, S[:3, :3]), {}),
    "signal.medfilt": lambda a, b, M, S: ((a,), {}),
    "signal.hilbert": lambda a, b, M, S: ((a,), {}),
    "signal.resample": lambda a, b, M, S: ((a, 30), {}),
    "cluster.vq.whiten": lambda a, b, M, S: ((M,), {}),
    "cluster.vq.vq": lambda a, b, M, S: ((M, M[:3]), {}),
    "cluster.hierarchy.linkage": lambda a, b, M, S: ((M,), {"method": "average"}),
    "linalg.orthogonal_procrustes": lambda a, b, M, S: ((M, M[::-1] + 0.1), {}),
    "linalg.block_diag": lambda a, b, M, S: ((S[:2, :2], S[:3, :3]), {}),
    "linalg.fiedler": lambda a, b, M, S: ((a[:6],), {}),
    "ndimage.gaussian_filter": lambda a, b, M, S: ((M, 1.0), {}),
    "ndimage.uniform_filter": lambda a, b, M, S: ((M,), {}),
    "ndimage.sobel": lambda a, b, M, S: ((M,), {}),
    "ndimage.zoom": lambda a, b, M, S: ((M, 2), {}),
    "ndimage.median_filter": lambda a, b, M, S: ((M, 3), {}),
    "integrate.trapezoid": lambda a, b, M, S: ((a,), {}),
    "integrate.cumulative_trapezoid": lambda a, b, M, S: ((a,), {}),
    "integrate.romb": lambda a, b, M, S: ((a[:33],), {}),
    "optimize.rosen": lambda a, b, M, S: ((a,), {}),
    "optimize.rosen_der": lambda a, b, M, S: ((a,), {}),
}


def _resolve(name: str):
    mod, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(f"scipy.{mod}"), attr)


def _capabilities(func) -> dict:
    for f in (func, getattr(func, "__wrapped__", None)):
        if f is not None and f in xp_capabilities_table:
            return xp_capabilities_table[f]
    raise AssertionError(f"{func} is not in SciPy's xp_capabilities_table")


# Functions SciPy does not mark cpu_only whose path still reaches the host for ruda's arrays:
# scipy.special falls back to NumPy for array libraries it does not know (not NumPy, CuPy, JAX
# or torch), and these call it (or lfilter, which is cpu_only) inside.
HOST_PATHS = {
    "special.entr", "special.erf", "special.expit", "special.gammaln", "special.i0",
    "special.ndtr", "stats.bartlett", "stats.chisquare", "stats.skewtest", "signal.filtfilt",
}  # fmt: skip


def _refusal(e: Exception) -> bool:
    """Whether ``e`` is ruda refusing an implicit transfer (to the host, or between devices)
    with the way out in its message."""
    m = str(e)
    return m.startswith("ruda.") and (
        "set_implicit_transfer" in m or "different devices" in m or "move" in m
    )


def _leaves(r):
    """The arrays in a result: tuples, named tuples and stats result objects."""
    if isinstance(r, tuple):
        return [x for v in r for x in _leaves(v)]
    if hasattr(r, "statistic"):
        return [r.statistic] + ([r.pvalue] if hasattr(r, "pvalue") else [])
    return [r]


def test_case_list_is_scipys(device):
    """Every submodule the issue names contributes, and the list follows SciPy's table."""
    for name in CASES:
        caps = _capabilities(_resolve(name))
        assert not caps["np_only"], f"SciPy marks {name} NumPy-only"
    covered = {n.split(".")[0] for n in CASES}
    assert {"special", "stats", "fft", "signal", "cluster", "linalg"} <= covered


@pytest.mark.parametrize("name", sorted(CASES))
def test_scipy_function(device, rng, name):
    func = _resolve(name)
    _capabilities(func)  # raises unless SciPy lists it as array-API capable
    a, b = rng.random(50) + 0.1, rng.random(50) + 0.1
    M = rng.random((20, 5))
    S = rng.random((6, 6))
    S = S @ S.T + 6 * numpy.eye(6)
    args, kwargs = CASES[name](a, b, M, S)
    ref = func(*args, **kwargs)
    rargs = [ruda.asarray(x, device=device) if isinstance(x, numpy.ndarray) else x for x in args]
    try:
        try:
            got = func(*rargs, **kwargs)
        except ValueError as e:
            if device == "cpu" or not ("different devices" in str(e) or " is on " in str(e)):
                raise
            # SciPy made a helper array with xp.asarray(...) and no device=: it lands on
            # ruda's default device (the cpu), which ruda refuses to mix. Making the input's
            # device the default is the documented way to run such code on a GPU.
            with ruda.device(device):
                got = func(*rargs, **kwargs)
    except (TypeError, ValueError) as e:
        if device == "cpu" or not _refusal(e):
            raise
        # SciPy takes a host-only path here (cpu_only, or its NumPy fallback for array
        # libraries it does not know): ruda refuses the implicit copy clearly, never guesses.
        # Any other function refusing is a failure: SciPy would run it on the device.
        assert _capabilities(func)["cpu_only"] or name in HOST_PATHS, (
            f"{name}: ruda refused on {device}, but SciPy runs it on array-API devices: {e}"
        )
        return
    for g, r in zip(_leaves(got), _leaves(ref), strict=True):
        r = numpy.asarray(r)
        if isinstance(g, ruda.Array):
            assert g.device == device, f"{name}: result on {g.device}, input on {device}"
            g = to_numpy(g)
        else:  # SciPy gives Python scalars for some reductions (spatial.distance)
            assert r.ndim == 0, f"{name}: got {type(g).__name__}, not a ruda array"
        g = numpy.asarray(g)
        assert g.shape == r.shape, f"{name}: shape {g.shape} != {r.shape}"
        numpy.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12, err_msg=name)


def test_rotation_from_ruda(device, rng):
    """spatial.transform.Rotation (array-API capable in SciPy) keeps ruda arrays."""
    from scipy.spatial.transform import Rotation

    q = rng.standard_normal((4, 4))
    ref = Rotation.from_quat(q).as_matrix()
    got = Rotation.from_quat(ruda.asarray(q, device=device)).as_matrix()
    assert isinstance(got, ruda.Array) and got.device == device
    numpy.testing.assert_allclose(to_numpy(got), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["ttest_ind", "ttest_1samp", "ttest_rel"])
def test_ttests_on_the_inputs_device(device, rng, name):
    """SciPy's t-tests build host values with ``xp.asarray(n == 1)`` (no ``device=``): a 0-d
    array on the cpu, which combines with the data on any device (issue 32); no default
    device is set here. The p-value comes from ``scipy.special``, which runs NumPy for array
    libraries SciPy does not know: on a GPU that is a host copy, refused by ruda's clear
    error unless implicit transfers are allowed. Then the answer matches the cpu's."""
    a, b = rng.standard_normal(40), rng.standard_normal(40) + 0.3
    func = getattr(importlib.import_module("scipy.stats"), name)
    args = (a, 0.1) if name == "ttest_1samp" else (a, b)
    ref = func(*args)
    rargs = [ruda.asarray(v, device=device) if isinstance(v, numpy.ndarray) else v for v in args]
    if device != "cpu":
        with pytest.raises(TypeError, match="implicit"):  # past the device mix: the host copy
            func(*rargs)
    with ruda.implicit_transfer():
        got = func(*rargs)
    assert isinstance(got.statistic, ruda.Array) and got.statistic.device == device
    # SciPy's NumPy fallback returns the p-value through xp.asarray: on the default device
    assert isinstance(got.pvalue, ruda.Array) and got.pvalue.device in (device, "cpu")
    for g, r in ((got.statistic, ref.statistic), (got.pvalue, ref.pvalue)):
        numpy.testing.assert_allclose(to_numpy(g), r, rtol=1e-10, atol=1e-12)
