"""Advanced indexing on each GPU backend against NumPy (the devices of kinds cuda and wgpu):
``x[int arrays]``, ``x[bool masks]``, mixed with slices, ints, None and Ellipsis (adjacent and
separated advanced indices), ``__setitem__`` with both (scatter, scalar and array values,
dtype conversion), ``take`` (modes), ``take_along_axis``, ``extract``/``compress``/``put``,
over dtypes incl. bool, uint8, float16, float64 and int64, odd sizes and strided views; indices
out of range raise IndexError naming the function.
"""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import assert_close, to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "uint8", "bool"]
IDX_DTYPES = ["int64", "int32", "uint8", "int16", "uint32"]


def data(dtype: str, shape: tuple[int, ...], rng) -> numpy.ndarray:
    dt = numpy.dtype(dtype)
    if dt == numpy.bool_:
        return rng.random(shape) < 0.5
    if dt.kind == "f":
        a = (rng.standard_normal(shape) * 8).astype(dt)
        if a.size:
            a.flat[rng.integers(0, a.size)] = numpy.nan
        return a
    lo = 0 if dt.kind == "u" else -100
    return rng.integers(lo, 100, shape).astype(dt)


def exact(got, want, device) -> None:
    assert_close(got, want, rtol=0, device=device)


# -- __getitem__ -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_integer_array_keys(dtype: str, device, rng) -> None:
    a = data(dtype, (7, 9, 5), rng)
    x = ruda.asarray(a, device=device)
    i = rng.integers(-7, 7, 11)
    j = rng.integers(-7, 7, (3, 1))
    k = rng.integers(0, 5, (1, 4))
    I, J, K = (ruda.asarray(v, device=device) for v in (i, j, k))  # noqa: N806
    keys = [
        ((I,), (i,)),
        ((slice(None), J), (slice(None), j)),
        ((J, K), (j, k)),  # adjacent: B in place
        ((slice(1, None), J, K), (slice(1, None), j, k)),
        ((J, slice(None), K), (j, slice(None), k)),  # separated: B first
        ((2, slice(None), K), (2, slice(None), k)),  # an int separated from the array
        ((slice(None), 3, K), (slice(None), 3, k)),  # an int beside it
        ((Ellipsis, K), (Ellipsis, k)),
        ((None, J, Ellipsis, None), (None, j, Ellipsis, None)),
        ((slice(None, None, -2), J[:, 0]), (slice(None, None, -2), j[:, 0])),
        ((J, K, 1), (j, k, 1)),
    ]
    for key, nkey in keys:
        exact(x[key], a[nkey], device)
    exact(x[[0, -1, 3]], a[[0, -1, 3]], device)  # a host list is an index array
    exact(x[numpy.array([4, 4, 0])], a[[4, 4, 0]], device)


@pytest.mark.parametrize("idx_dtype", IDX_DTYPES)
def test_index_dtypes_and_views(idx_dtype: str, device, rng) -> None:
    a = data("float32", (41, 23), rng)
    x = ruda.asarray(a, device=device)
    lo = 0 if numpy.dtype(idx_dtype).kind == "u" else -23
    i = rng.integers(lo, 23, (6, 7)).astype(idx_dtype)
    ii = ruda.asarray(i, device=device)
    exact(x[:, ii], a[:, i], device)
    exact(x[::-3, ii[::2, 1:]], a[::-3, i[::2, 1:]], device)  # strided source and index views
    exact(x.T[ii % 23], a.T[i % 23], device)


@pytest.mark.parametrize("dtype", DTYPES)
def test_boolean_masks(dtype: str, device, rng) -> None:
    a = data(dtype, (6, 11, 3), rng)
    x = ruda.asarray(a, device=device)
    m = rng.random(a.shape) < 0.4
    M = ruda.asarray(m, device=device)  # noqa: N806
    exact(x[M], a[m], device)
    m2 = rng.random((6, 11)) < 0.5
    exact(x[ruda.asarray(m2, device=device)], a[m2], device)
    m1 = rng.random(11) < 0.5
    exact(x[:, ruda.asarray(m1, device=device)], a[:, m1], device)
    exact(x[1, ruda.asarray(m1, device=device), ::2], a[1, m1, ::2], device)
    exact(x[ruda.asarray(numpy.zeros(6, bool), device=device)], a[numpy.zeros(6, bool)], device)
    exact(x[x > 0] if dtype != "bool" else x[x], a[a > 0] if dtype != "bool" else a[a], device)
    with pytest.raises(IndexError):
        x[ruda.asarray(numpy.ones(5, bool), device=device)]


def test_odd_sizes(device, rng) -> None:
    for n in (1, 3, 1023, 100003):
        a = data("uint8", (n,), rng)
        x = ruda.asarray(a, device=device)
        i = rng.integers(-n, n, 2 * n + 1)
        exact(x[ruda.asarray(i, device=device)], a[i], device)
        m = rng.random(n) < 0.3
        exact(x[ruda.asarray(m, device=device)], a[m], device)


