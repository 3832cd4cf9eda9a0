"""The op table is the declaration: every elementwise op x dtype category x device.

For each entry of ``ruda._ops.ELEMENTWISE`` and each of the standard's dtypes: where the entry's
category admits the dtype, the op runs on the device and gives NumPy's dtype and values; where it
does not, the device does what the cpu does (NumPy's result, or the same error type). The
declaration's other fields are checked against what consumes them: every lowering the table
names exists in the kernel builder's library and every library entry is named by some op; the
complex flag is the complex library's list; reductions and scans carry their combine and identity.
One small array per case (CI has 2 cores).
"""

from __future__ import annotations

import warnings

import numpy
import pytest

import ruda
from ruda import _dtypes as dt
from ruda._kernels import elementwise, reduce, scan
from ruda._kernels.math import cmath
from ruda._ops import ELEMENTWISE, OPS, REDUCTIONS, SCANS
from tests.helpers import to_numpy

KINDS = "biufc"
# One small array per dtype kind (first operand, second operand): signs, zero, fractions, inf.
_VALUES = {
    "b": ([True, False, True, False, True], [False, False, True, True, True]),
    "i": ([-3, 0, 2, 5, -1], [1, 2, 0, 3, 1]),
    "u": ([3, 0, 2, 5, 1], [1, 2, 0, 3, 1]),
    "f": ([-1.5, -0.0, 0.25, 2.0, 0.75], [0.5, 1.5, -2.0, 3.0, 0.0]),
    "c": ([-1.5 + 0.5j, 0.0, 0.25 - 2j, 2.0 + 1j, -0.75j], [0.5 - 1j, 1.5, -2.0 + 0.5j, 3.0j, 1]),
}
_RTOL = {2: 2e-3, 4: 2e-5, 8: 1e-12}  # by the itemsize of the result's real part


def _operands(op, d: numpy.dtype) -> list[numpy.ndarray]:
    vals = _VALUES[dt.kind_of(d)]
    out = [numpy.asarray(vals[k], dtype=d) for k in range(op.arity)]
    if op.operands:  # a mixed loop (ldexp): the later operands in their own kind
        out[1:] = [numpy.asarray(_VALUES["i"][1], dtype=numpy.int32)]
    return out


def _run(fn, args):
    """(result as NumPy arrays, None) or (None, the error's type)."""
    try:
        with warnings.catch_warnings(), numpy.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            r = fn(*args)
            return ([to_numpy(x) for x in r] if isinstance(r, tuple) else [to_numpy(r)]), None
    except Exception as e:  # noqa: BLE001 - compared by type with the cpu's
        return None, type(e)


