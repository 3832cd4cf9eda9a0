"""Python and NumPy scalars beside GPU arrays: typed by the namespace, kernel parameters in the
backend (no kernel per value, no 0-d upload), NumPy's results and dtypes for every op kind."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._array import _wrap
from ruda._backends.gpu.operands import Param
from ruda._ops import ELEMENTWISE
from tests.helpers import to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")


def test_the_backend_takes_typed_operands_only(device):
    """The strict entry: a Python scalar reaching a backend is refused (the namespace types
    them), a NumPy scalar is a parameter."""
    x = ruda.asarray([1.0, 2.0], dtype=ruda.float32, device=device)
    add = device._ops["add"]
    with pytest.raises(TypeError, match="takes its arrays and NumPy scalars, got float"):
        add(x._data, 1.0)
    y = _wrap(add(x._data, numpy.float32(1.5)), device)
    assert to_numpy(y).tolist() == [2.5, 3.5]
    ops, ctx = type(x._data).ops, x._data.ctx
    assert type(ops.scalar_operand(ctx, numpy.float32(2))) is Param
    assert type(ops.scalar_operand(ctx, numpy.complex64(2j))) is not Param  # a 0-d buffer


def test_new_scalar_values_compile_nothing(device):
    x = ruda.asarray(numpy.linspace(0, 1, 1000, dtype=numpy.float32), device=device)
    compiler = x._data.ctx.compiler
    for v in (0.5, 1.5):  # warm: the kernels of each layout and side
        (x * v + v, v - x, x / 3)
    before = compiler.compiled
    want = numpy.linspace(0, 1, 1000, dtype=numpy.float32)
    for v in (0.25, -3.0, 7.5, 1e-3, 3.0):
        y = x * v + v
        z = v - x
        numpy.testing.assert_array_equal(to_numpy(y), want * numpy.float32(v) + numpy.float32(v))
        numpy.testing.assert_array_equal(to_numpy(z), numpy.float32(v) - want)
    assert compiler.compiled == before


@pytest.mark.parametrize("dtype", ["float32", "int8", "uint16", "int32", "bool"])
def test_scalar_operands_match_numpy(device, dtype):
    """Every binary op with a Python or NumPy scalar on either side, strided and contiguous
    arrays: NumPy's values and dtypes, or NumPy's error."""
    rng = numpy.random.default_rng()
    base = rng.integers(1, 5, (6, 8)).astype(dtype)
    dev_base = ruda.asarray(base, device=device)
    wrong = []
    for op in ELEMENTWISE:
        if op.arity != 2 or op.outputs > 1 or op.operands:
            continue
        f, g = getattr(numpy, op.numpy), getattr(ruda, op.name)
        for s in (True, 3, 2.5, -1, numpy.float32(1.5), numpy.int16(2), numpy.bool_(True)):
            for a, da in ((base, dev_base), (base[:, ::2], dev_base[:, ::2])):
                for args, dargs in (((a, s), (da, s)), ((s, a), (s, da))):
                    with numpy.errstate(all="ignore"), ruda.errstate(all="ignore"):
                        try:
                            want = f(*args)
                        except Exception as e:
                            want = type(e)
                        try:
                            got = g(*dargs)
                        except Exception as e:
                            got = type(e)
                    if isinstance(want, type) or isinstance(got, type):
                        same = (
                            isinstance(want, type)
                            and isinstance(got, type)
                            and (issubclass(got, want) or issubclass(got, NotImplementedError))
                        )  # annotated errors may be a subclass carrying ruda's message
                        if not same:
                            wrong.append(f"{op.name}{tuple(map(repr, (s,)))}: {want} vs {got}")
                        continue
                    g_np = to_numpy(got)
                    if g_np.dtype != want.dtype or not numpy.allclose(
                        g_np.astype(numpy.complex128), want.astype(numpy.complex128),
                        equal_nan=True, rtol=1e-6,
                    ):  # fmt: skip
                        wrong.append(f"{op.name} {s!r}: {want.dtype} vs {g_np.dtype}")
    assert not wrong, "\n".join(wrong[:20])


def test_in_place_scalar_ops(device):
    x = ruda.asarray([1.0, 2.0, 3.0], dtype=ruda.float32, device=device)
    y = x
    y += 1.0
    y *= 2
    y -= numpy.float32(0.5)
    assert y is x and to_numpy(x).tolist() == [3.5, 5.5, 7.5]
    i = ruda.asarray([1, 2], dtype=ruda.int8, device=device)
    with pytest.raises(TypeError, match="ruda.add: Cannot cast ufunc 'add' output"):
        i += 1.5
    with pytest.raises(OverflowError, match="ruda.add: Python integer 300 out of bounds"):
        i + 300
    with pytest.raises(ValueError, match="read-only"):
        b = ruda.broadcast_to(x, (2, 3))
        b += 1.0