def test_out_of_range_raises(device, rng) -> None:
    x = ruda.asarray(data("float32", (5, 4), rng), device=device)
    for bad in ([5], [-6], [0, 7, 1]):
        with pytest.raises(IndexError, match="axis 0 with size 5"):
            x[ruda.asarray(numpy.array(bad), device=device)]
    with pytest.raises(IndexError, match="axis 1 with size 4"):
        x[:, ruda.asarray(numpy.array([4]), device=device)]
    with pytest.raises(IndexError, match="axis 1"):
        x[
            ruda.asarray(numpy.array([0]), device=device),
            ruda.asarray(numpy.array([9]), device=device),
        ]
    with pytest.raises(IndexError):
        x[ruda.asarray(numpy.array([0, 1]), device=device), ruda.asarray(numpy.array([0, 1, 2]),
                                                                       device=device)]  # fmt: skip
    with pytest.raises(IndexError):
        x[ruda.asarray(numpy.array([1.0]), device=device)]
    u = ruda.asarray(numpy.array([2**32 - 1], numpy.uint32), device=device)
    with pytest.raises(IndexError):
        x[u]


# -- __setitem__ ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_integer_arrays(dtype: str, device, rng) -> None:
    a = data(dtype, (9, 7), rng)
    x = ruda.asarray(a, device=device)
    i = rng.permutation(9)[:5]  # distinct: no duplicate writes
    j = rng.permutation(7)[:3]
    v = data(dtype, (5, 3), rng)
    x[ruda.asarray(i[:, None], device=device), ruda.asarray(j, device=device)] = ruda.asarray(
        v, device=device
    )
    a[i[:, None], j] = v
    exact(x, a, device)
    x[:, ruda.asarray(j, device=device)] = 1
    a[:, j] = 1
    exact(x, a, device)
    w = numpy.abs(data("float64", (9,), rng))  # converted to x's dtype as NumPy converts
    x[:, ruda.asarray(j[:1], device=device)] = ruda.asarray(w[:, None], device=device)
    with numpy.errstate(all="ignore"):
        a[:, j[:1]] = w[:, None].astype(dtype)
    exact(x, a, device)


@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_masks(dtype: str, device, rng) -> None:
    a = data(dtype, (13, 17), rng)
    x = ruda.asarray(a, device=device)
    m = rng.random(a.shape) < 0.4
    x[ruda.asarray(m, device=device)] = 0  # a scalar: the masked fill
    a[m] = 0
    exact(x, a, device)
    m = rng.random(a.shape) < 0.4
    v = data(dtype, (int(m.sum()),), rng)
    x[ruda.asarray(m, device=device)] = ruda.asarray(v, device=device)  # one value per True
    a[m] = v
    exact(x, a, device)
    r = rng.random(13) < 0.5
    x[ruda.asarray(r, device=device), 2:5] = ruda.asarray(a[0, 2:5], device=device)
    a[r, 2:5] = a[0, 2:5]
    exact(x, a, device)
    if dtype != "bool":
        x[x > 1] = 1
        a[a > 1] = 1
        exact(x, a, device)


def test_setitem_views_and_errors(device, rng) -> None:
    a = data("int32", (8, 10), rng)
    x = ruda.asarray(a, device=device)
    v = x[:, ::2]  # a view: writes land in x
    v[ruda.asarray(numpy.array([1, 3]), device=device)] = -5
    a[:, ::2][[1, 3]] = -5
    exact(x, a, device)
    x[ruda.asarray(numpy.array([0, 1]), device=device)] = x[6:8]  # the value overlaps x
    a[[0, 1]] = a[6:8].copy()
    exact(x, a, device)
    with pytest.raises(ValueError):
        x[ruda.asarray(numpy.array([0, 1]), device=device)] = ruda.asarray(
            numpy.zeros((3, 10), numpy.int32), device=device
        )
    with pytest.raises(IndexError):
        x[ruda.asarray(numpy.array([8]), device=device)] = 1


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint8", "bool"])
def test_setitem_basic_copies(dtype: str, device, rng) -> None:
    # same-dtype dense values go as plain copies (no kernel): elements in a loop (scikit-learn's
    # fill_diagonal), blocks, views of the array itself (overlapping or not), and 0-d values
    a = data(dtype, (7, 9), rng)
    b = data(dtype, (7, 9), rng)
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    v = ruda.asarray(b[3, 4], device=device)
    for i in range(7):
        x[i, i] = v
        a[i, i] = b[3, 4]
    x[2] = y[5]
    a[2] = b[5]
    x[4:6] = y[0:2]
    a[4:6] = b[0:2]
    x[0, 1:8] = x[0, 0:7]  # overlaps itself
    a[0, 1:8] = a[0, 0:7].copy()
    x[6, :3] = x[1, 5:8]  # the same buffer, apart
    a[6, :3] = a[1, 5:8]
    x[1, 1] = y[0, 0]
    a[1, 1] = b[0, 0]
    exact(x, a, device)
    exact(y, b, device)  # the sources are untouched


