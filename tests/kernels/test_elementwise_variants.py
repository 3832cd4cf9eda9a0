"""The contiguous elementwise kernel's variants (``elementwise.VARIANTS``: wg, ipt, vec, order):
every variant renders and compiles in both languages (naga for WGSL, NVRTC for CUDA) for
f32/i32/u32/f64, computes NumPy's result on lavapipe for sizes with tails, and the default
variant is today's kernel.

Buffers in the lavapipe runs are padded to 16 bytes: a ``vec > 1`` kernel binds its buffers as
``array<vecN<T>>``, so each binding must span whole vectors (``Kernel.vector_width``).
"""

from __future__ import annotations

import itertools
import re
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import numpy as np
import pytest

from ruda._kernels import elementwise, ir
from ruda._kernels.render import cuda, nvrtc, wgsl
from ruda._kernels.tune import engine as tune
from ruda._kernels.tune import space as tune_space

from .runner import Runner, adapter_or_skip

OPS = {"add": 2, "multiply": 2, "sin": 1, "maximum": 2, "less": 2}
TYPES = (ir.F32, ir.I32, ir.U32, ir.F64)
SIZES = (1, 3, 1023, 4097, 100003)
WIDE = frozenset({"shader-f64", "shader-int64"})


def _sigs():
    """(op, input types, output type) for every op x type the op supports."""
    for op, arity in OPS.items():
        for t in TYPES:
            if op == "sin" and not t.is_float:
                continue
            yield op, (t,) * arity, ir.BOOL if op == "less" else t


def _points(ins, out, wgs=elementwise.VARIANTS["wg"]):
    """The variant points valid for these types (one order when ipt is 1: the same kernel)."""
    v = elementwise.VARIANTS
    for wg, ipt, vec, order in itertools.product(wgs, v["ipt"], v["vec"], v["order"]):
        if ipt == 1 and order != "tile":
            continue
        if vec > 1 and not elementwise.vectorizable(ins, out):
            continue
        yield {"wg": wg, "ipt": ipt, "vec": vec, "order": order}


def _all_variants() -> list[ir.Kernel]:
    return [elementwise.build(op, ins, out, None, **p)
            for op, ins, out in _sigs() for p in _points(ins, out)]  # fmt: skip


# -- the default is today's kernel --------------------------------------------------------------
def test_default_variant_is_todays_kernel():
    for op, ins, out in _sigs():
        for nd in (None, 2):
            k = elementwise.build(op, ins, out, nd)
            again = elementwise.build(op, ins, out, nd, **elementwise.DEFAULTS)
            assert again == k
            assert cuda.render(again) == cuda.render(k) and wgsl.render(again) == wgsl.render(k)
            types = "_".join(t.name for t in (*ins, out))
            assert k.name == f"{op}_{types}_{'c' if nd is None else nd}"
            assert k.workgroup == (256, 1, 1) and k.vector_width == 1
            assert all(b.lanes == 1 for b in k.buffers)
            assert k.elems_per_invocation == (4 if (out is ir.BOOL and nd is None) else 1)
            src = wgsl.render(k)
            assert "vec4<" not in src and "(gid.x + (gid.y * (nwg.x * 256u)))" in src


def test_variant_metadata():
    k = elementwise.build("add", (ir.F32,) * 2, ir.F32, None, ipt=4, vec=4, wg=128, order="grid")
    assert k.elems_per_invocation == 16 and k.vector_width == 4 and k.workgroup == (128, 1, 1)
    assert k.name == "add_f32_f32_f32_c_w128_i4g_v4"
    assert [b.lanes for b in k.buffers] == [4, 4, 4]
    assert "array<vec4<f32>>" in wgsl.render(k)
    src = cuda.render(k)
    assert "reinterpret_cast<const float4*>(in0)" in src and "make_float4(" in src
    assert "reinterpret_cast<uint2*>(out)" in cuda.render(
        elementwise.build("add", (ir.U32,) * 2, ir.U32, None, vec=2)
    )
    # packed narrow output: ipt words of 4 bools per invocation, never vectors
    k = elementwise.build("less", (ir.F32,) * 2, ir.BOOL, None, ipt=2, wg=64)
    assert k.elems_per_invocation == 8 and k.vector_width == 1
    # the strided layout takes wg only
    assert elementwise.build("add", (ir.F32,) * 2, ir.F32, 2, wg=512).workgroup == (512, 1, 1)


