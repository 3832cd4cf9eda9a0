#!/usr/bin/env bash
# Shared set-up for run.sh and test.sh: a virtual environment in .venv with ruda installed (editable).
# Idempotent: a second call only checks that the environment is there.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
extras=${RUDA_EXTRAS:-test}
# the editable install builds the C extensions: a change to them installs again
stamp=".venv/.ruda-installed-$extras-$(cat pyproject.toml setup.py ruda/_native/*.c | sha1sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[$extras]"
  touch "$stamp"
fi
