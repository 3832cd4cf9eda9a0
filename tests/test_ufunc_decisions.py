"""The elementwise decisions made once (``ruda._ufunc``): the same dtypes and the same errors on
every device, the cpu's (NumPy's) being the reference."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda import _ufunc
from ruda._ops import OPS
from tests.helpers import put, to_numpy


def _error(fn):
    """(builtin type, message) of what ``fn()`` raises, or None (NumPy's private subclasses,
    _UFuncOutputCastingError..., count as the builtin they derive from)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        base = next(t for t in type(e).__mro__ if t.__module__ == "builtins")
        return base, str(e)
    return None


def _on(device, fn, *arrays):
    """``fn`` over ``arrays`` put on ``device``, and on the cpu: both outcomes."""
    cpu = ruda.Device("cpu")
    return (
        _error(lambda: fn(*(put(a, device) for a in arrays))),
        _error(lambda: fn(*(put(a, cpu) for a in arrays))),
    )


@pytest.mark.parametrize("name", ["frexp", "modf", "floor", "divmod", "heaviside", "maximum"])
def test_complex_category_same_on_every_device(device, name):
    """A complex operand where NumPy's loops refuse it: the cpu's TypeError, word for word
    (frexp/modf of complex gave tuples on GPUs, divmod named floor_divide); complex maximum
    works everywhere (NumPy's lexicographic order)."""
    if "complex64" not in ruda.__array_namespace_info__().dtypes(device=device):
        pytest.skip(f"{device} has no complex64")
    x = numpy.asarray([1 + 2j, 3 - 1j], dtype=numpy.complex64)
    fn = getattr(ruda, name)
    arity = OPS[name].arity
    got, want = _on(device, lambda *a: fn(*a), *[x] * arity)
    assert got == want
    if name == "maximum":
        assert want is None
        r = ruda.maximum(put(x, device), put(x[::-1].copy(), device))
        numpy.testing.assert_array_equal(to_numpy(r), numpy.maximum(x, x[::-1]))


@pytest.mark.parametrize(
    "case",
    [
        ("add", numpy.int32, numpy.float32, numpy.int32, (3,)),  # same_kind cast
        ("add", numpy.float32, numpy.float32, numpy.float32, (2,)),  # out's shape
        ("sin", numpy.int16, None, numpy.int16, (3,)),  # float16... into int16
    ],
)
def test_out_errors_same_on_every_device(device, case):
    name, d1, d2, od, oshape = case
    a = numpy.arange(3, dtype=d1)
    args = [a] if d2 is None else [a, numpy.arange(3, dtype=d2)]
    o = numpy.zeros(oshape, dtype=od)
    fn = getattr(ruda, name)
    got, want = _on(device, lambda *xs: fn(*xs[:-1], out=xs[-1]), *args, o)
    assert want is not None and got == want


def test_where_same_on_every_device(device):
    """where= is the namespace's off the cpu: out keeps its values where the mask is False."""
    rng = numpy.random.default_rng(7)
    a, b = (
        rng.standard_normal(6).astype(numpy.float32),
        rng.standard_normal(6).astype(numpy.float32),
    )
    mask = rng.random(6) > 0.5
    o = rng.standard_normal(6).astype(numpy.float64)
    want = o.copy()
    numpy.add(a, b, out=want, where=mask)
    out = put(o, device)
    r = ruda.add(put(a, device), put(b, device), out=out, where=put(mask, device))
    assert r is out
    numpy.testing.assert_allclose(to_numpy(out), want, rtol=1e-6)
    # a unary op, a where= of Python bool list, out's dtype narrower than the loop's (same_kind)
    o32 = rng.standard_normal(6).astype(numpy.float32)
    want = o32.copy()
    numpy.sqrt(numpy.abs(a).astype(numpy.float64), out=want, where=mask)
    out = put(o32, device)
    ruda.sqrt(ruda.abs(put(a, device).astype(ruda.float64)), out=out, where=mask.tolist())
    numpy.testing.assert_allclose(to_numpy(out), want, rtol=1e-6)
    # the out= errors come with where= too
    bad = put(numpy.zeros(6, dtype=numpy.int32), device)
    got = _error(lambda: ruda.add(put(a, device), 1.5, out=bad, where=put(mask, device)))
    cpu = ruda.Device("cpu")
    want_err = _error(
        lambda: ruda.add(put(a, cpu), 1.5, out=put(numpy.zeros(6, numpy.int32), cpu), where=mask)
    )
    assert got == want_err and got[0] is TypeError


@pytest.mark.parametrize(
    "args",
    [
        (numpy.int8, 300),
        (numpy.int8, 1.5),
        (numpy.uint8, -1.0),
        (numpy.float16, 2**20),
        (numpy.int16, True),
        (numpy.float32, 1j),
    ],
)
@pytest.mark.parametrize("name", ["add", "divide", "less", "maximum", "sin"])
def test_scalar_dtypes_same_on_every_device(device, name, args):
    """Python scalars beside arrays: the same result dtype (or the same error) everywhere."""
    dtype, s = args
    x = numpy.asarray([1, 2, 3], dtype=dtype)
    fn = getattr(ruda, name)

    def run(xa):
        r = fn(xa) if OPS[name].arity == 1 else fn(xa, s)
        return r.dtype

    cpu = ruda.Device("cpu")
    got, want = _error(lambda: run(put(x, device))), _error(lambda: run(put(x, cpu)))
    assert got == want
    if want is None and put(x, device).device != cpu:
        assert run(put(x, device)) == run(put(x, cpu))


def test_resolve_is_numpys():
    """The decision module answers NumPy's loop for array dtypes and raises NumPy's error."""
    i16, c8 = numpy.dtype(numpy.int16), numpy.dtype(numpy.complex64)
    assert _ufunc.resolve(OPS["sin"], [i16], []) == (i16, numpy.dtype(numpy.float32))
    assert _ufunc.resolve(OPS["divide"], [i16], [300]) == (i16, numpy.dtype(numpy.float64))
    with pytest.raises(TypeError) as e:
        _ufunc.resolve(OPS["floor"], [c8], [])
    with pytest.raises(TypeError) as ref:
        numpy.floor(numpy.ones(1, c8))
    assert str(e.value) == str(ref.value)
    assert _ufunc.broadcast_shape([(2, 1), (3,)]) == (2, 3)
    with pytest.raises(ValueError, match="could not be broadcast together"):
        _ufunc.broadcast_shape([(2,), (3,)])
