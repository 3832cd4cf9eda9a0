"""The autotuner's runner on a WebGPU device: ``WgpuRunner.prepare(plan, inputs, out)`` compiles
a candidate's launches (through this backend's shader modules), uploads its inputs once, and
returns a ``WgpuCandidate`` whose ``output()`` runs it once and reads the result back and whose
``time(reps)`` gives seconds per run. The context hands it to the tuner (``tune_runner``); the
timers and clocks it uses are the tuner's (``ruda._kernels.tune.timing``).
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from ..._kernels import ir
from ..._kernels.render import wgsl
from ..._kernels.tune.timing import HOST, TIMESTAMP, compile_threads, timestamp_period
from ..._kernels.tune.warmth import Warmth

__all__ = ["MAX_PIPELINES", "WgpuCandidate", "WgpuRunner", "compile_threads", "timestamp_period"]


MAX_PIPELINES = 512  # compiled candidates a runner keeps between searches


class WgpuRunner:
    """Runs kernel plans (``reduce.Plan``: launches over named arrays) on a wgpu ``GPUDevice``.

    Timing uses timestamp queries when the device was created with ``timestamp-query`` (and
    ``host_clock`` is False), else the host clock around a submit and a read-back. On a
    discrete GPU its ``warmth`` keeps copies queued through compiles and ahead of every timing:
    the H200 through Vulkan idles its clocks within a second and times an idle card 2.5-5x slow
    (``warmth``'s docstring).
    """

    def __init__(self, device: Any, host_clock: bool = False) -> None:
        import wgpu

        self.wgpu, self.device = wgpu, device
        self.features = frozenset(str(f) for f in device.features)
        self.clock = TIMESTAMP if TIMESTAMP in self.features and not host_clock else HOST
        self.period_s = timestamp_period(device) * 1e-9
        self._pipelines: dict[ir.Kernel, Any] = {}  # a pipeline, or its compile's Future
        self._pool: ThreadPoolExecutor | None = None
        self.prefetch_depth = compile_threads()  # compiles in flight ahead of the search
        use = wgpu.BufferUsage
        self.usage = use.STORAGE | use.COPY_SRC | use.COPY_DST  # every buffer of a candidate
        self._uploads: dict[int, tuple[np.ndarray, Any]] = {}
        adapter = getattr(device, "adapter", None)
        info = getattr(adapter, "info", None) or {}
        # other adapters (lavapipe, integrated GPUs) start at full speed
        self.warmth = Warmth(device, info.get("adapter_type") == "DiscreteGPU")

    def _compile(self, k: ir.Kernel, source: str) -> Any:
        from . import shader

        module = shader.module(self.device, k.name, source)
        return self.device.create_compute_pipeline(
            label=k.name, layout="auto", compute={"module": module, "entry_point": k.name}
        )

    def pipeline(self, k: ir.Kernel) -> Any:
        p = self._pipelines.get(k)
        if p is None or isinstance(p, Future):
            # the device copies while the host compiles (or waits for a compile)
            t0 = self.warmth.cover() if p is None or not p.done() else None
            try:
                p = p.result() if p is not None else self._compile(k, wgsl.render(k))
            except BaseException:
                self._pipelines.pop(k, None)  # not kept: asked again, it compiles again
                raise
            finally:
                if t0 is not None:
                    self.warmth.compiled(t0)
            self._pipelines[k] = p
        return p

    def prefetch(self, plan: Any) -> None:
        """Compile ``plan``'s kernels in the background (the tuner hands in the next
        candidates while it times this one; wgpu-native's calls release the GIL): a search on
        the H200 spent most of its time compiling, one pipeline at a time."""
        for launch in plan.launches:
            k = launch.kernel
            if k not in self._pipelines:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self.prefetch_depth, "ruda-compile")
                # rendered here: ruda's renderer and its memos stay on one thread
                self._pipelines[k] = self._pool.submit(self._compile, k, wgsl.render(k))

    def buffer(self, data: bytes) -> Any:
        data = data + b"\0" * (-len(data) % 4 or (4 if not data else 0))
        return self.device.create_buffer_with_data(data=data, usage=self.usage)

    def zeros(self, nbytes: int) -> Any:
        """A zeroed storage buffer (WebGPU zeroes new buffers: no host bytes to upload)."""
        return self.device.create_buffer(size=max(4, -(-nbytes // 4) * 4), usage=self.usage)

    def end_search(self) -> None:
        """The tuner's search is over: drop its uploads and the compiles it asked for and did
        not use (compiled pipelines stay, up to ``MAX_PIPELINES``: the next key of the family
        reuses many)."""
        self._uploads.clear()
        for k, p in list(self._pipelines.items()):
            if isinstance(p, Future) and not p.done():
                p.cancel()  # one already compiling finishes on its thread, unused
                del self._pipelines[k]
        if len(self._pipelines) > MAX_PIPELINES:
            self._pipelines.clear()

    def upload(self, a: np.ndarray) -> Any:
        """A device copy of ``a``, made once per array object until the search ends."""
        hit = self._uploads.get(id(a))
        if hit is None or hit[0] is not a:
            hit = self._uploads[id(a)] = (a, self.buffer(np.ascontiguousarray(a).tobytes()))
        return hit[1]

    def prepare(self, plan: Any, inputs: dict[str, np.ndarray],
                out: tuple[Any, int]) -> WgpuCandidate:  # fmt: skip
        """Compile ``plan``'s kernels and bind its buffers; ``out`` is (dtype, element count)."""
        return WgpuCandidate(self, plan, inputs, out)


def _uniform(launch: Any) -> bytes:
    """A launch's parameters as its uniform block (float params: the launcher's own layout)."""
    k = launch.kernel
    if all(p.type in (ir.U32, ir.I32) for p in k.params):
        return np.array(launch.params, np.int64).astype(np.uint32).tobytes()
    from .compiler import param_struct

    return param_struct(k.params)[0].pack(*launch.params)


class WgpuCandidate:
    """One plan bound to its buffers: every run is one compute pass after clearing the temps."""

    def __init__(self, runner: WgpuRunner, plan: Any, inputs: dict[str, np.ndarray],
                 out: tuple[Any, int]) -> None:  # fmt: skip
        self.runner = r = runner
        self.plan = plan
        self.out_dtype, self.out_count = np.dtype(out[0]), int(out[1])
        bufs = {n: r.upload(a) for n, a in inputs.items()}
        self.temps = []
        for n, (t, count) in plan.temps.items():
            bufs[n] = r.zeros(count * t.itemsize)
            if n not in plan.written:
                self.temps.append(bufs[n])
        self.out = bufs["out"] = r.zeros(self.out_count * self.out_dtype.itemsize)
        self.steps = []
        for launch in plan.launches:
            pipe = r.pipeline(launch.kernel)
            entries = [{"binding": i, "resource": {"buffer": bufs[n], "offset": 0,
                        "size": bufs[n].size}} for i, n in enumerate(launch.buffers)]  # fmt: skip
            if launch.params:
                raw = _uniform(launch)
                uni = r.device.create_buffer_with_data(
                    data=raw + b"\0" * (-len(raw) % 16), usage=r.wgpu.BufferUsage.UNIFORM
                )
                entries.append(
                    {
                        "binding": len(launch.buffers),
                        "resource": {"buffer": uni, "offset": 0, "size": uni.size},
                    }
                )
            group = r.device.create_bind_group(layout=pipe.get_bind_group_layout(0),
                                               entries=entries)  # fmt: skip
            self.steps.append((pipe, group, launch.grid))

    def _encode(self, enc: Any, writes: dict[str, Any] | None) -> None:
        for t in self.temps:  # scratch starts zeroed on every run (scan look-back counters)
            enc.clear_buffer(t)
        cp = enc.begin_compute_pass(timestamp_writes=writes) if writes else enc.begin_compute_pass()
        for pipe, group, grid in self.steps:
            cp.set_pipeline(pipe)
            cp.set_bind_group(0, group)
            cp.dispatch_workgroups(*grid)
        cp.end()

    def output(self) -> np.ndarray:
        """Run once and read the result back (the first call is the warm-up)."""
        dev = self.runner.device
        enc = dev.create_command_encoder()
        self._encode(enc, None)
        dev.queue.submit([enc.finish()])
        data = dev.queue.read_buffer(self.out)
        self.runner.warmth.idle_from_now()
        return np.frombuffer(data, self.out_dtype)[: self.out_count].copy()

    def time(self, reps: int) -> list[float]:
        """Seconds per run for ``reps`` runs (timestamp queries, else host clock)."""
        r, dev = self.runner, self.runner.device
        queued = r.warmth.before()  # copies in front of the timed runs: no idle gap before them
        if r.clock == HOST:
            if queued:  # the host clock would count them: let them finish first
                dev.queue.read_buffer(self.out, 0, 4)
            out = []
            for _ in range(reps):
                t = time.perf_counter()
                enc = dev.create_command_encoder()
                self._encode(enc, None)
                dev.queue.submit([enc.finish()])
                dev.queue.read_buffer(self.out, 0, 4)  # waits for the work before it
                out.append(time.perf_counter() - t)
            r.warmth.idle_from_now()
            return out
        qs = dev.create_query_set(type="timestamp", count=2 * reps)
        res = dev.create_buffer(size=16 * reps, usage=r.wgpu.BufferUsage.QUERY_RESOLVE
                                | r.wgpu.BufferUsage.COPY_SRC)  # fmt: skip
        enc = dev.create_command_encoder()
        for i in range(reps):
            self._encode(enc, {"query_set": qs, "beginning_of_pass_write_index": 2 * i,
                               "end_of_pass_write_index": 2 * i + 1})  # fmt: skip
        enc.resolve_query_set(qs, 0, 2 * reps, res, 0)
        dev.queue.submit([enc.finish()])
        ticks = np.frombuffer(dev.queue.read_buffer(res), np.uint64).astype(np.int64)
        r.warmth.idle_from_now()
        qs.destroy()
        return [max(0, int(d)) * r.period_s for d in ticks[1::2] - ticks[0::2]]
