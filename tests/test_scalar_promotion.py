"""Every function that takes Python (and NumPy) scalars, against NumPy 2's promotion (NEP 50).

Table-driven: each case is a function of ``(xp, x, s)`` run with ``xp = numpy`` on a host array
and with ``xp = ruda`` on the same data on the device under test, for every array dtype the
device holds and every scalar of the case. NumPy's answer is the oracle: the same dtype (by
name), the same values (NaNs alike), the result on the input's device; where NumPy raises,
ruda raises the same kind of error (OverflowError for a Python int that does not fit, TypeError
where no loop or cast exists, ValueError...).

NEP 50 in one line: a Python scalar is weak (it takes the array's dtype within its kind, and an
integer that does not fit raises OverflowError); across kinds it brings its kind's default dtype
(an int array with a Python float gives float64); NumPy scalars and 0-d arrays are strong (they
promote as arrays do). Where the Array API standard speaks it agrees; where it leaves a case to
the implementation (int array with float scalar), ruda follows NumPy.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy
import pytest

import ruda
from tests.helpers import to_numpy

# NumPy warns of overflows and invalid values in these cases as ruda does; only results count.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# Array dtypes tried (each only on devices that hold it) and the scalars beside them.
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]  # fmt: skip
FEW_DTYPES = ["bool", "int8", "uint8", "int64", "float32", "float64", "complex64"]
REAL_DTYPES = [d for d in DTYPES if not d.startswith("complex")]
INT_DTYPES = [d for d in DTYPES if d[0] in "iu"]
FLOAT_DTYPES = ["float16", "float32", "float64", "complex64", "complex128"]
SCALARS = [True, 3, -2, 300, 2.5, -0.5, 1.5 - 2j,
           numpy.float32(2.5), numpy.int16(-3), numpy.bool_(False)]  # fmt: skip
FEW_SCALARS = [True, 3, 300, 2.5, 1.5 - 2j, numpy.float32(2.5)]
REAL_SCALARS = [s for s in SCALARS if not isinstance(s, complex)]
SHIFTS = [True, 1, 3, 300, 2.5, numpy.int16(2)]  # no negative counts: NumPy's own are its C's


def _binary(name: str) -> tuple[Any, Any]:
    """``f(x, s)`` and ``f(s, x)`` for the namespace function ``name``."""
    return (lambda xp, x, s: getattr(xp, name)(x, s)), (lambda xp, x, s: getattr(xp, name)(s, x))


def _inplace(op: Any) -> Any:
    def run(xp: Any, x: Any, s: Any) -> Any:
        y = xp.asarray(x, copy=True)
        return op(y, s)

    return run


def _mutate(fn: Any) -> Any:
    """A function that writes ``s`` into a copy of ``x`` and returns the copy."""

    def run(xp: Any, x: Any, s: Any) -> Any:
        y = xp.asarray(x, copy=True)
        fn(xp, y, s)
        return y

    return run


def _mask(xp: Any, x: Any) -> Any:
    return xp.asarray([True, False] * (x.shape[0] // 2) + [True], device=x.device)


def _setitem(y: Any, key: Any, s: Any) -> None:
    y[key] = s


# name -> (function of (xp, x, s), array dtypes, scalars, data)
CASES: dict[str, tuple[Any, list[str], list[Any], str]] = {}
CORE = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
        "maximum", "minimum", "less", "equal", "bitwise_and", "arctan2", "copysign",
        "heaviside", "gcd", "logical_and", "float_power"]  # fmt: skip
OTHER = ["fmax", "fmin", "hypot", "nextafter", "logaddexp", "bitwise_or", "bitwise_xor",
         "not_equal", "less_equal", "greater", "greater_equal", "logical_or", "logical_xor",
         "lcm", "fmod"]  # fmt: skip
for _name in CORE + OTHER:
    _f, _r = _binary(_name)
    _dts, _scs = (DTYPES, SCALARS) if _name in CORE else (FEW_DTYPES, FEW_SCALARS)
    CASES[f"{_name}(x, s)"] = (_f, _dts, _scs, "plain")
    CASES[f"{_name}(s, x)"] = (_r, _dts, _scs, "plain")
for _name in ("left_shift", "right_shift"):
    _f, _r = _binary(_name)
    CASES[f"{_name}(x, s)"] = (_f, INT_DTYPES + ["bool"], SHIFTS, "small")
    CASES[f"{_name}(s, x)"] = (_r, INT_DTYPES + ["bool"], [1, 3, True], "small")
CASES["divmod(x, s)"] = ((lambda xp, x, s: xp.divmod(x, s)), FEW_DTYPES, FEW_SCALARS, "plain")
CASES["ldexp(x, s)"] = ((lambda xp, x, s: xp.ldexp(x, s)), FLOAT_DTYPES[:3] + ["int8", "int64"],
                        [True, 3, -2, 2.5, numpy.int16(2)], "plain")  # fmt: skip
CASES["ldexp(s, x)"] = ((lambda xp, x, s: xp.ldexp(s, x)), INT_DTYPES + ["bool"],
                        [3, 2.5, numpy.float32(2.5)], "small")  # fmt: skip

_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
              "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
              "|": operator.or_, "<<": operator.lshift, "<": operator.lt, "==": operator.eq,
              ">=": operator.ge, "!=": operator.ne}  # fmt: skip
_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
            "//=": operator.ifloordiv, "**=": operator.ipow, "&=": operator.iand}  # fmt: skip
for _sym, _op in _OPERATORS.items():
    _sc = SHIFTS if _sym == "<<" else SCALARS
    CASES[f"x {_sym} s"] = ((lambda xp, x, s, op=_op: op(x, s)), DTYPES, _sc, "plain")
    CASES[f"s {_sym} x"] = ((lambda xp, x, s, op=_op: op(s, x)), FEW_DTYPES, FEW_SCALARS, "plain")
for _sym, _op in _INPLACE.items():
    CASES[f"x {_sym} s"] = (_inplace(_op), DTYPES, SCALARS, "plain")

CASES.update({
    "clip(x, s, None)": ((lambda xp, x, s: xp.clip(x, s, None)), REAL_DTYPES, REAL_SCALARS,
                         "plain"),
    "clip(x, None, s)": ((lambda xp, x, s: xp.clip(x, None, s)), REAL_DTYPES, REAL_SCALARS,
                         "plain"),
    "clip(x, s, 2.5)": ((lambda xp, x, s: xp.clip(x, s, 2.5)), REAL_DTYPES, REAL_SCALARS, "plain"),
    "clip(x, s, 5)": ((lambda xp, x, s: xp.clip(x, s, 5)), REAL_DTYPES, REAL_SCALARS, "plain"),
    "clip(x, s, int16 5)": ((lambda xp, x, s: xp.clip(x, s, numpy.int16(5))), REAL_DTYPES,
                            [-2, 2.5, True], "plain"),
    "where(c, x, s)": ((lambda xp, x, s: xp.where(_mask(xp, x), x, s)), DTYPES, SCALARS, "plain"),
    "where(c, s, x)": ((lambda xp, x, s: xp.where(_mask(xp, x), s, x)), DTYPES, SCALARS, "plain"),
    "where(c, s, -1.5)": ((lambda xp, x, s: xp.where(_mask(xp, x), s, -1.5)), ["bool"], SCALARS,
                          "plain"),
    "where(c, s, 7)": ((lambda xp, x, s: xp.where(_mask(xp, x), s, 7)), ["bool"], SCALARS,
                       "plain"),
    "full(3, s)": ((lambda xp, x, s: xp.full(3, s, device=x.device)), ["bool"], SCALARS, "plain"),
    "full(3, s, dtype)": ((lambda xp, x, s: xp.full(3, s, dtype=x.dtype, device=x.device)),
                          DTYPES, REAL_SCALARS, "plain"),
    "full_like(x, s)": ((lambda xp, x, s: xp.full_like(x, s)), DTYPES, REAL_SCALARS, "plain"),
    "nan_to_num(x, nan=s)": ((lambda xp, x, s: xp.nan_to_num(x, nan=s, posinf=s, neginf=s)),
                             DTYPES, [3, -2, 2.5, True, numpy.float32(2.5)], "special"),
    "isclose(x, s)": ((lambda xp, x, s: xp.isclose(x, s)), DTYPES, SCALARS, "plain"),
    "isclose(s, x)": ((lambda xp, x, s: xp.isclose(s, x)), FEW_DTYPES, FEW_SCALARS, "plain"),
    "allclose(x, s)": ((lambda xp, x, s: xp.allclose(x, s)), FEW_DTYPES, FEW_SCALARS, "plain"),
    "searchsorted(x, s)": ((lambda xp, x, s: xp.searchsorted(xp.sort(x), s)), REAL_DTYPES,
                           REAL_SCALARS, "plain"),
    "x.fill(s)": (_mutate(lambda xp, y, s: y.fill(s)), DTYPES, SCALARS, "plain"),
    "x[1] = s": (_mutate(lambda xp, y, s: _setitem(y, 1, s)), DTYPES, SCALARS, "plain"),
    "x[...] = s": (_mutate(lambda xp, y, s: _setitem(y, ..., s)), FEW_DTYPES, FEW_SCALARS,
                   "plain"),
    "put(x, [0, 2], s)": (_mutate(lambda xp, y, s: xp.put(y, [0, 2], s)), DTYPES, SCALARS,
                          "plain"),
    "place(x, mask, s)": (_mutate(lambda xp, y, s: xp.place(y, _mask(xp, y), s)), DTYPES,
                          SCALARS, "plain"),
})  # fmt: skip


def _host_data(rng: numpy.random.Generator, dtype: str, data: str) -> numpy.ndarray:
    """Five nonzero values (small ones for shifts; NaN and infinities first for ``special``)."""
    n = 5
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    npdt = numpy.dtype(dtype)
    if npdt.kind in "iu":
        hi = 4 if data == "small" else 9
        v = rng.integers(1, hi, n)
        if npdt.kind == "i":
            v = v * rng.choice([-1, 1], n)
        return v.astype(npdt)
    v = rng.uniform(0.5, 4.0, n) * rng.choice([-1, 1], n)
    if npdt.kind == "c":
        v = v + 1j * rng.uniform(-3.0, 3.0, n)
    v = v.astype(npdt)
    if data == "special":
        v[:3] = [numpy.nan, numpy.inf, -numpy.inf]
    return v


def _outcome(fn: Any, xp: Any, x: Any, s: Any) -> Any:
    """The result, or the exception raised (warnings silenced: only errors count)."""
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(xp, x, s)
        except Exception as e:  # noqa: BLE001 - any error is compared with NumPy's
            return e


def _wraps_in_where(want: Any, dtype: numpy.dtype, s: Any) -> bool:
    """NumPy before 2.5 stored an out-of-range Python int wrapped in ``where`` (2.5 raises
    OverflowError, as every other function does; ruda follows 2.5)."""
    if isinstance(want, Exception) or type(s) is not int or dtype.kind not in "iu":
        return False
    info = numpy.iinfo(dtype)
    return not info.min <= s <= info.max


def _builtin_error(e: BaseException) -> type:
    """The built-in exception class an error is an instance of (UFuncTypeError: TypeError)."""
    return next(c for c in type(e).__mro__ if c.__module__ == "builtins")


def _leaves(r: Any) -> list[Any]:
    return [x for v in r for x in _leaves(v)] if isinstance(r, tuple) else [r]


def _compare(got: Any, want: Any, device: ruda.Device, widen: float = 1.0) -> str | None:
    """None when ``got`` (ruda) matches ``want`` (NumPy), else what differs; ``widen`` scales
    the floating-point tolerance."""
    if isinstance(want, Exception):
        if not isinstance(got, Exception):
            return f"NumPy raises {type(want).__name__} ({want}), ruda gives {got!r}"
        if not isinstance(got, _builtin_error(want)):
            return f"NumPy raises {type(want).__name__}, ruda {type(got).__name__}: {got}"
        return None
    if isinstance(got, Exception):
        return f"ruda raises {type(got).__name__}: {got}; NumPy gives {want!r}"
    if len(_leaves(got)) != len(_leaves(want)):
        return f"ruda gives {got!r}, NumPy {want!r}"
    for g, w in zip(_leaves(got), _leaves(want), strict=True):
        if type(w) is bool:  # allclose: a Python bool on every device, as NumPy's
            if type(g) is not bool or g != w:
                return f"ruda gives {g!r}, NumPy {w!r}"
            continue
        if not isinstance(g, ruda.Array):
            return f"ruda gives {type(g).__name__}, not a ruda array"
        if g.device != device:
            return f"result on {g.device}, not {device}"
        h, w = to_numpy(g), numpy.asarray(w)
        if h.dtype != w.dtype or h.shape != w.shape:
            return f"ruda gives {h.dtype}{list(h.shape)}, NumPy {w.dtype}{list(w.shape)}"
        rtol = {2: 2e-3, 4: 2e-5, 8: 2e-5, 16: 1e-6}.get(h.dtype.itemsize, 1e-6) * widen
        if h.dtype.kind not in "fc":
            rtol = 0
        try:
            numpy.testing.assert_allclose(h, w, rtol=rtol, atol=rtol, equal_nan=True)
        except AssertionError:
            return f"values {h.tolist()} != NumPy's {w.tolist()}"
    return None


def _device_dtypes(device: ruda.Device, names: list[str]) -> list[str]:
    """The dtypes of ``names`` that ``device`` holds (the standard's, and float16 where held)."""
    held = []
    for name in names:
        try:
            device.backend.check_dtype(numpy.dtype(name), "test")
        except TypeError:
            continue
        held.append(name)
    return held


@pytest.mark.parametrize("case", sorted(CASES))
def test_scalar_promotion_matches_numpy(device, rng, case):
    fn, dtypes, scalars, data = CASES[case]
    dtypes = _device_dtypes(device, dtypes)
    assert dtypes, f"{device} holds none of {CASES[case][1]}"
    failures = []
    for dtype in dtypes:
        h = _host_data(rng, dtype, data)
        x = ruda.asarray(h, device=device)
        for s in scalars:
            want = _outcome(fn, numpy, h.copy(), s)
            if case.startswith("where") and _wraps_in_where(want, h.dtype, s):
                want = OverflowError(f"NumPy 2.5: Python integer {s} out of bounds")
            got = _outcome(fn, ruda, x, s)
            # a complex power with a large integer exponent: NumPy's cpow and ruda's both
            # compute exp(s log x), which loses ~|s| ulps (NumPy's own complex64 x ** 300 is
            # 2.5e-4 off in a part): compared within that
            powers = "**" in case or case.startswith(("power(", "float_power("))
            big = powers and h.dtype.kind == "c" and type(s) is int and abs(s) >= 100
            why = _compare(got, want, device, 4 * abs(s) if big else 1.0)
            if why is not None:
                failures.append(f"{case} with x {dtype} {h.tolist()}, s={s!r}: {why}")
    assert not failures, f"{len(failures)} differ from NumPy:\n" + "\n".join(failures[:40])


def test_issue_clip_example(device):
    """The issue's example: float bounds on an int array give float64, as in NumPy 2."""
    x = ruda.asarray([-3, 0, 1, 5], device=device)
    r = ruda.clip(x, 0.5, 2.5)
    assert r.dtype == ruda.float64 and r.device == device
    numpy.testing.assert_array_equal(to_numpy(r), [0.5, 0.5, 1.0, 2.5])


def test_case_table_covers_the_scalar_functions():
    """Each family the audit names has cases (a new family gets a row, not a silent gap)."""
    names = {c.split("(")[0].split(" ")[0] for c in CASES}
    for fam in ("clip", "where", "full", "full_like", "nan_to_num", "isclose", "allclose",
                "searchsorted", "put", "place", "x.fill", "ldexp", "copysign", "heaviside",
                "maximum", "minimum", "power", "add", "x", "s"):  # fmt: skip
        assert fam in names, fam
