"""The linalg decompositions on each GPU backend (the devices of kinds cuda and wgpu): cholesky,
inv, solve, det, slogdet, qr, eigh, eigvalsh, svd, svdvals, and pinv, matrix_rank, cond,
matrix_norm, lstsq built on them, against NumPy in float64 on fresh random well-conditioned
matrices (SPD as A A^T + n I), stacks, sizes 1 to 200, float32 and float64. Factors whose signs
are free (Q, eigenvectors, singular vectors) are checked by reconstruction and orthogonality.
"""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

SIZES = [1, 2, 3, 17, 64, 200]
DTYPES = ["float32", "float64"]
TOL = {"float32": 2e-4, "float64": 1e-10}


def general(rng, shape, dtype):
    """Well-conditioned general matrices: random plus a dominant diagonal."""
    n = shape[-1]
    a = rng.standard_normal(shape) + n**0.5 * numpy.eye(shape[-2], n)
    return a.astype(dtype)


def spd(rng, shape, dtype):
    a = rng.standard_normal(shape)
    return (a @ numpy.swapaxes(a, -1, -2) + shape[-1] * numpy.eye(shape[-1])).astype(dtype)


def close(got, want, dtype, scale=1.0):
    g = to_numpy(got).astype(numpy.float64)
    w = numpy.asarray(want, numpy.float64)
    assert g.shape == w.shape, (g.shape, w.shape)
    ref = max(float(numpy.abs(w).max()) if w.size else 0.0, 1.0) * scale
    err = float(numpy.abs(g - w).max()) if w.size else 0.0
    assert err <= TOL[dtype] * ref, f"max error {err} (scale {ref})"


def orthonormal_columns(q, dtype):
    q = to_numpy(q).astype(numpy.float64)
    k = q.shape[-1]
    close(
        numpy.swapaxes(q, -1, -2) @ q,
        numpy.broadcast_to(numpy.eye(k), (*q.shape[:-2], k, k)),
        dtype,
    )


def stack(n):
    return (2,) if n <= 64 else ()


# -- cholesky ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky(n, dtype, device, rng):
    a = spd(rng, (*stack(n), n, n), dtype)
    x = ruda.asarray(a, device=device)
    low = ruda.linalg.cholesky(x)
    assert low.dtype == x.dtype and low.device == device
    close(low, numpy.linalg.cholesky(a.astype(numpy.float64)), dtype)
    up = ruda.linalg.cholesky(x, upper=True)
    close(up, numpy.linalg.cholesky(a.astype(numpy.float64), upper=True), dtype)


def test_cholesky_not_positive_definite(device, rng):
    a = spd(rng, (3, 5, 5), "float64")
    a[1] = -a[1]
    with pytest.raises(numpy.linalg.LinAlgError, match="ruda.linalg.cholesky"):
        ruda.linalg.cholesky(ruda.asarray(a, device=device))


# -- LU: inv, solve, det, slogdet ---------------------------------------------------------------
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_inv_det_slogdet(n, dtype, device, rng):
    a = general(rng, (*stack(n), n, n), dtype)
    x = ruda.asarray(a, device=device)
    a64 = a.astype(numpy.float64)
    inv = ruda.linalg.inv(x)
    close(inv, numpy.linalg.inv(a64), dtype)
    sign, logabs = ruda.linalg.slogdet(x)
    s2, l2 = numpy.linalg.slogdet(a64)
    close(sign, s2, dtype)
    close(logabs, l2, dtype, scale=n)
    if n <= 17:  # det itself over- or underflows for large n
        close(ruda.linalg.det(x), numpy.linalg.det(a64), dtype)


