"""Matrix products on each GPU backend against NumPy (the devices of kinds cuda and wgpu):
matmul (odd sizes that are no multiple of a tile, 1-D operands, broadcast stacks, transposed
and strided views, every dtype, mixed dtypes, ``out=``, ``@``), tensordot, vecdot, dot, inner,
vdot, outer, kron, cross, trace, diagonal, vector and matrix norms, matrix_power, multi_dot.

Float references are NumPy's float64 products of the same (rounded) inputs; the tolerance is
the accumulation's error bound, ``(K * eps(acc) + eps(out)) * (|a| @ |b|)``; integer products
wrap around as NumPy's do and must match exactly (cuda: cuBLAS for floats and complex, ruda's
tiled kernel for integers and bool).
"""

from __future__ import annotations

import importlib

import numpy
import pytest

import ruda
from tests.helpers import to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

FLOATS = ["float32", "float64", "float16"]
COMPLEX = ["complex64", "complex128"]
INTS = ["int32", "int64", "int8", "uint8", "int16", "uint32", "bool"]


def need(dev: ruda.Device, op: str, dtype: str = "float32") -> None:
    """Skip where the device cannot hold ``dtype`` (an adapter feature it lacks)."""
    try:
        ruda.asarray(numpy.ones(1, dtype), device=dev)
    except TypeError as e:  # an adapter feature the dtype needs
        pytest.skip(str(e))


def data(dtype: str, shape: tuple[int, ...], rng) -> numpy.ndarray:
    """Random values, never all zeros: normal floats, integers over their whole range (so
    products wrap around), bool with both values."""
    dt = numpy.dtype(dtype)
    if dt == numpy.bool_:
        a = rng.random(shape) < 0.5
    elif dt.kind == "f":
        a = rng.standard_normal(shape).astype(dt)
    elif dt.kind == "c":
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    else:
        info = numpy.iinfo(dt)
        lo, hi = max(info.min, -(1 << 40)), min(info.max, 1 << 40)
        a = rng.integers(lo, hi, shape, endpoint=True).astype(dt)
    if a.size:
        a.flat[0] = 1
    return a


def put(a: numpy.ndarray, dev: ruda.Device) -> ruda.Array:
    return ruda.asarray(a, device=dev)


def _eps(dt: numpy.dtype) -> float:
    return float(numpy.finfo(dt).eps) if dt.kind in "fc" else 0.0


def check_product(got, a: numpy.ndarray, b: numpy.ndarray, want_fn=numpy.matmul) -> None:
    """``got`` equals ``want_fn(a, b)``: exactly for integers and bool, else within the error
    bound of a float (or complex) accumulation (float16 accumulates in float32)."""
    want = want_fn(a, b)
    g = to_numpy(got)
    assert g.shape == want.shape, (g.shape, want.shape)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    if want.dtype.kind in "biu":
        numpy.testing.assert_array_equal(g, want)
        return
    wide = numpy.complex128 if want.dtype.kind == "c" else numpy.float64
    a64, b64 = a.astype(wide), b.astype(wide)
    ref = want_fn(a64, b64)
    mag = want_fn(numpy.abs(a64), numpy.abs(b64))
    k = max(1, (a64.size * b64.size) ** 0.5 if ref.ndim == 0 else a.shape[-1] if a.ndim else 1)
    acc = numpy.dtype(numpy.float32) if want.dtype == numpy.float16 else want.dtype
    per = 4 if want.dtype.kind == "c" else 2  # a complex multiply-add rounds more often
    bound = (per * k * _eps(acc) + _eps(want.dtype)) * mag + 1e-30
    err = numpy.abs(g.astype(wide) - ref)
    assert (err <= bound).all(), f"max error {err.max()} (bound {bound.min()})"


