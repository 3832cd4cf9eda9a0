"""Arrays larger than one storage binding on wgpu (``gpu.chunking``): launches split into
windows of every operand, reductions and scans tile by tile.

Two kinds of test: a binding limit forced down to 4 KiB (and the offset alignment up to 256
bytes, an H200's) so that small arrays of every item width (1, 2, 4, 8 bytes; narrow types
are packed into u32 words) take many-chunk paths cheaply, and arrays a little over lavapipe's
real 128 MiB limit (33.6M float32) against NumPy. Data: fresh random values, integer-valued
where that makes a float sum or running sum exact.
"""

from __future__ import annotations

import os

import numpy
import pytest

import ruda

pytestmark = pytest.mark.devices("wgpu")

SMALL = 4096  # the forced binding limit in bytes
N = 33_600_000  # float32 elements: 134.4 MB, over lavapipe's 128 MiB binding
WIDTHS = ["bool", "int8", "uint8", "int16", "float16", "int32", "float32", "int64", "float64"]


def host(x):
    return numpy.asarray(x.to_device("cpu"))


def data(rng, shape, dt):
    """Random values of ``dt``, small integers so that sums and running sums are exact."""
    if dt == "bool":
        return rng.random(shape) < 0.5
    return rng.integers(-3, 4, shape).astype(dt)


def close(got, want, dt):
    """Equal, up to float16's rounding of the larger sums."""
    assert got.shape == numpy.shape(want)
    tol = 1e-2 if dt == "float16" else 0
    numpy.testing.assert_allclose(got.astype("f8"), numpy.asarray(want, "f8"), rtol=tol, atol=tol)


@pytest.fixture(params=[None, 256], ids=["native-align", "align256"])
def small_limit(request, ctx, monkeypatch):
    """The context with a 4 KiB binding limit (and the given offset alignment)."""
    monkeypatch.setattr(ctx, "max_binding", SMALL)
    if request.param:
        monkeypatch.setattr(ctx, "storage_align", request.param)
    return ctx


@pytest.mark.parametrize("dt", WIDTHS)
def test_elementwise_many_chunks(small_limit, device, rng, dt):
    ctx = small_limit
    if ctx.missing_feature(numpy.dtype(dt)):
        pytest.skip(f"{dt} needs an adapter feature {ctx.name} lacks")
    a, b = data(rng, (19, 333), dt), data(rng, (19, 333), dt)
    A, B = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    d0 = ctx.launcher.dispatches
    op = numpy.logical_xor if dt == "bool" else numpy.add
    rop = ruda.logical_xor if dt == "bool" else ruda.add
    close(host(rop(A, B)), op(a, b), dt)  # contiguous
    assert ctx.launcher.dispatches - d0 > 1  # really split
    close(host(rop(A[:, 1::3], B[None, 2, :111])), op(a[:, 1::3], b[None, 2, :111]), dt)
    close(host(rop(A, B[:, 5:6])), op(a, b[:, 5:6]), dt)  # a broadcast column
    close(host(rop(A.T, B[::-1].T)), op(a.T, b[::-1].T), dt)  # transposed, reversed
    close(host(A.reshape(-1)[5:]), a.reshape(-1)[5:], dt)  # an unaligned view, read back
    fa, fb = A.reshape(-1), B.reshape(-1)
    close(host(rop(fa[5:], fb[:-5])), op(a.reshape(-1)[5:], b.reshape(-1)[:-5]), dt)  # unaligned
    C = ruda.asarray(a, device=device)
    C[3:, 11:] = B[:-3, :-11]  # an assignment into a strided window
    c = a.copy()
    c[3:, 11:] = b[:-3, :-11]
    close(host(C), c, dt)
    rop(C, A, out=C)  # in place: the output is also an input (read-write bindings)
    c = op(c, a)
    close(host(C), c, dt)
    rop(C[:, 1::2], B[:, ::2][:, :166], out=C[:, 1::2])
    c[:, 1::2] = op(c[:, 1::2], b[:, ::2][:, :166])
    close(host(C), c, dt)
    for to in ("int8", "float32", "int64"):  # every width to a narrower and a wider one
        close(host(A[:, ::2].astype(to)), a[:, ::2].astype(to), to)
    close(host(ruda.full(5001, a[0, 0], dtype=dt, device=device)), numpy.full(5001, a[0, 0]), dt)


