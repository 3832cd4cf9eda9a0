#!/usr/bin/env bash
# The main job: a demo and quick benchmark on the CPU, plus every GPU backend found on this machine.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
exec .venv/bin/python -m ruda demo "$@"
