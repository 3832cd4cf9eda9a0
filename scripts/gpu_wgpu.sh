#!/usr/bin/env bash
# wgpu through the GPU machine's Vulkan adapter, in one call: issue 3's speed benchmarks beside
# CuPy (add, sums, cumsum, the op chain, matmul), the suite on "wgpu" and the conformance suite
# (its checkout in conformance/.suite: carry it along). Four logs and two JSON files in OUT:
#   source .gpu-kit/setup.sh && bash scripts/build_ext.sh && bash scripts/gpu_wgpu.sh OUT [SECONDS]
# SECONDS bounds the suite and the conformance run each (default 240).
set -uo pipefail
out=${1:-.}
limit=${2:-240}
{
  python3 benchmarks/wgpu_elementwise.py --n 268435456 --chain --json "$out/wgpu_elementwise.json"
  python3 benchmarks/wgpu_reduce.py --json "$out/wgpu_reduce.json"
  python3 benchmarks/wgpu_matmul.py --reps 5
  python3 benchmarks/wgpu_matmul.py --reps 5 --dtype float16
} >"$out/wgpu_bench.log" 2>&1
echo "benchmarks rc=$?"
# SIGINT: pytest still prints its summary when the time is up
RUDA_TEST_DEVICES=wgpu timeout -s INT "$limit" python3 -m pytest tests --ignore=tests/distributed \
  --ignore=tests/cuda -n 15 -q -p no:cacheprovider --color=no -rf >"$out/wgpu_suite.log" 2>&1
echo "suite rc=$?: $(tail -1 "$out/wgpu_suite.log")"
timeout -s INT "$limit" python3 conformance/run.py --device wgpu --max-examples 100 -n 8 \
  >"$out/wgpu_conformance.log" 2>&1
echo "conformance rc=$?: $(grep -E '[0-9]+ passed' "$out/wgpu_conformance.log" | tail -1)"