def test_det_pivoting_and_singular(device, rng):
    a = numpy.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    x = ruda.asarray(a, device=device)
    close(ruda.linalg.det(x), numpy.linalg.det(a), "float64")
    s = numpy.array([[1.0, 2.0], [2.0, 4.0]])
    xs = ruda.asarray(s, device=device)
    assert float(to_numpy(ruda.linalg.det(xs))) == 0.0
    sign, logabs = ruda.linalg.slogdet(xs)
    assert float(to_numpy(sign)) == 0.0 and float(to_numpy(logabs)) == -numpy.inf
    for fn in (
        ruda.linalg.inv,
        lambda v: ruda.linalg.solve(v, ruda.asarray([1.0, 1.0], device=device)),
    ):
        with pytest.raises(numpy.linalg.LinAlgError, match="Singular matrix"):
            fn(xs)


@pytest.mark.parametrize("n", [1, 3, 17, 64])
@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_broadcasting(n, dtype, device, rng):
    a = general(rng, (2, 1, n, n), dtype)
    x = ruda.asarray(a, device=device)
    a64 = a.astype(numpy.float64)
    for bshape in [(n,), (n, 4), (3, n, 2), (2, 3, n, 1)]:
        b = rng.standard_normal(bshape).astype(dtype)
        got = ruda.linalg.solve(x, ruda.asarray(b, device=device))
        want = numpy.linalg.solve(a64, b.astype(numpy.float64))
        close(got, want, dtype)


def test_solve_integer_input_is_float64(device):
    a = numpy.array([[2, 1], [1, 3]])
    got = ruda.linalg.solve(ruda.asarray(a, device=device), ruda.asarray([1, 2], device=device))
    assert got.dtype == ruda.float64
    close(got, numpy.linalg.solve(a, [1, 2]), "float64")


# -- QR -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 3), (17, 5), (5, 17), (64, 64), (200, 200)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_qr(shape, dtype, device, rng):
    a = rng.standard_normal((*stack(max(shape)), *shape)).astype(dtype)
    x = ruda.asarray(a, device=device)
    m, n = shape
    for mode in ("reduced", "complete"):
        q, r = ruda.linalg.qr(x, mode=mode)
        q2, r2 = numpy.linalg.qr(a.astype(numpy.float64), mode=mode)
        assert q.shape == q2.shape and r.shape == r2.shape
        orthonormal_columns(q, dtype)
        rr = to_numpy(r)
        assert numpy.all(numpy.tril(rr, -1) == 0)
        close(to_numpy(q).astype(numpy.float64) @ rr, a, dtype, scale=max(m, n) ** 0.5)
        # Householder with LAPACK's sign choice: R agrees with NumPy's
        close(rr, r2, dtype, scale=max(m, n) ** 0.5)
    close(
        ruda.linalg.qr(x, mode="r"),
        numpy.linalg.qr(a.astype(numpy.float64), mode="r"),
        dtype,
        scale=max(m, n) ** 0.5,
    )


# -- eigh -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh(n, dtype, device, rng):
    a = rng.standard_normal((*stack(n), n, n))
    a = (a + numpy.swapaxes(a, -1, -2)).astype(dtype)
    x = ruda.asarray(a, device=device)
    w, v = ruda.linalg.eigh(x)
    w2 = numpy.linalg.eigvalsh(a.astype(numpy.float64))
    close(w, w2, dtype, scale=n**0.5)
    orthonormal_columns(v, dtype)
    vv, ww = to_numpy(v).astype(numpy.float64), to_numpy(w).astype(numpy.float64)
    close(vv @ (ww[..., :, None] * numpy.swapaxes(vv, -1, -2)), a, dtype, scale=n**0.5)
    close(ruda.linalg.eigvalsh(x), w2, dtype, scale=n**0.5)


def test_eigh_uplo(device, rng):
    a = rng.standard_normal((2, 6, 6))  # not symmetric: only the named triangle is read
    for uplo in ("L", "U"):
        x = ruda.asarray(a, device=device)
        close(ruda.linalg.eigvalsh(x, UPLO=uplo), numpy.linalg.eigvalsh(a, UPLO=uplo), "float64")
        w, v = ruda.linalg.eigh(x, UPLO=uplo)
        close(w, numpy.linalg.eigh(a, UPLO=uplo).eigenvalues, "float64")