@pytest.mark.parametrize("kw, sig, nd, match", [
    ({"vec": 4}, ((ir.F64,) * 2, ir.F64), None, "32-bit"),
    ({"vec": 2}, ((ir.F32,) * 2, ir.BOOL), None, "32-bit"),
    ({"vec": 4}, ((ir.I16,) * 2, ir.I16), None, "32-bit"),
    ({"ipt": 2}, ((ir.F32,) * 2, ir.F32), 2, "contiguous"),
    ({"vec": 3}, ((ir.F32,) * 2, ir.F32), None, "vec=3"),
    ({"wg": 2048}, ((ir.F32,) * 2, ir.F32), None, "wg=2048"),
    ({"ipt": 2, "order": "zigzag"}, ((ir.F32,) * 2, ir.F32), None, "order"),
])  # fmt: skip
def test_invalid_variants_raise(kw, sig, nd, match):
    with pytest.raises(ValueError, match=match):
        elementwise.build("add", sig[0], sig[1], nd, **kw)


@pytest.fixture
def no_backend_defaults(monkeypatch):
    """The family's own heuristic, whatever a backend imported earlier declared as its default."""
    monkeypatch.setattr(tune_space, "BACKEND_DEFAULTS", {})
    tune._clear_memos()
    yield
    tune._clear_memos()


def test_tune_family_declares_the_space(no_backend_defaults):
    fam = tune.FAMILIES["elementwise"]
    assert fam.space == {k: tuple(v) for k, v in elementwise.VARIANTS.items()}
    wg = tune.Target("wgpu", "test", "test", frozenset(), 1024)
    cu = tune.Target("cuda", "test", "test", frozenset(), 1024)
    f32 = tune.Key("add", ("f32", "f32", "f32"), "contiguous", (4096,))
    odd = tune.Key("add", ("f32", "f32", "f32"), "contiguous", (4097,))
    f64 = tune.Key("add", ("f64", "f64", "f64"), "contiguous", (4096,))
    less = tune.Key("less", ("f32", "f32", "bool"), "contiguous", (4096,))
    assert fam.heuristic(f32, wg) == elementwise.DEFAULTS
    assert any(p["vec"] == 4 for p in fam.candidates(f32, wg))
    # Vectors need aligned operands with whole-vector bindings (the backends pad a contiguous
    # allocation), whatever n is; a misaligned view gets scalar kernels on both backends.
    misaligned = tune.Key("add", ("f32", "f32", "f32"), "contiguous-misaligned", (4097,))
    assert any(p["vec"] == 4 for p in fam.candidates(odd, wg))
    assert any(p["vec"] == 4 for p in fam.candidates(odd, cu))
    for t in (wg, cu):
        assert not any(p["vec"] > 1 for p in fam.candidates(misaligned, t))
    for key in (f64, less):
        assert not any(p["vec"] > 1 for p in fam.candidates(key, cu))
    small = tune.Target("wgpu", "test", "test", frozenset(), 256)
    assert max(p["wg"] for p in fam.candidates(f32, small)) == 256
    assert not any(p["ipt"] == 1 and p["order"] == "grid" for p in fam.candidates(f32, cu))
    plan = tune.build("elementwise", {"wg": 64, "ipt": 2, "vec": 4, "order": "tile"}, odd)
    (launch,) = plan.launches
    assert launch.params == (4097,) and launch.groups == -(-4097 // (2 * 4 * 64))


# -- compiles in both languages ------------------------------------------------------------------
@pytest.fixture(scope="module")
def variants() -> list[ir.Kernel]:
    return _all_variants()


@pytest.fixture(scope="module")
def gpu():
    adapter = adapter_or_skip()
    feats = sorted({"shader-f64", "shader-int64"} & set(adapter.features))
    lim = adapter.limits
    limits = {k: lim[k] for k in ("max-compute-invocations-per-workgroup",
                                  "max-compute-workgroup-size-x")}  # fmt: skip
    device = adapter.request_device_sync(required_features=feats, required_limits=limits)
    return device, frozenset(feats), limits["max-compute-invocations-per-workgroup"]


def test_every_variant_compiles_wgsl(variants, gpu):
    device, feats, _ = gpu
    todo = [k for k in variants if k.features <= feats]
    assert len(todo) > 1000 if "shader-f64" in feats else len(todo) > 700
    sources = [wgsl.render_many(todo)]
    if WIDE <= feats:  # f32 math through f64: another rendering of the f32 kernels
        sources.append(wgsl.render_many([k for k in todo if ir.F32 in ir.types_used(k)], feats))
    for i, src in enumerate(sources):
        try:
            device.create_shader_module(code=src)
        except Exception:
            for k in todo:  # find the first kernel that fails alone
                one = wgsl.render(k, feats if i else frozenset())
                try:
                    device.create_shader_module(code=one)
                except Exception as e:
                    pytest.fail(f"{k.name}: {e}\n--- source ---\n{one}", pytrace=False)
            raise


def _nvrtc(ks: list[ir.Kernel]) -> str | None:
    src = cuda.render_many(ks)
    try:
        nvrtc.compile(src, options=(*nvrtc.DEFAULT_OPTIONS, "-w", "-G"))
    except nvrtc.NVRTCError as e:
        m = re.search(r"\((\d+)\): error", e.log)
        lines = src.splitlines()
        where = "\n".join(lines[max(0, int(m.group(1)) - 30) : int(m.group(1)) + 3]) if m else ""
        return f"{e}\n--- around the first error ---\n{where}"
    return None


def test_every_variant_compiles_cuda(variants):
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12): CUDA not compiled")
    chunks = [variants[i::4] for i in range(4)]
    with ThreadPoolExecutor(2) as pool:
        errors = [e for e in pool.map(_nvrtc, chunks) if e]
    assert not errors, errors[0][:20000]
    ptx = nvrtc.compile(cuda.render(
        elementwise.build("add", (ir.F32,) * 2, ir.F32, None, ipt=2, vec=4)))  # fmt: skip
    assert "ld.global.nc.v4.f32" in ptx and "st.global.v4.f32" in ptx  # 128-bit accesses


