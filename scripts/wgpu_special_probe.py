"""Special values through WGSL on this machine's WebGPU adapter beside NumPy: scalar f64/f32
hypot, maximum, fmax, atan2, copysign, isinf, isnan, signbit, log, and complex log, sign, cos,
cosh, abs at NaN/infinite/zero parts. A quick look at an adapter whose compiler treats NaN,
infinity or signed zero differently from lavapipe (issue 3: NVIDIA's Vulkan driver).

    source .gpu-kit/setup.sh && python3 scripts/wgpu_special_probe.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import wgpu

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from tests.kernels.runner import Runner  # noqa: E402


def main() -> None:
    ad = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    feats = sorted({"shader-f16", "shader-f64", "shader-int64"} & set(ad.features))
    run = Runner(ad.request_device_sync(required_features=feats), frozenset(feats))
    print(ad.summary)
    nan, inf = np.nan, np.inf
    for dt in (np.float64, np.float32):
        a = np.array([nan, inf, nan, -inf, 1.0, 0.0], dt)
        b = np.array([inf, nan, -inf, nan, inf, -0.0], dt)
        for name in ("hypot", "maximum", "fmax", "atan2", "copysign"):
            print(np.dtype(dt).name, name, run.elementwise(name, [a, b], np.dtype(dt)))
        for name in ("isinf", "isnan", "signbit"):
            print(np.dtype(dt).name, name, run.elementwise(name, [a], np.dtype(bool)))
    for dt in (np.complex128, np.complex64):
        z = np.array([complex(nan, inf), complex(inf, nan), complex(nan, -inf), 0j, 0.5 + 0j], dt)
        part = np.dtype(np.float64 if dt == np.complex128 else np.float32)
        for name in ("log", "sign", "cos", "cosh", "abs"):
            with np.errstate(all="ignore"):
                want = getattr(np, "absolute" if name == "abs" else name)(z)
            got = run.elementwise(name, [z], part if name == "abs" else np.dtype(dt))
            print(np.dtype(dt).name, name, got, "NumPy:", want)


if __name__ == "__main__":
    main()
