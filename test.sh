#!/usr/bin/env bash
# The test command: installs what the tests need, lints, then runs the whole suite on every
# available device. Set RUDA_CONFORMANCE=1 (and ARRAY_API_TESTS_GIT / ARRAY_API_SPEC_GIT where
# the suite is not reachable by its public URL) to run the standard's conformance suite too.
set -euo pipefail
cd "$(dirname "$0")"
RUDA_EXTRAS=${RUDA_EXTRAS:-test,mpi} bash scripts/setup.sh
bash scripts/install_test_deps.sh
# PyTorch's CPU build for the DLPack interop tests (pinned: the build this machine kind ships).
.venv/bin/python -c "import torch" 2>/dev/null || .venv/bin/python -m pip install -q torch==2.13.0
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/ruda-xdg}
.venv/bin/python -m ruff check ruda tests benchmarks conformance
# The whole suite on every device: cpu, and wgpu on lavapipe (no switch: a backend runs wherever
# its runtime is found; the cuda-only tests are deselected without a GPU, its kernels are still compiled to PTX by
# tests/kernels), one worker per core (RUDA_TEST_WORKERS=0: in this process).
.venv/bin/python -m pytest tests -q -p no:cacheprovider \
  -n "${RUDA_TEST_WORKERS:-auto}" "$@"
# The collectives again, as 2 and 4 MPI ranks (the mpich wheel's mpiexec, from the `mpi` extra), on
# the cpu and on wgpu (lavapipe; arrays staged through host memory).
for n in 2 4; do
  RUDA_TEST_DEVICES=cpu,wgpu \
    .venv/bin/mpiexec -n "$n" .venv/bin/python -m pytest tests/distributed -q -p no:cacheprovider
done
if [ "${RUDA_CONFORMANCE:-0}" = "1" ]; then
  .venv/bin/python conformance/run.py --device "${RUDA_DEVICE:-cpu}" --max-examples "${RUDA_CONFORMANCE_EXAMPLES:-200}"
fi