@pytest.mark.parametrize("dt", WIDTHS)
def test_reductions_many_chunks(small_limit, device, rng, dt):
    ctx = small_limit
    if ctx.missing_feature(numpy.dtype(dt)):
        pytest.skip(f"{dt} needs an adapter feature {ctx.name} lacks")
    a = data(rng, (23, 401), dt)
    A = ruda.asarray(a, device=device)
    for axis in (None, 0, 1):
        close(host(ruda.sum(A, axis=axis)), a.astype("f8").sum(axis=axis), dt)
        close(host(ruda.max(A, axis=axis)), a.max(axis=axis), dt)
        assert numpy.array_equal(host(ruda.argmax(A, axis=axis)), a.argmax(axis=axis))
        assert numpy.array_equal(host(ruda.argmin(A, axis=axis)), a.argmin(axis=axis))
    close(host(ruda.sum(A.T, axis=1)), a.astype("f8").sum(axis=0), dt)  # permuted: copied
    close(host(ruda.any(A, axis=0)), a.any(axis=0), "bool")
    if dt != "bool" and not ctx.missing_feature(numpy.dtype("float64")):
        want = a.astype("f8")
        numpy.testing.assert_allclose(host(ruda.mean(A, axis=0)), want.mean(0), rtol=1e-3)
        numpy.testing.assert_allclose(host(ruda.var(A, axis=1)), want.var(1), rtol=1e-3)
        numpy.testing.assert_allclose(host(ruda.std(A)), want.std(), rtol=1e-3)
    close(host(ruda.cumsum(A)), numpy.cumsum(a), dt)  # one long row: carried prefixes
    close(host(ruda.cumsum(A, axis=0)), numpy.cumsum(a, axis=0), dt)
    got = host(ruda.cumulative_sum(A, axis=1, include_initial=True))
    close(got, numpy.cumulative_sum(a, axis=1, include_initial=True), dt)
    if dt != "bool":
        p = numpy.where(a == 0, 1, numpy.sign(a)).astype(dt)  # +-1: products stay exact
        close(host(ruda.cumprod(ruda.asarray(p, device=device))), numpy.cumprod(p), dt)


def test_argmax_ties_and_nan_across_chunks(small_limit, device, rng):
    a = rng.standard_normal(9000).astype("float32")
    a[[1500, 7000]] = 50.0  # a tie in two chunks: the first wins
    A = ruda.asarray(a, device=device)
    assert int(host(ruda.argmax(A))) == 1500
    a[[3000, 8000]] = numpy.nan  # NaN wins, the first one
    A = ruda.asarray(a, device=device)
    assert int(host(ruda.argmax(A))) == 3000 and int(host(ruda.argmin(A))) == 3000


def test_arange_many_chunks(small_limit, device):
    for dt, start, step in (("int32", -7, 3), ("int64", 5, -2), ("float32", 0.5, 0.25)):
        got = host(ruda.arange(start, start + 9001 * step, step, dtype=dt, device=device))
        numpy.testing.assert_allclose(got, numpy.arange(9001, dtype="f8") * step + start)


@pytest.mark.parametrize("dt", WIDTHS)
def test_gather_many_windows(small_limit, device, rng, dt):
    """Integer indexing and take read a source larger than a binding window by window."""
    ctx = small_limit
    if ctx.missing_feature(numpy.dtype(dt)):
        pytest.skip(f"{dt} needs an adapter feature {ctx.name} lacks")
    a = data(rng, (40, 300), dt)
    A = ruda.asarray(a, device=device)
    flat = rng.integers(-a.size, a.size, 400)  # the index array itself fits a binding
    r = rng.integers(0, 40, 30)
    R = ruda.asarray(r, device=device)
    close(
        host(ruda.take(A.reshape(-1), ruda.asarray(flat, device=device))), a.reshape(-1)[flat], dt
    )
    close(host(A[R]), a[r], dt)  # the output is larger than a binding too
    close(host(A[::-1, 5:200:3][R]), a[::-1, 5:200:3][r], dt)  # a strided, reversed source
    close(host(A.T[R[:10]]), a.T[r[:10]], dt)
    close(host(A[R, R]), a[r, r], dt)


@pytest.mark.parametrize("dt", ["int8", "float32", "float64"])
def test_matmul_many_chunks(small_limit, device, rng, dt):
    """Products split by whichever dimension spans an oversized operand: M, N, K or a stack."""
    ctx = small_limit
    if ctx.missing_feature(numpy.dtype(dt)):
        pytest.skip(f"{dt} needs an adapter feature {ctx.name} lacks")
    a, c = data(rng, (24, 150), dt), data(rng, (3, 9, 24), dt)
    A, C = ruda.asarray(a, device=device), ruda.asarray(c, device=device)
    close(host(A @ A[:20].T), a @ a[:20].T, dt)  # M and N
    close(host(A[:, :9].T @ A[:, 5:40]), a[:, :9].T @ a[:, 5:40], dt)  # transposed, strided
    close(host(C @ A[:, :7]), c @ a[:, :7], dt)  # a stack, a broadcast operand
    v = data(rng, 3001, dt)
    close(host(ruda.asarray(v, device=device) @ ruda.asarray(v, device=device)), v @ v, dt)  # K
    y = ruda.empty((24, 20), dtype=dt, device=device)
    ruda.matmul(A, A[:20].T, out=y)
    close(host(y), a @ a[:20].T, dt)


