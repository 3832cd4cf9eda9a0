"""Kernel IR -> CUDA C++ -> cubin (NVRTC) -> loaded function, cached in memory and on disk.

In memory: by kernel object, then by source, per device. On disk: one file per compiled module
under ``$RUDA_CACHE_DIR/cuda`` (default ``~/.cache/ruda/cuda``), named by a hash of everything
that changes the binary (source, NVRTC options, target arch, NVRTC version, ruda version).
Each file carries a digest of its payload: a corrupt or truncated entry is recompiled and
rewritten, never loaded. A hit reads the file and loads the cubin with
``cupy.cuda.function.Module.load`` (cuModuleLoadData), without loading NVRTC at all: the NVRTC
version in the key comes from a stamp file written by the last process that compiled.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..._kernels import ir
from ..._kernels.math.fpstatus import has_status
from ..._kernels.render import cuda as cuda_renderer
from ..._version import __version__
from .. import base
from .fpstatus import cuda_status

# --fmad=false: no contraction of a*b+c into fma, so results round as NumPy's do.
OPTIONS = ("-default-device", "--std=c++17", "--fmad=false")
_MAGIC = b"RUDACU1\n"
_DIGEST = 32
FORMAT = "1"  # bump when the file layout or the key's recipe changes


# -- NVRTC (through CuPy's binding) ----------------------------------------------------------
class CompileError(RuntimeError):
    """NVRTC rejected a rendered kernel; the message holds the log and the source."""


def _nvrtc() -> Any:
    from cupy_backends.cuda.libs import nvrtc

    return nvrtc


def nvrtc_compile(source: str, arch: str, name: str = "ruda.cu") -> tuple[str, bytes]:
    """``("cubin", bytes)`` for ``sm_<arch>``, or ``("ptx", bytes)`` for the newest virtual
    arch NVRTC knows when it predates the device (the driver then JIT-compiles the PTX)."""
    nv = _nvrtc()
    archs = [int(a) for a in nv.getSupportedArchs()]
    want = int(arch)
    if want in archs:
        kind, opts = "cubin", (f"--gpu-architecture=sm_{arch}", *OPTIONS)
    else:
        best = max([a for a in archs if a <= want] or archs)
        kind, opts = "ptx", (f"--gpu-architecture=compute_{best}", *OPTIONS)
    prog = nv.createProgram(source, name, (), ())
    try:
        try:
            nv.compileProgram(prog, opts)
        except nv.NVRTCError as e:
            log = nv.getProgramLog(prog)
            raise CompileError(f"NVRTC failed ({e}):\n{log}\n--- source ---\n{source}") from None
        data = nv.getCUBIN(prog) if kind == "cubin" else nv.getPTX(prog)
    finally:
        nv.destroyProgram(prog)
    return kind, data if isinstance(data, bytes) else data.encode()


# -- the on-disk cache ----------------------------------------------------------------------
def cache_dir() -> Path:
    """``$RUDA_CACHE_DIR/cuda`` (read on every miss, so tests can point it elsewhere)."""
    root = os.environ.get("RUDA_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                             "ruda")  # fmt: skip
    return Path(root) / "cuda"


def _toolchain_id() -> str:
    """What decides which NVRTC CuPy loads: CuPy's version and CUDA, and the search paths."""
    import cupy

    env = tuple(os.environ.get(k, "") for k in ("CUDA_PATH", "CUDA_HOME", "LD_LIBRARY_PATH"))
    rt = cupy.cuda.runtime.runtimeGetVersion()
    raw = repr((cupy.__version__, rt, env, sys.prefix)).encode()
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


_NVRTC_VERSION: list[tuple[int, int]] = []


