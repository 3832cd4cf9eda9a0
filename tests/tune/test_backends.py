"""The tuner wired into the wgpu backend, for real on the first adapter (lavapipe in CI).

With an empty store (mode ``cached``) the backend launches its fixed variants; a stored decision
is what it launches (elementwise, reductions, scans), ``RUDA_TUNE=off`` ignores it; a key tuned
by ``python -m ruda tune SCRIPT`` is persisted and reused by a fresh process without tuning; a
fast but wrong candidate never wins through the backend either; a launch asks the engine once
per key (then a dict lookup); the generic runner (the one CUDA uses) runs searches too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ruda
from ruda._kernels import elementwise as ew
from ruda._kernels import ir, scan
from ruda._kernels import reduce as kr
from ruda._kernels.tune import engine as tune

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the project first, then whatever the parent had (the GPU machine keeps wgpu in /tmp/site)
PYPATH = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
F32 = ir.F32
N = 10_000  # vectorised by default (>= VECTOR_MIN), bucket 16384
# big enough that 64 elements time clearly faster on a fast GPU too (1 << 16 did not on the
# H200: both about 5 us of launch)
N_BIG = 1 << 22


pytestmark = pytest.mark.devices("wgpu")


@pytest.fixture
def wgpu_ops(cache_dir, monkeypatch, device):
    """(device, its context, the wgpu ops module)."""
    from ruda._backends.wgpu import ops
    from ruda._backends.wgpu.context import context

    return device, context(device.index), ops


@pytest.fixture
def launched(wgpu_ops, monkeypatch):
    """The kernels the backend compiles-or-fetches for its launches, in order."""
    _, ctx, _ = wgpu_ops
    seen: list[ir.Kernel] = []
    program = ctx.compiler.program

    def record(k):
        seen.append(k)
        return program(k)

    monkeypatch.setattr(ctx.compiler, "program", record)
    return seen


def _data(rng, n=N):
    return rng.uniform(0.5, 1.5, n).astype(np.float32), rng.uniform(0.5, 1.5, n).astype(np.float32)


def _run_all(dev, a, b):
    x, y = ruda.asarray(a, device=dev), ruda.asarray(b, device=dev)
    s, t, c = ruda.add(x, y), ruda.sum(x), ruda.cumulative_sum(x)
    np.testing.assert_array_equal(np.asarray(s.to_device("cpu")), a + b)
    np.testing.assert_allclose(float(t), a.astype(np.float64).sum(), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(c.to_device("cpu")), np.cumsum(a.astype(np.float64)),
                               rtol=1e-4)  # fmt: skip


def _add(**variant):
    """The add kernel the wgpu backend launches: with the floating-point status words unless
    RUDA_FPSTATUS=off."""
    from ruda._backends.gpu.ops import FP_STATUS

    return ew.build("add", (F32, F32), F32, None, status=FP_STATUS, **variant)


def _reduce_kernels(n, v):
    return {launch.kernel for launch in kr.plan_full("sum", F32, F32, n, v).launches}


def _scan_kernels(n, v):
    return {launch.kernel for launch in scan.plan_scan("sum", F32, F32, 1, n, v).launches}


def test_an_empty_store_launches_the_fixed_variants(wgpu_ops, launched, rng):
    dev, ctx, ops = wgpu_ops
    _run_all(dev, *_data(rng))
    assert _add(**ops.VECTOR_VARIANT) in launched
    from ruda._backends.wgpu import reductions, scans

    assert _reduce_kernels(N, reductions.VARIANTS["full"]) <= set(launched)
    assert _scan_kernels(N, scans.VARIANT) <= set(launched)
    launched.clear()
    _run_all(dev, *_data(rng, 1000))  # small: the scalar kernel
    assert _add() in launched
    assert tune.decisions() == []


STORED = {
    "elementwise": ({"wg": 64, "ipt": 4, "vec": 2, "order": "grid"},
                    tune.Key("add", ("f32", "f32", "f32"), "contiguous", (N,))),
    "reduce.full": ({"wg": 64, "ipt": 1, "tiles": 2, "combine": "tree"},
                    tune.Key("sum", ("f32", "f32"), "full", (N,))),
    "scan": ({"wg": 128, "ipt": 2, "algorithm": "reduce_then_scan", "chunks": 0},
             tune.Key("cumulative_sum", ("f32", "f32"), "rows", (1, N))),
}  # fmt: skip


def test_stored_decisions_are_launched_and_off_ignores_them(wgpu_ops, launched, rng, monkeypatch):
    dev, ctx, ops = wgpu_ops
    target = ops.OPS.tuner.target(ctx)
    for family, (params, key) in STORED.items():
        assert tune.FAMILIES[family].accepts(params, key, target)
        tune.store().put({**tune._row_key(family, key, target), "params": params})
    tune.forget()  # as a fresh process would start
    a, b = _data(rng, N - 7)  # another size of the same buckets
    _run_all(dev, a, b)
    n = a.size
    assert _add(**STORED["elementwise"][0]) in launched
    assert _reduce_kernels(n, STORED["reduce.full"][0]) <= set(launched)
    assert _scan_kernels(n, STORED["scan"][0]) <= set(launched)
    launched.clear()
    monkeypatch.setenv("RUDA_TUNE", "off")
    tune.forget()
    _run_all(dev, a, b)
    assert _add(**ops.VECTOR_VARIANT) in launched
    assert not _reduce_kernels(n, STORED["reduce.full"][0]) <= set(launched)


def test_a_launch_asks_the_engine_once_per_key(wgpu_ops, rng, monkeypatch):
    dev, _, _ = wgpu_ops
    calls = []
    decide = tune.decide

    def counted(*a, **k):
        calls.append(a[0])
        return decide(*a, **k)

    monkeypatch.setattr(tune, "decide", counted)
    a, b = _data(rng, 1000)
    x, y = ruda.asarray(a, device=dev), ruda.asarray(b, device=dev)
    z = x
    for _ in range(200):
        z = ruda.add(z, y)
    np.testing.assert_allclose(np.asarray(z.to_device("cpu")), a + 200 * b, rtol=1e-4)
    assert calls == ["elementwise"]


def test_a_wrong_candidate_never_wins_through_the_backend(wgpu_ops, monkeypatch, rng):
    dev, ctx, ops = wgpu_ops
    orig = tune.FAMILIES["elementwise"]

    def build(p, k):  # order "grid" stands for a fast wrong variant: it does 64 elements
        if p["order"] == "grid":
            return orig.build({**p, "order": "tile"}, tune.Key(k.op, k.dtypes, k.layout, (64,)))
        return orig.build(p, k)

    space = {"wg": (128, 256), "ipt": (1, 2), "vec": (1, 4), "order": ("tile", "grid")}
    tune.register("elementwise", space, build, orig.default, valid=orig.valid,
                  inputs=orig.inputs, reference=orig.reference, output=orig.output)  # fmt: skip
    try:
        key = tune.Key("add", ("f32", "f32", "f32"), "contiguous", (N_BIG,))
        runner = ops.OPS.tuner.runner(ctx)
        inputs = orig.inputs(key, np.random.default_rng(0))
        out = orig.output(key)
        p = {"wg": 256, "ipt": 2, "vec": 4}
        fast = min(runner.prepare(build({**p, "order": "grid"}, key), inputs, out).time(5))
        right = min(runner.prepare(build({**p, "order": "tile"}, key), inputs, out).time(5))
        assert fast < right  # on time alone the wrong one would win
        monkeypatch.setenv("RUDA_TUNE", "on")
        monkeypatch.setenv("RUDA_TUNE_BUDGET", "20")
        a, b = _data(rng, N_BIG)
        s = ruda.add(ruda.asarray(a, device=dev), ruda.asarray(b, device=dev))
        np.testing.assert_array_equal(np.asarray(s.to_device("cpu")), a + b)
        (row,) = tune.decisions()
        assert row["family"] == "elementwise" and row["params"]["order"] == "tile"
        assert row["rejected"] == 4  # ipt=2 with "grid" (ipt=1 requires "tile"): 2 wg x 2 vec
    finally:
        tune.FAMILIES["elementwise"] = orig
        tune.forget()


def test_the_generic_runner_searches_on_the_backends_launches(wgpu_ops):
    """The runner CUDA uses (``ops.run_plan``, the device's clock) works on any backend."""
    from ruda._backends.gpu.tuning import PlanRunner

    _, ctx, ops = wgpu_ops
    runner = PlanRunner(ops.OPS, ctx)
    target = ops.OPS.tuner.target(ctx)
    key = tune.Key("sum", ("f32", "f32"), "full", (1 << 16,))
    fam = tune.FAMILIES["reduce.full"]
    cands = fam.candidates(key, target)[::40]
    dec = tune.tune("reduce.full", key, target, runner, candidates=cands, budget_s=20,
                    persist=False)  # fmt: skip
    assert dec.clock == "host" and not dec.rejected and dec.tried == dec.total >= 2


WORK = textwrap.dedent("""
    import numpy, ruda
    from ruda._kernels import ir
    from ruda._kernels.tune import engine as tune
    from ruda._backends.gpu.ops import _ElementwiseMaker
    from ruda._backends.wgpu import ops
    from ruda._backends.wgpu.context import context

    seen = []
    ctx = context(0)
    program = ctx.compiler.program
    ctx.compiler.program = lambda k: (seen.append(k), program(k))[1]
    if tune.mode() == "cached":
        def refuse(*a, **k):
            raise AssertionError("tuned again")
        tune.tune = refuse
    a = numpy.arange(1 << 16, dtype=numpy.float32)
    x = ruda.asarray(a, device="wgpu:0")
    assert (numpy.asarray(ruda.add(x, x).to_device("cpu")) == a + a).all()
    key = tune.Key("add", ("f32", "f32", "f32"), "contiguous", (1 << 16,))
    params, source = tune.decide("elementwise", key, ops.OPS.tuner.target(ctx))
    k = ops.OPS.tuner.kernel(ctx, _ElementwiseMaker("add", (ir.F32,) * 2, ir.F32), 1 << 16,
                             "contiguous", ops.default_variant)
    print("MODE", tune.mode(), "SOURCE", source, "PARAMS", sorted(params.items()),
          "LAUNCHED", k in seen)
""")


def test_a_tuned_key_is_persisted_and_reused_by_a_fresh_process(wgpu_ops, tmp_path):
    script = tmp_path / "work.py"
    script.write_text(WORK)
    env = {**os.environ, "RUDA_CACHE_DIR": str(tmp_path), "PYTHONPATH": PYPATH}
    env.pop("RUDA_TUNE", None)

    def run(*args):
        return subprocess.run([sys.executable, "-m", "ruda", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip

    r = run("tune", "--budget", "1", str(script))
    assert r.returncode == 0, r.stderr
    assert "tuned elementwise add f32,f32,f32 65536" in r.stderr, r.stderr
    assert "MODE on SOURCE tuned" in r.stdout and "LAUNCHED True" in r.stdout
    tuned = r.stdout.split("PARAMS ")[1].split(" LAUNCHED")[0]
    rep = run("tune", "--report")
    assert rep.returncode == 0 and "elementwise" in rep.stdout and "65536" in rep.stdout
    assert "wgpu:" in rep.stdout and "contiguous" in rep.stdout
    r2 = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True,
                        text=True, timeout=300)  # fmt: skip
    assert r2.returncode == 0, r2.stderr
    assert f"MODE cached SOURCE stored PARAMS {tuned} LAUNCHED True" in r2.stdout