# -- numerics on the device ---------------------------------------------------------------------
class VectorRunner(Runner):
    """The kernel-test runner with buffers padded to 16 bytes (whole vec4 bindings); the
    output's padding is 0xAB, and ``run_plan`` checks that it stays so."""

    def _buffer(self, data: bytes, usage, fill: bytes = b"\0"):
        data = data + fill * (-len(data) % 16 or (16 if not data else 0))
        return self.device.create_buffer_with_data(data=data, usage=usage)


@pytest.fixture(scope="module")
def runner(gpu):
    device, feats, _ = gpu
    return VectorRunner(device, feats)  # f32 sin computes in f64 where the device can


# sin's IR libm (f64, and f32 through f64) is slow to compile and run on lavapipe: a sample
# of its variants, covering each ipt, vec and order.
SIN_POINTS = [{"wg": 64, "ipt": 1, "vec": 4, "order": "tile"},
              {"wg": 64, "ipt": 2, "vec": 2, "order": "grid"},
              {"wg": 64, "ipt": 8, "vec": 4, "order": "tile"},
              {"wg": 128, "ipt": 4, "vec": 4, "order": "grid"},
              {"wg": 1024, "ipt": 4, "vec": 1, "order": "grid"}]  # fmt: skip


def _numeric_points(op, ins, out, max_wg):
    """Every (ipt, vec, order) at wg 64, the default, and the larger workgroups for two."""
    if op == "sin":
        vec = elementwise.vectorizable(ins, out)
        pts = [{**p, "vec": p["vec"] if vec else 1} for p in SIN_POINTS if p["wg"] <= max_wg]
        return [elementwise.DEFAULTS, *pts]
    pts = [elementwise.DEFAULTS, *_points(ins, out, (64,))]
    for wg in (128, 512, 1024):
        if wg <= max_wg:
            pts += [{"wg": wg, "ipt": 4, "vec": 4 if elementwise.vectorizable(ins, out) else 1,
                     "order": "tile"}, {"wg": wg, "ipt": 8, "vec": 1, "order": "grid"}]  # fmt: skip
    return pts


