"""Manipulation ops on each GPU backend against NumPy (the devices of kinds cuda and wgpu): concat,
stack, reshape copies, flip, roll, tile, repeat, moveaxis, pad, where, clip, broadcast_arrays,
unstack, squeeze/expand_dims and NumPy's joining and splitting functions, per dtype, on odd
shapes, negative axes and views (strided, reversed, transposed) as inputs.
The dtypes per backend are in ``PER_KIND``."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._array import _wrap
from tests.gpu.test_elementwise import needs_dtype
from tests.helpers import assert_close, to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

# The dtypes per backend (tests/conftest.py parametrises them with ``device``).
PER_KIND = {
    "gpu_dtype": {
        "cuda": ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64"],
        "wgpu": ["bool", "uint8", "int8", "int16", "uint16", "float16", "int32", "float32",
                 "int64", "uint64", "float64"],
    }
}  # fmt: skip


def data(rng: numpy.random.Generator, shape: tuple[int, ...], dtype: str) -> numpy.ndarray:
    """Random values of ``dtype`` (never all zeros; ints over their range, floats signed)."""
    d = numpy.dtype(dtype)
    if d.kind == "b":
        return rng.random(shape) < 0.5
    if d.kind in "iu":
        info = numpy.iinfo(d)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True,
                            dtype=d)  # fmt: skip
    return (rng.standard_normal(shape) * 10).astype(d)


def views(x: ruda.Array, a: numpy.ndarray) -> list[tuple[ruda.Array, numpy.ndarray]]:
    """``x`` (on the device, holding 2-d ``a``) and views of it: strided, reversed, transposed."""
    return [(x, a), (x[::2], a[::2]), (x[::-1, 1:], a[::-1, 1:]), (x.T, a.T),
            (x[1:, ::-2], a[1:, ::-2])]  # fmt: skip


def put(a: numpy.ndarray, dev: ruda.Device) -> ruda.Array:
    return ruda.asarray(a, device=dev)


# -- joining ----------------------------------------------------------------------------------
def test_concat(gpu_dtype: str, device, rng) -> None:
    needs_dtype(device, gpu_dtype)
    a = data(rng, (5, 7), gpu_dtype)
    b = data(rng, (3, 7), gpu_dtype)
    c = data(rng, (5, 2), gpu_dtype)
    x, y, z = put(a, device), put(b, device), put(c, device)
    assert_close(ruda.concat([x, y]), numpy.concatenate([a, b]), device=device)
    assert_close(ruda.concat([x, y, x], axis=-2), numpy.concatenate([a, b, a]), device=device)
    assert_close(ruda.concat((x, z, x[:, :1]), axis=1), numpy.concatenate((a, c, a[:, :1]), 1),
                 device=device)  # fmt: skip
    assert_close(ruda.concat([x, y, z], axis=None), numpy.concatenate([a, b, c], None),
                 device=device)  # fmt: skip
    for v, av in views(x, a):
        assert_close(ruda.concat([v, v[:1]], axis=0), numpy.concatenate([av, av[:1]]),
                     device=device)  # fmt: skip
        assert_close(ruda.concat([v[:, ::-1], v], axis=-1), numpy.concatenate([av[:, ::-1], av],
                     axis=-1), device=device)  # fmt: skip
        assert_close(ruda.concat([v, x], axis=None), numpy.concatenate([av, a], None),
                     device=device)  # fmt: skip
    e = data(rng, (0, 7), gpu_dtype)
    assert_close(ruda.concat([put(e, device), x]), numpy.concatenate([e, a]), device=device)
    assert_close(ruda.concatenate([x[0], y[1]]), numpy.concatenate([a[0], b[1]]), device=device)


@pytest.mark.parametrize("pair", [("int8", "uint8"), ("int32", "float32"), ("bool", "int16"),
                                  ("float16", "float32"), ("uint8", "uint16"),
                                  ("int64", "float64")])  # fmt: skip
def test_concat_stack_promote(pair: tuple[str, str], device, rng) -> None:
    for t in pair:
        needs_dtype(device, t)
    a, b = data(rng, (3, 5), pair[0]), data(rng, (3, 5), pair[1])
    x, y = put(a, device), put(b, device)
    assert_close(ruda.concat([x, y], axis=1), numpy.concatenate([a, b], 1), device=device)
    assert_close(ruda.concat([y, x[::-1]], axis=None), numpy.concatenate([b, a[::-1]], None),
                 device=device)  # fmt: skip
    assert_close(ruda.stack([x, y], axis=-1), numpy.stack([a, b], -1), device=device)
    got = ruda.concat([x, x], dtype=ruda.float32)
    assert_close(got, numpy.concatenate([a, a], dtype=numpy.float32), device=device)


def test_stack_unstack(gpu_dtype: str, device, rng) -> None:
    needs_dtype(device, gpu_dtype)
    a = data(rng, (4, 3, 5), gpu_dtype)
    x = put(a, device)
    parts = [x[0], x[1, ::-1], x[2].T.T, x[3]]
    hp = [a[0], a[1, ::-1], a[2], a[3]]
    for axis in (0, 1, 2, -1, -3):
        assert_close(ruda.stack(parts, axis=axis), numpy.stack(hp, axis=axis), device=device)
    for axis in (0, 1, -1):
        # the backend's op: ruda.unstack's tuple wrapping is tested below
        got = [_wrap(g, device) for g in device._ops["unstack"](x._data, axis=axis)]
        want = [numpy.take(a, i, axis=axis) for i in range(a.shape[axis])]
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_close(g, w, device=device)


def test_unstack_namespace(device, rng) -> None:
    a = data(rng, (3, 2), "float32")
    got = ruda.unstack(put(a, device), axis=-1)
    assert isinstance(got, tuple) and all(isinstance(g, ruda.Array) for g in got)
    for g, w in zip(got, (a[:, 0], a[:, 1]), strict=True):
        assert_close(g, w, device=device)


def test_numpy_joining(gpu_dtype: str, device, rng) -> None:
    needs_dtype(device, gpu_dtype)
    a, b = data(rng, (4, 3), gpu_dtype), data(rng, (2, 3), gpu_dtype)
    v, w = data(rng, (3,), gpu_dtype), data(rng, (3,), gpu_dtype)
    x, y, xv, xw = put(a, device), put(b, device), put(v, device), put(w, device)
    assert_close(ruda.vstack([x, y, xv]), numpy.vstack([a, b, v]), device=device)
    assert_close(ruda.hstack([xv, xw[::-1]]), numpy.hstack([v, w[::-1]]), device=device)
    assert_close(ruda.hstack([x.T, y.T]), numpy.hstack([a.T, b.T]), device=device)
    assert_close(ruda.dstack([xv, xw]), numpy.dstack([v, w]), device=device)
    assert_close(ruda.column_stack([xv, xw, x[:3, :1]]), numpy.column_stack([v, w, a[:3, :1]]),
                 device=device)  # fmt: skip
    assert_close(ruda.append(x, y), numpy.append(a, b), device=device)
    assert_close(ruda.append(x, y, axis=0), numpy.append(a, b, axis=0), device=device)
    for f in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for h in (a, v, a[0, 0]):
            assert_close(getattr(ruda, f)(put(h, device)), getattr(numpy, f)(h), device=device)
    assert_close(ruda.resize(xv, (2, 5)), numpy.resize(v, (2, 5)), device=device)
    assert_close(ruda.resize(x[::-1], 7), numpy.resize(a[::-1], 7), device=device)


# -- splitting and views ----------------------------------------------------------------------
def test_splits_and_views(gpu_dtype: str, device, rng) -> None:
    needs_dtype(device, gpu_dtype)
    a = data(rng, (6, 4, 3), gpu_dtype)
    x = put(a, device)
    for got, want in [
        (ruda.split(x, 3), numpy.split(a, 3)),
        (ruda.split(x, [1, 4], axis=-2), numpy.split(a, [1, 4], axis=-2)),
        (ruda.array_split(x, 4, axis=1), numpy.array_split(a, 4, axis=1)),
        (ruda.hsplit(x, 2), numpy.hsplit(a, 2)),
        (ruda.vsplit(x, [2]), numpy.vsplit(a, [2])),
        (ruda.dsplit(x, 3), numpy.dsplit(a, 3)),
    ]:
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_close(g, w, device=device)
    assert_close(ruda.moveaxis(x, 0, -1), numpy.moveaxis(a, 0, -1), device=device)
    assert_close(ruda.moveaxis(x, (0, 2), (-1, 0)), numpy.moveaxis(a, (0, 2), (-1, 0)),
                 device=device)  # fmt: skip
    assert_close(ruda.swapaxes(x, 0, -1), numpy.swapaxes(a, 0, -1), device=device)
    assert_close(ruda.permute_dims(x, (2, 0, 1)), numpy.transpose(a, (2, 0, 1)), device=device)
    for k in (1, 2, 3, -1):
        assert_close(ruda.rot90(x, k, axes=(1, 2)), numpy.rot90(a, k, axes=(1, 2)), device=device)
    assert_close(ruda.expand_dims(x, (0, -1)), numpy.expand_dims(a, (0, -1)), device=device)
    s = put(data(rng, (1, 3, 1), gpu_dtype), device)
    assert_close(ruda.squeeze(s, axis=-1), to_numpy(s).squeeze(-1), device=device)
    assert_close(ruda.squeeze(s), to_numpy(s).squeeze(), device=device)
    b1, b2 = data(rng, (3, 1), gpu_dtype), data(rng, (5,), gpu_dtype)
    got = ruda.broadcast_arrays(put(b1, device), put(b2, device)[::-1])
    for g, w in zip(got, numpy.broadcast_arrays(b1, b2[::-1]), strict=True):
        assert_close(g, w, device=device)


def test_materialise_copies(gpu_dtype: str, device, rng) -> None:
    """Reshapes of non-contiguous views copy; permuted and flipped views copy on demand."""
    needs_dtype(device, gpu_dtype)
    a = data(rng, (5, 6, 3), gpu_dtype)
    x = put(a, device)
    cases = [
        (ruda.permute_dims(x, (2, 0, 1)), numpy.transpose(a, (2, 0, 1))),
        (ruda.moveaxis(x, -1, 0), numpy.moveaxis(a, -1, 0)),
        (ruda.flip(x, axis=(0, -1)), numpy.flip(a, axis=(0, -1))),
        (x[::2, ::-1, 1:], a[::2, ::-1, 1:]),
    ]
    for v, av in cases:
        assert_close(ruda.reshape(v, (-1,)), av.reshape(-1), device=device)
        assert_close(ruda.reshape(v, (av.shape[0], -1)), av.reshape(av.shape[0], -1), device=device)
        assert_close(ruda.asarray(v, copy=True), av, device=device)
        assert_close(ruda.ravel(v), av.ravel(), device=device)
    assert_close(ruda.flip(x), numpy.flip(a), device=device)
    assert_close(ruda.flip(x[1:, ::2], axis=-2), numpy.flip(a[1:, ::2], axis=-2), device=device)


# -- copies with a remap ----------------------------------------------------------------------
def test_roll(gpu_dtype: str, device, rng) -> None:
    needs_dtype(device, gpu_dtype)
    a = data(rng, (5, 7), gpu_dtype)
    x = put(a, device)
    for v, av in views(x, a):
        for shift, axis in [(2, None), (-3, 0), (9, 1), (1, -1), ((1, -2), (0, 1)),
                            ((2, 3), (1, 1)), (0, 0), (-40, None)]:  # fmt: skip
            assert_close(ruda.roll(v, shift, axis=axis), numpy.roll(av, shift, axis=axis),
                         device=device)  # fmt: skip
    assert_close(ruda.roll(x[0, 0], 3), numpy.roll(a[0, 0], 3), device=device)


def test_tile_repeat(gpu_dtype: str, device, rng) -> None:
    needs_dtype(device, gpu_dtype)
    a = data(rng, (3, 5), gpu_dtype)
    x = put(a, device)
    for v, av in views(x, a):
        for reps in [(2,), (3, 1), (2, 1, 3), (1, 0), 3]:
            assert_close(ruda.tile(v, reps), numpy.tile(av, reps), device=device)
        for r, axis in [(2, None), (3, 0), (1, -1), (0, 1), (4, -2)]:
            assert_close(ruda.repeat(v, r, axis=axis), numpy.repeat(av, r, axis=axis),
                         device=device)  # fmt: skip
        reps = rng.integers(0, 4, av.shape[1])
        assert_close(ruda.repeat(v, put(reps, device), axis=1), numpy.repeat(av, reps, axis=1),
                     device=device)  # fmt: skip
    assert_close(ruda.repeat(x, [1, 1, 2] * 5), numpy.repeat(a, [1, 1, 2] * 5), device=device)
    empty = put(a[:0], device)  # an empty axis with an empty repeats array (conformance found it)
    got = ruda.repeat(empty, put(numpy.zeros(0, numpy.int8), device), axis=0)
    assert_close(got, numpy.repeat(a[:0], numpy.zeros(0, numpy.int8), axis=0), device=device)
    assert_close(ruda.tile(x[0, 0], (2, 3)), numpy.tile(a[0, 0], (2, 3)), device=device)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
def test_pad(mode: str, gpu_dtype: str, device, rng) -> None:
    needs_dtype(device, gpu_dtype)
    a = data(rng, (4, 5), gpu_dtype)
    x = put(a, device)
    widths = [1, (2, 3), ((0, 1), (3, 0)), ((7, 2), (1, 11))]
    for v, av in views(x, a)[:3]:
        for w in widths:
            assert_close(ruda.pad(v, w, mode=mode), numpy.pad(av, w, mode=mode), device=device)
    b = data(rng, (3, 2, 4), gpu_dtype)
    assert_close(ruda.pad(put(b, device), ((1, 2), (3, 1), (0, 2)), mode=mode),
                 numpy.pad(b, ((1, 2), (3, 1), (0, 2)), mode=mode), device=device)  # fmt: skip
    if mode == "constant":
        one = True if gpu_dtype == "bool" else 7
        assert_close(ruda.pad(x, 2, constant_values=one), numpy.pad(a, 2, constant_values=one),
                     device=device)  # fmt: skip
        cv = ((1, 2), (3, 4)) if gpu_dtype != "bool" else ((True, False), (False, True))
        assert_close(ruda.pad(x[::-1], (1, 2), constant_values=cv),
                     numpy.pad(a[::-1], (1, 2), constant_values=cv), device=device)  # fmt: skip


# -- ternary kernels --------------------------------------------------------------------------
def test_where(gpu_dtype: str, device, rng) -> None:
    needs_dtype(device, gpu_dtype)
    a, b = data(rng, (6, 7), gpu_dtype), data(rng, (6, 7), gpu_dtype)
    c = rng.random((6, 7)) < 0.5
    x, y, cond = put(a, device), put(b, device), put(c, device)
    assert_close(ruda.where(cond, x, y), numpy.where(c, a, b), device=device)
    for v, av in views(x, a):
        ch = rng.random(av.shape) < 0.5
        bh = data(rng, (av.shape[1], av.shape[0]), gpu_dtype)
        got = ruda.where(put(ch, device), v, put(bh, device).T)  # a transposed operand too
        assert_close(got, numpy.where(ch, av, bh.T), device=device)
    # broadcasting: a column condition, a row operand
    assert_close(ruda.where(cond[:, :1], x[0], y), numpy.where(c[:, :1], a[0], b), device=device)
    s = True if gpu_dtype == "bool" else 3
    assert_close(ruda.where(cond, x, s), numpy.where(c, a, numpy.asarray(s, gpu_dtype)),
                 device=device)  # fmt: skip
    assert_close(ruda.where(cond, s, y[::-1]), numpy.where(c, numpy.asarray(s, gpu_dtype),
                 b[::-1]), device=device)  # fmt: skip
    if gpu_dtype.startswith("float"):
        assert_close(ruda.where(cond, x, 0.5), numpy.where(c, a, a.dtype.type(0.5)), device=device)
    assert_close(ruda.where(cond[0, 0], x, y), numpy.where(c[0, 0], a, b), device=device)


@pytest.mark.parametrize("pair", [("int8", "float32"), ("uint8", "int16"), ("bool", "int32"),
                                  ("float16", "float64"), ("int32", "uint32")])  # fmt: skip
def test_where_promotes(pair: tuple[str, str], device, rng) -> None:
    for t in pair:
        needs_dtype(device, t)
    a, b = data(rng, (9,), pair[0]), data(rng, (9,), pair[1])
    c = rng.random(9) < 0.5
    got = ruda.where(put(c, device), put(a, device), put(b, device))
    assert_close(got, numpy.where(c, a, b), device=device)


def test_clip(gpu_dtype: str, device, rng) -> None:
    needs_dtype(device, gpu_dtype)
    if gpu_dtype == "bool":  # NumPy clips bools too (max is or, min is and)
        b = rng.random((5, 3)) < 0.5
        got = ruda.clip(put(b, device)[::-1], True, None)
        assert_close(got, numpy.clip(b[::-1], True, None), device=device)
        assert_close(
            ruda.clip(put(b, device), None, False), numpy.clip(b, None, False), device=device
        )
        return
    a = data(rng, (6, 7), gpu_dtype)
    lo, hi = data(rng, (7,), gpu_dtype), data(rng, (6, 1), gpu_dtype)
    x = put(a, device)
    d = a.dtype
    slo, shi = (-3, 40) if d.kind == "i" else (2, 40)
    for v, av in views(x, a):
        assert_close(ruda.clip(v, slo, shi), numpy.clip(av, d.type(slo), d.type(shi)),
                     device=device)  # fmt: skip
        assert_close(ruda.clip(v, min=slo), numpy.clip(av, d.type(slo), None), device=device)
        assert_close(ruda.clip(v, max=shi), numpy.clip(av, None, d.type(shi)), device=device)
    assert_close(
        ruda.clip(x, put(lo, device), put(hi, device)), numpy.clip(a, lo, hi), device=device
    )
    assert_close(ruda.clip(x[::-1], put(lo, device)[::-1]), numpy.clip(a[::-1], lo[::-1], None),
                 device=device)  # fmt: skip
    assert_close(ruda.clip(x, shi, slo), numpy.clip(a, d.type(shi), d.type(slo)), device=device)
    if d.kind == "f":
        n = a.copy()
        n[0, :3] = numpy.nan
        assert_close(ruda.clip(put(n, device), -1.5, 2.5), numpy.clip(n, -1.5, 2.5), device=device)
    out = ruda.empty((6, 7), dtype=x.dtype, device=device)
    r = ruda.clip(x, slo, shi, out=out)
    assert r is out
    assert_close(out, numpy.clip(a, d.type(slo), d.type(shi)), device=device)


def test_clip_mixed_bounds_promote_as_numpy(device, rng) -> None:
    """Array bounds promote with x as in NumPy 2 (issue 32: clip follows NumPy's dtypes)."""
    a = data(rng, (20,), "int16")
    lo = data(rng, (20,), "int8")
    x = put(a, device)
    got = ruda.clip(x, put(lo, device), 100)
    assert got.dtype == ruda.int16
    assert_close(got, numpy.clip(a, lo, 100), device=device)
    f = data(rng, (20,), "float32")
    got = ruda.clip(put(f, device), put(f[::-1].astype("float64"), device), None)
    assert got.dtype == ruda.float64
    assert_close(got, numpy.clip(f, f[::-1].astype("float64"), None), device=device)


# -- errors ------------------------------------------------------------------------------------
def test_errors(device, rng) -> None:
    x = put(data(rng, (3, 4), "float32"), device)
    y = put(data(rng, (2, 5), "float32"), device)
    with pytest.raises(ValueError, match="ruda.concat"):
        ruda.concat([x, y])
    with pytest.raises(ValueError, match="ruda.concat"):
        ruda.concat([x, x[0]])
    with pytest.raises(ValueError, match="stack"):
        ruda.stack([x, y])
    with pytest.raises(ruda.AxisError if hasattr(ruda, "AxisError") else IndexError):
        ruda.roll(x, 1, axis=2)
    with pytest.raises(ValueError):
        ruda.repeat(x, -1)
    with pytest.raises(ValueError):
        ruda.repeat(x, put(numpy.array([1, 2]), device), axis=1)
    with pytest.raises(NotImplementedError, match="mean"):
        ruda.pad(x, 1, mode="mean")
    with pytest.raises(ValueError, match="ruda.pad"):
        ruda.pad(x, -1)
    with pytest.raises(ValueError, match="empty axis"):
        ruda.pad(put(numpy.zeros((0, 2), "float32"), device), 1, mode="edge")
    c = ruda.asarray(numpy.ones((3, 4), bool))  # on the cpu
    with pytest.raises(ValueError, match="ruda.where"):
        ruda.where(c, x, x)
    with pytest.raises(ValueError, match="ruda.concat"):
        ruda.concat([x, ruda.asarray(numpy.ones((3, 4), "float32"))])
