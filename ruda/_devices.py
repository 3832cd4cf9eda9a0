"""Devices: ``Device("cpu")``, ``Device("cuda:0")``, ``Device("wgpu:0")``; the default device.

One ``Device`` object exists per name, so identity comparison is valid on the hot path.
The default is ``RUDA_DEVICE`` or the innermost ``with ruda.device(...)`` block.
Each device also answers the runtime questions: ``synchronize()``, ``memory_info()``,
``set_memory_limit()`` and ``empty_cache()`` (``RUDA_GPU_MEMORY_LIMIT`` caps every GPU's pool).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ._backends import ALIASES, KINDS  # the registry: every kind, and other names for them


class Device:
    """A device arrays live on, e.g. ``ruda.Device("cpu")``.

    >>> import ruda as np
    >>> np.Device("cpu") == np.asarray([1.0]).device
    True
    """

    __slots__ = ("kind", "index", "_ops", "__weakref__")

    def __new__(cls, name: Any = "cpu", index: int | None = None) -> Device:
        if isinstance(name, Device):
            return name
        kind, idx = _parse(name, index)
        key = (kind, idx)
        dev = _REGISTRY.get(key)
        if dev is None:
            dev = object.__new__(cls)
            dev.kind = kind
            dev.index = idx
            dev._ops = None  # the dispatch row for this kind, bound on first use
            _REGISTRY[key] = dev
        return dev

    def __repr__(self) -> str:
        return f"Device({str(self)!r})"

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"{self.kind}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Device):
            return self is other
        if isinstance(other, str):
            try:
                return Device(other) is self
            except ValueError:
                return False
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.kind, self.index))

    def __reduce__(self):
        return (Device, (str(self),))

    @property
    def backend(self):
        """The backend object serving this device (raises if it is not available)."""
        from ._backends import get_backend

        return get_backend(self)

    # -- the runtime: waiting, memory ---------------------------------------------------
    def synchronize(self) -> None:
        """Wait until all work queued on this device has finished.

        GPU operations return once their work is queued; read a host clock only after
        ``synchronize()``. On cuda this waits for every stream of the device (like
        ``torch.cuda.synchronize()``); on wgpu for everything submitted and recorded; on the
        cpu, whose operations finish before they return, it returns at once.

        >>> import ruda as np
        >>> np.Device("cpu").synchronize()
        """
        if self.kind != "cpu":
            self.backend.ctx.synchronize()

    def memory_info(self) -> MemoryInfo:
        """Bytes free and in all on this device, and what ruda's memory pool holds.

        ``free``/``total``: the device's memory as its driver reports it (cuda), the host's on
        the cpu and on wgpu adapters that run on the CPU (lavapipe); None on other wgpu
        adapters, as WebGPU does not report device memory. ``pool_held``: bytes ruda's pool
        has taken from the device (arrays and cached free blocks); ``pool_in_use``: the part
        live arrays use; ``pool_limit``: the cap (``set_memory_limit``), None for none. The cpu
        has no pool (NumPy allocates): its pool fields are 0 and None.

        >>> import ruda as np
        >>> m = np.Device("cpu").memory_info()
        >>> m.pool_held, m.pool_limit
        (0, None)
        """
        if self.kind == "cpu":
            free, total = host_memory()
            return MemoryInfo(free, total, 0, 0, None)
        return MemoryInfo(*self.backend.ctx.allocator.memory_info())

    def set_memory_limit(self, nbytes: int | None = None, *, fraction: float | None = None) -> None:
        """Cap ruda's memory pool on this GPU at ``nbytes`` (or ``fraction`` of the device's
        memory); with neither, lift the cap.

        An allocation that would take the pool past the cap first releases cached blocks,
        then raises MemoryError naming the cap. ``RUDA_GPU_MEMORY_LIMIT`` (bytes, or a
        percentage such as ``"50%"``) sets it for every GPU device when the device starts.
        On cuda the pool is CuPy's default memory pool, shared with CuPy in the same process
        (this is its ``set_limit``). The cpu has no pool: ValueError.

        >>> import ruda as np
        >>> np.Device("cpu").set_memory_limit(1 << 30)
        Traceback (most recent call last):
        ...
        ValueError: ruda.Device.set_memory_limit: the cpu has no ruda memory pool (NumPy allocates its arrays); the limit applies to cuda and wgpu devices
        """  # noqa: E501
        where = "ruda.Device.set_memory_limit"
        if nbytes is not None and fraction is not None:
            raise ValueError(f"{where}: give nbytes or fraction, not both")
        if self.kind == "cpu":
            raise ValueError(
                f"{where}: the cpu has no ruda memory pool (NumPy allocates its arrays); "
                "the limit applies to cuda and wgpu devices"
            )
        if fraction is not None:
            if isinstance(fraction, bool) or not isinstance(fraction, (int, float)):
                raise TypeError(f"{where}: fraction must be a number, got {fraction!r}")
            if not 0 < fraction <= 1:
                raise ValueError(f"{where}: fraction must be in (0, 1], got {fraction!r}")
            total = self.memory_info().total
            if total is None:
                raise ValueError(
                    f"{where}: {self} does not report its total memory (WebGPU does not); "
                    "give the limit in bytes"
                )
            nbytes = int(total * fraction)
        elif nbytes is not None:
            if isinstance(nbytes, bool) or not isinstance(nbytes, int):
                raise TypeError(f"{where}: nbytes must be an int or None, got {nbytes!r}")
            if nbytes <= 0:
                raise ValueError(
                    f"{where}: nbytes must be a positive number of bytes or None (no limit), "
                    f"got {nbytes}"
                )
        self.backend.ctx.allocator.set_limit(nbytes)

    def empty_cache(self) -> None:
        """Give the free blocks ruda's pool caches on this device back to the driver (arrays
        still alive keep theirs), like ``torch.cuda.empty_cache()``. On the cpu it does nothing.

        >>> import ruda as np
        >>> np.Device("cpu").empty_cache()
        """
        if self.kind != "cpu":
            self.backend.ctx.allocator.empty_cache()


class MemoryInfo(NamedTuple):
    """``Device.memory_info()``: bytes (None where the device does not say)."""

    free: int | None
    total: int | None
    pool_held: int
    pool_in_use: int
    pool_limit: int | None


MEMORY_LIMIT_ENV = "RUDA_GPU_MEMORY_LIMIT"


def env_memory_limit(name: str, total: Callable[[], int | None]) -> int | None:
    """The pool cap ``RUDA_GPU_MEMORY_LIMIT`` gives device ``name``, whose memory ``total()``
    says: bytes, or a percentage of the total ("50%"); None when unset or empty."""
    raw = os.environ.get(MEMORY_LIMIT_ENV, "").strip()
    if not raw:
        return None
    try:
        if raw.endswith("%"):
            pct = float(raw[:-1])
            if not 0 < pct <= 100:
                raise ValueError
            size = total()
            if size is None:
                raise LookupError
            return int(size * pct / 100)
        n = int(raw)
        if n <= 0:
            raise ValueError
        return n
    except LookupError:
        raise ValueError(
            f"ruda: {MEMORY_LIMIT_ENV}={raw!r} is a percentage, but {name} does not report its "
            "total memory (WebGPU does not); give the limit in bytes"
        ) from None
    except ValueError:
        raise ValueError(
            f"ruda: {MEMORY_LIMIT_ENV}={raw!r} is neither a positive number of bytes nor a "
            "percentage such as '50%'"
        ) from None


def host_memory() -> tuple[int | None, int | None]:
    """(available, total) bytes of host memory, without psutil: Linux's /proc/meminfo, else
    sysconf, else Windows' GlobalMemoryStatusEx; None for what the system does not say."""
    try:
        with open("/proc/meminfo") as f:
            info = {k: int(v.split()[0]) * 1024 for k, v in (ln.split(":", 1) for ln in f)}
        return info.get("MemAvailable", info.get("MemFree")), info["MemTotal"]
    except (OSError, KeyError, ValueError):
        pass
    if sys.platform == "win32":
        import ctypes

        class _Status(ctypes.Structure):
            _big = "total avail page_total page_avail virtual_total virtual_avail extended"
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong)] + [
                (name, ctypes.c_ulonglong) for name in _big.split()
            ]

        st = _Status()
        st.length = ctypes.sizeof(_Status)
        if ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(st)):
            return int(st.avail), int(st.total)
        return None, None
    try:
        page = os.sysconf("SC_PAGE_SIZE")
        total = os.sysconf("SC_PHYS_PAGES") * page
    except (ValueError, OSError, AttributeError):
        return None, None
    try:
        free: int | None = os.sysconf("SC_AVPHYS_PAGES") * page
    except (ValueError, OSError):
        free = None  # macOS has no such count
    return free, total


