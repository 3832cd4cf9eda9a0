#!/usr/bin/env bash
# Issue 4's open points in one pass on one H200 (about 9 minutes):
#   source .gpu-kit/setup.sh && bash scripts/build_ext.sh && bash scripts/gpu_check.sh OUTDIR
# Steps (each with its own time limit; a killed step leaves its log): the add bandwidth with a
# sweep of the contiguous variants and a cProfile of the 1000-op chain (benchmarks/
# cuda_elementwise.py), reductions and cumsum beside CuPy (benchmarks/cuda_reduce.py), the suite
# on "cuda" (scripts/gpu_suite.sh), then compute-sanitizer's memcheck over tests/cuda and its
# racecheck over the shared-memory kernels' tests, each array in its own cudaMalloc
# (RUDA_CUDA_POOL=off) so an overrun cannot land in a pool neighbour unseen, and the
# scikit-learn interop benchmark (CuPy beside ruda on cuda) with a cProfile of its calls. Skip
# steps with SKIP="bench quick suite memcheck racecheck interop".
set -uo pipefail
out=${1:-.}
skip=${SKIP:-}
export RUDA_CUDA=experimental CUDA_VISIBLE_DEVICES=${GPU:-0}
want() { [[ " $skip " != *" $1 "* ]]; }

sanitize() {  # sanitize TOOL SECONDS TESTS...
  local tool=$1 secs=$2
  shift 2
  RUDA_CUDA_POOL=off RUDA_TEST_DEVICES=cuda timeout -k 10 "$secs" compute-sanitizer \
    --tool "$tool" --target-processes all --log-file "$out/$tool.%p.part" \
    python3 -m pytest "$@" -n 12 -q -p no:cacheprovider --color=no --timeout=120 \
    >"$out/$tool.log" 2>&1
  echo "$tool rc=$?: $(tail -1 "$out/$tool.log")"
  cat "$out"/"$tool".*.part >"$out/$tool.sanitizer.txt" 2>/dev/null && rm -f "$out"/"$tool".*.part
  pkill -f "pytest.*-n 12" 2>/dev/null
  echo "  $tool error summaries: $(grep -h 'ERROR SUMMARY' "$out/$tool.sanitizer.txt" | sort | uniq -c | tr '\n' ';')"
}

if want bench; then  # SWEEP=1: the variants too; PROFILE=1: a cProfile of the chain
  ew=(); [ -n "${SWEEP:-}" ] && ew+=(--sweep --reps 20)
  [ -n "${PROFILE:-}" ] && ew+=(--profile "$out/chain_profile.txt")
  timeout 150 python3 benchmarks/cuda_elementwise.py "${ew[@]}" \
    --json "$out/cuda_elementwise.json" >"$out/bench.log" 2>&1
  timeout 150 python3 benchmarks/cuda_reduce.py ${SWEEP:+--sweep} --json "$out/cuda_reduce.json" \
    >>"$out/bench.log" 2>&1
  echo "bench:"; grep -v "^  {" "$out/bench.log" | head -40
fi
if want quick; then  # the scan and reduction tests alone (QUICK="paths" to change them)
  RUDA_TEST_DEVICES=cuda timeout 120 python3 -m pytest ${QUICK:-tests/cuda/test_reductions.py \
    tests/test_statistical.py} -n 14 -q -p no:cacheprovider --color=no -rf >"$out/quick.log" 2>&1
  echo "quick tests: $(tail -1 "$out/quick.log")"
fi
want suite && bash scripts/gpu_suite.sh "$out" 0 14 "${SUITE_SECONDS:-190}"
want memcheck && sanitize memcheck "${MEMCHECK_SECONDS:-140}" tests/cuda
want racecheck && sanitize racecheck "${RACECHECK_SECONDS:-80}" \
  tests/cuda/test_reductions.py tests/cuda/test_sorting.py tests/cuda/test_searching.py
if want interop; then
  RUDA_TEST_DEVICES=cuda timeout "${INTEROP_SECONDS:-70}" python3 benchmarks/interop_bench.py \
    --repeats 2 --only cupy,ruda-cuda --json "$out/interop.json" >"$out/interop.log" 2>&1
  RUDA_TEST_DEVICES=cuda CUDA_LAUNCH_BLOCKING=1 timeout 30 python3 benchmarks/interop_bench.py \
    --repeats 1 --only cupy,ruda-cuda --profile "$out/profile.txt" >>"$out/interop.log" 2>&1
  echo "interop:"; cat "$out/interop.log"
fi
exit 0
