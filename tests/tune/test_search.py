"""The search on the WebGPU adapter (lavapipe in CI): it picks a correct variant, stores it, serves
it later without tuning, never lets a wrong variant win, and refuses to tune a wrong default."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ruda._backends.wgpu import timing
from ruda._kernels import ir, reduce
from ruda._kernels.tune import engine as tune

N = 1 << 18
KEY = tune.Key("sum", ("f32", "f32"), "full", (N,))


def _candidates(target: tune.Target) -> list[dict]:
    fam = tune.FAMILIES["reduce.full"]
    pts = [{"wg": 64, "ipt": 1, "tiles": 1, "combine": "tree"},
           {"wg": 256, "ipt": 16, "tiles": 8, "combine": "tree"},
           {"wg": 128, "ipt": 8, "tiles": 4, "combine": "tree"},
           {"wg": 256, "ipt": 4, "tiles": 2, "combine": "subgroup"}]  # fmt: skip
    return [p for p in pts if fam.accepts(p, KEY, target)]


def test_search_picks_a_correct_variant_and_persists_it(gpu, cache_dir):
    device, runner, target = gpu
    dec = tune.tune("reduce.full", KEY, target, runner, candidates=_candidates(target),
                    budget_s=20)  # fmt: skip
    assert dec.clock == ("timestamp-query" if "timestamp-query" in device.features else "host")
    assert dec.tried == dec.total >= 4 and not dec.rejected
    assert not runner._uploads  # the search's inputs left the device with it
    assert dec.time_s is not None and dec.time_s <= dec.default_s
    # the winner computes the sum (checked here again, independently of the engine)
    x = tune.FAMILIES["reduce.full"].inputs(KEY, np.random.default_rng(7))["x"]
    got = runner.prepare(tune.build("reduce.full", dec.params, KEY), {"x": x}, (np.float32, 1))
    np.testing.assert_allclose(got.output()[0], x.astype(np.float64).sum(), rtol=1e-4)
    # stored under the key's bucket, in RUDA_CACHE_DIR/tune.sqlite (apart from binaries)
    assert (cache_dir / "tune.sqlite").exists()
    (row,) = tune.decisions()
    assert row["params"] == dec.params and row["bucket"] == str(N) and row["op"] == "sum"
    assert row["device"] == f"wgpu:{target.device}" and row["clock"] == dec.clock
    assert "reduce.full" in tune.report() and "sum" in tune.report()


def test_a_later_lookup_returns_the_decision_without_tuning(gpu, cache_dir, monkeypatch):
    device, runner, target = gpu
    dec = tune.tune("reduce.full", KEY, target, runner, candidates=_candidates(target)[:2],
                    budget_s=20)  # fmt: skip
    tune.forget()  # as in a new process: only the store knows

    def no_tuning(*a, **k):
        raise AssertionError("tuned again")

    monkeypatch.setattr(tune, "tune", no_tuning)
    for mode in ("cached", "on"):
        monkeypatch.setenv("RUDA_TUNE", mode)
        near = tune.Key("sum", ("f32", "f32"), "full", (N - 1000,))  # same bucket
        assert tune.choose("reduce.full", near, target, runner=no_tuning) == dec.params
    other = tune.Key("sum", ("f32", "f32"), "full", (N + 1,))  # next bucket: no decision
    monkeypatch.setenv("RUDA_TUNE", "cached")
    # no decision: the backend's default (the reduce builders' under the wgpu overrides)
    from ruda._backends.wgpu.reductions import VARIANTS as WGPU_VARIANTS

    heuristic = tune.FAMILIES["reduce.full"].heuristic(other, target)
    assert heuristic == {**reduce.DEFAULTS["full"], **WGPU_VARIANTS["full"]}
    assert tune.choose("reduce.full", other, target) == heuristic


def _wrong_family(name: str, default: str) -> tune.Family:
    """One declaration: a family whose "truncated" variant is fast and wrong, "broken" fails."""
    full = tune.FAMILIES["reduce.full"]

    def build(p, key):
        if p["variant"] == "broken":
            raise RuntimeError("this variant cannot be built")
        if p["variant"] == "truncated":  # reduces only the first 64 elements
            return reduce.plan_full(key.op, ir.F32, ir.F32, 64)
        v = {"wg": 256, "ipt": 16, "tiles": 8} if p["variant"] == "tiled" else {}
        return reduce.plan_full(key.op, ir.F32, ir.F32, key.shape[0], v)

    return tune.register(name, {"variant": ("plain", "truncated", "broken", "tiled")}, build,
                         {"variant": default}, inputs=full.inputs, reference=full.reference,
                         output=full.output)  # fmt: skip


def test_a_wrong_candidate_never_wins(gpu, cache_dir):
    device, runner, target = gpu
    _wrong_family("test.wrong", "plain")
    try:
        x = tune.FAMILIES["reduce.full"].inputs(KEY, np.random.default_rng(0))
        t_wrong = min(runner.prepare(tune.build("test.wrong", {"variant": "truncated"}, KEY), x,
                                     (np.float32, 1)).time(5))  # fmt: skip
        t_plain = min(runner.prepare(tune.build("test.wrong", {"variant": "plain"}, KEY), x,
                                     (np.float32, 1)).time(5))  # fmt: skip
        assert t_wrong < t_plain  # it would win on time alone
        dec = tune.tune("test.wrong", KEY, target, runner, budget_s=20)
        assert dec.params["variant"] in ("plain", "tiled")
        why = {p["variant"]: r for p, r in dec.rejected}
        assert set(why) == {"truncated", "broken"}
        assert "differs" in why["truncated"] and "cannot be built" in why["broken"]
        assert tune.lookup("test.wrong", KEY, target) == dec.params
    finally:
        tune.FAMILIES.pop("test.wrong")


def test_a_default_that_disagrees_with_numpy_is_not_tuned(gpu, cache_dir):
    device, runner, target = gpu
    _wrong_family("test.wrongdefault", "truncated")
    try:
        with pytest.warns(RuntimeWarning, match="disagrees with NumPy"):
            dec = tune.tune("test.wrongdefault", KEY, target, runner, budget_s=20)
        assert dec.source == "heuristic" and dec.params == {"variant": "truncated"}
        assert tune.decisions() == []  # nothing persisted
    finally:
        tune.FAMILIES.pop("test.wrongdefault")


@pytest.mark.parametrize("family,key", [
    ("reduce.rows", tune.Key("max", ("f32", "f32"), "rows", (37, 3001))),
    ("reduce.cols", tune.Key("sum", ("i32", "i64"), "cols", (3001, 37))),
    ("scan", tune.Key("cumulative_sum", ("f32", "f32"), "rows", (3, 5000))),
])  # fmt: skip
def test_other_families_tune_on_the_host_clock(gpu, cache_dir, family, key):
    device, _, target = gpu
    runner = timing.WgpuRunner(device, host_clock=True)
    fam = tune.FAMILIES[family]
    cands = fam.candidates(key, target)[::7][:4]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the defaults agree with NumPy
        dec = tune.tune(family, key, target, runner, candidates=cands, budget_s=20)
    assert dec.clock == "host" and not dec.rejected and dec.tried == dec.total
    assert fam.accepts(dec.params, key, target)
    assert tune.lookup(family, key, target) == dec.params


def test_a_discrete_gpu_is_kept_busy_through_compiles_and_timings(gpu, monkeypatch):
    """A discrete GPU's runner copies for WARM_SECONDS before its first timing (measuring the
    copy rate), queues copies over each compile, and puts a top-up, or a ramp as long as the
    idle gap, in front of every timing; other adapters (lavapipe on CI) get none of it."""
    import time

    from ruda._kernels.tune import warmth

    device, _, target = gpu
    discrete = device.adapter.info["adapter_type"] == "DiscreteGPU"  # the H200 through Vulkan
    assert timing.WgpuRunner(device).warmth.active is discrete
    assert timing.WgpuRunner(device).warmth.before() == 0.0 or discrete
    monkeypatch.setattr(warmth, "WARM_SECONDS", 0.2)
    monkeypatch.setattr(warmth, "WARM_BYTES", 1 << 20)
    runner = timing.WgpuRunner(device)
    runner.warmth.active = True  # as on a discrete GPU
    fam = tune.FAMILIES["reduce.full"]
    inputs = fam.inputs(KEY, np.random.default_rng(1))
    ref = fam.reference(KEY, inputs)
    cand = runner.prepare(fam.build(_candidates(target)[0], KEY), inputs, fam.output(KEY))
    t = time.perf_counter()
    assert len(cand.time(2)) == 2
    assert time.perf_counter() - t >= 0.2 and runner.warmth.rate > 0  # the first warm-up
    # a compile: copies queued to outlast it (the estimate starts at COMPILE_GUESS)
    runner.warmth.compile_s = 0.3
    before = time.perf_counter()
    other = runner.prepare(fam.build(_candidates(target)[1], KEY), inputs, fam.output(KEY))
    assert runner.warmth.busy_until > before + 0.2
    assert tune.agrees(other.output(), ref, fam.tolerance(KEY))  # the copies change no result
    assert time.perf_counter() >= runner.warmth.busy_until  # output() waited for them
    assert 0.05 <= runner.warmth.compile_s <= warmth.COMPILE_MOST
    # right after a wait: a top-up; after an idle gap: a ramp as long as the gap
    other.time(1)
    assert runner.warmth.before() <= warmth.TOP_UP_SECONDS + 0.01
    other.time(1)
    time.sleep(0.1)
    assert 0.1 <= runner.warmth.before() <= warmth.RAMP_SECONDS + warmth.TOP_UP_SECONDS
    assert len(other.time(3)) == 3


def test_the_next_candidates_compile_in_the_background(gpu, monkeypatch):
    """``prefetch`` compiles a plan's kernels on the runner's threads; ``prepare`` then takes the
    pipeline (or the compile's error, as its own compile would raise it), and the end of a
    search drops the compiles it never used."""
    from concurrent.futures import Future

    from ruda._kernels.render import wgsl

    device, _, target = gpu
    runner = timing.WgpuRunner(device)
    fam = tune.FAMILIES["reduce.full"]
    inputs = fam.inputs(KEY, np.random.default_rng(2))
    ref = fam.reference(KEY, inputs)
    plans = [fam.build(p, KEY) for p in _candidates(target)]
    runner.prefetch(plans[0])
    first = plans[0].launches[0].kernel
    assert isinstance(runner._pipelines[first], Future)
    got = runner.prepare(plans[0], inputs, fam.output(KEY)).output()
    assert tune.agrees(got, ref, fam.tolerance(KEY))
    assert not isinstance(runner._pipelines[first], Future)  # taken over by prepare
    # a compile that fails in the background fails the candidate's prepare
    broken = plans[1].launches[0].kernel
    real = wgsl.render
    monkeypatch.setattr(wgsl, "render", lambda k, *a: "fn broken(" if k is broken else real(k))
    runner.prefetch(plans[1])
    with pytest.raises(Exception, match="(?i)pars|expected|error"):
        runner.prepare(plans[1], inputs, fam.output(KEY))
    monkeypatch.setattr(wgsl, "render", real)
    # the search's unused compiles are dropped at its end, finished or cancelled
    runner._pool = None
    runner.prefetch_depth = 1
    runner.prefetch(plans[2])
    runner.end_search()
    assert all(not isinstance(p, Future) or p.done() for p in runner._pipelines.values())
    # and a whole search with compiles running ahead picks a correct, accepted variant
    dec = tune.tune("reduce.full", KEY, target, runner, candidates=_candidates(target),
                    budget_s=20, persist=False)  # fmt: skip
    assert dec.tried == dec.total and not dec.rejected and fam.accepts(dec.params, KEY, target)


def test_the_compile_threads_come_from_the_environment(gpu, monkeypatch):
    """``RUDA_TUNE_THREADS``: 0 compiles each candidate in turn (no thread, no Future); a value
    that is not a count warns and reads as the default."""
    from concurrent.futures import Future

    device, _, target = gpu
    monkeypatch.setenv("RUDA_TUNE_THREADS", "0")
    runner = timing.WgpuRunner(device)
    assert runner.prefetch_depth == 0
    dec = tune.tune("reduce.full", KEY, target, runner, candidates=_candidates(target),
                    budget_s=20, persist=False)  # fmt: skip
    assert dec.tried == dec.total and not dec.rejected and runner._pool is None
    assert not any(isinstance(p, Future) for p in runner._pipelines.values())
    monkeypatch.setenv("RUDA_TUNE_THREADS", "3")
    assert timing.WgpuRunner(device).prefetch_depth == 3
    monkeypatch.setenv("RUDA_TUNE_THREADS", "many")
    with pytest.warns(RuntimeWarning, match="RUDA_TUNE_THREADS"):
        depth = timing.compile_threads()
    monkeypatch.delenv("RUDA_TUNE_THREADS")
    assert depth == timing.compile_threads() >= 1
