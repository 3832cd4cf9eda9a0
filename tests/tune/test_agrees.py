"""``tune.agrees``, the check that keeps a wrong candidate from winning: NumPy's ``allclose`` in
double precision (atol relative to the largest finite magnitude) as the oracle."""

from __future__ import annotations

import numpy as np
import pytest

from ruda._kernels.tune import engine as tune


def _oracle(got: np.ndarray, want: np.ndarray, tol: float) -> bool:
    if got.shape != want.shape:
        return False
    if tol == 0 or want.dtype.kind in "biu":
        return bool(np.array_equal(got, want))
    t = np.complex128 if "c" in (got.dtype.kind, want.dtype.kind) else np.float64
    w = want.astype(t)
    scale = max(1.0, float(np.max(np.abs(w[np.isfinite(w)]), initial=0.0)))
    return bool(np.allclose(got.astype(t), w, rtol=tol, atol=tol * scale, equal_nan=True))


def _cases(rng: np.random.Generator, dtype: str, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(got, want) pairs: close, one element off by far, specials placed alike and not."""
    w = (rng.standard_normal(n) * 10).astype(dtype)
    if np.dtype(dtype).kind == "c":
        w = w + 1j * rng.standard_normal(n).astype(dtype)
    out = [(w + w * 1e-5, w), (w.copy(), w)]
    far = w.copy()
    far[n // 3] += 50  # one element off by far more than the tolerance
    out.append((far, w))
    if np.dtype(dtype).kind == "c":
        imag = w.copy()
        imag[n // 2] += 50j  # off only in its imaginary part
        out.append((imag, w))
    for special in (np.nan, np.inf, -np.inf):
        ws = w.copy()
        ws[[1, n - 2]] = special
        out.append((ws.copy(), ws))  # the same specials: agree
        gs = ws.copy()
        gs[1] = 0  # a special missing
        out.append((gs, ws))
        gs = w.copy()
        gs[5] = special  # a special where none is wanted
        out.append((gs, w))
    flipped = w.copy()
    flipped[[1]] = np.inf
    w2 = w.copy()
    w2[[1]] = -np.inf
    out.append((flipped, w2))  # inf against -inf
    return out


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("n", [7, (1 << 18) + 123])  # one chunk, several
def test_agrees_as_allclose_does(dtype, n):
    rng = np.random.default_rng()
    seen = set()
    for got, want in _cases(rng, dtype, n):
        expect = _oracle(got, want, 1e-3)
        assert tune.agrees(got, want, 1e-3) is expect
        assert tune.agrees(got.astype(np.result_type(got, np.float64)), want, 1e-3) is expect
        seen.add(expect)
    assert seen == {True, False}


def test_agrees_on_shapes_integers_and_the_tolerance():
    rng = np.random.default_rng()
    a = rng.integers(-100, 100, (40, 30))
    assert tune.agrees(a.copy(), a, 1e-3) and not tune.agrees(a + (a == a.max()), a, 1e-3)
    assert not tune.agrees(a.reshape(30, 40), a, 1e-3)
    f = rng.standard_normal((64, 64))
    assert tune.agrees(f + 5e-4, f, 1e-3)  # within tol * max(1, max |want|)
    big = f * 100  # atol scales with the largest magnitude
    assert tune.agrees(big + 0.05, big, 1e-3) and not tune.agrees(f + 0.05, f, 1e-3)
    assert not tune.agrees(f + 1e-9, f, 0)  # tolerance 0: exact
    assert tune.agrees(np.empty((0, 3)), np.empty((0, 3)), 1e-3)
    assert tune.agrees(np.float32(2.0), np.float64(2.0), 1e-3)