def _same(got: numpy.ndarray, want: numpy.ndarray, where: str) -> None:
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, NumPy {want.dtype}"
    if want.dtype.kind in "fc":
        rtol = _RTOL[want.dtype.itemsize // (2 if want.dtype.kind == "c" else 1)]
        numpy.testing.assert_allclose(got, want, rtol=rtol, atol=1e-30, equal_nan=True,
                                      err_msg=where)  # fmt: skip
    else:
        numpy.testing.assert_array_equal(got, want, err_msg=where)


KNOWN: set[tuple[str, str, str]] = set()  # (op, dtype, device kind) that differ from NumPy


def _case(op, d, fn, device) -> str | None:
    """What is wrong with ``op`` on dtype ``d`` on ``device`` (None: nothing)."""
    host = _operands(op, d._np)
    want, _ = _run(getattr(numpy, op.numpy), host)
    cpu, cpu_err = _run(fn, [ruda.asarray(a) for a in host])
    got, err = _run(fn, [ruda.asarray(a, device=device) for a in host])
    where = f"{op.name}({d}) on {device}"
    if d in dt.category_dtypes(op.category) and op.name != "isnat":  # isnat: datetimes only
        if cpu_err is not None or err is not None:
            return f"{where}: {(err or cpu_err).__name__} on an admitted dtype"
    if err is not cpu_err:
        return f"{where}: {err and err.__name__}, cpu {cpu_err and cpu_err.__name__}"
    if err is None:
        try:
            for g, c, w in zip(got, cpu, want or cpu, strict=True):
                _same(c, w, where + " (cpu)")
                _same(g, c, where)
        except AssertionError as e:
            return str(e).strip().splitlines()[0]
    return None


@pytest.mark.parametrize("op", ELEMENTWISE, ids=lambda o: o.name)
def test_every_op_on_every_dtype(op, device):
    """Admitted dtypes run and match NumPy; the others behave as on the cpu."""
    fn = getattr(ruda, op.name)
    here = set(ruda.__array_namespace_info__().dtypes(device=device).values())
    wrong, known = [], []
    for d in dt.STANDARD:
        if d in here:
            why = _case(op, d, fn, device)
            if why is not None:
                (known if (op.name, str(d), device.kind) in KNOWN else wrong).append(why)
    assert not wrong, "\n".join(wrong)
    stale = {k for k in KNOWN if k[0] == op.name and k[2] == device.kind} - {
        (op.name, w.split("(")[1].split(")")[0], device.kind) for w in known}  # fmt: skip
    assert not stale, f"fixed: drop {stale} from KNOWN"


def test_every_category_is_one_of_the_standards():
    for op in (*ELEMENTWISE, *REDUCTIONS, *SCANS):
        assert set(dt.category_kinds(op.category)) <= set(KINDS), op.name
    # the namespace's categories are the same mapping
    for word, kinds in dt.CATEGORY_KINDS.items():
        assert {d.kind for d in dt.CATEGORIES[word]} == set(kinds), word


def test_every_lowering_exists_and_is_used():
    named = {}
    for op in ELEMENTWISE:
        for kind, lowering in op.lowerings.items():
            assert kind in KINDS, (op.name, kind)
            assert lowering in elementwise.LOWERINGS, (op.name, lowering)
            named.setdefault(lowering, op.name)
    dead = set(elementwise.LOWERINGS) - set(named)
    assert not dead, f"lowerings no op names: {sorted(dead)}"


def test_every_op_has_a_kernel_or_a_composition():
    for op in ELEMENTWISE:
        sigs = elementwise.supported_types(op.name)
        if not op.native:
            assert op.outputs > 1 or op.composed, op.name
            continue
        assert sigs, op.name
        assert op.expr or op.lowerings, f"{op.name}: neither an expression nor a lowering"
        for ins, out in sigs:  # raises where an admitted kind has no lowering
            elementwise.build(op.name, ins, out, None)
        assert any(i[0].is_complex for i, _ in sigs) == op.complex, op.name


def test_complex_flag_is_the_complex_library():
    assert {op.name for op in ELEMENTWISE if op.complex} == set(cmath.OPS)


def test_reductions_and_scans_declare_combine_and_identity():
    assert reduce.OPS == tuple(o.name for o in REDUCTIONS if o.combine)
    assert scan.OPS == tuple(o.name for o in SCANS)
    for o in (*REDUCTIONS, *SCANS):
        assert o.identity is not None, o.name
        assert o.combine in ("", "add", "mul", "max", "min", "or", "and"), o.name
    for o in SCANS:
        assert OPS[scan._op(o.name)].combine == o.combine


def test_standard_flag():
    std = {op.name for op in ELEMENTWISE if op.standard}
    assert len(std) == 66  # the 2025.12 list, less clip (ternary, own function)
    assert all(hasattr(ruda, n) for n in std)


def test_floating_point_error_rules_name_operands():
    for op in ELEMENTWISE:
        operands = "ab"[: op.arity]
        assert op.zero_divides in ("", "pole", *operands), op.name
        assert op.int_zero_divides in ("", *operands), op.name
        assert set(op.finite_from) <= set(operands), op.name
