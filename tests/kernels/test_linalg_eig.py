"""The general eigenproblem's kernels (``ruda._kernels.linalg.eig``: Hessenberg reduction;
``linalg_eig_qr``: complex QR iterations; ``linalg_eig_vectors``: back substitution,
back-transformation, normalisation, LAPACK's packed form) render and compile in both languages
(WGSL through wgpu and the driver's compiler for a sample, CUDA C++ to PTX through NVRTC), and
run on the WebGPU adapter here (lavapipe in CI) through the shared driver ``gpu.linalg_eig``
against NumPy in float64: eigenvalue sets matched, A V = V diag(w), LAPACK's normalisation;
fresh random data, nonsymmetric matrices with complex pairs, defective and triangular ones,
stacks, resumed launches.
"""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._backends.gpu import linalg_eig as ge
from ruda._kernels import ir
from ruda._kernels.linalg import eig as ke
from ruda._kernels.linalg import eig_qr as kq
from ruda._kernels.linalg import eig_vectors as kv
from ruda._kernels.render import wgsl

from . import test_render_compile as rc

wgpu_device = rc.wgpu_device  # the adapter fixture, shared
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def eig_kernels() -> list[ir.Kernel]:
    """Every kernel variant the driver may launch (both widths, with and without vectors,
    workgroup memory and storage buffers)."""
    out: list[ir.Kernel] = []
    for t in ir.COMPLEX_TYPES:
        for vectors in (False, True):
            for wg in (64, 256):
                out += [ke.gehrd(t, vectors, wg), kq.hqr(t, vectors, wg)]
            side = ke.side_for(9, t, 2 if vectors else 1, 64)
            out += [ke.gehrd(t, vectors, 64, side), kq.hqr(t, vectors, 64, side)]
        for wg in (64, 256):
            out.append(kv.trevc(t, wg))
        out += [kv.trevc(t, 64, ke.side_for(9, t, 1, 64)), kv.backtransform(t),
                kv.normalize(t), kv.unpack_real(t)]  # fmt: skip
    return out


# -- rendering and compiling ---------------------------------------------------------------------
def test_names_are_unique_and_shared_memory_fits():
    ks = eig_kernels()
    assert len({k.name for k in ks}) == len(ks)
    for k in ks:
        used = sum(s.size * s.elem.itemsize for s in k.shared)
        assert used <= ke.lc.SHARED_BYTES, (k.name, used)
    assert ke.side_for(8, ir.C64, 2, 64) == 8 and ke.side_for(40, ir.C128, 2, 64) == 0
    assert "shader-f64" in kq.hqr(ir.C128, True).features and not kq.hqr(ir.C64, True).features


def test_wgsl_compiles(wgpu_device):
    device, feats = wgpu_device
    todo = [k for k in eig_kernels() if k.features <= feats]
    assert len(todo) >= len(eig_kernels()) // 2
    errors = [e for k in todo if (e := rc._wgsl_error(device, k, feats))]
    assert not errors, "\n\n".join(errors[:2])


def test_wgsl_pipelines_build_for_a_sample(wgpu_device):
    device, feats = wgpu_device
    t = ir.C128 if "shader-f64" in feats else ir.C64
    for k in (kq.hqr(t, True, 64, ke.side_for(9, t, 2, 64)), ke.gehrd(t, True, 256),
              kv.trevc(t, 256), kv.normalize(t)):  # fmt: skip
        rc.build_pipeline(device, k, feats)


def test_uniform_control_values_go_through_workgroup_memory():
    src = wgsl.render(kq.hqr(ir.C64, True))
    assert src.count("workgroupUniformLoad(&") == 3  # deflated, iterations, the block's start


def test_cuda_compiles_to_ptx():
    rc.assert_ptx_compiles(eig_kernels())


def test_spans_cover_the_range_within_the_cap():
    got = list(ge.spans(0, 10, lambda k: k + 1, 12))
    assert got[0][0] == 0 and got[-1][1] == 10
    assert all(a[1] == b[0] for a, b in zip(got, got[1:], strict=False))
    assert all(sum(k + 1 for k in range(a, b)) <= 12 or b == a + 1 for a, b in got)


# -- running on the adapter ----------------------------------------------------------------------
def _driver() -> ge.LinalgEig:
    from ruda._backends.wgpu.linalg_eig import LINALG_EIG

    return LINALG_EIG


