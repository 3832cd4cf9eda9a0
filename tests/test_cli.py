"""``python -m ruda``: every subcommand listed with a line, ``--version``, each subcommand's own
``--help``, and ``tune`` saying plainly when there is nothing to tune."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

import ruda
from ruda import __main__ as cli
from ruda._backends import KINDS, probe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYPATH = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))


def _ruda(*args: str, **env_more: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": PYPATH, **env_more}
    return subprocess.run([sys.executable, "-m", "ruda", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_help_lists_every_command_with_a_line():
    r = _ruda("--help")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())  # argparse wraps the lines
    for name, line in cli.COMMANDS.items():
        assert f"{name} {line}" in text, (name, r.stdout)
    assert "--version" in r.stdout


def test_version():
    r = _ruda("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"ruda {ruda.__version__}"


@pytest.mark.parametrize(
    "command, own, foreign",
    [("devices", "List the device kinds", "--report"), ("demo", "--device", "--report"),
     ("tune", "--report", "List the device kinds")],
)  # fmt: skip
def test_each_command_has_its_own_help(command, own, foreign):
    r = _ruda(command, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: python -m ruda {command}"), r.stdout
    assert own in r.stdout and foreign not in r.stdout, r.stdout


def test_unknown_command_is_an_error():
    r = _ruda("frobnicate")
    assert r.returncode == 2 and "invalid choice: 'frobnicate'" in r.stderr


def test_tune_on_the_cpu_says_there_is_nothing_to_tune(tmp_path):
    ran = tmp_path / "ran"
    script = tmp_path / "work.py"
    script.write_text(f"open({str(ran)!r}, 'w').write('x')\n")
    r = _ruda("tune", "--device", "cpu", str(script))
    assert r.returncode == 0, r.stderr
    assert "nothing to tune: the cpu has nothing to tune" in r.stderr
    assert not ran.exists()  # the script is not run for nothing


def test_tune_a_script_that_launches_no_kernel_says_so(tmp_path):
    script = tmp_path / "work.py"
    script.write_text("print('ran')\n")
    r = _ruda("tune", str(script), RUDA_CACHE_DIR=str(tmp_path))
    assert r.returncode == 0, r.stderr
    if probe("cuda") is None or probe("wgpu") is None:
        assert "ran" in r.stdout and "0 kernel key(s) tuned" in r.stderr
        assert "nothing was tuned: the script launched no GPU kernel" in r.stderr
    else:
        assert "nothing to tune: no GPU device to tune on this machine" in r.stderr


def test_tune_progress_in_a_log_prints_a_line_a_second(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(cli.time, "perf_counter", lambda: clock[0])
    out = io.StringIO()  # not a terminal: lines, not a redrawn bar
    p = cli._Progress(stream=out)
    key = SimpleNamespace(op="sum", dtypes=("f32", "f32"), bucket="32x4096")
    p("start", {"family": "reduce.rows", "key": key, "total": 50})
    for done in range(1, 31):
        clock[0] += 0.25  # 30 steps over 7.5 s
        p("step", {"done": done, "total": 50})
    lines = out.getvalue().splitlines()
    assert lines[0] == "  tuning reduce.rows sum f32,f32 32x4096 (50 candidates)..."
    assert len(lines) == 1 + 7  # one a second
    assert lines[1] == "    4/50 candidates, 1.0s" and lines[-1] == "    28/50 candidates, 7.0s"


def test_devices_shows_every_kind_ready_or_why_not():
    r = _ruda("devices")
    assert r.returncode == 0, r.stderr
    lines = {ln.split()[0]: ln for ln in r.stdout.splitlines() if ln.startswith("  ")}
    assert lines["cpu"].startswith("  cpu    ready")
    for kind in [k for k in KINDS if k != "cpu"]:
        reason = probe(kind)
        if reason is None:  # no switch needed: a kind whose runtime is here is ready
            assert lines[kind].startswith(f"  {kind:<6} ready: {kind}:0 is "), lines[kind]
        else:
            assert lines[kind] == f"  {kind:<6} not available: {reason}"
