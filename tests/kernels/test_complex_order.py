"""The kernels of NumPy's complex ordering (``ruda._kernels.math.cmath_order``) outside the
elementwise table: argmax/argmin over complex pairs, searchsorted's binary search, clip (both
bounds and one), and the radix argsort's last passes for complex keys. They render and compile
in both languages: WGSL through naga on the WebGPU adapter here, CUDA C++ to PTX for sm_90
(NVRTC). Their results are checked against NumPy on every device by tests/test_complex_order.py.
"""

from __future__ import annotations

import pytest

from ruda._backends.gpu import select_kernels
from ruda._kernels import argreduce, gather, ir
from ruda._kernels.sort import keys as sort_keys
from ruda._kernels.sort import radix as sort

from . import test_render_compile as rc

wgpu_device = rc.wgpu_device


def _kernels() -> list[ir.Kernel]:
    ks: list[ir.Kernel] = []
    for t in ir.COMPLEX_TYPES:
        for op in argreduce.OPS:
            ks += [argreduce.build(op, t, 256, 256, False, True),
                   argreduce.build(op, t, 256, 1, False, False),
                   argreduce.build(op, t, 256, 32, True, True)]  # fmt: skip
        ks += [gather.search(t, None, False), gather.search(t, ir.I64, True)]
        for kind in ("clip", "clip_lo", "clip_hi"):
            ins = (t,) * select_kernels.ARITY[kind]
            ks += [select_kernels.build(kind, ins, t, t, nd) for nd in (None, 2)]
        w = sort_keys.words(t)
        ks += [sort.build_scatter(w, True, rows, last=("argsort", t)) for rows in (False, True)]
        for rows in (False, True):  # the cuda backend's variant (wg 256, ipt 8, warp scans)
            ks += [sort.build_local(w, True, rows, 256, 8, 8, "subgroup", first, True)
                   for first in (t, None)]  # fmt: skip
            ks.append(sort.build_scatter(w, True, rows, 256, 8, 8))
    return ks


def test_wgsl_compiles(wgpu_device):
    device, feats = wgpu_device
    ks = [k for k in _kernels() if k.features <= feats]  # subgroup scans: tests/wgpu
    if not ks:
        pytest.skip("the adapter lacks shader-f64/int64: no complex kernels")
    errors = [e for k in ks if (e := rc._wgsl_error(device, k))]
    assert not errors, errors[0]


def test_cuda_compiles_to_ptx():
    rc.assert_ptx_compiles(_kernels())
