#!/usr/bin/env bash
# Build ruda's C extension in place (for runs that use the source tree through PYTHONPATH).
set -euo pipefail
cd "$(dirname "$0")/.."
"${PYTHON:-python3}" setup.py -q build_ext --inplace
