"""The ternary kernels (where, clip) compiled to PTX by NVRTC, which needs no GPU. The
manipulation ops on cuda against NumPy are in ``tests/gpu/test_manipulation.py``."""

from __future__ import annotations

import pytest

from ruda._backends.gpu import select_kernels
from ruda._kernels import ir
from ruda._kernels.render import cuda, nvrtc

pytestmark = pytest.mark.devices("cuda")


def test_ternary_kernels_compile_to_ptx() -> None:
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12): CUDA not compiled")
    ks = []
    for t in ir.ALL_TYPES:
        for nd in (None, 1, 3):
            ks.append(select_kernels.build("where", (ir.BOOL, t, t), t, t, nd))
            ks.append(select_kernels.build("where", (ir.F16, t, ir.I8), t, t, nd))
            if t is not ir.BOOL:
                ks.append(select_kernels.build("clip", (t, t, ir.F64), ir.F64, t, nd))
                ks.append(select_kernels.build("clip_lo", (t, t), t, t, nd))
                ks.append(select_kernels.build("clip_hi", (t, ir.U8), t, t, nd))
    nvrtc.compile(cuda.render_many(ks), options=(*nvrtc.DEFAULT_OPTIONS, "-w", "-G"))