# -- eig (general matrices) ---------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 17, 64])
@pytest.mark.parametrize("dtype", [*DTYPES, "complex128"])
def test_eig(n, dtype, device, rng):
    a = rng.standard_normal((*stack(n), n, n))  # non-symmetric: complex pairs for real input
    if dtype == "complex128":
        a = a + 1j * rng.standard_normal(a.shape)
    a = a.astype(dtype)
    x = ruda.asarray(a, device=device)
    w, v = ruda.linalg.eig(x)
    ww, vv = to_numpy(w).astype(numpy.complex128), to_numpy(v).astype(numpy.complex128)
    a64 = a.astype(numpy.complex128)
    tol = TOL["float32" if dtype == "float32" else "float64"] * 10 * n
    scale = max(float(numpy.abs(a64).max()), 1.0)
    # A v = v w for every pair, unit columns; eigenvalue sets match NumPy's (any order)
    assert numpy.abs(a64 @ vv - vv * ww[..., None, :]).max() <= tol * scale
    numpy.testing.assert_allclose(numpy.linalg.norm(vv, axis=-2), 1.0, rtol=tol)
    want = numpy.linalg.eigvals(a64)
    for got_set, want_set in zip(ww.reshape(-1, n), want.reshape(-1, n), strict=True):
        far = numpy.abs(got_set[:, None] - want_set[None, :]).min(axis=1)
        assert far.max() <= tol * scale**0.5 * n, far.max()
    w2 = to_numpy(ruda.linalg.eigvals(x)).astype(numpy.complex128)
    numpy.testing.assert_allclose(numpy.sort_complex(w2.reshape(-1)),
                                  numpy.sort_complex(ww.reshape(-1)), atol=tol * scale)  # fmt: skip


# -- SVD ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 3), (17, 5), (5, 17), (64, 64), (200, 200)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_svd(shape, dtype, device, rng):
    a = rng.standard_normal((*stack(max(shape)), *shape)).astype(dtype)
    x = ruda.asarray(a, device=device)
    m, n = shape
    k = min(m, n)
    s2 = numpy.linalg.svd(a.astype(numpy.float64), compute_uv=False)
    for full in (True, False):
        u, s, vh = ruda.linalg.svd(x, full_matrices=full)
        uc, vr = (m, n) if full else (k, k)
        assert u.shape[-2:] == (m, uc) and vh.shape[-2:] == (vr, n) and s.shape[-1] == k
        close(s, s2, dtype, scale=max(m, n) ** 0.5)
        orthonormal_columns(u, dtype)
        orthonormal_columns(ruda.matrix_transpose(vh), dtype)
        uu, vv = to_numpy(u).astype(numpy.float64), to_numpy(vh).astype(numpy.float64)
        rec = (uu[..., :, :k] * to_numpy(s)[..., None, :]) @ vv[..., :k, :]
        close(rec, a, dtype, scale=max(m, n) ** 0.5)
    close(ruda.linalg.svdvals(x), s2, dtype, scale=max(m, n) ** 0.5)


