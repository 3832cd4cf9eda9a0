"""Semantics on the device (lavapipe in CI): every elementwise op x dtype against NumPy on
edge values (0, -0, +-inf, nan, min/max ints) and random values, contiguous and strided.

Kernels render as the runtime renders them on this adapter: its features plus the numerics
probe's pseudo-features (flushed f32 subnormals, inexact division) and RUDA_WGPU_ASSUME's.
tests/kernels/test_nvidia_paths.py runs these checks with the pseudo-features forced."""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np
import pytest

from ruda._backends.cpu import elementwise as cpu_elementwise
from ruda._kernels import elementwise, ir
from ruda._kernels.render import wgsl
from ruda._ops import ELEMENTWISE

from .runner import Runner, adapter_or_skip

# Ops whose result must match NumPy bit for bit (NaN positions too) on every dtype.
EXACT = {
    "abs", "bitwise_invert", "ceil", "conj", "floor", "isfinite", "isinf", "isnan", "logical_not",
    "negative", "positive", "real", "imag", "round", "rint", "sign", "signbit", "square", "trunc",
    "fix", "fabs", "add", "bitwise_and", "bitwise_left_shift", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "copysign", "equal", "floor_divide", "greater",
    "greater_equal", "less", "less_equal", "logical_and", "logical_or", "logical_xor", "maximum",
    "minimum", "multiply", "nextafter", "not_equal", "remainder", "subtract", "fmod", "fmax",
    "fmin", "heaviside", "gcd", "lcm", "spacing", "divide", "reciprocal", "sqrt", "ldexp",
}  # fmt: skip
SKIP = {"isnat"}  # NumPy: datetimes only
# NumPy's own float16 loops differ from its float32 ones in the sign of zero results here.
NO_ZERO_SIGN = {"maximum", "minimum", "fmax", "fmin", "sign"}


# Known gaps, per (op, compute type, math mode): strict xfails, each with its reason.
# "native" renders f32 math with the driver's builtins; "f64" computes it in f64 (when the device
# has shader-f64 and shader-int64) and rounds once. f16 computes in f32.
_LAVAPIPE_F32 = "lavapipe's f32 {} builtin is not NumPy-accurate (no IR f32 implementation yet)"
KNOWN: dict[tuple[str, str, str], str] = {
    **{(n, "f32", "native"): _LAVAPIPE_F32.format(n) for n in ("cos", "sin", "tan")},
    ("pow", "f32", "native"): "lavapipe's f32 exp2 flushes subnormal results to zero "
                              "(pow(3.4e38, -1) gives 0)",
}  # fmt: skip


def _known(name: str, t: str, mode: str) -> str | None:
    return KNOWN.get((name, t, mode))


def _edges(dt: np.dtype) -> np.ndarray:
    if dt.kind == "b":
        return np.array([False, True])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = {0, 1, 2, 3, 7, info.max, info.max - 1, info.min}
        if dt.kind == "i":
            vals |= {-1, -2, -7, info.min + 1}
        return np.array(sorted(vals), dt)
    f = np.finfo(dt)
    return np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan, f.tiny,
                     f.max, -f.max, 1e-3, 100.0, f.smallest_subnormal * 3, -f.tiny / 3],
                    dt)  # fmt: skip


def _inputs(name: str, ins, rng) -> list[np.ndarray]:
    dts = [ir.numpy_of(t) for t in ins]
    e = _edges(dts[0])
    if len(dts) == 1:
        r = rng.standard_normal(50) * 10 if dts[0].kind == "f" else rng.integers(-100, 100, 50)
        xs = [np.concatenate([e, r.astype(dts[0])])]
    else:
        a, b = np.meshgrid(e, _edges(dts[1]) if name != "ldexp" else np.arange(-5, 6, dtype=dts[1]))
        xs = [a.ravel().astype(dts[0]), b.ravel().astype(dts[1])]
    if name in ("pow", "float_power") and dts[0].kind in "iu":
        xs[1] = np.abs(xs[1] % 70).astype(dts[1])  # NumPy raises for negative exponents
    if name in ("gcd", "lcm"):  # keep lcm's product in range (NumPy's overflow is its own)
        xs = [np.where(np.abs(x.astype(float)) > 2**14, 3, x).astype(x.dtype) for x in xs]
    return xs


WIDE = frozenset({"shader-f16", "shader-f64", "shader-int64"})


@cache
def _source(name: str, ins, out, features: frozenset[str]) -> str:
    return wgsl.render(elementwise.build(name, ins, out, None), features)


def renders_differently(
    name: str, ins, out, features: frozenset[str], base: frozenset[str]
) -> bool:
    """Whether op ``name``'s kernel renders differently for ``features`` than for ``base``."""
    return _source(name, ins, out, frozenset(features)) != _source(name, ins, out, frozenset(base))


