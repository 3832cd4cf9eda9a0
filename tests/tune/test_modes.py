"""RUDA_TUNE modes and RUDA_TUNE_BUDGET, as docs/TUNING.md describes them."""

from __future__ import annotations

import time

import pytest

from ruda._kernels.tune import engine as tune

KEY = tune.Key("max", ("f32", "f32"), "full", (40_000,))


class Counting:
    """A runner factory that counts how often the engine asked for a runner."""

    def __init__(self, runner) -> None:
        self.runner, self.calls = runner, 0

    def __call__(self):
        self.calls += 1
        return self.runner


def _store_decision(target, params) -> None:
    tune.store().put({**tune._row_key("reduce.full", KEY, target), "params": params})


OTHER = {"wg": 128, "ipt": 2, "tiles": 2, "combine": "tree"}


def test_off_ignores_stored_decisions(gpu, cache_dir, monkeypatch):
    _, runner, target = gpu
    _store_decision(target, OTHER)
    monkeypatch.setenv("RUDA_TUNE", "off")
    make = Counting(runner)
    assert tune.choose("reduce.full", KEY, target, make) == tune.FAMILIES["reduce.full"].heuristic(
        KEY, target)  # fmt: skip
    assert make.calls == 0 and len(tune.decisions()) == 1


def test_cached_uses_stored_else_heuristic_and_never_tunes(gpu, cache_dir, monkeypatch):
    _, runner, target = gpu
    make = Counting(runner)
    heur = tune.FAMILIES["reduce.full"].heuristic(KEY, target)
    assert tune.choose("reduce.full", KEY, target, make) == heur  # default mode is cached
    _store_decision(target, OTHER)
    tune.forget()
    assert tune.choose("reduce.full", KEY, target, make) == OTHER
    assert make.calls == 0


def test_on_tunes_a_key_once_within_the_budget(gpu, cache_dir, monkeypatch):
    _, runner, target = gpu
    monkeypatch.setenv("RUDA_TUNE", "on")
    monkeypatch.setenv("RUDA_TUNE_BUDGET", "1.0")
    make = Counting(runner)
    events: list[tuple[str, float]] = []
    tune.set_progress(lambda ev, info: events.append((ev, time.perf_counter())))
    try:
        t = time.perf_counter()
        p = tune.choose("reduce.full", KEY, target, make)
        took = time.perf_counter() - t
    finally:
        tune.set_progress(None)
    seen = [ev for ev, _ in events]
    assert make.calls == 1 and seen[0] == "start" and seen[-1] == "done" and "step" in seen
    # No candidate starts past the budget: each step but the last ends before the deadline
    # (set just before "start"), as the next one starts only then. A wall-clock bound would
    # measure the machine: a 2-core CI runner compiling for lavapipe took 5.2 s once.
    steps = [at for ev, at in events if ev == "step"]
    assert all(at <= events[0][1] + 1.0 + 0.05 for at in steps[:-1]), (events, took)
    print(f"tuned within the 1.0 s budget; choose() took {took:.2f} s")
    (row,) = tune.decisions()
    assert row["params"] == p and 1 <= row["tried"] < row["total"]
    same_bucket = tune.Key("max", ("f32", "f32"), "full", (50_000,))
    assert tune.choose("reduce.full", same_bucket, target, make) == p and make.calls == 1
    tune.forget()  # a new process: served from the store, no search
    assert tune.choose("reduce.full", KEY, target, make) == p and make.calls == 1


def test_on_without_a_runner_or_with_no_budget(gpu, cache_dir, monkeypatch):
    _, runner, target = gpu
    monkeypatch.setenv("RUDA_TUNE", "on")
    heur = tune.FAMILIES["reduce.full"].heuristic(KEY, target)
    assert tune.choose("reduce.full", KEY, target) == heur and tune.decisions() == []
    monkeypatch.setenv("RUDA_TUNE_BUDGET", "0")
    dec = tune.tune("reduce.full", KEY, target, runner)
    assert dec.tried == 1 and dec.params == heur  # only the default was measured


def test_on_with_a_failing_runner_warns_and_falls_back(cache_dir, monkeypatch):
    monkeypatch.setenv("RUDA_TUNE", "on")
    target = tune.Target("wgpu", "nowhere", "none", frozenset(), 256)

    def broken():
        raise RuntimeError("device lost")

    with pytest.warns(RuntimeWarning, match="device lost"):
        p = tune.choose("reduce.full", KEY, target, broken)
    assert p == tune.FAMILIES["reduce.full"].heuristic(KEY, target)
    assert tune.choose("reduce.full", KEY, target, broken) == p  # not retried on every call


def test_an_unknown_mode_warns_and_reads_as_cached(cache_dir, monkeypatch):
    monkeypatch.setenv("RUDA_TUNE", "sometimes")
    with pytest.warns(RuntimeWarning, match="RUDA_TUNE"):
        assert tune.mode() == "cached"
    monkeypatch.setenv("RUDA_TUNE_BUDGET", "lots")
    assert tune.budget() == tune.DEFAULT_BUDGET_S