def nvrtc_version(refresh: bool = False) -> tuple[int, int]:
    """NVRTC's (major, minor): from the stamp file when there is one (loading NVRTC costs
    ~10 ms), else asked of NVRTC and stamped. ``refresh`` asks NVRTC and corrects the stamp."""
    if _NVRTC_VERSION and not refresh:
        return _NVRTC_VERSION[0]
    stamp = cache_dir() / f"nvrtc-{_toolchain_id()}.txt"
    version = None
    if not refresh:
        try:
            major, minor = stamp.read_text().split(".")
            version = (int(major), int(minor))
        except (OSError, ValueError):
            version = None
    if version is None:
        major, minor = _nvrtc().getVersion()
        version = (int(major), int(minor))
        text = f"{major}.{minor}"
        try:
            stale = stamp.read_text() != text
        except OSError:
            stale = True
        if stale:
            _write_atomic(stamp, text.encode())
    _NVRTC_VERSION[:] = [version]
    return version


def cache_key(source: str, arch: str, version: tuple[int, int]) -> str:
    parts = (FORMAT, source, OPTIONS, arch, version, __version__)
    return hashlib.blake2b(repr(parts).encode(), digest_size=20).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file and a rename (readers never see half)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only or full cache directory only costs recompiles


def pack_entry(kind: str, payload: bytes) -> bytes:
    body = kind.encode()[:1] + payload
    return _MAGIC + hashlib.blake2b(body, digest_size=_DIGEST).digest() + body


def unpack_entry(data: bytes) -> tuple[str, bytes] | None:
    """``(kind, payload)`` of a cache file's bytes, or None when they are not intact."""
    head = len(_MAGIC) + _DIGEST
    if len(data) <= head or not data.startswith(_MAGIC):
        return None
    body = data[head:]
    if hashlib.blake2b(body, digest_size=_DIGEST).digest() != data[len(_MAGIC) : head]:
        return None
    kind = {b"c": "cubin", b"p": "ptx"}.get(body[:1])
    return None if kind is None else (kind, body[1:])


def read_entry(path: Path) -> tuple[str, bytes] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return unpack_entry(data)


# -- programs -----------------------------------------------------------------------------------
_CODES = {"b": {1: "?"}, "i": {1: "b", 2: "h", 4: "i", 8: "q"},
          "u": {1: "B", 2: "H", 4: "I", 8: "Q"}, "f": {2: "e", 4: "f", 8: "d"}}  # fmt: skip


def _slot(npdt: Any) -> str:
    """The ``struct`` code of one scalar argument padded to its 8-byte slot."""
    import numpy as np

    d = np.dtype(npdt)
    if d.kind not in _CODES:  # bfloat16 ("V"): kernels take 16-bit floats' scalars as float32
        raise TypeError(f"ruda kernels: no scalar argument of dtype {d}")
    code = _CODES[d.kind][d.itemsize]
    return code + (f"{8 - d.itemsize}x" if d.itemsize < 8 else "")


class Program:
    """A loaded kernel: its CuPy function, launch shape and the types of its parameters."""

    def __init__(self, kernel: ir.Kernel, source: str, function: Any, module: Any) -> None:
        self.kernel = kernel
        self.name = kernel.name
        self.source = source
        self.function = function
        self.module = module  # keeps the module loaded
        self.block = kernel.workgroup[0] * kernel.workgroup[1] * kernel.workgroup[2]
        self.items_per_thread = int(getattr(kernel, "elems_per_invocation", 1) or 1)
        self.nbuffers = len(kernel.buffers)
        self.fps: Any = None  # the device's status words (fpstatus), set by Compiler.program
        # Each scalar argument is passed as the NumPy scalar of its IR type (exact C type).
        self.params = tuple((p.name, ir.numpy_of(p.type).type) for p in kernel.params)
        # The launcher packs pointers, then scalars, one 8-byte slot each (see launcher.py).
        self.fptr = function.ptr if function is not None else 0
        self.pack = struct.Struct(
            "<" + "Q" * self.nbuffers + "".join(_slot(ir.numpy_of(p.type)) for p in kernel.params)
        ).pack_into

    def __repr__(self) -> str:
        return f"<cuda program {self.name}>"


