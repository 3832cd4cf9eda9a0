"""A tuning process for the concurrency test (spawned: a forked wgpu device is not safe)."""

from __future__ import annotations

import os


def work(cache_dir: str, which: int, barrier, results) -> None:
    os.environ["RUDA_CACHE_DIR"] = cache_dir
    from ruda._backends.wgpu import timing
    from ruda._kernels.tune import engine as tune
    from ruda._kernels.tune import store as tune_store

    from .conftest import make_device

    device = make_device()
    runner, target = timing.WgpuRunner(device), tune.Target.from_wgpu(device)
    same = tune.Key("sum", ("f32", "f32"), "full", (1 << 16,))
    mine = tune.Key("max", ("f32", "f32"), "rows", (16 * (which + 1), 1000))
    full, rows = tune.FAMILIES["reduce.full"], tune.FAMILIES["reduce.rows"]
    barrier.wait(timeout=60)  # both processes start tuning together
    d1 = tune.tune("reduce.full", same, target, runner, budget_s=10,
                   candidates=full.candidates(same, target)[::50])  # fmt: skip
    d2 = tune.tune("reduce.rows", mine, target, runner, budget_s=10,
                   candidates=rows.candidates(mine, target)[::40])  # fmt: skip
    store = tune_store.Store(tune_store.default_path())
    base = {"device": "hammer", "driver": "d", "version": "0", "family": "f", "op": "o",
            "dtypes": "f32", "layout": "full"}  # fmt: skip
    for i in range(100):  # many small transactions against the other process's
        store.put({**base, "bucket": "shared", "params": {"i": i, "who": which}})
        store.put({**base, "bucket": f"own{which}", "params": {"i": i}})
    results.put((which, d1.params, d2.params))