# -- matmul ------------------------------------------------------------------------------------
SHAPES = [
    ((3, 5), (5, 7)), ((1, 1), (1, 1)), ((67, 129), (129, 45)), ((130, 17), (17, 259)),
    ((200, 8), (8, 3)), ((5,), (5, 9)), ((9, 5), (5,)), ((33,), (33,)), ((4, 6, 11), (11, 13)),
    ((2, 1, 7, 3), (5, 3, 4)), ((3, 4), (2, 4, 5)), ((0, 4), (4, 3)), ((3, 0), (0, 5)),
    ((300, 3, 4), (300, 4, 2)), ((64, 5, 1, 7), (7, 3)), ((70, 6), (70, 6, 1)),  # many tiny
]  # fmt: skip


@pytest.mark.parametrize("dtype", FLOATS + INTS + COMPLEX)
def test_matmul_shapes(dtype: str, device, rng) -> None:
    need(device, "matmul", dtype)
    for sa, sb in SHAPES:
        a, b = data(dtype, sa, rng), data(dtype, sb, rng)
        check_product(ruda.matmul(put(a, device), put(b, device)), a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "complex64"])
def test_matmul_views(dtype: str, device, rng) -> None:
    """Transposed, sliced, reversed and broadcast operands are read in place."""
    need(device, "matmul", dtype)
    a, b = data(dtype, (40, 70), rng), data(dtype, (70, 52), rng)
    x, y = put(a, device), put(b, device)
    at, bt = put(numpy.ascontiguousarray(a.T), device), put(numpy.ascontiguousarray(b.T), device)
    check_product(at.mT @ y, a, b)
    check_product(x @ bt.mT, a, b)
    check_product(at.mT @ bt.mT, a, b)
    check_product(x[3:31:2, ::-1] @ y[::-1, 1:50:3], a[3:31:2, ::-1], b[::-1, 1:50:3])
    check_product(x[1:, 4:] @ y[4:, :-1], a[1:, 4:], b[4:, :-1])  # odd offsets
    c = data(dtype, (3, 70, 21), rng)
    z = put(c, device)
    check_product(ruda.matmul(x[None], z), a[None], c)
    check_product(ruda.matmul(z.mT[:, :, :70], y), numpy.swapaxes(c, 1, 2)[:, :, :70], b)
    s = put(data(dtype, (5, 2, 9, 8), rng), device)
    sv = to_numpy(s)
    check_product(s[:, :, ::2].mT @ s[:, :1, :5], sv[:, :, ::2].swapaxes(-1, -2), sv[:, :1, :5])


def test_matmul_mixed_dtypes_out_and_operator(device, rng) -> None:
    need(device, "matmul", "float32")
    a, b = data("float32", (19, 23), rng), data("float32", (23, 6), rng)
    x, y = put(a, device), put(b, device)
    check_product(x @ y, a, b)
    out = ruda.empty((19, 6), dtype=ruda.float32, device=device)
    r = ruda.matmul(x, y, out=out)
    assert r is out
    check_product(out, a, b)
    wide = ruda.empty((19, 6), dtype=ruda.float64, device=device)
    ruda.matmul(x, y, out=wide)
    numpy.testing.assert_allclose(to_numpy(wide), (a @ b).astype(numpy.float64), rtol=1e-4,
                                  atol=1e-4)  # fmt: skip
    with pytest.raises(ValueError):
        ruda.matmul(x, y, out=ruda.empty((6, 19), dtype=ruda.float32, device=device))
    with pytest.raises(ValueError):
        ruda.matmul(x, x)
    i = data("int8", (23, 6), rng)
    check_product(x @ put(i, device), a, i)
    u, w = data("uint8", (19, 23), rng), data("int16", (23, 4), rng)
    check_product(put(u, device) @ put(w, device), u, w)
    c = data("complex64", (5, 19), rng)
    check_product(put(c, device) @ out, c, to_numpy(out))  # complex @ float32


def test_integer_products_wrap_around(device, rng) -> None:
    need(device, "matmul", "int8")
    a, b = data("int8", (17, 300), rng), data("int8", (300, 5), rng)
    want = numpy.matmul(a, b)
    assert (numpy.abs(a.astype(numpy.int64) @ b) > 127).any()  # the products do wrap
    numpy.testing.assert_array_equal(to_numpy(put(a, device) @ put(b, device)), want)


