#!/usr/bin/env bash
# compute-sanitizer over the cuda tests: groups of test files, each group's tests split into
# shards that run side by side (one pytest process per shard, no xdist: the sanitizer then
# watches every launch), each array in its own cudaMalloc (RUDA_CUDA_POOL=off) so an overrun
# cannot land unseen in a pool neighbour:
#   source .gpu-kit/setup.sh && bash scripts/build_ext.sh && bash scripts/gpu_sanitize.sh OUTDIR [SECONDS]
# ONLY="memcheck-sort racecheck-sort" runs those groups alone. SANITIZER names the tool's
# command (default compute-sanitizer; a stand-in that drops its options tries the sharding
# without a GPU). Writes OUTDIR/sanitize.txt: per group, each shard's pytest summary, the
# sanitizer's summaries and the first lines of any report.
set -uo pipefail
out=${1:-.}
secs=${2:-240}
sanitizer=${SANITIZER:-compute-sanitizer}
t=tests/cuda g=tests/gpu  # cuda's own tests; the GPU tests (on cuda: RUDA_TEST_DEVICES)
work=$(mktemp -d)
export RUDA_TEST_DEVICES=cuda RUDA_CUDA_POOL=off CUDA_VISIBLE_DEVICES=${GPU:-0}
# the linalg groups ("own") instrument ruda's kernels alone (every generated entry point is
# named ruda_...: _kernels/render/cuda.py ENTRY_PREFIX): cuBLAS, cuSOLVER and cuFFT run as they are;
# their reports are NVIDIA's to read (racecheck flags cuBLAS's syr2k) and instrumenting them
# took the svd and linalg groups past 340 s. Racecheck with the filter stops at a cuBLAS GEMM
# ("Internal Sanitizer Error: failed to handle a hardware exception", f16 and bf16 alike, seen
# on the H200 with 64x96x48 products): the bf16 groups instrument everything
vendor="--kernel-name kns=ruda_"
# group -> "tool kernels shards files...": shards from the times of the fifth session's runs
# (a group that took 150 s alone on a busy machine gets 2; sort racecheck 4; linalg 6)
declare -A groups=(
  [memcheck-reduce]="memcheck all 2 $g/test_reductions.py $g/test_searching.py"
  [memcheck-sort]="memcheck all 2 $g/test_sorting.py $g/test_indexing.py $g/test_indexing_bool0d.py"
  [memcheck-shape]="memcheck all 1 $g/test_manipulation.py $t/test_manipulation.py $g/test_compose_create.py $g/test_compose_diag.py $g/test_compose_stats.py"
  [memcheck-misc]="memcheck all 2 $g/test_random.py $g/test_complex.py $g/test_special_cases.py $t/test_prepared.py $g/test_runtime.py $t/test_runtime.py"
  [memcheck-elementwise]="memcheck all 1 $g/test_elementwise.py $t/test_elementwise_ops.py"
  [memcheck-linalg]="memcheck own 1 $g/test_linalg_products.py $t/test_linalg_products.py $t/test_library.py"
  [memcheck-decomp]="memcheck own 6 $g/test_linalg_decomp.py $g/test_fft.py"
  [racecheck-reduce]="racecheck all 2 $g/test_reductions.py $g/test_searching.py"
  [racecheck-sort]="racecheck all 4 $g/test_sorting.py $g/test_random.py"
  [racecheck-linalg]="racecheck own 6 $g/test_linalg_products.py $t/test_linalg_products.py $g/test_linalg_decomp.py"
  [memcheck-bf16]="memcheck all 2 tests/test_bfloat16.py"
  [racecheck-bf16]="racecheck all 2 tests/test_bfloat16.py"
)
names=$(printf '%s\n' "${!groups[@]}" | sort)
[ -n "${ONLY:-}" ] && names=$(printf '%s\n' $ONLY)
for name in $names; do
  read -r tool which shards files <<<"${groups[$name]}"
  filter=""; [ "$which" = own ] && filter=$vendor
  # the test ids, dealt round-robin into the shards (collection needs no GPU)
  # shellcheck disable=SC2086  # the file list splits on purpose
  python3 -m pytest $files --collect-only -q -p no:cacheprovider -k "not failed_launch" 2>/dev/null \
    | grep '::' | awk -v n="$shards" -v w="$work/$name" '{ print > (w "." (NR % n) ".ids") }'
  for ids in "$work/$name".*.ids; do
    [ -f "$ids" ] || continue
    shard=${ids%.ids}
    mapfile -t tests <"$ids"  # one id per line: ids may hold spaces
    # a deliberately refused launch (test_a_failed_launch_raises) is an API error by design
    # shellcheck disable=SC2086  # the options split on purpose
    timeout -k 10 "$secs" $sanitizer --tool "$tool" $filter --log-file "$shard.san" \
      python3 -m pytest "${tests[@]}" -q -p no:cacheprovider -p no:xdist --color=no \
      >"$shard.log" 2>&1 &
  done
done
wait
{
  for name in $names; do
    echo "== $name: ${groups[$name]}"
    for log in "$work/$name".*.log; do
      [ -f "$log" ] || { echo "  no tests collected"; continue; }
      shard=${log%.log}
      echo "  shard ${shard##*.}: pytest: $(tail -1 "$log" | cut -c1-160)"
      echo "    sanitizer: $(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$shard.san" 2>/dev/null | tr '\n' ' ')"
      grep -v '^========= COMPUTE-SANITIZER$' "$shard.san" 2>/dev/null | grep -v 'SUMMARY' | head -20
    done
  done
} >"$out/sanitize.txt"
grep -E '^(==|  shard|    sanitizer)' "$out/sanitize.txt"
