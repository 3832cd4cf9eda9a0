"""The exact routes for adapters whose arithmetic is not NumPy's, run here with their
pseudo-features forced (lavapipe needs none of them, so CI would otherwise never run them).

NVIDIA's Vulkan driver flushes f32 subnormals and divides f32 to within an ulp; the wgpu
backend's probe (``ruda._backends.wgpu.probe``) finds that and the WGSL renderer then computes
f32 math in f64 (``wgsl.PSEUDO_FEATURES``). Here each forced set reruns the checks of
test_numeric.py and test_complex.py on every kernel it changes, plus random bit patterns
(subnormals, infinities, NaN, quotients next to a rounding midpoint) compared bit for bit.
The same routes run through the whole suite with ``RUDA_WGPU_ASSUME=f32-flushes,...``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ruda._backends.wgpu import probe
from ruda._kernels import elementwise, ir, reduce
from ruda._kernels.math import cmath
from ruda._kernels.render import wgsl
from ruda._ops import ELEMENTWISE, OPS

from . import test_complex as tc
from . import test_numeric as tn
from .runner import Runner, adapter_or_skip

FORCED = {
    "flushes": frozenset({wgsl.FLUSHES}),  # NVIDIA (if its f64 division is exact)
    "div32": frozenset({wgsl.DIV32}),  # an adapter that keeps subnormals, divides roughly
    "div64": frozenset({wgsl.DIV64}),
    "rounds": frozenset({wgsl.ROUNDS}),  # lavapipe on a CPU without AVX-512
    "all": wgsl.PSEUDO_FEATURES,  # and f64 products kept apart from additions
}
WIDE = tn.WIDE


@pytest.fixture(scope="module")
def gpu():
    adapter = adapter_or_skip()
    feats = set(WIDE & set(adapter.features))
    if not {"shader-f64", "shader-int64"} <= feats:
        pytest.skip("adapter lacks shader-f64 / shader-int64: there are no exact routes")
    return adapter, adapter.request_device_sync(required_features=sorted(feats)), feats


@pytest.fixture(scope="module")
def runners(gpu):
    """Runner per forced set ("none": as rendered for this adapter), made on first use."""
    _, dev, feats = gpu
    made: dict[str, Runner] = {}

    def get(key: str) -> Runner:
        if key not in made:
            made[key] = Runner(dev, feats, forced=FORCED.get(key, frozenset()))
        return made[key]

    return get


# -- the probe and the switch -----------------------------------------------------------------
def test_probe_on_this_adapter(gpu):
    adapter, dev, feats = gpu
    found = probe.probe(dev, feats)
    assert found <= wgsl.PSEUDO_FEATURES
    if "llvmpipe" in adapter.info.get("device", ""):
        # lavapipe keeps subnormals and divides exactly; its f64 rounding depends on the host
        # CPU (8-wide f64 round and trunc go through integers without AVX-512)
        assert found <= {wgsl.ROUNDS}


def test_probe_sees_flushes_and_inexact_division(gpu, monkeypatch):
    """The probe's kernel with an adapter's faults put in by hand: a product that flushes,
    divisions as a * (1 / b) (rounded twice: wrong next to a midpoint), a fused a * b + c,
    a round that is a floor (f32) and a trunc that is a floor (f64)."""
    _, dev, feats = gpu
    src = probe._SOURCE.replace(
        "y[0] = x[0] * x[1];", "y[0] = select(x[0] * x[1], 0.0, abs(x[0] * x[1]) < x[0]);"
    ).replace("x[4u + 2u * i] / x[5u + 2u * i]", "x[4u + 2u * i] * (1.0 / x[5u + 2u * i])")
    src = src.replace("= round(x[", "= floor(x[")
    fused = f"{-(2.0**-60)!r}lf"  # (1 + 2**-30) * (1 - 2**-30) - 1 in one rounding
    wide = probe._WIDE_BODY.replace(
        "xd[2u * i] / xd[2u * i + 1u]", "xd[2u * i] * (1.0lf / xd[2u * i + 1u])"
    ).replace("xd[2u * {n}u] * xd[2u * {n}u + 1u] + xd[2u * {n}u + 2u]", fused)
    wide = wide.replace("= trunc(xd[", "= floor(xd[")
    assert src != probe._SOURCE and wide != probe._WIDE_BODY
    monkeypatch.setattr(probe, "_SOURCE", src)
    monkeypatch.setattr(probe, "_WIDE_BODY", wide)
    assert probe.probe(dev, feats) == wgsl.PSEUDO_FEATURES
    assert probe.probe(dev, feats - {"shader-f64"}) == {wgsl.FLUSHES, wgsl.DIV32, wgsl.ROUNDS}
    # the f64 fault alone is found too (the f32 kernel rounds right)
    monkeypatch.setattr(probe, "_SOURCE", probe._SOURCE.replace("= floor(x[", "= round(x["))
    assert wgsl.ROUNDS in probe.probe(dev, feats)


def test_assumed(monkeypatch):
    monkeypatch.setenv(probe.ASSUME, " f32-flushes, f64-div-inexact,")
    assert probe.assumed() == {wgsl.FLUSHES, wgsl.DIV64}
    monkeypatch.setenv(probe.ASSUME, "f32-flushes,fast")
    with pytest.raises(ValueError, match="RUDA_WGPU_ASSUME: unknown \\['fast'\\]"):
        probe.assumed()
    monkeypatch.delenv(probe.ASSUME)
    assert probe.assumed() == frozenset()


def test_context_renders_for_assumed_features(gpu, monkeypatch):
    from ruda._backends.wgpu.context import Context, adapters

    monkeypatch.setenv(probe.ASSUME, "f32-flushes")
    ctx = Context(0, adapters()[0])
    assert wgsl.FLUSHES in ctx.features
    k = elementwise.build("multiply", (ir.F32, ir.F32), ir.F32, None)
    assert "ruda_narrow_f64" in ctx.compiler.program(k).source


def test_runtime_takes_the_routes():
    """The whole runtime with every route assumed: subnormal products and hard quotients."""
    code = textwrap.dedent("""
        import numpy, ruda as np
        x = numpy.array([1.1754944e-38, 3e-39, -1e-3, 1.0, 3.4028235e38], numpy.float32)
        y = numpy.array([0.5, 1e-3, 1.1754944e-38, 11.953993, 1.0], numpy.float32)
        a, b = np.asarray(x, device="wgpu:0"), np.asarray(y, device="wgpu:0")
        for f in (np.multiply, np.divide):
            got = numpy.asarray(f(a, b).to_device("cpu"))
            assert (got.view(numpy.uint32) == f(x, y).view(numpy.uint32)).all(), (f, got)
        r = numpy.asarray(np.reciprocal(a).to_device("cpu"))
        assert (r == numpy.reciprocal(x)).all(), r
    """)
    env = dict(os.environ, RUDA_DEVICE="cpu",
               RUDA_WGPU_ASSUME=",".join(sorted(wgsl.PSEUDO_FEATURES)))  # fmt: skip
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)  # fmt: skip
    if "no WebGPU adapter" in r.stderr or "wgpu-py is not installed" in r.stderr:
        pytest.skip("no wgpu device")
    assert r.returncode == 0, r.stderr[-3000:]


def test_only_op_table_kernels_take_the_routes():
    """Reductions, matmuls... keep the adapter's fast arithmetic (their sums are not exact
    anyway); op-table kernels change only where a pseudo-feature is present."""
    every = WIDE | wgsl.PSEUDO_FEATURES
    k = reduce.build_rows("sum", ir.F32, ir.F32, final=True)
    assert wgsl.render(k, every) == wgsl.render(k, WIDE)
    mul = elementwise.build("multiply", (ir.F32, ir.F32), ir.F32, None)
    assert "ruda_widen_f32" in wgsl.render(mul, every)
    assert "ruda_widen_f32" not in wgsl.render(mul, WIDE)
    square = elementwise.build("square", (ir.F64,), ir.F64, None)
    assert "ruda_multiply_f64" in wgsl.render(square, WIDE | {wgsl.CONTRACTS})
    div = elementwise.build("divide", (ir.F64, ir.F64), ir.F64, None)
    assert "ruda_divide_f64" in wgsl.render(div, WIDE | {wgsl.DIV64})
    assert "ruda_divide_f64" not in wgsl.render(div, WIDE | {wgsl.FLUSHES, wgsl.DIV32})
    # without shader-f64 there is no route: f32 math stays as it was
    f32_only = {"shader-f16", *wgsl.PSEUDO_FEATURES}
    assert wgsl.render(mul, f32_only) == wgsl.render(mul, set())


# -- random bit patterns, bit for bit ---------------------------------------------------------
def _floats(dt, n: int, rng) -> np.ndarray:
    """Random signs, mantissas and exponents: the whole range, subnormals, inf and NaN, and
    more of the exponents whose products and quotients land near the subnormal range."""
    bits, man = (32, 23) if dt == np.float32 else (64, 52)
    top = (1 << (bits - man - 1)) - 1  # the exponent field of inf/nan
    e = np.concatenate([rng.integers(0, top + 1, n // 2),
                        rng.integers(0, top // 3, n - n // 2)])  # fmt: skip
    u = np.uint32 if bits == 32 else np.uint64
    m = rng.integers(0, 1 << man, n, dtype=np.uint64)
    s = rng.integers(0, 2, n, dtype=np.uint64)
    raw = (s << np.uint64(bits - 1)) | (e.astype(np.uint64) << np.uint64(man)) | m
    return rng.permutation(raw.astype(u).view(dt))


_BITS_OPS = {  # op: (input dtypes, NumPy)
    "multiply": ((np.float32, np.float32), np.multiply),
    "divide": ((np.float32, np.float32), np.divide),
    "add": ((np.float32, np.float32), np.add),
    "subtract": ((np.float32, np.float32), np.subtract),
    "reciprocal": ((np.float32,), np.reciprocal),
    "sqrt": ((np.float32,), np.sqrt),
    "floor": ((np.float32,), np.floor),
    "ldexp": ((np.float32, np.int32), np.ldexp),
    "divide-f64": ((np.float64, np.float64), np.divide),
    "multiply-f64": ((np.float64, np.float64), np.multiply),
    "ldexp-f64": ((np.float64, np.int32), np.ldexp),
    "rint": ((np.float32,), np.rint),
    "trunc": ((np.float32,), np.trunc),
    "rint-f64": ((np.float64,), np.rint),
    "trunc-f64": ((np.float64,), np.trunc),
}


@pytest.mark.parametrize("op", sorted(_BITS_OPS))
@pytest.mark.parametrize("key", ["none", *FORCED])
def test_bits_match_numpy(runners, key, op, rng):
    dts, fn = _BITS_OPS[op]
    n = 1 << 14
    xs = [_floats(d, n, rng) if d != np.int32 else rng.integers(-400, 400, n).astype(d)
          for d in dts]  # fmt: skip
    if op.startswith("divide"):  # and quotients next to a midpoint, scaled by powers of two
        a32, b32, a64, b64 = probe.hard_quotients()
        a, b = (a64, b64) if op == "divide-f64" else (a32, b32)
        k = rng.integers(-40, 40, (2, a.size))
        xs[0][: a.size], xs[1][: a.size] = np.ldexp(a, k[0]), np.ldexp(b, k[1])
    if op == "ldexp-f64":
        xs[1] *= 6  # past both ends of f64's exponent range
    if op.startswith(("rint", "trunc")):  # quarters: ties both ways, negatives rounding to -0
        q = np.arange(-400, 400) / 4 * rng.choice([1, 2.0**-30, 2.0**20], 800)
        xs[0][: q.size + 1] = np.append(q, -0.0)
    with np.errstate(all="ignore"):
        want = fn(*xs)
    got = runners(key).elementwise(op.split("-")[0], xs, want.dtype)
    u = np.uint32 if want.dtype == np.float32 else np.uint64
    ok = (got.view(u) == want.view(u)) | (np.isnan(got) & np.isnan(want))
    bad = np.flatnonzero(~ok)[:5]
    assert ok.all(), f"{(~ok).sum()} differ, e.g. " + "; ".join(
        f"{[x[i] for x in xs]} -> {got[i]!r}, want {want[i]!r}" for i in bad
    )


# -- test_numeric.py and test_complex.py with the pseudo-features forced -------------------------
def _numeric_cases():
    for key, forced in FORCED.items():
        for op in ELEMENTWISE:
            if op.name in tn.SKIP:
                continue
            for ins, out in elementwise.supported_types(op.name):
                wgsl_float = ins[0].is_float and ins[0] is not ir.BF16  # WGSL has no bfloat16
                if wgsl_float and tn.renders_differently(op.name, ins, out,
                                                              WIDE | forced, WIDE):  # fmt: skip
                    tid = f"{key}-{op.name}-{'-'.join(t.name for t in ins)}"
                    yield pytest.param(key, op.name, ins, out, id=tid)


@pytest.mark.parametrize("key,name,ins,out", list(_numeric_cases()))
def test_numeric(runners, gpu, key, name, ins, out, rng, request):
    tn.check(runners(key), gpu[2], name, ins, out, "f64", rng, request)


# f32 routes change complex64's parts, f64 ones complex128's; "div32" and "div64" alone change
# only quotients, which "all" covers (and the real ones test_numeric above)
COMPLEX = {"flushes": [np.complex64], "all": [np.complex64, np.complex128]}


def _complex_cases(unary: bool):
    for key, dts in COMPLEX.items():
        for dt in dts:
            for name in sorted(cmath.OPS):
                if (name == "float_power" and dt is np.complex64) or (
                    unary and OPS[name].arity != 1
                ):
                    continue
                yield pytest.param(key, name, dt, id=f"{key}-{name}-{np.dtype(dt).name}")


@pytest.mark.parametrize("key,name,dt", list(_complex_cases(False)))
def test_complex_random_values(runners, key, name, dt, rng):
    tc.test_random_values_match_numpy(runners(key), name, dt, rng)


@pytest.mark.parametrize("key,name,dt", list(_complex_cases(True)))
def test_complex_special_values(runners, key, name, dt):
    tc.test_special_values_and_branch_cuts(runners(key), name, dt)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow", "equal",
                                  "not_equal"])  # fmt: skip
@pytest.mark.parametrize("key", list(COMPLEX))
def test_complex_binary_special_values(runners, key, name):
    for dt in COMPLEX[key]:
        tc.test_binary_special_values(runners(key), name, dt)


@pytest.mark.parametrize("key", list(COMPLEX))
def test_complex_overflow_safe_division_and_abs(runners, key):
    tc.test_overflow_safe_division_and_abs(runners(key))


def test_division_is_corrected(gpu, monkeypatch, rng):
    """The f64 division route from a quotient off by up to an ulp and a half (a * (1 / b),
    rounded twice, is wrong on many of the hard quotients) back to NumPy's, bit for bit.
    (Quotients outside the normal range keep the adapter's division: not tested here.)"""
    monkeypatch.setitem(wgsl.WGSL.functions, "raw_div", "{0} * (1.0lf / {1})")
    a32, b32, a, b = probe.hard_quotients()
    k = rng.integers(-500, 500, (2, 4096))
    a = np.ldexp(np.resize(a, 4096) * rng.choice([-1, 1], 4096), k[0])
    b = np.ldexp(np.resize(b, 4096), k[1])
    assert (a * (1 / b) != a / b).sum() > 100  # the quotient the route starts from
    _, dev, feats = gpu
    got = Runner(dev, feats, forced={wgsl.DIV64}).elementwise("divide", [a, b], np.float64)
    np.testing.assert_array_equal(got.view(np.uint64), (a / b).view(np.uint64))