def test_buffer_over_max_buffer_size(ctx, device):
    limit = ctx.limits.get("max-buffer-size", 1 << 31)
    with pytest.raises(MemoryError, match=rf"{ctx.name}.*\({limit} bytes\)"):
        ruda.empty(limit // 4 + 64, dtype=ruda.float32, device=device)


# -- over lavapipe's (or any adapter's) real binding limit ---------------------------------------
@pytest.fixture(scope="module")
def big_arrays() -> dict:
    """The arrays of ``big`` per device, kept for this module (freed after it)."""
    made: dict = {}
    yield made
    made.clear()


@pytest.fixture
def big(device, ctx, big_arrays):
    """(device, NumPy arrays, device arrays) of N float32 each, made once per device."""
    if N * 4 <= ctx.max_binding:
        pytest.skip("this adapter binds the whole test array: nothing to split")
    if device not in big_arrays:
        seed = int.from_bytes(os.urandom(4), "little")
        print(f"big arrays seed {seed}")
        rng = numpy.random.default_rng(seed)
        a = rng.integers(-2, 3, N).astype("float32")  # integer-valued: exact sums
        b = rng.standard_normal(N, dtype="float32")
        b[N - 1000], b[N - 3000] = 9.0, -9.0  # extremes past the first binding's worth
        arrays = (ruda.asarray(a, device=device), ruda.asarray(b, device=device))
        big_arrays[device] = (device, a, b, *arrays)
    return big_arrays[device]


def test_big_add(big):
    _, a, b, A, B = big
    assert numpy.array_equal(host(A + B), a + b)


def test_big_multiply_broadcast(big):
    _, a, b, A, B = big
    got = host(A.reshape(4200, 8000) * B[-8000:])
    assert numpy.array_equal(got, a.reshape(4200, 8000) * b[-8000:])


def test_big_strided_views(big):
    _, a, b, A, B = big
    assert numpy.array_equal(host(B[::-2] - A[1::2]), b[::-2] - a[1::2])
    assert numpy.array_equal(host(B.reshape(4200, 8000).T[5:9]), b.reshape(4200, 8000).T[5:9])


def test_big_astype(big):
    _, a, b, A, B = big
    assert numpy.array_equal(host(B.astype(ruda.float16)), b.astype("float16"))


def test_big_sum(big):
    _, a, b, A, B = big
    a2, A2 = a.reshape(4200, 8000), A.reshape(4200, 8000)
    assert float(host(ruda.sum(A))) == a.sum(dtype="f8")
    assert numpy.array_equal(host(ruda.sum(A2, axis=0)), a2.sum(axis=0, dtype="f8"))
    assert numpy.array_equal(host(ruda.sum(A2, axis=1)), a2.sum(axis=1, dtype="f8"))
    numpy.testing.assert_allclose(host(ruda.mean(B)), b.mean(dtype="f8"), atol=1e-6)


def test_big_cumsum(big):
    _, a, b, A, B = big
    assert numpy.array_equal(host(ruda.cumsum(A)), numpy.cumsum(a, dtype="f8"))


def test_big_matmul(big):
    _, a, b, A, B = big
    got = host(A.reshape(4200, 8000) @ B[:16000].reshape(8000, 2))
    want = a.reshape(4200, 8000).astype("f8") @ b[:16000].reshape(8000, 2).astype("f8")
    numpy.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_big_take(big):
    _, a, b, A, B = big
    idx = numpy.array([0, 7, N // 2, N - 1000, N - 1, -5, 33_554_431, 33_554_432])
    assert numpy.array_equal(host(B[ruda.asarray(idx, device=A.device)]), b[idx])


def test_big_argmax(big):
    _, a, b, A, B = big
    assert int(host(ruda.argmax(B))) == int(b.argmax()) == N - 1000
    assert int(host(ruda.argmin(B))) == int(b.argmin()) == N - 3000
    assert int(host(ruda.argmax(A))) == int(a.argmax())  # ties: the first