def _cases():
    for op in ELEMENTWISE:
        if op.name in SKIP:
            continue
        for ins, out in elementwise.supported_types(op.name):
            if ins[0].is_complex:  # complex: tests/kernels/test_complex.py (ulps, C99 values)
                continue
            if ir.BF16 in (*ins, out):  # WGSL has no bfloat16: tests/test_bfloat16.py on cuda
                continue
            tid = f"{op.name}-{'-'.join(t.name for t in ins)}"
            modes = ["native"]
            # f32 math through f64: transcendentals always, the rest where the adapter flushes
            # or divides inexactly (rendered alike elsewhere: as native, which runs anyway)
            if ins[0] in (ir.F16, ir.F32) and renders_differently(
                op.name, ins, out, WIDE | wgsl.PSEUDO_FEATURES, WIDE - {"shader-f64"}
            ):
                modes.append("f64")
            for mode in modes:
                yield pytest.param(op.name, ins, out, mode, id=f"{tid}-{mode}")


@pytest.fixture(scope="module")
def runner():
    adapter = adapter_or_skip()
    feats = sorted(WIDE & set(adapter.features))
    dev = adapter.request_device_sync(required_features=feats)
    # the same device, rendered without and with f64 math for f32
    native = Runner(dev, set(feats) - {"shader-f64"})
    return {"native": native, "f64": Runner(dev, feats)}, set(feats)


@pytest.mark.parametrize("name,ins,out,mode", list(_cases()))
def test_matches_numpy(runner, name, ins, out, mode, rng, request):
    runs, feats = runner
    if "shader-f64" in elementwise.build(name, ins, out, None).features:
        mode = "f64"  # the runtime renders f64 kernels with shader-f64 (and its exact routes)
    check(runs[mode], feats, name, ins, out, mode, rng, request)


def check(run: Runner, feats: set[str], name: str, ins, out, mode: str, rng, request) -> None:
    """Op ``name`` on ``ins`` through ``run`` (a runner on a device with ``feats``) against
    NumPy: edge and random values, contiguous and strided."""
    k = elementwise.build(name, ins, out, None)
    if not k.features <= feats:
        pytest.skip(f"adapter lacks {sorted(k.features - feats)}")
    wide = {"shader-f64", "shader-int64"} <= feats
    if mode == "f64" and not wide:
        pytest.skip("adapter lacks shader-f64 / shader-int64: f32 math stays in f32")
    if mode == "native" and wide and wgsl.FLUSHES in run.features and ins[0] in (ir.F16, ir.F32):
        # the runtime renders f32 math through f64 here (mode f64); in f32 it cannot be exact
        pytest.skip(
            "the adapter flushes f32 subnormals and has shader-f64: f32 math goes "
            "through f64 (mode f64); native f32 math runs on adapters that keep them"
        )
    why = _known(name, ins[0].name, mode)
    if why:
        request.applymarker(pytest.mark.xfail(reason=why, strict=True))
    xs = _inputs(name, ins, rng)
    fn = STANDARD.get(name) or getattr(np, OPS_NUMPY[name])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = np.asarray(fn(*xs)).astype(ir.numpy_of(out))
    for strided in (False, True):
        got = run.elementwise(name, xs, ir.numpy_of(out), strided=strided)
        _compare(name, xs, got, want, strided)


OPS_NUMPY = {op.name: op.numpy for op in ELEMENTWISE}


def _nextafter(x, y):
    """NumPy's nextafter, but for float16 at x == y (+-0 against -+0): x, as NumPy 2.4's
    float16 loop (CI's, so the cpu backend's) and ruda's kernel give; NumPy 2.5 gives y."""
    want = np.nextafter(x, y)
    if np.asarray(x).dtype == np.float16:
        want = np.where(x == y, x, want)
    return want


# Where the standard's special cases differ from NumPy's, the reference is the cpu backend's
# repair of NumPy (floor_divide(±inf, finite) is ±inf, floor_divide(finite, ±inf) is ±0); where
# NumPy's answer changed between versions, one of them (nextafter).
STANDARD = {"floor_divide": cpu_elementwise.floor_divide, "nextafter": _nextafter}


def _compare(name, xs, got, want, strided):
    if want.dtype.kind in "biu" or name in EXACT:
        ok = (got == want) | ((got != got) & (want != want))
        zero_sign = name not in NO_ZERO_SIGN or (name == "sign" and want.dtype != np.float16)
        if want.dtype.kind == "f" and zero_sign:  # +0 and -0 must match too
            ok &= (np.signbit(got) == np.signbit(want)) | (want != want)
    else:
        rtol = {2: 2e-3, 4: 2e-5, 8: 1e-12}[want.dtype.itemsize]
        with np.errstate(all="ignore"):
            close = np.isclose(got, want, rtol=rtol, atol=rtol * np.finfo(want.dtype).tiny * 4,
                               equal_nan=True)  # fmt: skip
        ok = close | (got == want)
    if not ok.all():
        bad = np.flatnonzero(~ok)[:6]
        rows = [f"  {[x[i] for x in xs]} -> got {got[i]!r} want {want[i]!r}" for i in bad]
        pytest.fail(f"{name} ({'strided' if strided else 'contiguous'}): {(~ok).sum()} of "
                    f"{ok.size} differ:\n" + "\n".join(rows), pytrace=False)  # fmt: skip
