#!/usr/bin/env bash
# A short GPU pass (2-3 minutes of commands) for a session with little device time left:
#   source .gpu-kit/setup.sh && bash scripts/build_ext.sh && bash scripts/gpu_short.sh OUTDIR
# Steps: the scikit-learn interop benchmark (issue 6), the cuda matmul tuning sweep over the LLM
# shapes (issue 5), the setitem tests on cuda, a list of the Vulkan adapters and their features,
# and a cProfile
# of the interop calls with CuPy and ruda-cuda under CUDA_LAUNCH_BLOCKING=1 (device time charged
# to the launching function). With two GPUs (nvidia-h200-x2) they run in two chains at once;
# with one, one after another in that order (a killed run keeps what the first steps wrote).
set -uo pipefail
out=${1:-.}
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
g1=$((gpus > 1 ? 1 : 0))
w=${WGPU_DEV:-wgpu:$g1}  # Vulkan lists the GPUs in CUDA's order (adapters.txt shows them)

interop() {
  CUDA_VISIBLE_DEVICES=$g1 RUDA_TEST_DEVICES="cuda,$w" timeout 80 python3 \
    benchmarks/interop_bench.py --repeats 2 --only "numpy,cupy,ruda-cuda,ruda-$w" \
    --json "$out/interop.json" >"$out/interop.log" 2>&1
  echo "interop:"; cat "$out/interop.log"
}
sweep() {
  local s=${SWEEP_SECONDS:-90}
  CUDA_VISIBLE_DEVICES=0 timeout "$s" python3 benchmarks/tune_sweep.py \
    --backend cuda --only matmul --budget 4 --max-seconds $((s - 15)) \
    --shapes "${SWEEP_SHAPES:-1x4096x4096,16x4096x11008,4096x4096x128,8192x1024x8192}" \
    --json "$out/tune_sweep_cuda.json" >"$out/tune_sweep_cuda.log" 2>&1
  echo "sweep cuda:"; tail -12 "$out/tune_sweep_cuda.log"
}
setitem_tests() {  # the plain-copy path of setitem runs only on cuda
  CUDA_VISIBLE_DEVICES=0 RUDA_TEST_DEVICES=cuda timeout 30 python3 -m pytest -q \
    -p no:cacheprovider -n 8 tests/gpu/test_indexing.py tests/gpu/test_runtime.py \
    tests/cuda/test_runtime.py \
    -k "setitem or assign or copies" >"$out/cuda_setitem.log" 2>&1
  echo "cuda setitem tests: $(tail -1 "$out/cuda_setitem.log")"
}
adapters() {
  timeout 20 python3 - >"$out/adapters.txt" 2>&1 <<'PY'
import wgpu
for a in wgpu.gpu.enumerate_adapters_sync():
    print(a.info.get("device"), "|", a.info.get("backend_type"), "|", sorted(a.features))
PY
  echo "adapters:"; cat "$out/adapters.txt"
}
profile() {
  CUDA_VISIBLE_DEVICES=$g1 RUDA_TEST_DEVICES=cuda CUDA_LAUNCH_BLOCKING=1 timeout 25 python3 \
    benchmarks/interop_bench.py --repeats 1 --only cupy,ruda-cuda --profile "$out/profile.txt" \
    >>"$out/interop.log" 2>&1
}
if [ "$gpus" -gt 1 ]; then
  (setitem_tests; sweep) &
  (interop; profile; adapters) &
  wait
else
  interop; SWEEP_SECONDS=${SWEEP_SECONDS:-60} sweep; setitem_tests; adapters; profile
fi