def test_spaces_are_declarations(cache_dir):
    from ruda._kernels import reduce, scan

    t = tune.Target("wgpu", "d", "v", frozenset({"subgroup"}), 1024, 1 << 20)
    for layout in ("full", "rows", "cols"):
        key = tune.Key("sum", ("f32", "f32"), layout, (64, 64))
        got = tune.FAMILIES[f"reduce.{layout}"].candidates(key, t)
        assert got == reduce.variants(layout)  # the family's own enumeration
        assert not any(p.get("combine") == "subgroup" for p in tune.FAMILIES[
            f"reduce.{layout}"].candidates(key, tune.Target("wgpu", "d", "v")))  # fmt: skip
    skey = tune.Key("cumulative_sum", ("f32", "f32"), "rows", (4, 4096))
    assert tune.FAMILIES["scan"].candidates(skey, t) == scan.variants(False, scan.ir.F32)
    cuda = tune.Target("cuda", "d", "v", frozenset({"subgroup"}), 1024, 1 << 20)
    assert tune.FAMILIES["scan"].candidates(skey, cuda) == scan.variants(True, scan.ir.F32)
    small = tune.Target("wgpu", "d", "v", frozenset(), 128)  # the default wg=256 is ruled out
    h = tune.FAMILIES["reduce.rows"].heuristic(tune.Key("sum", ("f32", "f32"), "rows", (8, 8)),
                                                small)  # fmt: skip
    assert h["wg"] == 128 and h["tpr"] <= 128
    # a new parameter or family is one declaration
    fam = tune.register(
        "test.new",
        {"wg": (64, 128), "algorithm": ("tiled", "vendor")},
        lambda p, k: p,
        {"wg": 64, "algorithm": "tiled"},
        valid=lambda p, k, t: p["algorithm"] != "vendor" or t.backend == "cuda",
    )
    try:
        key = tune.Key("matmul", ("f32", "f32", "f32"), "nn", (256, 256, 256))
        assert len(fam.candidates(key, t)) == 2 and len(fam.candidates(key, cuda)) == 4
        assert tune.choose("test.new", key, cuda) == {"wg": 64, "algorithm": "tiled"}
    finally:
        tune.FAMILIES.pop("test.new")


def test_bucket():
    assert tune.bucket((1, 2, 3, 1000, 1024, 1025)) == (1, 2, 4, 1024, 1024, 2048)
    assert tune.Key("sum", ("f32",), "full", (1000, 3)).bucket == "1024x4"


def test_the_search_order_is_nearest_first():
    """``_nearest_first`` orders as sorting by (vendor last, ``_distance`` to the nearest seed)
    would: the matmul space around a thin product's default and its anchors."""
    import random

    from ruda._kernels.matmul import gemm as matmul

    matmul.register_tuning()
    fam = tune.FAMILIES["matmul"]
    t = tune.Target("wgpu", "doc", "v", frozenset(), 256)
    key = tune.Key("matmul", ("f32",) * 3, "nn", (1, 16, 256, 512))
    seeds = [fam.heuristic(key, t), *fam.anchors(key, t)]
    cands = fam.candidates(key, t)[::7] + [{"algorithm": "blas"}]
    random.Random(1).shuffle(cands)
    vendor = lambda p: "algorithm" in p  # noqa: E731
    want = sorted(cands, key=lambda p: (not vendor(p),
                                        min(tune._distance(p, s) for s in seeds)))  # fmt: skip
    got = [cands[i] for i in tune._nearest_first(cands, seeds, vendor)]
    assert got == want and got[0] == {"algorithm": "blas"}
    assert got[1] in seeds or min(tune._distance(got[1], s) for s in seeds)[0] <= 1


def test_the_search_climbs_from_each_new_best():
    """After a new best, the walk's next candidates are that point's own neighbours (ahead of
    the seeds' at the same distance); what was walked already keeps its place."""
    from ruda._kernels.matmul import gemm as matmul

    matmul.register_tuning()
    fam = tune.FAMILIES["matmul"]
    t = tune.Target("wgpu", "doc", "v", frozenset(), 256)
    key = tune.Key("matmul", ("f32",) * 3, "nn", (1, 512, 512, 512))
    default = fam.heuristic(key, t)
    cands = [p for p in fam.candidates(key, t) if p != default]
    walk = tune._Order(cands, [default], lambda p: False)
    far = max(range(len(walk)), key=lambda i: tune._distance(walk[i], default))
    best, walked = walk[far], walk.upcoming(0, 10)
    assert tune._distance(best, default)[0] >= 3  # a point the first pass reaches late
    walk.climb(best, 10)
    assert walk.upcoming(0, 10) == walked
    step = [tune._distance(p, best) for p in walk.upcoming(10, 31) if p != best]
    assert step == sorted(step) and step[0][0] == 1, step
    assert sorted(map(str, walk.upcoming(0, len(walk)))) == sorted(map(str, cands))


def test_a_walk_over_shuffled_indices_is_the_walk_over_the_shuffled_list():
    """``_search`` shuffles the indices (``ties``), not the candidates: columns of dicts read in
    the order they were made are ~3x faster to build, and the walk must not change."""
    import random

    from ruda._kernels.matmul import gemm as matmul

    matmul.register_tuning()
    fam = tune.FAMILIES["matmul"]
    t = tune.Target("wgpu", "doc", "v", frozenset(), 256)
    key = tune.Key("matmul", ("f32",) * 3, "nn", (1, 16, 256, 512))
    seeds = [fam.heuristic(key, t), *fam.anchors(key, t)]
    cands = [p for p in fam.candidates(key, t)[::5] if p != seeds[0]]
    ties = list(range(len(cands)))
    random.Random(3).shuffle(ties)
    shuffled = list(cands)
    random.Random(3).shuffle(shuffled)
    old, new = (
        tune._Order(shuffled, seeds, lambda p: False),
        tune._Order(cands, seeds, lambda p: False, ties),
    )
    assert [old[i] for i in range(len(old))] == [new[i] for i in range(len(new))]
    best = old[len(old) // 2]
    old.climb(best, 40)
    new.climb(best, 40)
    assert old.upcoming(0, len(old)) == new.upcoming(0, len(new))
