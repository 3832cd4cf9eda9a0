"""``benchmarks/vkstats``: the Vulkan layer that records each compute pipeline's statistics builds,
and wgpu runs through it unchanged (lavapipe in CI). Lavapipe does not offer
VK_KHR_pipeline_executable_properties, so here the layer passes pipelines through, says so, and
keeps the SPIR-V wgpu hands the driver; the statistics themselves are read on the GPU machine
(``benchmarks/wgpu_pipeline_stats.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAM = textwrap.dedent("""
    import numpy, ruda
    a = numpy.random.default_rng(5).uniform(-1, 1, (48, 40)).astype(numpy.float32)
    b = numpy.random.default_rng(6).uniform(-1, 1, (40, 24)).astype(numpy.float32)
    d = ruda.Device("wgpu:0")
    got = ruda.matmul(ruda.asarray(a, device=d), ruda.asarray(b, device=d))
    want = a.astype(numpy.float64) @ b.astype(numpy.float64)
    numpy.testing.assert_allclose(numpy.asarray(got.to_device("cpu")), want, rtol=1e-5,
                                  atol=1e-5)
    print("product ok")
""")


def test_wgpu_runs_through_the_layer(tmp_path, monkeypatch):
    from ruda._backends import probe

    reason = probe("wgpu")
    if reason is not None:
        pytest.skip(f"wgpu backend unavailable: {reason}")
    if not os.path.exists("/usr/include/vulkan/vk_layer.h"):
        # the test command installs them (scripts/install_test_deps.sh); a GPU machine may lack them
        pytest.skip("no Vulkan headers (Debian: libvulkan-dev) to build the layer against")
    build = subprocess.run(["bash", os.path.join(ROOT, "benchmarks", "vkstats", "build.sh"),
                            str(tmp_path / "layer")], capture_output=True, text=True)  # fmt: skip
    assert build.returncode == 0, build.stderr
    out = tmp_path / "out"
    out.mkdir()
    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "VK_LAYER_PATH": str(tmp_path / "layer"),
           "VK_INSTANCE_LAYERS": "VK_LAYER_RUDA_vkstats", "RUDA_VKSTATS_OUT": str(out),
           "RUDA_VKSTATS_SPIRV": "1", "PYTHONPATH": path}  # fmt: skip
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    run = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                         text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "product ok" in run.stdout
    spirv = sorted(out.glob("module_*.spv"))
    assert spirv, "the layer kept no SPIR-V: was it loaded?"
    assert all(p.read_bytes()[:4] == bytes.fromhex("03022307") for p in spirv)  # SPIR-V magic
    offered = (out / "stats.tsv").exists()
    assert offered or "does not offer VK_KHR_pipeline_executable_properties" in run.stderr