class Compiler(base.Compiler):
    """Kernel -> Program for one device; nothing is compiled twice, on disk or in memory."""

    prefetches = True  # NVRTC compiles on background threads

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self._by_kernel: dict[int, tuple[ir.Kernel, Program]] = {}
        self._by_source: dict[str, Program] = {}
        self.compiled = 0  # NVRTC compiles (tests check that hits add nothing)
        self.disk_hits = 0
        self.last_seconds = 0.0  # time of the last render + lookup/compile + load
        self._pending: dict[str, Future] = {}  # source -> its NVRTC compile on a thread
        self._pool: ThreadPoolExecutor | None = None

    def program(self, kernel: ir.Kernel) -> Program:
        hit = self._by_kernel.get(id(kernel))
        if hit is not None and hit[0] is kernel:
            return hit[1]
        t = time.perf_counter()
        source = cuda_renderer.render(kernel)
        prog = self._by_source.get(source)
        if prog is None:
            module = self.load_module(source)
            prog = self._by_source[source] = Program(
                kernel, source, module.get_function(cuda_renderer.entry_name(kernel)), module
            )
        if prog.fps is None and has_status(kernel):  # the launcher passes their address last
            prog.fps = cuda_status(self.ctx)
        self._by_kernel[id(kernel)] = (kernel, prog)
        self.last_seconds = time.perf_counter() - t
        return prog

    def prefetch(self, kernel: ir.Kernel, threads: int) -> None:
        """Start compiling ``kernel`` with NVRTC on one of ``threads`` background threads (the
        tuner hands in its next candidates while it times one; NVRTC runs without the GIL);
        ``program`` later takes the result. Already loaded or on disk: nothing to do."""
        source = cuda_renderer.render(kernel)  # here: the renderer's memos stay on one thread
        if source in self._by_source or source in self._pending:
            return
        if self._path(source).exists():  # loaded from there when asked (damaged: compiled)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max(1, threads), "ruda-nvrtc")
        self._pending[source] = self._pool.submit(nvrtc_compile, source, self.ctx.arch)

    def _path(self, source: str, version: tuple[int, int] | None = None) -> Path:
        """``source``'s file in the disk cache (NVRTC's version from the stamp by default)."""
        key = cache_key(source, self.ctx.arch, version or nvrtc_version())
        return cache_dir() / f"{key}.bin"

    def drop_prefetched(self) -> None:
        """Forget compiles that were asked for and not used (queued ones never start)."""
        for fut in self._pending.values():
            fut.cancel()
        self._pending.clear()

    def load_module(self, source: str) -> Any:
        """A loaded ``cupy.cuda.function.Module`` for ``source``: a prefetched compile's, from
        disk, else compiled."""
        from cupy.cuda.function import Module

        arch = self.ctx.arch
        got = None
        fut = self._pending.pop(source, None)
        if fut is not None:
            with contextlib.suppress(Exception):  # failed or cancelled: compiled (and reported)
                got = fut.result()  # below, on this thread
        if got is None:
            entry = read_entry(self._path(source))
            if entry is not None:
                try:
                    module = self._load(Module, entry[1])
                    self.disk_hits += 1
                    return module
                except Exception:
                    pass  # intact but unloadable (e.g. another driver): compile afresh
        kind, payload = got if got is not None else nvrtc_compile(source, arch)
        self.compiled += 1
        version = nvrtc_version(refresh=True)  # NVRTC is loaded now: the stamp may be stale
        _write_atomic(self._path(source, version), pack_entry(kind, payload))
        return self._load(Module, payload)

    def _load(self, module_type: Any, payload: bytes) -> Any:
        module = module_type()
        if self.ctx.multi:
            with self.ctx.device:
                module.load(payload)
        else:
            module.load(payload)
        return module