def _eig(a: numpy.ndarray, dev: ruda.Device, vectors: bool = True) -> tuple[numpy.ndarray, ...]:
    x = ruda.asarray(a, device=dev)._data
    if not vectors:
        return (_driver().eigvals(x).to_host(),)
    w, v = _driver().eig(x)
    return w.to_host(), v.to_host()


def _matched(got: numpy.ndarray, want: numpy.ndarray) -> float:
    """The largest distance between two sets of eigenvalues, paired greedily (nearest first)."""
    left, worst = list(got), 0.0
    for x in sorted(want, key=lambda z: -abs(z)):
        i = int(numpy.argmin([abs(x - y) for y in left]))
        worst = max(worst, abs(x - left.pop(i)))
    return worst


def _kappa(m: numpy.ndarray) -> float:
    """The largest eigenvalue condition number of the square matrix ``m`` (float64):
    |x_i| |y_i| / |y_i^H x_i| with left eigenvectors the rows of V^-1. A rounding error
    ``e`` in ``m`` moves eigenvalue i by up to about kappa_i * e: close eigenvalues of a
    non-normal matrix (a random triangular one) move far more than e. Capped at 1000 (a
    defective matrix's is unbounded) so the check keeps its teeth."""
    _, vecs = numpy.linalg.eig(m)
    left = numpy.linalg.pinv(vecs)
    k = float((numpy.linalg.norm(vecs, axis=0) * numpy.linalg.norm(left, axis=1)).max())
    return min(k, 1e3) if numpy.isfinite(k) else 1e3


def _check(a: numpy.ndarray, w: numpy.ndarray, v: numpy.ndarray | None, tol: float,
           eig_tol: float | None = None) -> None:  # fmt: skip
    """w against NumPy's eigenvalues (as sets, per matrix, within the tolerance times the
    matrix's eigenvalue condition number), A v = v w, v normalised."""
    wide = a.astype(numpy.complex128)
    want = numpy.linalg.eigvals(wide)
    n = a.shape[-1]
    scale = max(1.0, float(numpy.abs(wide).max()))
    assert w.shape == a.shape[:-1]
    mats = wide.reshape(-1, n, n)
    for got, ref, m in zip(w.reshape(-1, n), want.reshape(-1, n), mats, strict=True):
        assert _matched(got, ref) <= (eig_tol or tol) * scale * _kappa(m), (got, ref)
    if v is None:
        return
    assert v.shape == a.shape
    resid = numpy.abs(wide @ v - v * w[..., None, :]).max()
    assert resid <= tol * scale * n, resid
    numpy.testing.assert_allclose(numpy.linalg.norm(v, axis=-2), 1.0, atol=10 * tol)
    cols = numpy.swapaxes(v, -1, -2).reshape(-1, n)
    mags = numpy.abs(cols)
    top = mags >= mags.max(axis=-1, keepdims=True) * (1 - 10 * tol)  # (ties: any of them)
    real = (numpy.abs(cols.imag) <= 10 * tol) & (cols.real > 0)
    assert (top & real).any(axis=-1).all(), "no largest component is real and positive"


def _nonsymmetric(rng, shape, dtype):
    a = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 5, 5), (2, 3, 4, 4), (17, 17), (2, 40, 40)])
