#!/usr/bin/env bash
# compute-sanitizer over the cuda tests, groups of test files side by side (one pytest process
# each, no xdist: the sanitizer then watches every launch), each array in its own cudaMalloc
# (RUDA_CUDA_POOL=off) so an overrun cannot land unseen in a pool neighbour:
#   source .gpu-kit/setup.sh && bash scripts/build_ext.sh && bash scripts/gpu_sanitize.sh OUTDIR [SECONDS]
# Writes OUTDIR/sanitize.txt: per group, the pytest summary, the sanitizer's error summary and
# the first lines of any report.
set -uo pipefail
out=${1:-.}
secs=${2:-240}
t=tests/cuda
work=$(mktemp -d)
export RUDA_CUDA=experimental RUDA_TEST_DEVICES=cuda RUDA_CUDA_POOL=off CUDA_VISIBLE_DEVICES=${GPU:-0}
# vendor kernels (cuBLAS: names with "cublas") are left out of the linalg groups: their own
# racecheck reports are NVIDIA's to read, and instrumenting them takes minutes
vendor="--kernel-name-exclude kns=cublas"
declare -A groups=(
  [memcheck-reduce]="memcheck all $t/test_reductions.py $t/test_searching.py"
  [memcheck-sort]="memcheck all $t/test_sorting.py $t/test_indexing.py $t/test_indexing_bool0d.py"
  [memcheck-shape]="memcheck all $t/test_manipulation.py $t/test_compose_create.py $t/test_compose_diag.py $t/test_compose_stats.py"
  [memcheck-misc]="memcheck all $t/test_random.py $t/test_complex.py $t/test_special_cases.py $t/test_dispatch_fast.py $t/test_runtime.py"
  [memcheck-elementwise]="memcheck all $t/test_elementwise_ops.py"
  [memcheck-linalg]="memcheck own $t/test_linalg_products.py $t/test_library.py"
  [memcheck-decomp]="memcheck own $t/test_linalg_decomp.py $t/test_fft.py"
  [racecheck-reduce]="racecheck all $t/test_reductions.py $t/test_searching.py"
  [racecheck-sort]="racecheck all $t/test_sorting.py $t/test_random.py"
  [racecheck-linalg]="racecheck own $t/test_linalg_products.py $t/test_linalg_decomp.py"
)
for name in "${!groups[@]}"; do
  read -r tool which files <<<"${groups[$name]}"
  filter=""; [ "$which" = own ] && filter=$vendor
  # a deliberately refused launch (test_a_failed_launch_raises) is an API error by design
  # shellcheck disable=SC2086  # the file and option lists split on purpose
  timeout -k 10 "$secs" compute-sanitizer --tool "$tool" $filter --log-file "$work/$name.san" \
    python3 -m pytest $files -q -p no:cacheprovider -p no:xdist --color=no \
    -k "not failed_launch" >"$work/$name.log" 2>&1 &
done
wait
{
  for name in $(printf '%s\n' "${!groups[@]}" | sort); do
    echo "== $name: ${groups[$name]}"
    echo "pytest: $(tail -1 "$work/$name.log")"
    echo "sanitizer: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$work/$name.san" 2>/dev/null | tr '\n' ' ')"
    grep -v '^========= COMPUTE-SANITIZER$' "$work/$name.san" 2>/dev/null | grep -v 'SUMMARY' | head -40
  done
} >"$out/sanitize.txt"
cat "$out/sanitize.txt" | grep -E '^(==|pytest|sanitizer)'
