"""``python -m ruda tune SCRIPT`` tunes what a workload uses; ``--report`` prints the table."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the project first, then whatever the parent had (the GPU machine keeps wgpu in /tmp/site)
PYPATH = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))

SCRIPT = textwrap.dedent("""
    import sys
    from ruda._kernels.tune import engine as tune
    from ruda._backends.wgpu import timing
    from tests.tune.conftest import make_device

    device = make_device()
    target = tune.Target.from_wgpu(device)
    key = tune.Key("sum", ("f32", "f32"), "rows", (int(sys.argv[1]), 3000))
    print("ARGS", sys.argv[1:], "MODE", tune.mode())
    print("PARAMS", tune.choose("reduce.rows", key, target,
                                runner=lambda: timing.WgpuRunner(device)))
""")


def _run(args, env):
    return subprocess.run([sys.executable, "-m", "ruda", "tune", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_tune_a_script_then_report(gpu, tmp_path):
    script = tmp_path / "work.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "RUDA_CACHE_DIR": str(tmp_path), "PYTHONPATH": PYPATH}
    env.pop("RUDA_TUNE", None)
    r = _run(["--budget", "1", str(script), "20", "--flag"], env)
    assert r.returncode == 0, r.stderr
    assert "ARGS ['20', '--flag'] MODE on" in r.stdout
    assert (
        "tuned reduce.rows sum f32,f32 32x4096" in r.stderr and "1 kernel key(s) tuned" in r.stderr
    )
    rep = _run(["--report"], env)
    assert rep.returncode == 0 and "1 decision(s)" in rep.stdout
    assert "reduce.rows" in rep.stdout and "32x4096" in rep.stdout