CASES = [("float32", (70, 131, 200)), ("float32", (64, 128, 96)), ("int32", (33, 40, 77)),
         ("float16", (20, 30, 64)), ("float32", (150, 300, 24))]  # fmt: skip


@pytest.mark.devices("wgpu")  # cuda multiplies floating-point operands through cuBLAS
def test_matmul_kernel_variants(device, rng) -> None:
    """Tile shapes, per-invocation tiles, vector loads and split K, each against NumPy."""
    need(device, "matmul")
    products = _kernel_products(device)
    variants = [
        {
            "bm": 128,
            "bn": 128,
            "bk": 8,
            "tm": 8,
            "tn": 8,
            "vec": 4,
            "split": 1,
            "group": 8,
            "wide": 4,
        },
        {
            "bm": 64,
            "bn": 64,
            "bk": 16,
            "tm": 4,
            "tn": 4,
            "vec": 1,
            "split": 3,
            "group": 1,
            "wide": 4,
        },
        {"bm": 32, "bn": 64, "bk": 4, "tm": 2, "tn": 4, "vec": 4, "split": 2, "group": 4},
        {"bm": 16, "bn": 128, "bk": 8, "tm": 1, "tn": 8, "vec": 4, "split": 1, "group": 4},
        # the next slice stored as it arrives (no registers held across the multiply)
        {
            "bm": 16,
            "bn": 64,
            "bk": 16,
            "tm": 8,
            "tn": 4,
            "vec": 4,
            "split": 2,
            "group": 1,
            "wide": 4,
            "direct": 1,
        },
        # the slice's rows walked by a loop, 4 a pass (not unrolled)
        {
            "bm": 32,
            "bn": 64,
            "bk": 16,
            "tm": 4,
            "tn": 8,
            "vec": 4,
            "split": 1,
            "group": 1,
            "wide": 4,
            "ku": 4,
        },
    ]
    old = products.variant
    try:
        for v in variants:
            products.variant = v
            for dtype, (m, n, k) in CASES:
                need(device, "matmul", dtype)
                a, b = data(dtype, (2, m, k), rng), data(dtype, (k, n), rng)
                check_product(put(a, device) @ put(b, device), a, b)
                check_product(put(a, device).mT.mT @ put(b.T.copy(), device).mT, a, b)
    finally:
        products.variant = old