_REGISTRY: dict[tuple[str, int], Device] = {}


def _parse(name: Any, index: int | None) -> tuple[str, int]:
    if not isinstance(name, str):
        raise TypeError(
            f"ruda.Device: expected a device name such as 'cpu', 'cuda:0' or 'wgpu:0', "
            f"got {type(name).__name__}"
        )
    kind, _, rest = name.strip().lower().partition(":")
    kind = ALIASES.get(kind, kind)
    if kind not in KINDS:
        raise ValueError(
            f"ruda.Device: unknown device {name!r}; known kinds are {', '.join(KINDS)}"
        )
    if rest:
        if not rest.isdigit():
            raise ValueError(f"ruda.Device: bad device index in {name!r}")
        idx = int(rest)
    else:
        idx = 0 if index is None else int(index)
    if kind == "cpu" and idx != 0:
        raise ValueError(f"ruda.Device: there is one cpu device, not {name!r}")
    return kind, idx


CPU = Device("cpu")
_current: contextvars.ContextVar[Device | None] = contextvars.ContextVar(
    "ruda_device", default=None
)
_env_default: list[Device] = []


def default_device() -> Device:
    """Where new arrays go: the innermost ``with ruda.device(...)``, else ``RUDA_DEVICE``."""
    dev = _current.get()
    if dev is not None:
        return dev
    if not _env_default:
        _env_default.append(Device(os.environ.get("RUDA_DEVICE", "cpu") or "cpu"))
    return _env_default[0]


