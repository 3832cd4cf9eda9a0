"""Reading and writing arrays: NumPy's ``.npy``/``.npz`` and text formats, over ruda arrays.

Files are NumPy's own formats (written and read by NumPy), so they interchange both ways.
Saving a GPU array copies it to the host explicitly; loading takes ``device=``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import Array, _wrap
from ._devices import CPU, Device, resolve

__all__ = [
    "fromfile",
    "genfromtxt",
    "load",
    "loadtxt",
    "save",
    "savetxt",
    "savez",
    "savez_compressed",
]


def _to_host(a: Any) -> Any:
    """Host data for writing: a ruda array is copied off its device (explicitly, here)."""
    if isinstance(a, Array):
        return a._host()
    return a


def _to_device(host: Any, dev: Device) -> Any:
    """A ruda array on ``dev`` from NumPy data read from a file; other objects pass through."""
    if isinstance(host, tuple):
        return tuple(_to_device(h, dev) for h in host)
    if not isinstance(host, (np.ndarray, np.generic)):
        return host
    if dev is CPU:
        # np.asarray keeps a memmap's buffer (the view still reads the file lazily).
        return _wrap(np.asarray(host), dev)
    return _wrap(dev.backend.allocator.from_host(np.asarray(host)), dev)


def _np_dtype(dtype: Any) -> Any:
    return dtype._np if type(dtype) is dt.DType else dtype


class NpzFile(Mapping):
    """The lazy mapping ``load`` returns for ``.npz`` files: each item is read on access.

    Use it as a context manager (or call ``close``) to release the file.

    >>> import io, ruda as np
    >>> buf = io.BytesIO(); np.savez(buf, a=np.asarray([1, 2])); _ = buf.seek(0)
    >>> with np.load(buf) as f:
    ...     f["a"]
    array([1, 2])
    """

    def __init__(self, npz: Any, device: Device) -> None:
        self._npz = npz
        self._device = device
        self.files = list(npz.files)

    @property
    def f(self) -> Any:
        """Attribute access to the items: ``npz.f.name``."""
        return _Bag(self)

    def __getitem__(self, key: str) -> Any:
        return _to_device(self._npz[key], self._device)

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __contains__(self, key: object) -> bool:
        return key in self.files

    def close(self) -> None:
        self._npz.close()

    def __enter__(self) -> NpzFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        npz = getattr(self, "_npz", None)
        if npz is not None:
            npz.close()

    def __repr__(self) -> str:
        return f"NpzFile({self.files!r}, device={str(self._device)!r})"


class _Bag:
    def __init__(self, npz: NpzFile) -> None:
        self._npz = npz

    def __getattr__(self, key: str) -> Any:
        try:
            return self._npz[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self) -> list[str]:
        return list(self._npz.files)


def save(file: Any, arr: Any, allow_pickle: bool = True) -> None:
    """Write one array to a ``.npy`` file (NumPy's format; a GPU array is copied to the host).

    >>> import io, ruda as np
    >>> buf = io.BytesIO(); np.save(buf, np.asarray([1.0, 2.0])); _ = buf.seek(0)
    >>> np.load(buf)
    array([1., 2.])
    """
    np.save(file, _to_host(arr), allow_pickle=allow_pickle)


def load(
    file: Any,
    mmap_mode: str | None = None,
    allow_pickle: bool = False,
    fix_imports: bool = True,
    encoding: str = "ASCII",
    *,
    max_header_size: int = 10000,
    device: Any = None,
) -> Any:
    """Read a ``.npy`` (an array), ``.npz`` (a lazy ``NpzFile``) or pickle file onto ``device``.

    With ``mmap_mode`` a CPU array reads the file lazily; on a GPU the data is copied in.

    >>> import io, ruda as np
    >>> buf = io.BytesIO(); np.save(buf, np.asarray([[1, 2]])); _ = buf.seek(0)
    >>> np.load(buf, device="cpu")
    array([[1, 2]])
    """
    dev = resolve(device)
    r = np.load(
        file,
        mmap_mode=mmap_mode,
        allow_pickle=allow_pickle,
        fix_imports=fix_imports,
        encoding=encoding,
        max_header_size=max_header_size,
    )
    if isinstance(r, np.lib.npyio.NpzFile):
        return NpzFile(r, dev)
    return _to_device(r, dev)


def _savez(fn: Any, file: Any, args: tuple, allow_pickle: bool, kwds: dict) -> None:
    fn(
        file,
        *(_to_host(a) for a in args),
        allow_pickle=allow_pickle,
        **{k: _to_host(v) for k, v in kwds.items()},
    )


def savez(file: Any, *args: Any, allow_pickle: bool = True, **kwds: Any) -> None:
    """Write several arrays to an uncompressed ``.npz`` file (positional ones as ``arr_0``...).

    >>> import io, ruda as np
    >>> buf = io.BytesIO(); np.savez(buf, np.asarray([1]), b=np.asarray([2])); _ = buf.seek(0)
    >>> sorted(np.load(buf).files)
    ['arr_0', 'b']
    """
    _savez(np.savez, file, args, allow_pickle, kwds)


def savez_compressed(file: Any, *args: Any, allow_pickle: bool = True, **kwds: Any) -> None:
    """Write several arrays to a compressed ``.npz`` file.

    >>> import io, ruda as np
    >>> buf = io.BytesIO(); np.savez_compressed(buf, a=np.asarray([1, 2])); _ = buf.seek(0)
    >>> np.load(buf)["a"]
    array([1, 2])
    """
    _savez(np.savez_compressed, file, args, allow_pickle, kwds)


def savetxt(fname: Any, X: Any, *args: Any, **kwargs: Any) -> None:
    """Write a 1-D or 2-D array to a text file (``fmt``, ``delimiter``, ``header``... as NumPy).

    >>> import io, ruda as np
    >>> buf = io.StringIO(); np.savetxt(buf, np.asarray([[1, 2]]), fmt="%d"); buf.getvalue()
    '1 2\\n'
    """
    np.savetxt(fname, _to_host(X), *args, **kwargs)


def loadtxt(fname: Any, dtype: Any = float, *args: Any, device: Any = None, **kwargs: Any) -> Any:
    """Read an array from a text file (``delimiter``, ``skiprows``, ``usecols``... as NumPy).

    >>> import io, ruda as np
    >>> np.loadtxt(io.StringIO("1 2\\n3 4"))
    array([[1., 2.],
           [3., 4.]])
    """
    dev = resolve(device)
    return _to_device(np.loadtxt(fname, _np_dtype(dtype), *args, **kwargs), dev)


def genfromtxt(
    fname: Any, dtype: Any = float, *args: Any, device: Any = None, **kwargs: Any
) -> Any:
    """Read an array from a text file, filling missing values (``filling_values``...) as NumPy.

    # Note: ruda has no masked arrays, so ``usemask=True`` is refused.

    >>> import io, ruda as np
    >>> np.genfromtxt(io.StringIO("1,2\\n3,"), delimiter=",")
    array([[ 1.,  2.],
           [ 3., nan]])
    """
    if kwargs.get("usemask"):
        raise ValueError("ruda.genfromtxt: usemask=True needs masked arrays, which ruda lacks")
    dev = resolve(device)
    return _to_device(np.genfromtxt(fname, _np_dtype(dtype), *args, **kwargs), dev)


def fromfile(
    file: str | os.PathLike | Any,
    dtype: Any = float,
    count: int = -1,
    sep: str = "",
    offset: int = 0,
    *,
    like: Any = None,
    device: Any = None,
) -> Array:
    """Read raw binary (``sep=""``) or text data of one ``dtype`` from a file.

    >>> import os, tempfile, ruda as np
    >>> p = os.path.join(tempfile.mkdtemp(), "x.bin")
    >>> _ = open(p, "wb").write(bytes([1, 0, 2, 0]))
    >>> np.fromfile(p, dtype=np.int16)
    array([1, 2], dtype=int16)
    """
    dev = resolve(device)
    host = np.fromfile(file, dtype=_np_dtype(dtype), count=count, sep=sep, offset=offset)
    return _to_device(host, dev)
