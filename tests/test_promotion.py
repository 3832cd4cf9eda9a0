"""Type promotion: the explicit table against the standard's lattice, and what the CPU computes."""

from __future__ import annotations

import itertools

import numpy
import pytest

import ruda
from ruda import _dtypes as dt
from ruda._promotion import STANDARD_TABLE, TABLE, result_type, with_scalar

# The standard's promotion lattice (type-promotion.html): an edge a -> b means a promotes to b.
LATTICE_EDGES = [
    ("int8", "int16"), ("int16", "int32"), ("int32", "int64"),
    ("uint8", "uint16"), ("uint16", "uint32"), ("uint32", "uint64"),
    ("uint8", "int16"), ("uint16", "int32"), ("uint32", "int64"),
    ("float32", "float64"), ("complex64", "complex128"),
    ("float32", "complex64"), ("float64", "complex128"),
]  # fmt: skip
KINDS = [
    ["bool"],
    ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"],
    ["float32", "float64", "complex64", "complex128"],
]


def _upper_set(name: str) -> set[str]:
    seen, todo = {name}, [name]
    while todo:
        n = todo.pop()
        for a, b in LATTICE_EDGES:
            if a == n and b not in seen:
                seen.add(b)
                todo.append(b)
    return seen


def _join(a: str, b: str) -> str | None:
    """Least upper bound in the lattice, or None when the standard leaves the pair undefined."""
    common = _upper_set(a) & _upper_set(b)
    minimal = [c for c in common if not any(o != c and c in _upper_set(o) for o in common)]
    assert len(minimal) <= 1, (a, b, minimal)
    return minimal[0] if minimal else None


@pytest.mark.parametrize("kind", KINDS, ids=["bool", "integer", "floating"])
def test_table_equals_lattice(kind):
    for a, b in itertools.product(kind, kind):
        want = _join(a, b)
        got = STANDARD_TABLE.get((getattr(ruda, a), getattr(ruda, b)))
        if want is None:
            assert got is None, f"{a}+{b}: the standard leaves it undefined, table says {got}"
        else:
            assert got is not None and got.name == want, f"{a}+{b}: {got} != {want}"


def test_table_has_every_defined_pair():
    defined = sum(1 for k in KINDS for a in k for b in k if _join(a, b) is not None)
    assert len(STANDARD_TABLE) == defined


@pytest.mark.parametrize(
    "a,b", list(itertools.product(dt.STANDARD, dt.STANDARD)), ids=lambda d: d.name
)
def test_cpu_add_follows_table(a, b, device):
    x = ruda.ones(3, dtype=a, device=device)
    y = ruda.ones(3, dtype=b, device=device)
    # bool + bool is not defined arithmetic; `|` exercises the same promotion.
    z = x | y if a == dt.bool and b == dt.bool else x + y
    assert z.dtype == TABLE[(a, b)]
    assert ruda.result_type(a, b) == TABLE[(a, b)]


def test_cross_kind_follows_numpy():
    for a, b in itertools.product(dt.STANDARD, dt.STANDARD):
        assert TABLE[(a, b)] == dt.from_numpy(numpy.promote_types(a._np, b._np))


@pytest.mark.parametrize("d", dt.STANDARD, ids=lambda d: d.name)
def test_python_scalars(d):
    assert with_scalar(d, True) == d
    if d.kind in "iufc":
        assert with_scalar(d, 1) == d
    if d.kind in "fc":
        assert with_scalar(d, 1.5) == d
    if d.kind == "c":
        assert with_scalar(d, 1j) == d
    if d.kind == "f":
        assert with_scalar(d, 1j) == dt.COMPLEX_OF[d]


def test_result_type_mixes_arrays_dtypes_scalars():
    x = ruda.asarray([1, 2], dtype=ruda.int8)
    assert result_type(x, ruda.int16, 3) == ruda.int16
    assert result_type(ruda.float32, 1.0) == ruda.float32
    assert result_type(1.0) == ruda.float64
    with pytest.raises(ValueError, match="result_type"):
        result_type()


def test_result_type_of_many_follows_numpy():
    # NumPy folds the highest kind first: (int8, uint8, float16) is float16, not float32 (the
    # int16 of the first two promoted with float16), and concat/stack of those gives float16
    names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float16", "float32", "float64", "complex64", "complex128"]  # fmt: skip
    kinds = [getattr(ruda, n) for n in names]
    for ds in itertools.product(kinds, repeat=3):
        want = numpy.result_type(*(numpy.dtype(str(d)) for d in ds))
        assert str(result_type(*ds)) == str(want), ds
    parts = [ruda.ones(2, dtype=d) for d in (ruda.int8, ruda.uint8, ruda.float16)]
    assert ruda.concat(parts).dtype == ruda.float16
