#!/usr/bin/env bash
# Everything GPU-side in one command on the two-GPU machine (nvidia-h200-x2), about 9 minutes:
#   source .gpu-kit/setup.sh && bash scripts/build_ext.sh && bash scripts/gpu_all.sh OUTDIR
# GPU 0: the suite on "cuda" (scripts/gpu_suite.sh), the kernel tests on the Vulkan adapter, the
# conformance suite on cuda, then the cuda half of the tuning sweep. GPU 1: the conformance suite
# on wgpu (the H200 through Vulkan), then the scikit-learn interop benchmark. Needs
# conformance/.suite carried along (python conformance/run.py clones it here first).
set -uo pipefail
out=${1:-.}
examples=${CONFORMANCE_EXAMPLES:-100}
conf() {  # conf KIND SECONDS
  timeout "$2" python3 conformance/run.py --device "$1" --max-examples "$examples" -n 14 \
    >"$out/conf_$1.log" 2>&1
  cp "conformance/reports/$1.json" "$out/conf_$1.json" 2>/dev/null
  echo "conformance $1: $(tail -1 "$out/conf_$1.log")"
}
(
  bash scripts/gpu_suite.sh "$out" 0 14 200
  CUDA_VISIBLE_DEVICES=0 timeout 80 python3 -m pytest tests/kernels -q \
    -p no:cacheprovider -n 8 -rf >"$out/kernels_vulkan.log" 2>&1
  echo "kernels on Vulkan: $(tail -1 "$out/kernels_vulkan.log")"
  CUDA_VISIBLE_DEVICES=0 conf cuda 120
  CUDA_VISIBLE_DEVICES=0 timeout "${SWEEP_SECONDS:-120}" python3 benchmarks/tune_sweep.py \
    --backend cuda --only matmul --budget 5 --max-seconds $((${SWEEP_SECONDS:-120} - 20)) \
    --shapes "${SWEEP_SHAPES:-1x4096x4096,16x4096x11008,4096x4096x128,8192x1024x8192,4096x4096x4096}" \
    --json "$out/tune_sweep_cuda.json" >"$out/tune_sweep_cuda.log" 2>&1
  echo "sweep cuda: $(tail -3 "$out/tune_sweep_cuda.log")"
) &
(
  conf wgpu 330
  CUDA_VISIBLE_DEVICES=1 timeout 170 python3 benchmarks/interop_bench.py \
    --repeats 3 --json "$out/interop.json" >"$out/interop.log" 2>&1
  echo "interop:"; cat "$out/interop.log"
) &
wait