STREAM = [  # the stream form for thin products: vectors along N and K, trees over ky, split K
    {"form": "stream", "bn": 128, "tn": 4, "bk": 4, "vec": 4, "ky": 4, "split": 1},
    {"form": "stream", "bn": 128, "tn": 8, "bk": 8, "vec": 4, "ky": 4, "split": 3},
    {"form": "stream", "bn": 32, "tn": 1, "bk": 4, "vec": 1, "ky": 8, "split": 1},
    {"form": "stream", "bn": 128, "tn": 2, "bk": 8, "vec": 1, "ky": 1, "split": 16},
    {"form": "stream", "bn": 64, "tn": 2, "bk": 4, "vec": 1, "ky": 4, "split": 2, "stage": 1},
    {"form": "stream", "bn": 128, "tn": 4, "bk": 8, "vec": 4, "ky": 2, "split": 5, "stage": 1},
    {"form": "stream", "bn": 32, "tn": 1, "bk": 4, "vec": 1, "ky": 8, "split": 3, "stage": 1},
    # B's next step held in registers: one invocation along K, a tree of 4, K split past nfull
    {"form": "stream", "bn": 128, "tn": 4, "bk": 4, "vec": 4, "ky": 1, "split": 1, "pipe": 1},
    {"form": "stream", "bn": 64, "tn": 2, "bk": 8, "vec": 1, "ky": 4, "split": 3, "pipe": 1},
    {"form": "stream", "bn": 128, "tn": 4, "bk": 8, "vec": 4, "ky": 2, "split": 64, "pipe": 1},
    # deep trees: one pass over K for a single row (32 and 64 invocations along K), 16 split 3
    {"form": "stream", "bn": 32, "tn": 4, "bk": 8, "vec": 4, "ky": 32, "split": 1},
    {"form": "stream", "bn": 64, "tn": 2, "bk": 4, "vec": 1, "ky": 16, "split": 3, "pipe": 1},
    {"form": "stream", "bn": 16, "tn": 4, "bk": 8, "vec": 4, "ky": 64, "split": 1},
    # rows shared among invocations (rg): with a tree, staged A, B held ahead, all 16 apart
    {"form": "stream", "bn": 32, "tn": 4, "bk": 4, "vec": 4, "ky": 2, "split": 3, "rg": 4},
    {"form": "stream", "bn": 64, "tn": 4, "bk": 8, "vec": 4, "ky": 1, "split": 1, "rg": 16},
    {
        "form": "stream",
        "bn": 32,
        "tn": 2,
        "bk": 4,
        "vec": 1,
        "ky": 4,
        "split": 2,
        "rg": 2,
        "stage": 1,
    },
    {
        "form": "stream",
        "bn": 32,
        "tn": 4,
        "bk": 8,
        "vec": 4,
        "ky": 2,
        "split": 5,
        "rg": 8,
        "pipe": 1,
    },
]
STREAM_CASES = [("float32", (1, 128, 4100)), ("float32", (3, 131, 200)), ("int32", (16, 96, 77)),
                ("float16", (5, 64, 300)), ("complex64", (2, 40, 33)), ("int8", (7, 50, 129)),
                ("float64", (9, 132, 64)), ("float32", (16, 260, 1000))]  # fmt: skip


def _kernel_products(device):
    """The device's ``Products``, whose ``variant`` picks the kernel ``Products.gemm`` runs."""
    name = "linalg_products" if device.kind == "wgpu" else "library_products"
    return importlib.import_module(f"ruda._backends.{device.kind}.{name}").PRODUCTS


def test_matmul_stream_variants(device, rng) -> None:
    """The stream kernel (at most 16 rows: GEMV and thin products) in each variant against
    NumPy: whole and partial vectors, rows past M, K split across workgroups, a broadcast stack,
    a transposed B, every variant the device's limits allow on some case."""
    from ruda._array import _wrap
    from ruda._backends.gpu.matmul import Products
    from ruda._kernels import ir
    from ruda._kernels.matmul import gemm as matmul

    need(device, "matmul")
    products = _kernel_products(device)
    x = ruda.ones((1,), device=device)._data
    limits = products.ops.tuner.target(x.ctx)
    ran = set()
    old = products.variant
    try:
        for i, v in enumerate(STREAM):
            products.variant = {**matmul.DEFAULTS, **v, "bm": 16, "tm": 1, "group": 1, "wide": 1}
            for dtype, (m, n, k) in STREAM_CASES:
                acc = matmul.acc_type(ir.type_of(numpy.dtype(dtype)))
                if not matmul.valid(products.variant, acc, limits.max_workgroup,
                                    limits.shared_bytes, m):  # fmt: skip
                    continue
                need(device, "matmul", dtype)
                ran.add(i)
                a, b = data(dtype, (2, m, k), rng), data(dtype, (k, n), rng)
                bt = put(b.T.copy(), device).mT
                for p, q, x, y in (
                    (a, b, put(a, device), put(b, device)),
                    (a[0], b, put(a[0], device), bt),
                ):
                    # Products.gemm: cuda's own sends floats to cuBLAS, not to this variant
                    got = Products.gemm(products, x._data, y._data)
                    check_product(_wrap(got, device), p, q)
    finally:
        products.variant = old
    assert ran == set(range(len(STREAM))), f"variants never run: {set(range(len(STREAM))) - ran}"


