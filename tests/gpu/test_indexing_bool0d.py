"""0-d boolean indices on each GPU backend against NumPy (the devices of kinds cuda and wgpu):
a new axis of length 1 (true) or 0 (false), beside ints, slices, None and Ellipsis; a copy."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import assert_close

pytestmark = pytest.mark.devices("cuda", "wgpu")

KEYS = [(True,), (False,), (0, True), (Ellipsis, False), (slice(None), True, 1), (None, 1, True),
        (slice(1, None), Ellipsis, True)]  # fmt: skip


def _keys(key: tuple, device_bool: bool, device) -> tuple:
    """(NumPy's key, ruda's key): the booleans as 0-d device arrays if ``device_bool``."""
    rk = tuple(
        ruda.asarray(k, device=device) if device_bool and type(k) is bool else k for k in key
    )
    return (key, rk) if len(key) > 1 else (key[0], rk[0])


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("device_bool", [True, False])
def test_scalar_bool_index(key, device_bool, device, rng):
    a = rng.random((2, 3, 4))
    x = ruda.asarray(a, device=device)
    k1, rk = _keys(key, device_bool, device)
    got = x[rk]
    assert_close(got, a[k1], device=device)
    if got.size:  # advanced indexing copies
        got[(0,) * got.ndim] = -1.0
        assert_close(x, a, device=device)


def test_scalar_bool_of_0d(device, rng):
    v = float(rng.random())
    s = ruda.asarray(v, device=device)
    assert_close(s[ruda.asarray(True, device=device)], numpy.asarray(v)[True], device=device)
    assert s[ruda.asarray(False, device=device)].shape == (0,)


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("device_bool", [True, False])
def test_scalar_bool_setitem(key, device_bool, device, rng):
    a = rng.random((2, 3, 4))
    x = ruda.asarray(a, device=device)
    k1, rk = _keys(key, device_bool, device)
    v = rng.random(a[k1].shape[-1:])  # broadcasts whether the new axis has length 1 or 0
    x[rk] = ruda.asarray(v, device=device)
    a[k1] = v
    assert_close(x, a, device=device)
    s = ruda.asarray(2.5, device=device)  # SciPy's pattern: a 0-d array, a 0-d mask, a scalar
    s[ruda.asarray(key[-1] is True, device=device)] = -1.0
    assert float(s) == (-1.0 if key[-1] is True else 2.5)
