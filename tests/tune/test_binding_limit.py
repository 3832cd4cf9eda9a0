"""The matmul family keeps a K split whose partial products one binding cannot span out of its
space: WebGPU rejects such a bind group (on an H100 through Vulkan, split 64 of an 8192 x 1024
output asked for 2 GiB), so the search wasted candidates on it and a stored decision for a
smaller shape of the bucket could fail a larger one."""

from __future__ import annotations

import random

from ruda._kernels import ir
from ruda._kernels.matmul import gemm as matmul
from ruda._kernels.matmul import tuning as matmul_tuning
from ruda._kernels.tune import engine as tune

F32 = ("f32", "f32", "f32")
SHAPE = (1, 1024, 1024, 4096)  # 4 MiB of output a split
LIMIT = 16 << 20  # a device whose bindings span 16 MiB: splits of 4 or fewer fit


def _family() -> tune.Family:
    matmul.register_tuning()
    return tune.FAMILIES["matmul"]


def test_partial_bytes_follow_the_split_k_actually_made():
    got = [matmul_tuning.partial_bytes({"split": s, "bk": 8}, SHAPE, ir.F32) for s in (1, 2, 64)]
    assert got == [0, 2 * 4 << 20, 64 * 4 << 20]
    # K of 16 in slices of 8: a split of 64 makes two parts
    assert (
        matmul_tuning.partial_bytes({"split": 64, "bk": 8}, (2, 8, 8, 16), ir.F32) == 2 * 2 * 64 * 4
    )


def test_the_space_holds_no_split_past_the_binding_limit():
    fam, key = _family(), tune.Key("matmul", F32, "nn", SHAPE)
    roomy = tune.Target("wgpu", "test", "none", frozenset(), 256, 16384)
    tight = tune.Target("wgpu", "test", "none", frozenset(), 256, 16384, LIMIT)
    wide, narrow = fam.candidates(key, roomy), fam.candidates(key, tight)
    sizes = [matmul_tuning.partial_bytes(p, SHAPE, ir.F32) for p in narrow]
    assert max(sizes) <= LIMIT and any(p["split"] > 1 for p in narrow)
    assert len(narrow) < len(wide) and any(p["split"] == 64 for p in wide)
    kept = {tuple(sorted(p.items())) for p in narrow}
    dropped = [
        p for p in random.Random(0).sample(wide, 2000) if tuple(sorted(p.items())) not in kept
    ]
    assert dropped and all(matmul_tuning.partial_bytes(p, SHAPE, ir.F32) > LIMIT for p in dropped)
    assert all(not fam.accepts(p, key, tight) and fam.accepts(p, key, roomy) for p in dropped)


def test_a_device_reports_its_binding_limit(gpu):
    device, _, target = gpu
    assert target.max_binding == device.limits["max-storage-buffer-binding-size"] > 0


def test_a_stored_split_too_large_for_a_bigger_shape_of_its_bucket_is_not_used(cache_dir):
    fam = _family()
    tight = tune.Target("wgpu", "test", "none", frozenset(), 256, 16384, LIMIT)
    small = tune.Key("matmul", F32, "nn", (1, 520, 520, 4096))  # 1 MiB of output a split
    big = tune.Key("matmul", F32, "nn", (1, 1024, 1024, 4096))  # the same bucket: 4 MiB
    assert small.bucket == big.bucket
    split8 = next(p for p in fam.candidates(small, tight) if p["split"] == 8 and p["bk"] == 8)
    tune.store().put({**tune._row_key("matmul", small, tight), "params": split8})
    assert tune.decide("matmul", small, tight) == (split8, "stored")
    params, source = tune.decide("matmul", big, tight)  # 32 MiB of partial products
    assert source == "heuristic" and params == fam.heuristic(big, tight) != split8
