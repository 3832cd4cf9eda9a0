#!/usr/bin/env bash
# One program, every device, on the GPU machine: the demo (cpu, cuda, wgpu through Vulkan), the
# device-parity tests on "cuda" and on "wgpu" at the same time, and what the floating-point
# status words cost (benchmarks/fpstatus_cost.py). Logs in OUT:
#   source .gpu-kit/setup.sh && bash scripts/build_ext.sh && bash scripts/gpu_devices.sh OUT [SECONDS]
# SECONDS bounds each parity run (default 360).
set -uo pipefail
out=${1:-.}
limit=${2:-360}
tests=(tests/test_runtime.py tests/test_errstate.py tests/test_complex_order.py
  tests/test_object_arrays.py tests/test_readonly.py tests/test_out_of_memory.py
  tests/test_linalg_errors.py tests/test_int_power_errors.py tests/test_devices.py
  tests/test_scalar_promotion.py tests/test_indexing.py tests/test_array_object.py
  tests/interop/test_sklearn_lda.py tests/interop/test_scipy.py)
timeout 120 python3 -m ruda demo >"$out/demo.log" 2>&1
echo "demo rc=$?: $(tail -1 "$out/demo.log")"
parity() {  # parity KIND WORKERS [MORE PATHS]
  local kind=$1 n=$2
  shift 2
  RUDA_TEST_DEVICES=$kind timeout -s INT "$limit" python3 -m pytest "${tests[@]}" "$@" -n "$n" \
    -q -p no:cacheprovider --color=no -rfE >"$out/parity_$kind.log" 2>&1
  echo "$kind rc=$?: $(tail -1 "$out/parity_$kind.log")"
}
parity cuda 8 tests/cuda/test_streams.py tests/cuda/test_runtime.py tests/gpu/test_runtime.py \
  tests/test_cuda_fast.py &
parity wgpu 6 &
wait
for kind in cuda wgpu; do
  timeout 120 python3 benchmarks/fpstatus_cost.py --device "$kind" --rounds 3 >>"$out/fpstatus.log" 2>&1
done
cat "$out/fpstatus.log"
