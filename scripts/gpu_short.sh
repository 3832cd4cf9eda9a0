#!/usr/bin/env bash
# A short GPU pass (about 2.5 minutes of commands) on the two-GPU machine (nvidia-h200-x2),
# for a session with little device time left:
#   source .gpu-kit/setup.sh && bash scripts/build_ext.sh && bash scripts/gpu_short.sh OUTDIR
# GPU 0: the setitem tests on cuda, then the cuda matmul tuning sweep over the LLM shapes
# (issue 5). GPU 1: the scikit-learn interop benchmark (issue 6), then a cProfile of it with
# CuPy and ruda-cuda under CUDA_LAUNCH_BLOCKING=1 (device time charged to the launching
# function), then the cooperative-matrix probe (benchmarks/wgpu_coop_probe.py). Also the Vulkan
# adapters' features.
set -uo pipefail
out=${1:-.}
export RUDA_CUDA=experimental RUDA_WGPU=experimental
python3 - >"$out/coop_probe.txt" 2>&1 <<'PY'
import wgpu
for a in wgpu.gpu.enumerate_adapters_sync():
    print(a.info.get("device"), "|", a.info.get("backend_type"), "|", sorted(a.features))
PY
(
  # the setitem tests on cuda (its plain-copy path runs only there)
  CUDA_VISIBLE_DEVICES=0 RUDA_TEST_DEVICES=cuda timeout 30 python3 -m pytest -q -p no:cacheprovider \
    -n 8 tests/cuda/test_indexing.py tests/cuda/test_runtime.py -k "setitem or assign or copies" \
    >"$out/cuda_setitem.log" 2>&1
  echo "cuda setitem tests: $(tail -1 "$out/cuda_setitem.log")"
  CUDA_VISIBLE_DEVICES=0 timeout "${SWEEP_SECONDS:-90}" python3 benchmarks/tune_sweep.py \
    --backend cuda --only matmul --budget 4 --max-seconds $((${SWEEP_SECONDS:-90} - 15)) \
    --shapes "${SWEEP_SHAPES:-1x4096x4096,16x4096x11008,4096x4096x128,8192x1024x8192}" \
    --json "$out/tune_sweep_cuda.json" >"$out/tune_sweep_cuda.log" 2>&1
  echo "sweep cuda: $(tail -3 "$out/tune_sweep_cuda.log")"
) &
(
  # wgpu:1 is the second H200 where Vulkan lists the GPUs in CUDA's order (coop_probe.txt lists them)
  w=${WGPU_DEV:-wgpu:1}
  CUDA_VISIBLE_DEVICES=1 RUDA_TEST_DEVICES="cuda,$w" timeout 80 python3 \
    benchmarks/interop_bench.py --repeats 2 --only "numpy,cupy,ruda-cuda,ruda-$w" \
    --json "$out/interop.json" >"$out/interop.log" 2>&1
  echo "interop:"; cat "$out/interop.log"
  CUDA_VISIBLE_DEVICES=1 RUDA_TEST_DEVICES=cuda CUDA_LAUNCH_BLOCKING=1 timeout 25 python3 benchmarks/interop_bench.py \
    --repeats 1 --only cupy,ruda-cuda --profile "$out/profile.txt" >>"$out/interop.log" 2>&1
  timeout 20 python3 benchmarks/wgpu_coop_probe.py >>"$out/coop_probe.txt" 2>&1
) &
wait
