"""Run the Array API conformance suite (data-apis/array-api-tests) against ruda on one device.

    python conformance/run.py --device cpu [--max-examples 200] [pytest args...]

The suite is never copied into this repository. It is cloned into conformance/.suite (git-ignored)
from ARRAY_API_TESTS_GIT and ARRAY_API_SPEC_GIT (a URL or a local git directory), pinned to the
commit the project's figures use, with the spec wired in as its submodule.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SUITE = HERE / ".suite"
SUITE_COMMIT = "55fcc60179efa2680ddd6cd926ddf17b83530e2b"
DEFAULT_SUITE_GIT = "https://github.com/data-apis/array-api-tests"
DEFAULT_SPEC_GIT = "https://github.com/data-apis/array-api"


def _git(*args: str, cwd: Path | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True)


def ensure_suite() -> Path:
    """Clone and pin the suite (once); returns its work tree."""
    if (SUITE / "array_api_tests").is_dir():
        return SUITE
    suite_git = os.environ.get("ARRAY_API_TESTS_GIT", DEFAULT_SUITE_GIT)
    spec_git = os.environ.get("ARRAY_API_SPEC_GIT", DEFAULT_SPEC_GIT)
    _git("clone", "-q", suite_git, str(SUITE))
    _git("checkout", "-q", SUITE_COMMIT, cwd=SUITE)
    _git("config", "submodule.array_api_tests/array-api.url", spec_git, cwd=SUITE)
    _git("-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q", cwd=SUITE)
    return SUITE


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", help="cpu, cuda or wgpu")
    ap.add_argument("--max-examples", type=int, default=200)
    ap.add_argument("--no-xfails", action="store_true", help="run without the xfails file")
    args, rest = ap.parse_known_args()
    suite = ensure_suite()
    kind = args.device.split(":")[0]
    xfails = HERE / f"xfails-{kind}.txt"
    reports = HERE / "reports"
    reports.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(
        ARRAY_API_TESTS_MODULE="ruda",
        RUDA_DEVICE=args.device,
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    cmd = [
        sys.executable, "-m", "pytest", "array_api_tests", "-q", "-p", "no:cacheprovider",
        f"--max-examples={args.max_examples}", "--hypothesis-disable-deadline",
        "--json-report", f"--json-report-file={reports / f'{kind}.json'}",
    ]  # fmt: skip
    if not args.no_xfails and xfails.exists():
        # one argument: a separate path argument would join pytest's rootdir guess (pytest 9)
        # and move the node ids off the suite's, so no id in the file would match
        cmd += [f"--xfails-file={xfails}"]
    return subprocess.call(cmd + rest, cwd=suite, env=env)


if __name__ == "__main__":
    sys.exit(main())