# -- take, take_along_axis, extract, compress, put ------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_take(dtype: str, device, rng) -> None:
    a = data(dtype, (6, 10, 3), rng)
    x = ruda.asarray(a, device=device)
    for axis in (None, 0, 1, 2, -1):
        n = a.size if axis is None else a.shape[axis]
        i = rng.integers(-n, n, (4, 3))
        exact(ruda.take(x, ruda.asarray(i, device=device), axis=axis),
              numpy.take(a, i, axis=axis), device)  # fmt: skip
    exact(ruda.take(x, 2, axis=1), numpy.take(a, 2, axis=1), device)
    w = rng.integers(-50, 50, 9)
    for mode in ("wrap", "clip"):
        exact(ruda.take(x, ruda.asarray(w, device=device), axis=1, mode=mode),
              numpy.take(a, w, axis=1, mode=mode), device)  # fmt: skip
    with pytest.raises(IndexError, match="ruda.take"):
        ruda.take(x, ruda.asarray(numpy.array([0, 10]), device=device), axis=1)
    with pytest.raises(IndexError, match="ruda.take"):
        ruda.take(x, 6, axis=0)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "bool"])
def test_take_along_axis(dtype: str, device, rng) -> None:
    a = data(dtype, (5, 8, 3), rng)
    x = ruda.asarray(a, device=device)
    for axis in (0, 1, 2, -1):
        i = numpy.argsort(a, axis=axis)
        exact(ruda.take_along_axis(x, ruda.asarray(i, device=device), axis=axis),
              numpy.take_along_axis(a, i, axis=axis), device)  # fmt: skip
    i = rng.integers(-8, 8, (5, 4, 1))  # broadcast along the last axis, fewer along axis 1
    exact(ruda.take_along_axis(x, ruda.asarray(i, device=device), axis=1),
          numpy.take_along_axis(a, i, axis=1), device)  # fmt: skip
    f = rng.integers(0, a.size, 17)
    exact(ruda.take_along_axis(x, ruda.asarray(f, device=device), axis=None),
          numpy.take_along_axis(a, f, axis=None), device)  # fmt: skip
    with pytest.raises(IndexError, match="take_along_axis"):
        ruda.take_along_axis(x, ruda.asarray(numpy.full((5, 1, 3), 8), device=device), axis=1)


def test_extract_compress_put(device, rng) -> None:
    a = data("float64", (6, 7), rng)
    x = ruda.asarray(a, device=device)
    c = rng.random(a.shape) < 0.5
    exact(ruda.extract(ruda.asarray(c, device=device), x), numpy.extract(c, a), device)
    k = rng.random(7) < 0.5
    exact(ruda.compress(ruda.asarray(k, device=device), x, axis=1), numpy.compress(k, a, axis=1),
          device)  # fmt: skip
    i = rng.permutation(a.size)[:9]
    v = data("float64", (3,), rng)
    ruda.put(x, ruda.asarray(i, device=device), ruda.asarray(v, device=device))
    numpy.put(a, i, v)
    exact(x, a, device)
    with pytest.raises(IndexError):
        ruda.put(x, ruda.asarray(numpy.array([a.size]), device=device), 1.0)
    assert to_numpy(x).shape == a.shape


def test_kernels_render_for_cuda() -> None:
    """Every gather/search/arg-reduction kernel shape renders as CUDA and compiles (NVRTC)."""
    from ruda._kernels import argreduce, gather, ir
    from ruda._kernels.render import cuda, nvrtc

    if not nvrtc.available():
        pytest.skip("NVRTC is not available here")
    ks = [gather.ravel_index((ir.I64, ir.U8), 2, m) for m in gather.MODES]
    for t in (ir.BOOL, ir.U8, ir.I16, ir.F16, ir.F32, ir.F64, ir.I64):
        ks += [gather.gather(t, 3), gather.scatter(ir.F64, t, 2), gather.scatter(t, ir.BOOL, 1),
               gather.masked_fill(ir.BOOL, t, t, 2), gather.search(t, ir.I32, True),
               gather.search(t, None, False)]  # fmt: skip
        for op in argreduce.OPS:
            ks += [argreduce.build(op, t, 256, 256, False, False),
                   argreduce.build(op, argreduce.value_type(t), 256, 32, True, True)]  # fmt: skip
    ks += [gather.compact(0), gather.compact(3)]
    nvrtc.compile(cuda.render_many(list({k.name: k for k in ks}.values())))
