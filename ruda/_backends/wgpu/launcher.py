"""Dispatches recorded into one command encoder and submitted in batches.

Each launch packs its parameters into a slot of a host-side uniform block and binds the
device uniform buffer at that slot (a dynamic offset, so bind groups are reusable). The
block is written and the encoder submitted together: on ``flush()`` (a host read, an explicit
call), when the batch's dispatches reach its limit (``FIRST_BATCH`` after the host waited, then
doubling up to ``batch_limit``) or ``copy_limit`` buffer copies are waiting, or when the block is
full. Queue writes run in queue order, so one uniform buffer serves every batch.

Element assignments in a Python loop (``a[i, i] = v``, scikit-learn's ``_fill_diagonal``) queue
their words with ``copy_words``: they become one scatter dispatch per (destination, source)
pair, recorded before anything else is recorded, copied or submitted, so every later command
and read sees them in program order.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import wgpu

from .. import base
from ..gpu import kernels

_UNIFORM = wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST
WORD_BATCH = 1 << 16  # queued word copies that make a scatter dispatch at the latest
FIRST_BATCH = 16  # dispatches in the first submit after the host waited (the device is idle)


def _native_pass_calls() -> tuple[Any, Any, Any] | None:
    """wgpu-native's pass-encoder entry points (set_bind_group, dispatch, the offset cell), or
    None where this wgpu-py has no such layer. wgpu-py wraps each native call in a per-call error
    capture, about a microsecond apiece; a pass defers its errors to the encoder's finish, which
    goes through wgpu-py and raises them."""
    try:
        from wgpu.backends.wgpu_native._ffi import ffi, lib

        bind, dispatch = (
            lib.wgpuComputePassEncoderSetBindGroup,
            lib.wgpuComputePassEncoderDispatchWorkgroups,
        )
    except (ImportError, AttributeError):
        return None
    return bind, dispatch, ffi.new("uint32_t[1]")


class Launcher(base.Launcher):
    """Program + bindings + parameters -> a dispatch in the current batch (``launch``, the
    one entry of ``base.Launcher``); copies, word copies and timestamps join the batch in
    recording order beside the dispatches."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        # On the H200's host a submit costs about 50 us (and the encoder's finish 2-3 us per
        # dispatch, whatever the batch). Batches start at FIRST_BATCH after each wait and
        # double up to batch_limit: an idle device gets work early, a long stream few submits.
        self.batch_limit = int(os.environ.get("RUDA_WGPU_BATCH", "256"))
        self.limit = FIRST_BATCH  # this batch's dispatches at most (batch_limit caps it too)
        self.slot = ctx.uniform_align
        self.capacity = max(self.batch_limit, 1) * max(self.slot, 256)
        self.uniform = ctx.device.create_buffer(size=self.capacity, usage=_UNIFORM)
        self.block = bytearray(self.capacity)
        self.used = 0
        self.encoder: Any = None
        self.cpass: Any = None
        self._pipeline: Any = None  # the pipeline set last in the open pass
        self.count = 0  # dispatches in the current batch
        self.copies = 0  # copies in the current batch
        self.copy_limit = 64 * max(self.batch_limit, 1)  # copies are cheap to record; bound a batch
        self.submits = 0  # statistics: batches submitted, dispatches recorded
        self.dispatches = 0
        self.groups: dict[tuple, Any] = {}  # bind groups by (program or plan, buffer uids...)
        self._native = _native_pass_calls()
        self._held: list[Any] = []  # bind groups of the open batch, alive until its submit
        # queued word copies: (destination Block, word) -> (source Block, word); the Blocks
        # stay alive (out of the pool) until their dispatch is recorded
        self._words: dict[tuple[Any, int], tuple[Any, int]] = {}
        self._word_dsts: set[int] = set()  # ids of the Blocks those copies write and read
        self._word_srcs: set[int] = set()

    @property
    def pending(self) -> bool:
        """True while recorded work waits to be submitted."""
        return self.encoder is not None

    # -- recording ----------------------------------------------------------------------
    def launch(self, program: Any, buffers: Any, params: Any, grid: Any) -> None:
        """Queue ``program`` on ``grid`` (workgroups along x and y: ``grid(program, n)`` for
        ``n`` elements, or a plan's). ``buffers``: (buffer, offset, size) bindings in the
        kernel's order (the status words and the uniform block are bound here), or a bind group
        ``bind_group`` made (prepared launches); ``params``: by name (a dict), or the bytes
        ``program.pack`` made of them."""
        if isinstance(buffers, (list, tuple)):
            buffers = self._bind_group(program, buffers)
        data = program.pack(params) if type(params) is dict else params
        if self._words:
            self.emit_words()
        size = len(data)
        count = self.count
        if count >= self.limit or count >= self.batch_limit or self.used + size > self.capacity:
            self.flush()
            self.limit = min(2 * self.limit, self.batch_limit)
        off = self.used
        if size:
            self.block[off : off + size] = data
            self.used = off + -(-size // self.slot) * self.slot
        cpass = self.cpass
        if cpass is None:
            if self.encoder is None:
                self.encoder = self.ctx.device.create_command_encoder()
            cpass = self.cpass = self.encoder.begin_compute_pass()
            self._pipeline = None
        if program.pipeline is not self._pipeline:  # a chain of one op sets it once a pass
            cpass.set_pipeline(program.pipeline)
            self._pipeline = program.pipeline
        native = self._native
        if native is None:
            cpass.set_bind_group(0, buffers, [off] if size else [])
            cpass.dispatch_workgroups(grid[0], grid[1], 1)
        else:  # the same two calls, straight to wgpu-native (the offsets are copied)
            bind, dispatch, cell = native
            self._held.append(buffers)
            cell[0] = off
            handle = cpass._internal
            bind(handle, 0, buffers._internal, 1 if size else 0, cell)
            dispatch(handle, grid[0], grid[1], 1)
        if program.fps is not None:
            program.fps.dirty = True
        self.count += 1
        self.dispatches += 1

    def grid(self, program: Any, n: int) -> tuple[int, int]:
        """Workgroups along x and y for ``n`` elements (y only past the per-dimension cap)."""
        threads = -(-n // program.items_per_thread)
        groups = max(1, -(-threads // program.workgroup))
        cap = self.ctx.max_groups
        if groups <= cap:
            return groups, 1
        gy = -(-groups // cap)
        if gy > cap:
            raise ValueError(f"{n} elements exceed one dispatch on {self.ctx.name}")
        return cap, gy

    def _bind_group(self, program: Any, bindings: list[tuple[Any, int, int]]) -> Any:
        key = (id(program), *((b.uid, o, s) for b, o, s in bindings))
        group = self.groups.get(key)
        return group if group is not None else self.bind_group(program, bindings, key)

    def bind_group(self, program: Any, bindings: list[tuple[Any, int, int]], key: tuple) -> Any:
        """A new bind group of ``bindings`` (buffer, offset, size) and the uniform block for
        ``program``, cached under ``key`` (the buffers' uids in it)."""
        entries = [
            {"binding": k, "resource": {"buffer": b, "offset": o, "size": s}}
            for k, (b, o, s) in enumerate(bindings)
        ]
        if program.fps is not None:  # the status words, after the caller's bindings
            entries.append({"binding": len(entries), "resource": {
                "buffer": program.fps.buffer, "offset": 0, "size": 16}})  # fmt: skip
        if program.param_size:
            entries.append({
                "binding": program.uniform_binding,
                "resource": {"buffer": self.uniform, "offset": 0, "size": program.param_size},
            })  # fmt: skip
        group = self.ctx.device.create_bind_group(layout=program.layout, entries=entries)
        if len(self.groups) > 4096:
            self.groups.clear()
        self.groups[key] = group
        return group

    def waited(self) -> None:
        """The host waited for the device (it is idle): the next batch starts small again."""
        self.limit = FIRST_BATCH

    def forget_bind_groups(self) -> None:
        """Drop cached bind groups (they keep their buffers alive)."""
        self.groups.clear()

    def encoder_for_copy(self) -> Any:
        """The batch's encoder, outside any compute pass, for a copy recorded in order."""
        if self._words:
            self.emit_words()
        if self.cpass is not None:
            self.cpass.end()
            self.cpass = None
        if self.encoder is None:
            self.encoder = self.ctx.device.create_command_encoder()
        self.copies += 1
        return self.encoder

    def timestamp(self, query_set: Any, resolve: Any) -> None:
        """Queue a timestamp (``ruda.wgpu.Event.record``): query 0 of ``query_set`` is written
        at the start of an empty compute pass, in recording order, then resolved into the first
        8 bytes of ``resolve``. On Vulkan the write waits for the commands before it
        (``vkCmdWriteTimestamp`` at the bottom of the pipe)."""
        enc = self.encoder_for_copy()
        enc.begin_compute_pass(timestamp_writes={
            "query_set": query_set, "beginning_of_pass_write_index": 0}).end()  # fmt: skip
        enc.resolve_query_set(query_set, 0, 1, resolve, 0)

    def copy(self, src: Any, src_offset: int, dst: Any, dst_offset: int, size: int) -> None:
        """Queue a buffer-to-buffer copy of ``size`` bytes (multiples of 4) in recording order."""
        if self.copies >= self.copy_limit:
            self.flush()
        self.encoder_for_copy().copy_buffer_to_buffer(src, src_offset, dst, dst_offset, size)

    def copy_words(self, src: Any, src_word: int, dst: Any, dst_word: int, nwords: int) -> None:
        """Queue ``nwords`` u32 words of Block ``src`` from ``src_word`` into Block ``dst`` at
        ``dst_word`` (both bindable whole). A later copy into the same word wins."""
        if id(dst) in self._word_srcs or id(src) in self._word_dsts:
            self.emit_words()  # a Block both read and written in one batch: keep their order
        words = self._words
        for k in range(nwords):
            words[(dst, dst_word + k)] = (src, src_word + k)
        self._word_dsts.add(id(dst))
        self._word_srcs.add(id(src))
        if len(words) >= WORD_BATCH:
            self.emit_words()

    def emit_words(self) -> None:
        """Record the queued word copies: one ``copy_words`` dispatch per (destination, source)
        pair, its (destination word, source word) pairs uploaded once."""
        words, self._words = self._words, {}
        self._word_dsts, self._word_srcs = set(), set()
        groups: dict[tuple[int, int], tuple[Any, Any, list[int]]] = {}
        for (dst, dw), (src, sw) in words.items():
            g = groups.get((id(dst), id(src)))
            if g is None:
                g = groups[(id(dst), id(src))] = (dst, src, [])
            g[2].extend((dw, sw))
        if not groups:
            return
        prog = self.ctx.compiler.program(kernels.copy_words())
        for dst, src, pairs in groups.values():
            idx = self.ctx.allocator.from_host(np.asarray(pairs, np.uint32)).block
            n = len(pairs) // 2
            bindings = [(src.buffer, 0, src.size), (idx.buffer, 0, idx.size),
                        (dst.buffer, 0, dst.size)]  # fmt: skip
            self.launch(prog, bindings, {"n": n}, self.grid(prog, n))

    # -- submitting -----------------------------------------------------------------------
    def flush(self) -> None:
        """Submit everything recorded so far (the uniform block first, in queue order)."""
        if self._words:
            self.emit_words()
        if self.encoder is None:
            return
        encoder, cpass, used = self.encoder, self.cpass, self.used
        # Reset first: an invalid command must not poison every later batch.
        self.encoder, self.cpass, self.used, self.count, self.copies = None, None, 0, 0, 0
        if cpass is not None:
            cpass.end()
        if used:
            self.ctx.queue.write_buffer(self.uniform, 0, memoryview(self.block)[:used])
        try:
            self.ctx.queue.submit([encoder.finish()])
        finally:
            self._held = []
        self.submits += 1

    def synchronize(self) -> None:
        """Submit and wait until the device has finished all of it."""
        # A 4-byte read-back waits for everything before it (on_submitted_work_done_sync is
        # broken in wgpu-py 0.32 with its bundled wgpu-native).
        if getattr(self, "_fence", None) is None:
            self._fence = self.ctx.allocator.alloc(4)
        self.ctx.allocator.read_bytes(self._fence.buffer, 0, 4)
