#!/usr/bin/env bash
# Issue 4's open points in one pass on one H200 (about 9 minutes):
#   source .gpu-kit/setup.sh && bash scripts/build_ext.sh && bash scripts/gpu_check.sh OUTDIR
# Steps (each with its own time limit; a killed step leaves its log): the add bandwidth with a
# sweep of the contiguous variants and a cProfile of the 1000-op chain (benchmarks/
# cuda_elementwise.py), reductions and cumsum beside CuPy (benchmarks/cuda_reduce.py), the suite
# on "cuda" (scripts/gpu_suite.sh), then compute-sanitizer's memcheck and racecheck over the
# cuda tests (scripts/gpu_sanitize.sh), and the scikit-learn interop benchmark (CuPy beside
# ruda on cuda) with a cProfile of its calls. Skip steps with
# SKIP="bench quick suite sanitize interop".
set -uo pipefail
out=${1:-.}
skip=${SKIP:-}
export CUDA_VISIBLE_DEVICES=${GPU:-0}
want() { [[ " $skip " != *" $1 "* ]]; }

if want bench; then  # SWEEP=1 / SWEEP_EW=1: the scan / add variants too; PROFILE=1: a cProfile of the chain
  ew=(); [ -n "${SWEEP_EW:-}" ] && ew+=(--sweep --reps 20)
  [ -n "${PROFILE:-}" ] && ew+=(--profile "$out/chain_profile.txt")
  [ -n "${BREAKDOWN:-}" ] && ew+=(--breakdown)
  timeout 150 python3 benchmarks/cuda_elementwise.py "${ew[@]}" \
    --json "$out/cuda_elementwise.json" >"$out/bench.log" 2>&1
  timeout 150 python3 benchmarks/cuda_reduce.py ${SWEEP:+--sweep} --json "$out/cuda_reduce.json" \
    >>"$out/bench.log" 2>&1
  echo "bench:"; grep -v "^  {" "$out/bench.log" | head -40
fi
if want quick; then  # the scan and reduction tests alone (QUICK="paths" to change them)
  RUDA_TEST_DEVICES=cuda timeout 120 python3 -m pytest ${QUICK:-tests/gpu/test_reductions.py \
    tests/test_statistical.py} -n 14 -q -p no:cacheprovider --color=no -rf >"$out/quick.log" 2>&1
  echo "quick tests: $(tail -1 "$out/quick.log")"
fi
want suite && bash scripts/gpu_suite.sh "$out" 0 14 "${SUITE_SECONDS:-190}"
want sanitize && bash scripts/gpu_sanitize.sh "$out" "${SANITIZE_SECONDS:-240}"
if want interop; then
  RUDA_TEST_DEVICES=cuda timeout "${INTEROP_SECONDS:-70}" python3 benchmarks/interop_bench.py \
    --repeats 2 --only cupy,ruda-cuda --json "$out/interop.json" >"$out/interop.log" 2>&1
  RUDA_TEST_DEVICES=cuda CUDA_LAUNCH_BLOCKING=1 timeout 30 python3 benchmarks/interop_bench.py \
    --repeats 1 --only cupy,ruda-cuda --profile "$out/profile.txt" >>"$out/interop.log" 2>&1
  echo "interop:"; cat "$out/interop.log"
fi
exit 0
