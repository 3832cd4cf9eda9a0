#!/usr/bin/env bash
# The distributed tests and the NCCL benchmark on a multi-GPU machine (device kind nvidia-h200-x2
# and up): `source .gpu-kit/setup.sh && bash scripts/gpu_dist.sh N OUTDIR`.
set -uo pipefail
n=${1:-2}
out=${2:-.}
# NVLink multicast stays off (the device machines' rule), also inside mpiexec's children.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { mpiexec -n "$n" -x NCCL_NVLS_ENABLE -x PYTHONPATH "$@"; }
[ -n "${NO_BENCH:-}" ] || run timeout ${BENCH_TIMEOUT:-200} python3 benchmarks/nccl_bench.py --json "$out/nccl_x$n.json" ${BENCH_ARGS:-} 2>&1 | tail -40
RUDA_TEST_DEVICES=cuda RUDA_DIST_TEST_TIMEOUT=30 run -x RUDA_TEST_DEVICES -x RUDA_DIST_TEST_TIMEOUT \
  --output-filename "$out/dist_tests_$n" timeout ${TEST_TIMEOUT:-330} python3 -m pytest tests/distributed -v \
  -p no:cacheprovider -rf --color=no --timeout=100 > /dev/null 2>&1
# One log per rank, flat (mpiexec writes DIR/1/rank.R/stdout).
for d in "$out/dist_tests_$n"/*/rank.*; do cp "$d/stdout" "$out/dist_tests_${n}_$(basename "$d").log"; done
rm -rf "$out/dist_tests_$n"
grep -hE "^(FAILED|ERROR)|passed|failed" "$out"/dist_tests_"$n"_rank.*.log | sort | uniq -c