def _random(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _real(dtype):
    return "float32" if dtype in ("float32", "complex64") else "float64"


def _small(diff, like, dtype, scale=1.0):
    """|diff| within the tolerance of ``dtype`` relative to the largest |like| (at least 1)."""
    ref = max(float(numpy.abs(like).max()) if numpy.size(like) else 0.0, 1.0) * scale
    err = float(numpy.abs(diff).max()) if numpy.size(diff) else 0.0
    assert err <= TOL[_real(dtype)] * ref, f"max error {err} (scale {ref})"


def _unitary_columns(q, dtype):
    q = to_numpy(q).astype(numpy.complex128)
    k = q.shape[-1]
    eye = numpy.broadcast_to(numpy.eye(k), (*q.shape[:-2], k, k))
    _small(numpy.conj(numpy.swapaxes(q, -1, -2)) @ q - eye, eye, dtype)


def _check_svd(x, a, full, dtype):
    m, n = a.shape[-2:]
    k = min(m, n)
    wide = numpy.complex128 if numpy.dtype(dtype).kind == "c" else numpy.float64
    s2 = numpy.linalg.svd(a.astype(wide), compute_uv=False)
    u, s, vh = ruda.linalg.svd(x, full_matrices=full)
    uc, vr = (m, n) if full else (k, k)
    assert u.shape[-2:] == (m, uc) and vh.shape[-2:] == (vr, n) and s.shape[-1] == k
    assert u.dtype == x.dtype and vh.dtype == x.dtype
    assert to_numpy(s).dtype == numpy.dtype(_real(dtype))
    close(s, s2, _real(dtype), scale=max(m, n) ** 0.5)
    _unitary_columns(u, dtype)
    _unitary_columns(ruda.matrix_transpose(vh), dtype)
    uu, vv = to_numpy(u).astype(wide), to_numpy(vh).astype(wide)
    rec = (uu[..., :, :k] * to_numpy(s)[..., None, :]) @ vv[..., :k, :]
    _small(rec - a, a, dtype, scale=max(m, n) ** 0.5)
    close(ruda.linalg.svdvals(x), s2, _real(dtype), scale=max(m, n) ** 0.5)


# The large-matrix paths: at least twice as many rows as columns (or columns as rows) take a
# blocked Householder QR first, then the SVD of R (its own block Jacobi for 64+ columns), and
# U = Q [U_R; 0]; square-ish ones with 64+ columns take block Jacobi directly.
@pytest.mark.parametrize("shape", [(3000, 40), (40, 3000), (2, 700, 70)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_svd_tall_and_wide(shape, dtype, device, rng):
    a = _random(rng, shape, dtype)
    _check_svd(ruda.asarray(a, device=device), a, False, dtype)


@pytest.mark.parametrize("shape", [(400, 30), (30, 400)])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_svd_tall_full_matrices(shape, dtype, device, rng):
    a = _random(rng, shape, dtype)
    _check_svd(ruda.asarray(a, device=device), a, True, dtype)


@pytest.mark.parametrize("shape", [(2, 100, 70), (80, 120)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_svd_block_jacobi(shape, dtype, device, rng):
    a = _random(rng, shape, dtype)
    _check_svd(ruda.asarray(a, device=device), a, False, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_svd_large_rank_deficient(dtype, device, rng):
    # zero singular values: U's columns for them are completed by a QR; tall and square-ish
    for shape in [(600, 70), (90, 70)]:
        a = rng.standard_normal((shape[0], 20)) @ rng.standard_normal((20, shape[1]))
        a = a.astype(dtype)
        _check_svd(ruda.asarray(a, device=device), a, shape[0] < 300, dtype)


@pytest.mark.parametrize("shape", [(600, 70), (70, 600)])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("groups", [16, 64])
def test_qr_blocked(shape, dtype, groups, device, rng, monkeypatch):
    # the blocked Householder QR of large matrices: NumPy's R (LAPACK's signs); ``groups``:
    # workgroups per panel step on lavapipe (more: each reads more partial sums)
    from ruda._backends.gpu import linalg_blocked

    monkeypatch.setattr(linalg_blocked, "LLVMPIPE_GROUPS", groups)
    # huge entries: wgpu's kernels divide by a power of two first (cuSOLVER has its own ways)
    a = _random(rng, shape, dtype) * (1e20 if "wgpu" in str(device) else 1.0)
    wide = numpy.complex128 if numpy.dtype(dtype).kind == "c" else numpy.float64
    x = ruda.asarray(a, device=device)
    m, n = shape
    for mode in ("reduced", "complete"):
        q, r = ruda.linalg.qr(x, mode=mode)
        q2, r2 = numpy.linalg.qr(a.astype(wide), mode=mode)
        assert q.shape == q2.shape and r.shape == r2.shape
        _unitary_columns(q, dtype)
        rr = to_numpy(r)
        assert numpy.all(numpy.tril(rr, -1) == 0)
        got = to_numpy(q).astype(wide) @ rr
        _small(got - a, a, dtype, scale=max(m, n) ** 0.5)
        _small(rr - r2, r2, dtype, scale=max(m, n) ** 0.5)


def test_svd_rank_deficient(device, rng):
    a = rng.standard_normal((7, 2)) @ rng.standard_normal((2, 5))
    u, s, vh = ruda.linalg.svd(ruda.asarray(a, device=device))
    close(s, numpy.linalg.svd(a, compute_uv=False), "float64")
    orthonormal_columns(u, "float64")
    orthonormal_columns(ruda.matrix_transpose(vh), "float64")


# -- compositions ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (17, 5), (5, 17)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_pinv_rank_cond_norms(shape, dtype, device, rng):
    a = rng.standard_normal((2, *shape)).astype(dtype)
    a64 = a.astype(numpy.float64)
    x = ruda.asarray(a, device=device)
    close(ruda.linalg.pinv(x), numpy.linalg.pinv(a64), dtype, scale=10)
    got = to_numpy(ruda.linalg.matrix_rank(x))
    assert got.dtype == numpy.int64 and (got == numpy.linalg.matrix_rank(a64)).all()
    for p in (None, 2, -2, "fro", 1, -1, numpy.inf, -numpy.inf):
        if shape[0] == shape[1] or p in (None, 2, -2):
            close(ruda.linalg.cond(x, p), numpy.linalg.cond(a64, p), dtype, scale=10)
    for o in ("fro", "nuc", 1, -1, 2, -2, numpy.inf, -numpy.inf):
        for keep in (False, True):
            close(
                ruda.linalg.matrix_norm(x, ord=o, keepdims=keep),
                numpy.linalg.matrix_norm(a64, ord=o, keepdims=keep),
                dtype,
            )


def test_matrix_rank_deficient_and_tolerances(device, rng):
    a = rng.standard_normal((3, 6, 2)) @ rng.standard_normal((3, 2, 4))
    x = ruda.asarray(a, device=device)
    assert (to_numpy(ruda.linalg.matrix_rank(x)) == 2).all()
    assert (to_numpy(ruda.linalg.matrix_rank(x, tol=1e9)) == 0).all()
    assert (to_numpy(ruda.linalg.matrix_rank(x, rtol=0.0)) >= 2).all()
    assert int(to_numpy(ruda.linalg.matrix_rank(ruda.asarray([0.0, 3.0], device=device)))) == 1


@pytest.mark.parametrize("shape", [(9, 4), (4, 9), (6, 6)])
def test_lstsq(shape, device, rng):
    a = rng.standard_normal(shape)
    for bshape in ((shape[0],), (shape[0], 3)):
        b = rng.standard_normal(bshape)
        got = ruda.linalg.lstsq(ruda.asarray(a, device=device), ruda.asarray(b, device=device))
        want = numpy.linalg.lstsq(a, b)
        for g, w in zip(got, want, strict=True):
            close(g, w, "float64")


@pytest.mark.parametrize("dtype", DTYPES)
def test_multi_dispatch_path(dtype, device, rng, monkeypatch):
    # The large-matrix path (one launch per column step / Jacobi round) on small matrices
    # (wgpu; the cuda backend's cuSOLVER calls do not use it).
    from ruda._backends.gpu import linalg_steps

    monkeypatch.setattr(linalg_steps, "MULTI_MIN", 1)
    n = 7
    a, s = general(rng, (2, n, n), dtype), spd(rng, (2, n, n), dtype)
    a64, s64 = a.astype(numpy.float64), s.astype(numpy.float64)
    x, xs = ruda.asarray(a, device=device), ruda.asarray(s, device=device)
    close(ruda.linalg.cholesky(xs), numpy.linalg.cholesky(s64), dtype)
    close(ruda.linalg.cholesky(xs, upper=True), numpy.linalg.cholesky(s64, upper=True), dtype)
    close(ruda.linalg.inv(x), numpy.linalg.inv(a64), dtype)
    b = rng.standard_normal((n, 3))
    close(
        ruda.linalg.solve(x, ruda.asarray(b.astype(dtype), device=device)),
        numpy.linalg.solve(a64, b),
        dtype,
    )
    close(ruda.linalg.slogdet(x).logabsdet, numpy.linalg.slogdet(a64).logabsdet, dtype)
    q, r = ruda.linalg.qr(x[:, :, :4], mode="complete")
    orthonormal_columns(q, dtype)
    close(to_numpy(q).astype(numpy.float64) @ to_numpy(r), a[:, :, :4], dtype)
    w, v = ruda.linalg.eigh(xs)
    close(w, numpy.linalg.eigvalsh(s64), dtype, scale=n)
    orthonormal_columns(v, dtype)
    u, sv, vh = ruda.linalg.svd(x[:, :4, :])
    close(sv, numpy.linalg.svd(a64[:, :4, :], compute_uv=False), dtype)
    orthonormal_columns(u, dtype)
    orthonormal_columns(ruda.matrix_transpose(vh), dtype)
    sing = s.copy()
    sing[1, 0] = 0  # a zero row: singular
    with pytest.raises(numpy.linalg.LinAlgError, match="Singular"):
        ruda.linalg.inv(ruda.asarray(sing, device=device))
    with pytest.raises(numpy.linalg.LinAlgError, match="positive definite"):
        ruda.linalg.cholesky(ruda.asarray(-s, device=device))


def test_array_cutoffs(device, rng):
    a = rng.standard_normal((3, 6, 4))
    x = ruda.asarray(a, device=device)
    rc = numpy.array([1e-15, 0.3, 0.9])  # per matrix: drop more singular values
    close(ruda.linalg.pinv(x, ruda.asarray(rc, device=device)), numpy.linalg.pinv(a, rc), "float64")
    got = to_numpy(ruda.linalg.matrix_rank(x, rtol=ruda.asarray(rc, device=device)))
    assert (got == numpy.linalg.matrix_rank(a, rtol=rc)).all()
    tol = numpy.array([0.1, 1.5, 100.0])
    got = to_numpy(ruda.linalg.matrix_rank(x, tol=ruda.asarray(tol, device=device)))
    assert (got == numpy.linalg.matrix_rank(a, tol=tol)).all()


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3), (3, 0), (0, 4)])
def test_empty(shape, device):
    a = numpy.zeros(shape)
    x = ruda.asarray(a, device=device)
    if shape[-1] == shape[-2]:
        for name in ("inv", "det", "eigvalsh", "cholesky"):
            got, want = getattr(ruda.linalg, name)(x), getattr(numpy.linalg, name)(a)
            assert to_numpy(got).shape == want.shape
            close(got, want, "float64")
    for mode in ("reduced", "complete"):
        for g, w in zip(ruda.linalg.qr(x, mode=mode), numpy.linalg.qr(a, mode=mode), strict=True):
            close(g, w, "float64")
    for g, w in zip(ruda.linalg.svd(x), numpy.linalg.svd(a), strict=True):
        close(g, w, "float64")


def test_bad_dtype_is_a_clear_error(device):
    x = ruda.asarray(numpy.eye(3, dtype=numpy.float16), device=device)
    with pytest.raises(TypeError, match="ruda.linalg.cholesky"):
        ruda.linalg.cholesky(x)