def _stale_scratch(monkeypatch, device) -> None:
    """Every scratch allocation of a plan comes back full of NaN (all bits set), not zeros."""
    alloc = ruda.ones((1,), device=device)._data.ctx.allocator
    if device.kind == "wgpu":
        ops, empty = type(ruda.ones((1,), device=device)._data).ops, alloc.empty

        def nan_empty(shape, dtype):
            x = empty(shape, dtype)
            return ops.fill(x, float("nan")) if numpy.dtype(dtype).kind == "f" else x

        monkeypatch.setattr(alloc, "empty", nan_empty)
    else:
        raw = alloc.alloc

        def nan_alloc(nbytes, *args, **kw):
            mem = raw(nbytes, *args, **kw)
            mem.memset_async(255, nbytes, alloc.stream())
            return mem

        monkeypatch.setattr(alloc, "alloc", nan_alloc)


def test_split_partials_are_written_whole(device, rng, monkeypatch) -> None:
    """Split-K partial products skip the scratch fill (every one is written before the sum
    reads it): scratch memory full of NaN never reaches the result, tiled or stream."""
    from ruda._array import _wrap
    from ruda._backends.gpu.matmul import Products
    from ruda._kernels import ir
    from ruda._kernels.matmul import defaults as matmul_defaults
    from ruda._kernels.matmul import gemm as matmul

    need(device, "matmul")
    products = _kernel_products(device)
    m, n, k, split = 3, 130, 999, 8
    stream = {**matmul_defaults.stream_variant(ir.F32, m, n, k), "split": split}
    tiled = {**matmul_defaults.tiled_default(ir.F32, m, n, k), "split": split}
    a, b = data("float32", (m, k), rng), data("float32", (k, n), rng)
    x, y = put(a, device), put(b, device)
    _stale_scratch(monkeypatch, device)
    old = products.variant
    try:
        for v in (tiled, stream):
            p = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(m, n, k), v)
            assert p.temps and p.written == set(p.temps), v
            products.variant = v
            check_product(_wrap(Products.gemm(products, x._data, y._data), device), a, b)
    finally:
        products.variant = old


# -- tensordot, vecdot, dot, inner, vdot -------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_tensordot(dtype: str, device, rng) -> None:
    need(device, "tensordot", dtype)
    a, b = data(dtype, (3, 4, 5, 6), rng), data(dtype, (5, 6, 7), rng)
    x, y = put(a, device), put(b, device)
    check_product(ruda.tensordot(x, y, axes=2), a, b, lambda p, q: numpy.tensordot(p, q, 2))
    ax = ([1, 3], [2, 1])
    c = data(dtype, (7, 6, 4), rng)
    check_product(ruda.tensordot(x, put(c, device), axes=ax), a, c,
                  lambda p, q: numpy.tensordot(p, q, ax))  # fmt: skip
    e = data(dtype, (2, 3), rng)
    f = data(dtype, (4,), rng)
    check_product(ruda.tensordot(put(e, device), put(f, device), axes=0), e, f,
                  lambda p, q: numpy.tensordot(p, q, 0))  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int8", "float16"])