@pytest.mark.devices("wgpu")
def test_random_general(device, rng, dtype, shape):
    a = _nonsymmetric(rng, shape, dtype)
    w, v = _eig(a, device)
    want = numpy.complex64 if dtype in ("float32", "complex64") else numpy.complex128
    assert w.dtype == want and v.dtype == want
    _check(a, w, v, TOL[dtype])
    (wv,) = _eig(a, device, vectors=False)
    assert wv.dtype == want
    _check(a, wv, None, TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.devices("wgpu")
def test_real_input_with_complex_pairs(device, rng, dtype):
    n = 6
    rot = numpy.zeros((n, n))
    for i in range(0, n, 2):  # blocks [[c, -s], [s, c]] * r: eigenvalues r e^(+-i theta)
        r, th = rng.uniform(0.5, 2.0), rng.uniform(0.3, 2.8)
        rot[i : i + 2, i : i + 2] = r * numpy.array([[numpy.cos(th), -numpy.sin(th)],
                                                     [numpy.sin(th), numpy.cos(th)]])  # fmt: skip
    s = rng.standard_normal((n, n)) + n * numpy.eye(n)
    a = (s @ rot @ numpy.linalg.inv(s)).astype(dtype)
    w, v = _eig(a, device)
    _check(a, w, v, TOL[dtype] * 10)
    assert numpy.abs(w.imag).min() > 0.1  # every eigenvalue complex; pairs are conjugate
    assert _matched(w, numpy.conj(w)) <= TOL[dtype] * 100


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.devices("wgpu")
def test_triangular_and_diagonal(device, rng, dtype):
    a = _nonsymmetric(rng, (3, 7, 7), dtype)
    a[0] = numpy.triu(a[0])
    a[1] = numpy.tril(a[1])
    a[2] = numpy.diag(numpy.diagonal(a[2]))
    w, v = _eig(a, device)
    _check(a, w, v, TOL[dtype])
    for got, m in zip(w, a, strict=True):  # the diagonal, up to the rounding kappa amplifies
        want = numpy.diagonal(m).astype(got.dtype)
        assert _matched(got, want) <= TOL[dtype] * _kappa(m.astype(numpy.complex128))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.devices("wgpu")
def test_defective(device, rng, dtype):
    n = 6
    jordan = numpy.diag(numpy.full(n, rng.uniform(1, 2))) + numpy.diag(numpy.ones(n - 1), 1)
    w, v = _eig(jordan.astype(dtype), device)  # a Jordan block: one eigenvector, n times
    assert numpy.abs(w - jordan[0, 0]).max() <= TOL[dtype]
    _check(jordan.astype(dtype), w, v, TOL[dtype])
    s = rng.standard_normal((n, n)) + n * numpy.eye(n)
    near = (s @ jordan @ numpy.linalg.inv(s)).astype(dtype)  # defective up to rounding
    w, v = _eig(near, device)
    eps = numpy.finfo(dtype).eps
    # a Jordan block's eigenvalues move by eps^(1/n): compare them no closer than that
    _check(near, w, v, TOL[dtype] * 10, eig_tol=50 * eps ** (1 / n))
    assert numpy.isfinite(v).all()


@pytest.mark.devices("wgpu")
def test_cyclic_and_companion_need_exceptional_shifts(device, rng):
    cyc = numpy.roll(numpy.eye(9), 1, axis=0)  # unit-modulus eigenvalues: plain shifts stall
    w, v = _eig(cyc, device)
    _check(cyc, w, v, 1e-10)
    comp = numpy.polynomial.polynomial.polycompanion(rng.standard_normal(8) + 0.1)
    w, v = _eig(comp, device)
    _check(comp, w, v, 1e-9)


@pytest.mark.devices("wgpu")
def test_scaled_matrices(device, rng):
    a = rng.standard_normal((2, 5, 5))
    for s in (1e20, 1e-20):  # squares of float32 entries would overflow or underflow
        x = (a * s).astype(numpy.float32)
        w, v = _eig(x, device)
        _check(x / s, w / s, v, 1e-4)


@pytest.mark.devices("wgpu")
def test_resumed_launches_give_the_same_result(device, rng, monkeypatch):
    a = _nonsymmetric(rng, (2, 20, 20), "float64")
    w0, v0 = _eig(a, device)
    monkeypatch.setattr(ge, "loop_cap", lambda ctx: 2500)  # every phase split into launches
    w1, v1 = _eig(a, device)
    _check(a, w1, v1, 1e-10)
    assert numpy.abs(w1 - w0).max() <= 1e-12 * numpy.abs(w0).max()
    assert numpy.abs(v1 - v0).max() <= 1e-10


@pytest.mark.devices("wgpu")
def test_large_matrix(device, rng):
    a = _nonsymmetric(rng, (150, 150), "float32")  # the storage-buffer kernels, in launches
    w, v = _eig(a, device)
    _check(a, w, v, 2e-4)


@pytest.mark.devices("wgpu")
def test_integer_input_and_empty_stacks(device, rng):
    a = rng.integers(-5, 6, (2, 4, 4))
    w, v = _eig(a, device)
    assert w.dtype == numpy.complex128
    _check(a, w, v, 1e-10)
    for shape in [(0, 0), (2, 0, 0), (0, 3, 3)]:
        w, v = _eig(numpy.ones(shape), device)
        assert w.shape == shape[:-1] and v.shape == shape and w.dtype == numpy.complex128


@pytest.mark.parametrize("bad", [numpy.nan, numpy.inf])
@pytest.mark.devices("wgpu")
def test_non_finite_input_raises(device, rng, bad):
    a = rng.standard_normal((2, 4, 4))
    a[1, 0, 3] = bad
    with pytest.raises(numpy.linalg.LinAlgError, match="ruda.linalg.eig: Array must not"):
        _eig(a, device)
    with pytest.raises(numpy.linalg.LinAlgError, match="ruda.linalg.eigvals"):
        _eig(a, device, vectors=False)
