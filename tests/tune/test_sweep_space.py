"""``benchmarks/tune_sweep.py`` searches each key in that key's own space: matmul's space
depends on the rows (the stream form and its row groups exist for 16 or fewer), so a sweep must
not hand a later key the space it enumerated for an earlier one."""

from __future__ import annotations

from ruda._kernels.matmul import gemm as matmul
from ruda._kernels.tune import engine as tune

from ._bench import load

sweep = load("tune_sweep")


def test_each_key_gets_its_own_space():
    matmul.register_tuning()
    be = object.__new__(sweep.Backend)  # no device: only the space is asked for
    be.target = tune.Target("wgpu", "test", "none", frozenset(), 1024, 49152)

    def space(m: int) -> list[dict]:
        key = tune.Key("matmul", ("f32", "f32", "f32"), "nn", (1, m, 4096, 4096))
        return be.space("matmul", key)[0]

    big, gemv, thin = space(8192), space(1), space(16)  # the order a sweep asks them in
    assert not any(p["form"] == "stream" for p in big)
    assert any(p["form"] == "stream" for p in gemv) and not any(p["rg"] > 1 for p in gemv)
    assert any(p["rg"] > 1 for p in thin)
    key = tune.Key("matmul", ("f32", "f32", "f32"), "nn", (1, 16, 4096, 11008))
    seeds = tune.FAMILIES["matmul"].anchors(key, be.target)
    assert any(s["rg"] > 1 for s in seeds)
    assert all(s in thin for s in seeds if s["form"] == "stream")  # every stream seed is a point


def test_the_reasons_for_rejections_are_counted():
    got = sweep.why_rejected([({"v": 1}, "failed: out of memory 2147483648"),
                              ({"v": 2}, "output differs from the reference"),
                              ({"v": 3}, "failed: out of memory 2147483648")])  # fmt: skip
    assert got == {"failed: out of memory 2147483648": 2, "output differs from the reference": 1}
