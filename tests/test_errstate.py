"""``errstate`` / ``seterr`` on every device: NumPy's categories (derived by running NumPy, not
written down), reported on GPUs at a block's exit, at the next host read and at synchronize."""

from __future__ import annotations

import warnings

import numpy
import pytest

import ruda as np

F = numpy.float64
# (op, operands): each raises one category in NumPy
CASES = [
    ("divide", (1.0, 0.0)), ("divide", (0.0, 0.0)), ("divide", (1e300, 1e-300)),
    ("divide", (numpy.inf, numpy.inf)), ("floor_divide", (1.0, 0.0)), ("remainder", (1.0, 0.0)),
    ("fmod", (1.0, 0.0)), ("power", (0.0, -1.0)), ("power", (10.0, 400.0)),
    ("power", (-1.0, 0.5)), ("reciprocal", (0.0,)), ("log", (0.0,)), ("log", (-1.0,)),
    ("log1p", (-1.0,)), ("log2", (0.0,)), ("arctanh", (1.0,)), ("exp", (1000.0,)),
    ("sqrt", (-1.0,)), ("sin", (numpy.inf,)), ("multiply", (1e300, 1e300)),
    ("subtract", (numpy.inf, numpy.inf)), ("cosh", (1000.0,)), ("arccos", (2.0,)),
]  # fmt: skip
INT_CASES = [("floor_divide", (7, 0)), ("remainder", (7, 0)), ("fmod", (7, 0))]


def numpy_category(name: str, args: tuple, dtype: str) -> str | None:
    """The category NumPy raises for ``name(*args)`` in ``dtype`` (None: none)."""
    arrays = [numpy.asarray([a], dtype=dtype) for a in args]
    try:
        with numpy.errstate(all="raise", under="ignore"):
            getattr(numpy, name)(*arrays)
    except FloatingPointError as e:
        text = str(e)
        for cat, words in (("divide", "divide by zero"), ("over", "overflow"),
                           ("invalid", "invalid value")):  # fmt: skip
            if text.startswith(words):
                return cat
        raise AssertionError(f"unknown NumPy category: {text}") from None
    return None


def host(y):
    return numpy.asarray(y.to_device("cpu"))


def _operands(device, args, dtype):
    return [np.asarray([a], dtype=dtype, device=device) for a in args]


def _dtypes(device):
    return ["float32", "float64"] if device.kind == "cpu" or _has_f64(device) else ["float32"]


def _has_f64(device):
    try:
        np.asarray([1.0], dtype="float64", device=device)
    except TypeError:
        return False
    return True


COMBOS = [(n, a, d) for n, a in CASES for d in ("float32", "float64")] + [
    (n, a, d) for n, a in INT_CASES for d in ("int32", "uint8")]  # fmt: skip


@pytest.mark.parametrize(("name", "args", "dtype"), COMBOS)
def test_category_matches_numpy(device, name, args, dtype):
    """Raised at the block's exit at the latest, naming the op and NumPy's category."""
    if dtype == "float64" and dtype not in _dtypes(device):
        pytest.skip(f"{device} has no float64")
    if not all(numpy.isfinite(numpy.asarray(a, dtype=dtype)) or not numpy.isfinite(a)
               for a in args):  # fmt: skip
        pytest.skip(f"{args} do not fit {dtype}")
    want = numpy_category(name, args, dtype)
    assert want is not None, (name, args, dtype)  # every case raises something in NumPy
    xs = _operands(device, args, dtype)
    with pytest.raises(FloatingPointError) as info:
        with np.errstate(**{want: "raise"}):
            y = getattr(np, name)(*xs)
    text = str(info.value)
    assert f"ruda.{name}" in text or f"in {name}" in text, text
    texts = {"divide": "divide by zero", "over": "overflow", "invalid": "invalid value"}
    assert texts[want] in text
    # under other categories' raise, nothing: the right category, not just any
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        others = {c: "raise" for c in ("divide", "over", "invalid") if c != want}
        with np.errstate(**others, **{want: "ignore"}):
            y = getattr(np, name)(*xs)
            got = host(y)  # a read inside the block: its modes
            ref = getattr(numpy, name)(*(host(x) for x in xs))
        numpy.testing.assert_array_equal(got, ref)