def _data(t: ir.Type, n: int, rng) -> np.ndarray:
    dt = ir.numpy_of(t)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    x = (rng.standard_normal(n) * 100).astype(dt)
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30], dt)
    x[rng.integers(0, n, max(1, n // 50))] = specials[rng.integers(0, 6, max(1, n // 50))]
    return x


def _expected(op: str, xs: list[np.ndarray], out: ir.Type) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op == "sin":
            return np.sin(xs[0].astype(np.float64)).astype(xs[0].dtype)
        return getattr(np, op)(*xs).astype(ir.numpy_of(out))


def _check(op, got, want, name):
    if op == "sin":  # IR libm (or the f32-via-f64 path): within an ulp or two
        tol = 1e-14 if got.dtype == np.float64 else 1e-6
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=name)
    else:
        ok = (got == want) | (np.isnan(got) & np.isnan(want) if got.dtype.kind == "f" else False)
        bad = np.flatnonzero(~ok)
        assert not bad.size, f"{name}: at {bad[:10]} got {got[bad[:5]]} want {want[bad[:5]]}"


def _run(runner, k: ir.Kernel, xs: list[np.ndarray], out: ir.Type, n: int, grid=None):
    threads = -(-n // k.elems_per_invocation)  # the launchers' convention
    groups = max(1, -(-threads // k.workgroup[0]))
    if grid is None:
        gx = min(groups, 65535)
        grid = (gx, -(-groups // gx), 1)
    names = (*(f"in{i}" for i in range(len(xs))), "out")
    launch = SimpleNamespace(kernel=k, buffers=names, params=(n,), grid=grid)
    plan = SimpleNamespace(launches=[launch], temps={})
    arrays = {f"in{i}": x for i, x in enumerate(xs)}
    return runner.run_plan(plan, arrays, ir.numpy_of(out), n)


@pytest.mark.parametrize("op, ins, out", list(_sigs()), ids=lambda v: getattr(v, "name", str(v)))
def test_variants_compute_numpy_results(runner, gpu, op, ins, out):
    _, feats, max_wg = gpu
    if not elementwise.build(op, ins, out, None).features <= feats:
        pytest.skip(f"adapter lacks {sorted(elementwise.build(op, ins, out, None).features)}")
    rng = np.random.default_rng(12345)
    data = {n: [_data(t, n, rng) for t in ins] for n in SIZES}
    want = {n: _expected(op, data[n], out) for n in SIZES}
    t0 = time.perf_counter()
    points = _numeric_points(op, ins, out, max_wg)
    for p in points:
        k = elementwise.build(op, ins, out, None, **p)
        for n in SIZES:
            _check(op, _run(runner, k, data[n], out, n), want[n], f"{k.name} n={n}")
    # a 2-D grid (the y dimension WebGPU needs past 65535 workgroups) with spare workgroups
    for p in ({"wg": 64, "ipt": 2, "vec": 4, "order": "tile"},
              {"wg": 64, "ipt": 2, "vec": 4, "order": "grid"}):  # fmt: skip
        if p["vec"] > 1 and not elementwise.vectorizable(ins, out):
            p = {**p, "vec": 1}
        k = elementwise.build(op, ins, out, None, **p)
        n = SIZES[-1]
        groups = -(-n // (k.elems_per_invocation * 64))
        got = _run(runner, k, data[n], out, n, grid=(3, -(-groups // 3) + 1, 1))
        _check(op, got, want[n], f"{k.name} on a 2-D grid")
    # the time is printed, not asserted (timings belong in benchmarks)
    print(f"{op}: {len(points) + 2} variants in {time.perf_counter() - t0:.1f} s")


def test_tuner_searches_the_variants(gpu, no_backend_defaults):
    device, feats, max_wg = gpu
    from ruda._backends.wgpu import timing

    target = tune.Target.from_wgpu(device)
    key = tune.Key("add", ("f32", "f32", "f32"), "contiguous", (1 << 16,))
    cands = [{"wg": 64, "ipt": 4, "vec": 4, "order": "tile"},
             {"wg": 256, "ipt": 2, "vec": 2, "order": "grid"},
             {"wg": 128, "ipt": 8, "vec": 1, "order": "grid"}, elementwise.DEFAULTS]  # fmt: skip
    dec = tune.tune("elementwise", key, target, timing.WgpuRunner(device), budget_s=10,
                    candidates=cands, persist=False)  # fmt: skip
    assert dec.rejected == [] and dec.tried == 4 and dec.params in cands