def test_vecdot(dtype: str, device, rng) -> None:
    need(device, "vecdot", dtype)
    a, b = data(dtype, (6, 1, 33), rng), data(dtype, (5, 33), rng)
    check_product(ruda.vecdot(put(a, device), put(b, device)), a, b, numpy.vecdot)
    c, d = data(dtype, (4, 7, 3), rng), data(dtype, (7, 3), rng)
    check_product(ruda.vecdot(put(c, device), put(d, device), axis=-2), c, d,
                  lambda p, q: numpy.vecdot(p, q, axis=-2))  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_dot_inner_vdot(dtype: str, device, rng) -> None:
    need(device, "dot", dtype)
    cases = [((7,), (7,)), ((4, 7), (7,)), ((4, 7), (7, 3)), ((2, 3, 7), (5, 7, 4)),
             ((7,), (2, 7, 3)), ((), (3, 2))]  # fmt: skip
    for sa, sb in cases:
        a, b = data(dtype, sa, rng), data(dtype, sb, rng)
        check_product(ruda.dot(put(a, device), put(b, device)), a, b, numpy.dot)
    for sa, sb in [((7,), (7,)), ((3, 7), (2, 5, 7)), ((), (4,))]:
        a, b = data(dtype, sa, rng), data(dtype, sb, rng)
        check_product(ruda.inner(put(a, device), put(b, device)), a, b, numpy.inner)
    a, b = data(dtype, (3, 5), rng), data(dtype, (15,), rng)
    check_product(ruda.vdot(put(a, device), put(b, device)), a, b, numpy.vdot)
    out = ruda.empty((4, 3), dtype=ruda.asarray(a).dtype, device=device)
    a, b = data(dtype, (4, 7), rng), data(dtype, (7, 3), rng)
    ruda.dot(put(a, device), put(b, device), out=out)
    check_product(out, a, b, numpy.dot)


# -- outer, kron, cross ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int16", "bool"])
def test_outer_kron(dtype: str, device, rng) -> None:
    need(device, "outer", dtype)
    a, b = data(dtype, (7,), rng), data(dtype, (2, 5), rng)
    x, y = put(a, device), put(b, device)
    numpy.testing.assert_array_equal(to_numpy(ruda.outer(x, y)), numpy.outer(a, b))
    numpy.testing.assert_array_equal(to_numpy(ruda.linalg.outer(x, y[0])),
                                     numpy.linalg.outer(a, b[0]))  # fmt: skip
    for sa, sb in [((3,), (4,)), ((2, 3), (4, 5)), ((2, 1, 3), (3, 2)), ((4,), (2, 2, 3))]:
        p, q = data(dtype, sa, rng), data(dtype, sb, rng)
        numpy.testing.assert_array_equal(to_numpy(ruda.kron(put(p, device), put(q, device))),
                                         numpy.kron(p, q))  # fmt: skip


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_cross(dtype: str, device, rng) -> None:
    need(device, "cross", dtype)
    a, b = data(dtype, (5, 3), rng), data(dtype, (4, 1, 3), rng)
    want = numpy.cross(a, b)
    numpy.testing.assert_allclose(to_numpy(ruda.cross(put(a, device), put(b, device))), want)
    c, d = data(dtype, (3, 6), rng), data(dtype, (6, 3), rng)
    got = ruda.cross(put(c, device), put(d, device), axisa=0, axisb=1, axisc=0)
    numpy.testing.assert_allclose(to_numpy(got), numpy.cross(c, d, axisa=0, axisb=1, axisc=0))
    numpy.testing.assert_allclose(to_numpy(ruda.linalg.cross(put(c.T, device), put(d, device))),
                                  numpy.linalg.cross(c.T, d))  # fmt: skip


# -- trace, diagonal ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int8", "uint16", "bool"])
def test_trace_diagonal(dtype: str, device, rng) -> None:
    need(device, "trace", dtype)
    a = data(dtype, (5, 7, 4), rng)
    x = put(a, device)
    for off in (0, 2, -3, 9):
        for ax1, ax2 in ((0, 1), (2, 0), (1, 2)):
            want = numpy.diagonal(a, off, ax1, ax2)
            numpy.testing.assert_array_equal(to_numpy(ruda.diagonal(x, off, ax1, ax2)), want)
            got = ruda.trace(x, off, ax1, ax2)
            numpy.testing.assert_allclose(to_numpy(got), numpy.trace(a, off, ax1, ax2), rtol=1e-5)
            assert to_numpy(got).dtype == numpy.trace(a, off, ax1, ax2).dtype
        numpy.testing.assert_array_equal(to_numpy(ruda.linalg.diagonal(x, offset=off)),
                                         numpy.linalg.diagonal(a, offset=off))  # fmt: skip
        numpy.testing.assert_allclose(to_numpy(ruda.linalg.trace(x, offset=off)),
                                      numpy.linalg.trace(a, offset=off), rtol=1e-5)  # fmt: skip


