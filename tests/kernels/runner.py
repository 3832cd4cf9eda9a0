"""A tiny wgpu runner for elementwise kernels: upload NumPy arrays, dispatch, read back.

Self-contained (no ruda runtime): buffers hold NumPy's bytes padded to 4 bytes; the uniform
holds the kernel's 32-bit parameters in order. Kernels are rendered as the runtime renders
them: for the device's features plus what the numerics probe finds and RUDA_WGPU_ASSUME names.
"""

from __future__ import annotations

import numpy as np

from ruda._backends.wgpu import probe
from ruda._kernels import elementwise, ir
from ruda._kernels.render import wgsl


class Runner:
    def __init__(self, device, features=frozenset(), forced=frozenset()) -> None:
        """``features``: enabled on ``device``; ``forced``: pseudo-features to assume on top
        of the probe's and RUDA_WGPU_ASSUME's (the renderer takes their exact routes)."""
        import wgpu

        self.wgpu, self.device, self.pipelines = wgpu, device, {}
        found = _probed(device, frozenset(features)) | probe.assumed() | frozenset(forced)
        self.features = frozenset(features) | found

    def _pipeline(self, k: ir.Kernel):
        if k.name not in self.pipelines:
            module = self.device.create_shader_module(code=wgsl.render(k, self.features))
            self.pipelines[k.name] = self.device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": k.name}
            )
        return self.pipelines[k.name]

    def _buffer(self, data: bytes, usage, fill: bytes = b"\0"):
        data = data + fill * (-len(data) % 4 or (4 if not data else 0))
        return self.device.create_buffer_with_data(data=data, usage=usage)

    def elementwise(self, name: str, inputs: list[np.ndarray], out_dtype, strided: bool = False):
        """Run op ``name`` on same-shape inputs; strided: the output is written reversed-strided."""
        wgpu = self.wgpu
        ins_t = tuple(ir.type_of(a.dtype) for a in inputs)
        out_t = ir.type_of(np.dtype(out_dtype))
        shape = inputs[0].shape
        n = int(np.prod(shape))
        k = elementwise.build(name, ins_t, out_t, len(shape) if strided else None)
        params: list[int] = [n]
        if strided:
            params += list(shape)
            for a in inputs:
                params += [s // a.itemsize for s in a.strides] + [0]
            # output: C-order strides, elements in reverse (negative strides from the end)
            st = [int(np.prod(shape[d + 1 :])) for d in range(len(shape))]
            params += [-s for s in st] + [n - 1]
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
        bufs = [self._buffer(np.ascontiguousarray(a).tobytes(), usage) for a in inputs]
        out = self._buffer(b"\xab" * (n * np.dtype(out_dtype).itemsize), usage, b"\xab")
        raw = np.array(params, np.int64).astype(np.uint32).tobytes()
        uni = self._buffer(raw + b"\0" * (-len(raw) % 16), wgpu.BufferUsage.UNIFORM)
        pipe = self._pipeline(k)
        entries = [{"binding": i, "resource": {"buffer": b, "offset": 0, "size": b.size}}
                   for i, b in enumerate([*bufs, out, uni])]  # fmt: skip
        bg = self.device.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=entries)
        enc = self.device.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(pipe)
        cp.set_bind_group(0, bg)
        inv = -(-n // k.elems_per_invocation)
        cp.dispatch_workgroups(max(1, -(-inv // elementwise.WORKGROUP)))
        cp.end()
        self.device.queue.submit([enc.finish()])
        data = self.device.queue.read_buffer(out)
        r = np.frombuffer(data, out_dtype)[:n]
        tail = bytes(data[n * np.dtype(out_dtype).itemsize :])
        assert set(tail) <= {0xAB}, f"{k.name} wrote past the end: {tail!r}"
        r = r[::-1] if strided else r
        return r.reshape(shape)

    def run_plan(self, plan, arrays: dict[str, np.ndarray], out_dtype, out_count: int):
        """Run a reduce/scan ``Plan`` (launches over named arrays): bind ``arrays`` by name,
        zero-filled temps, and an ``out`` of ``out_count`` elements; all in one submit."""
        wgpu = self.wgpu
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
        bufs = {n: self._buffer(np.ascontiguousarray(a).tobytes(), usage)
                for n, a in arrays.items()}  # fmt: skip
        for n, (t, count) in plan.temps.items():
            bufs[n] = self._buffer(b"\0" * (count * t.itemsize), usage)
        size = out_count * np.dtype(out_dtype).itemsize
        bufs["out"] = self._buffer(b"\xab" * size, usage, b"\xab")
        enc = self.device.create_command_encoder()
        keep = []  # uniforms and bind groups live until the submit
        for launch in plan.launches:
            pipe = self._pipeline(launch.kernel)
            entries = [{"binding": i, "resource": {"buffer": bufs[n], "offset": 0,
                        "size": bufs[n].size}} for i, n in enumerate(launch.buffers)]  # fmt: skip
            if launch.params:
                raw = np.array(launch.params, np.int64).astype(np.uint32).tobytes()
                uni = self._buffer(raw + b"\0" * (-len(raw) % 16), wgpu.BufferUsage.UNIFORM)
                entries.append({"binding": len(launch.buffers),
                                "resource": {"buffer": uni, "offset": 0,
                                             "size": uni.size}})  # fmt: skip
                keep.append(uni)
            bg = self.device.create_bind_group(layout=pipe.get_bind_group_layout(0),
                                               entries=entries)  # fmt: skip
            keep.append(bg)
            cp = enc.begin_compute_pass()
            cp.set_pipeline(pipe)
            cp.set_bind_group(0, bg)
            cp.dispatch_workgroups(*launch.grid)
            cp.end()
        self.device.queue.submit([enc.finish()])
        data = self.device.queue.read_buffer(bufs["out"])
        tail = bytes(data[size:])
        assert set(tail) <= {0xAB}, f"{plan.launches[-1].kernel.name} wrote past the end"
        return np.frombuffer(data, out_dtype)[:out_count].copy()


_PROBED: dict[tuple[int, frozenset[str]], tuple[object, frozenset[str]]] = {}


def _probed(device, features: frozenset[str]) -> frozenset[str]:
    """``probe.probe`` once per device and feature set (the device is kept alive with it)."""
    key = (id(device), features)
    if key not in _PROBED:
        _PROBED[key] = (device, probe.probe(device, features))
    return _PROBED[key][1]


def adapter_or_skip():
    """The default WebGPU adapter, or a skip saying what is missing (wgpu-py, a Vulkan driver)
    or that the run's device list (``RUDA_TEST_DEVICES``, as every test honours) leaves wgpu
    out: a run on "cuda" alone does not test the WGSL renderer on the machine's Vulkan."""
    import os

    import pytest

    chosen = os.environ.get("RUDA_TEST_DEVICES")
    if chosen and "wgpu" not in {d.strip().split(":")[0] for d in chosen.split(",")}:
        pytest.skip(f"RUDA_TEST_DEVICES={chosen} leaves out wgpu")
    wgpu = pytest.importorskip("wgpu", reason="wgpu-py not installed: WGSL not compiled")
    try:
        adapter = wgpu.gpu.request_adapter_sync()
    except Exception as e:  # no Vulkan/Metal/D3D12 driver
        pytest.skip(f"no WebGPU adapter (install mesa-vulkan-drivers): {e}")
    if adapter is None:
        pytest.skip("no WebGPU adapter (install mesa-vulkan-drivers)")
    return adapter
