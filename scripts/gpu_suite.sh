#!/usr/bin/env bash
# The test suite on device "cuda" on the GPU machine, spread over pytest-xdist workers:
#   source .gpu-kit/setup.sh && bash scripts/gpu_suite.sh OUTDIR [GPU] [WORKERS] [SECONDS] [PATHS...]
# Writes OUTDIR/cuda_suite_GPU.log (failures listed by -rf) and a JSON report beside it.
set -uo pipefail
out=${1:-.}
gpu=${2:-0}
workers=${3:-8}
limit=${4:-360}
shift $(($# < 4 ? $# : 4))
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(tests --ignore=tests/distributed --ignore=tests/wgpu)
RUDA_TEST_DEVICES=cuda CUDA_VISIBLE_DEVICES=$gpu timeout "$limit" \
  python3 -m pytest "${paths[@]}" -n "$workers" -q -p no:cacheprovider --color=no --timeout=240 -rf \
  --json-report --json-report-file="$out/cuda_suite_$gpu.json" --json-report-omit collectors log \
  >"$out/cuda_suite_$gpu.log" 2>&1
echo "gpu $gpu rc=$?: $(tail -1 "$out/cuda_suite_$gpu.log")"
