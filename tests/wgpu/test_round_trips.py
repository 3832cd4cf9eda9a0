"""What the host waits for on wgpu: element and block assignments are buffer copies (no kernel,
no bind group: scikit-learn fills a diagonal one element at a time), several arrays come back
in one read, and block Jacobi reads its convergence flags (and s) once per chunk of sweeps,
never ``info`` after them. Results against NumPy, and unchanged by how sweeps are chunked."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.gpu.test_runtime import host, put

pytestmark = pytest.mark.devices("wgpu")


@pytest.fixture
def reads(ctx, monkeypatch):
    """The number of device-to-host reads (each a wait for all queued work) since the call."""
    alloc, count = ctx.allocator, [0]
    original = alloc.read_ranges

    def spy(ranges):
        count[0] += 1
        return original(ranges)

    monkeypatch.setattr(alloc, "read_ranges", spy)
    return count


@pytest.mark.parametrize("dtype", ["float32", "int32", "int16", "bool", "complex64", "float64"])
def test_diagonal_fill_one_element_at_a_time(dtype, ctx, device, rng) -> None:
    if dtype not in ruda.__array_namespace_info__().dtypes(device=device):
        pytest.skip(f"{dtype} is not supported on {device}")
    n = 37
    a = (rng.standard_normal((n, n + 3)) * 10).astype(dtype)
    x, v = put(a, device), put(numpy.asarray(3, dtype), device)
    launches = ctx.launcher.dispatches
    for i in range(n):  # scikit-learn's _fill_diagonal on array-API namespaces
        x[i, i] = v
    if numpy.dtype(dtype).itemsize % 4 == 0:  # 4-byte aligned elements: plain copies
        assert ctx.launcher.dispatches == launches
    numpy.fill_diagonal(a, 3)
    numpy.testing.assert_array_equal(host(x), a)


def test_block_assignments(ctx, device, rng) -> None:
    a = rng.standard_normal((6, 8)).astype("float32")
    b = rng.standard_normal((2, 8)).astype("float32")
    x = put(a, device)
    launches = ctx.launcher.dispatches
    x[2:4] = put(b, device)  # dense rows, one dtype: a copy
    assert ctx.launcher.dispatches == launches
    a[2:4] = b
    x[:, 1] = put(b[0, :6], device)  # a strided column: the cast kernel
    a[:, 1] = b[0, :6]
    x[1:3] = x[0:2]  # one buffer: through a temporary
    a[1:3] = a[0:2].copy()
    x[4] = put(b[1].astype("int32"), device)  # another dtype: converted by the kernel
    a[4] = b[1].astype("int32")
    x[5] = put(numpy.float32(7), device)  # broadcast: the kernel
    a[5] = 7
    numpy.testing.assert_array_equal(host(x), a)


def test_copies_flush_in_batches(ctx, device, monkeypatch) -> None:
    launcher = ctx.launcher
    monkeypatch.setattr(launcher, "copy_limit", 8)
    # 8-element copies (single elements join the launcher's word-copy batch instead)
    x, v = put(numpy.zeros(320, "float32"), device), put(numpy.ones(8, "float32"), device)
    launcher.flush()
    before = launcher.submits
    for i in range(20):
        x[16 * i : 16 * i + 8] = v
    assert launcher.submits - before == 2  # after 8 and 16 copies; the rest waits for a read
    want = numpy.zeros(320, "float32")
    want.reshape(20, 16)[:, :8] = 1
    numpy.testing.assert_array_equal(host(x), want)


def test_to_host_many_one_wait(ctx, device, rng, reads) -> None:
    a = rng.standard_normal((5, 7)).astype("float32")
    b = numpy.arange(13, dtype="int8")
    x, y, z = put(a, device), put(b, device), put(numpy.zeros((0, 3), "float64"), device)
    views = [x._data[1:4, ::2], y._data[3:8], z._data, x._data.transpose()]
    got = ctx.allocator.to_host_many(views)
    assert reads[0] == 1
    for g, w in zip(got, [a[1:4, ::2], b[3:8], numpy.zeros((0, 3)), a.T], strict=True):
        assert g.shape == w.shape
        numpy.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_block_jacobi_reads(dtype, ctx, device, reads, monkeypatch) -> None:
    from ruda._backends.gpu.linalg_decomp import LinalgDecomp

    def no_info_read(*args):
        raise AssertionError("the sweeps' flags already said whether the SVD converged")

    monkeypatch.setattr(LinalgDecomp, "_raise_if", no_info_read)
    a = numpy.random.default_rng(7).standard_normal((600, 130)).astype(dtype)
    x = put(a, device)
    monkeypatch.setenv("RUDA_LINALG_CHECK", "off")  # the sweeps' reads alone
    u, s, vh = ruda.linalg.svd(x, full_matrices=False)
    # Gaussian data of 130 columns: 8 to 9 sweeps, the first read after expected_sweeps(130)
    assert 1 <= reads[0] <= 2
    sweeps = reads[0]
    monkeypatch.setenv("RUDA_LINALG_CHECK", "on")  # NumPy's NaN check: one read more
    ruda.linalg.svd(x, full_matrices=False)
    assert reads[0] - sweeps == sweeps + 1
    tol = 2e-4 if dtype == "float32" else 1e-10
    numpy.testing.assert_allclose(host(s), numpy.linalg.svd(a, compute_uv=False), rtol=tol)
    rebuilt = host(u).astype("float64") * host(s) @ host(vh)
    numpy.testing.assert_allclose(rebuilt, a, atol=tol * 30)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sweep_chunks_do_not_change_results(dtype, device, monkeypatch) -> None:
    # sweeps queued past convergence are no-ops and svd_end queued per chunk is recomputed:
    # reading the flags after every two sweeps gives the same bits as the default chunks
    from ruda._backends.gpu import linalg_steps

    a = numpy.random.default_rng(3).standard_normal((2, 300, 70)).astype(dtype)
    x = put(a, device)
    default = [host(r) for r in ruda.linalg.svd(x, full_matrices=False)]
    monkeypatch.setattr(linalg_steps, "expected_sweeps", lambda n: 2)
    chunked = [host(r) for r in ruda.linalg.svd(x, full_matrices=False)]
    for d, c in zip(default, chunked, strict=True):
        numpy.testing.assert_array_equal(d, c)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_no_convergence_still_raises(dtype, device, monkeypatch) -> None:
    from ruda._backends.gpu import linalg_steps
    from ruda._kernels.linalg import common as linalg_common

    monkeypatch.setattr(linalg_steps, "MULTI_MIN", 1)  # the multi-dispatch path (no cached kernel)
    monkeypatch.setattr(linalg_common, "MAX_SWEEPS", 1)
    a = numpy.random.default_rng(5).standard_normal((9, 9)).astype(dtype)
    x = put(a + a.T, device)
    with pytest.raises(numpy.linalg.LinAlgError, match="SVD did not converge"):
        ruda.linalg.svd(x, full_matrices=False)
    with pytest.raises(numpy.linalg.LinAlgError, match="SVD did not converge"):
        ruda.linalg.svdvals(x)
    with pytest.raises(numpy.linalg.LinAlgError, match="Eigenvalues did not converge"):
        ruda.linalg.eigh(x)