def resolve(device: Any) -> Device:
    """A Device from None (the default), a Device or a name; checks the backend is available."""
    if device is None:
        dev = default_device()
    elif type(device) is Device:
        dev = device
    else:
        dev = Device(device)
    if dev._ops is None:
        from ._dispatch import bind

        bind(dev)
    return dev


def kind_device(device: Any, kind: str, where: str) -> Device:
    """The ``kind`` device ``device`` names for ``ruda.cuda``/``ruda.wgpu``: None is the default
    device when it is of that kind, else ``kind:0``; an int is an index; a name or Device must be
    of that kind. Its backend must be available (else DeviceUnavailableError with the reason)."""
    if device is None:
        d = default_device()
        dev = d if d.kind == kind else Device(kind)
    elif isinstance(device, int) and not isinstance(device, bool):
        dev = Device(kind, device)
    else:
        dev = Device(device)
        if dev.kind != kind:
            raise ValueError(f"{where}: {dev} is not a {kind} device")
    dev.backend  # noqa: B018  (raises DeviceUnavailableError with the reason)
    return dev


@contextlib.contextmanager
def device(dev: Any) -> Iterator[Device]:
    """Make ``dev`` the default device inside a ``with`` block.

    >>> import ruda as np
    >>> with np.device("cpu"):
    ...     np.zeros(2).device
    Device('cpu')
    """
    d = resolve(dev)
    token = _current.set(d)
    try:
        yield d
    finally:
        _current.reset(token)
