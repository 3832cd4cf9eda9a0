"""A small ctypes binding to NVRTC: CUDA C++ source -> PTX, with no GPU and no CUDA toolkit.

The library comes from the ``nvidia-cuda-nvrtc-cu12`` wheel (``site-packages/nvidia/cuda_nvrtc``),
``$RUDA_NVRTC`` (a path), CuPy's CUDA installation, or the system (``ldconfig``, ``$CUDA_PATH``).

    >>> from ruda._kernels.render import nvrtc
    >>> src = 'extern "C" __global__ void k(float* x) { x[0] = 1.0f; }'
    >>> ptx = nvrtc.compile(src)  # doctest: +SKIP
    >>> ".entry k" in ptx  # doctest: +SKIP
    True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import sys
from functools import cache

__all__ = ["NVRTCError", "available", "compile", "find_library", "version"]

DEFAULT_OPTIONS = ("--gpu-architecture=compute_90", "-default-device", "--std=c++17")


class NVRTCError(RuntimeError):
    """A compile failure; the message holds NVRTC's log (and the caller may add the source)."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


def _candidates() -> list[str]:
    out: list[str] = []
    if os.environ.get("RUDA_NVRTC"):
        out.append(os.environ["RUDA_NVRTC"])
    for base in sys.path:
        for sub in ("nvidia/cuda_nvrtc/lib", "nvidia/cu13/lib", "nvidia/cuda_nvrtc/bin"):
            d = os.path.join(base or ".", sub)
            out += sorted(glob.glob(os.path.join(d, "libnvrtc.so*")), reverse=True)
            out += sorted(glob.glob(os.path.join(d, "nvrtc64_*.dll")), reverse=True)
    try:  # CuPy knows where its CUDA lives
        import cupy  # noqa: F401
        from cupy.cuda import get_cuda_path

        path = get_cuda_path()
        if path:
            out += sorted(glob.glob(os.path.join(path, "lib*", "libnvrtc.so*")), reverse=True)
    except Exception:
        pass
    for env in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(env):
            out += sorted(glob.glob(os.path.join(os.environ[env], "lib*", "libnvrtc.so*")))
    found = ctypes.util.find_library("nvrtc")
    if found:
        out.append(found)
    return [p for p in out if "builtins" not in os.path.basename(p)]


@cache
def find_library() -> ctypes.CDLL | None:
    """The loaded NVRTC library, or None when there is none."""
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        _declare(lib)
        return lib
    return None


def _declare(lib: ctypes.CDLL) -> None:
    p, c, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    lib.nvrtcCreateProgram.argtypes = [ctypes.POINTER(p), c, c, i, ctypes.POINTER(c),
                                       ctypes.POINTER(c)]  # fmt: skip
    lib.nvrtcCompileProgram.argtypes = [p, i, ctypes.POINTER(c)]
    lib.nvrtcGetPTXSize.argtypes = [p, ctypes.POINTER(ctypes.c_size_t)]
    lib.nvrtcGetPTX.argtypes = [p, c]
    lib.nvrtcGetProgramLogSize.argtypes = [p, ctypes.POINTER(ctypes.c_size_t)]
    lib.nvrtcGetProgramLog.argtypes = [p, c]
    lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(p)]
    lib.nvrtcGetErrorString.restype = c
    lib.nvrtcVersion.argtypes = [ctypes.POINTER(i), ctypes.POINTER(i)]


def available() -> bool:
    return find_library() is not None


def version() -> tuple[int, int]:
    lib = _lib()
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


def _lib() -> ctypes.CDLL:
    lib = find_library()
    if lib is None:
        raise NVRTCError(
            "ruda: NVRTC not found (pip install nvidia-cuda-nvrtc-cu12, or set RUDA_NVRTC)"
        )
    return lib


def _check(lib: ctypes.CDLL, status: int, what: str) -> None:
    if status != 0:
        raise NVRTCError(f"NVRTC {what}: {lib.nvrtcGetErrorString(status).decode()}")


def compile(source: str, name: str = "ruda.cu", options: tuple[str, ...] = DEFAULT_OPTIONS) -> str:
    """PTX for ``source``; raises ``NVRTCError`` with NVRTC's log on a compile error."""
    lib = _lib()
    prog = ctypes.c_void_p()
    _check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(),
                                       0, None, None), "create")  # fmt: skip
    try:
        opts = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
        status = lib.nvrtcCompileProgram(prog, len(options), opts)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, buf)
        log = buf.value.decode(errors="replace")
        if status != 0:
            msg = lib.nvrtcGetErrorString(status).decode()
            raise NVRTCError(f"NVRTC compile failed ({msg}):\n{log}", log)
        lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
        ptx = ctypes.create_string_buffer(size.value)
        _check(lib, lib.nvrtcGetPTX(prog, ptx), "get PTX")
        return ptx.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