# -- norms -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_vector_norm(dtype: str, device, rng) -> None:
    need(device, "linalg.vector_norm", dtype)
    a = data(dtype, (6, 5, 9), rng)
    if numpy.dtype(dtype).kind == "i":
        a = (a % 100).astype(dtype)
    x = put(a, device)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for ord in (2, 1, 0, float("inf"), float("-inf"), 3, -1, 0.5):
        for axis in (None, 1, (0, 2), -1):
            for keepdims in (False, True):
                got = ruda.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
                with numpy.errstate(divide="ignore"):  # zeros to a negative power
                    want = numpy.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord)
                g = to_numpy(got)
                assert g.shape == want.shape and g.dtype == want.dtype, (ord, axis, g.dtype)
                numpy.testing.assert_allclose(g, want, rtol=tol * 10, err_msg=f"{ord} {axis}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_norm_and_norm(dtype: str, device, rng) -> None:
    need(device, "linalg.matrix_norm", dtype)
    a = data(dtype, (3, 7, 5), rng)
    x = put(a, device)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for ord in ("fro", 1, -1, float("inf"), float("-inf")):
        for keepdims in (False, True):
            got = to_numpy(ruda.linalg.matrix_norm(x, keepdims=keepdims, ord=ord))
            want = numpy.linalg.matrix_norm(a, keepdims=keepdims, ord=ord)
            assert got.shape == want.shape
            numpy.testing.assert_allclose(got, want, rtol=tol)
    for ord in ("nuc", 2, -2):
        got = to_numpy(ruda.linalg.matrix_norm(x, ord=ord))
        numpy.testing.assert_allclose(got, numpy.linalg.matrix_norm(a, ord=ord), rtol=tol * 10)
    cases = [(a[0], None, None), (a[0], 1, None), (a, "fro", (2, 1)), (a, 3, 1),
             (a, float("inf"), (0, 2)), (a[0, 0], None, None)]  # fmt: skip
    for src, ord, axis in cases:
        xs = put(src, device)
        for keepdims in (False, True):
            got = to_numpy(ruda.linalg.norm(xs, ord, axis, keepdims))
            want = numpy.linalg.norm(src, ord, axis, keepdims)
            assert got.shape == want.shape, (ord, axis)
            numpy.testing.assert_allclose(got, want, rtol=tol)


# -- matrix_power, multi_dot -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_matrix_power(dtype: str, device, rng) -> None:
    need(device, "linalg.matrix_power", dtype)
    a = data(dtype, (2, 6, 6), rng)
    if numpy.dtype(dtype).kind == "f":
        a = a / 3
    x = put(a, device)
    for n in (0, 1, 2, 3, 5, 8):
        want = numpy.linalg.matrix_power(a, n)
        got = to_numpy(ruda.linalg.matrix_power(x, n))
        assert got.dtype == want.dtype
        if want.dtype.kind == "f":
            numpy.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        else:
            numpy.testing.assert_array_equal(got, want)


def test_matrix_power_negative(device, rng) -> None:
    need(device, "linalg.matrix_power", "float64")
    a = data("float64", (3, 5, 5), rng) / 4 + 2 * numpy.eye(5)  # well conditioned
    x = put(a, device)
    for n in (-1, -3):
        got = to_numpy(ruda.linalg.matrix_power(x, n))
        numpy.testing.assert_allclose(got, numpy.linalg.matrix_power(a, n), rtol=1e-9)


def test_multi_dot(device, rng) -> None:
    need(device, "linalg.multi_dot")
    ms = [data("float64", s, rng) for s in ((9,), (9, 30), (30, 2), (2, 40), (40,))]
    got = ruda.linalg.multi_dot([put(m, device) for m in ms])
    numpy.testing.assert_allclose(to_numpy(got), numpy.linalg.multi_dot(ms), rtol=1e-10)