def test_finite_results_report_nothing(device):
    x = np.asarray([1.0, 2.0, -3.0], device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            y = np.exp(x) / x + np.sqrt(x * x) - np.log(np.abs(x))
        host(y)


def test_reported_at_the_next_read_with_its_modes(device):
    x = np.asarray([1.0, 0.0], dtype="float32", device=device)
    y = x / np.asarray([0.0, 1.0], dtype="float32", device=device)  # no block: NumPy's default
    if device.kind == "cpu":
        return  # NumPy warned at the op already (covered by the block tests)
    with pytest.raises(FloatingPointError, match=r"ruda\.divide: divide by zero"):
        with numpy.errstate(divide="raise"):  # numpy's own errstate: modes of the read
            y.tolist()
    with warnings.catch_warnings():  # reported once: the words were cleared
        warnings.simplefilter("error")
        assert y.tolist() == [numpy.inf, 0.0]


@pytest.mark.parametrize("read", ["tolist", "float", "repr", "item", "to_cpu", "synchronize"])
def test_each_read_reports(device, read):
    if device.kind == "cpu":
        pytest.skip("the cpu reports at the op (NumPy)")
    x = np.asarray([-1.0], dtype="float32", device=device)
    y = np.sqrt(x)
    reads = {"tolist": lambda y: y.tolist(), "float": lambda y: float(y[0]), "repr": repr,
             "item": lambda y: y[0].item(), "to_cpu": lambda y: y.to_device("cpu"),
             "synchronize": lambda y: device.synchronize()}  # fmt: skip
    with pytest.warns(RuntimeWarning, match=r"ruda\.sqrt: invalid value encountered in sqrt"):
        reads[read](y)


def test_warn_is_the_default(device):
    x = np.asarray([1.0], device=device)
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in divide"):
        y = x / np.asarray([0.0], device=device)
        host(y)


def test_ignore_reports_nothing_and_clears(device):
    x = np.asarray([0.0], device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="ignore"):
            y = np.log(x) + np.sqrt(-np.abs(x) - 1.0)
        assert numpy.isnan(host(y)).all()
        host(y)  # cleared at the block's exit: nothing later


def test_call_and_log(device):
    calls = []
    x = np.asarray([2.0], dtype="float32", device=device)
    with np.errstate(over="call", call=lambda kind, flag: calls.append((kind, flag))):
        y = np.exp(x * 1000.0)
    assert calls == [("overflow", 2)]

    class Log:
        lines: list[str] = []

        def write(self, s):
            self.lines.append(s)

    log = Log()
    with np.errstate(invalid="log", call=log):
        y = np.arccos(x)
    host(y)
    assert len(log.lines) == 1 and "invalid value encountered in arccos" in log.lines[0]


def test_errors_before_a_block_use_the_modes_before_it(device):
    if device.kind == "cpu":
        pytest.skip("the cpu reports at the op (NumPy)")
    x = np.asarray([0.0], device=device)
    with np.errstate(divide="ignore"):
        y = np.log(x)  # ignored: reported (as nothing) at the exit
        with np.errstate(divide="raise"):
            pass  # entering checks: nothing pending
    with pytest.warns(RuntimeWarning, match="log"):
        with np.errstate(divide="warn"):
            z = np.log(x)
        with np.errstate(divide="raise"):  # nothing left: reported at the exit above
            pass
    host(y), host(z)


def test_decorator(device):
    @np.errstate(divide="raise")
    def f(a):
        return a / 0.0

    with pytest.raises(FloatingPointError, match="divide"):
        f(np.asarray([1.0], device=device))
