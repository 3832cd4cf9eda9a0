"""ruda: a drop-in NumPy replacement conforming to the Python Array API standard 2025.12.

Use it as ``import ruda as np``. Arrays live on a device ("cpu", "cuda:N", "wgpu:N"); every
function dispatches through one table keyed by (op, device kind).

>>> import ruda as np
>>> x = np.linspace(0, 1, 5)
>>> float(np.sum(x))
2.5
"""

from __future__ import annotations

import sys as _sys

from . import _dtypes as _dt
from ._array import Array
from ._backends import DeviceUnavailableError
from ._chapters import CHAPTERS as _CHAPTERS
from ._devices import Device, device
from ._dtypes import (
    DType,
    bfloat16,
    bool,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._info import __array_namespace_info__
from ._validation import AxisError
from ._version import __version__

__array_api_version__ = "2025.12"

e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None
ndarray = Array

for _mod in _CHAPTERS:
    for _name in _mod.__all__:
        globals()[_name] = getattr(_mod, _name)

from . import (  # noqa: E402  (extensions import the namespace)
    _array_methods,  # noqa: E402,F401  (NumPy's ndarray methods, over the namespace)
    _compose,  # compositions over Arrays: registered for kinds without a native op
    cuda,  # streams and events (ruda.cuda), imported without CuPy
    emath,  # NumPy's emath: complex results outside the real domain
    exceptions,  # NumPy's exception names (AxisError is ruda's)
    fft,
    linalg,
    nn,  # attention, convolution, norms and activations, over the namespace
    random,
    testing,  # NumPy's assertions over ruda arrays (copied to the host explicitly)
    wgpu,  # synchronize and timing events (ruda.wgpu), imported without wgpu-py
)
from ._devices import MemoryInfo  # noqa: E402,F401  (Device.memory_info's result type)

_array_methods.install(_sys.modules[__name__])  # Array's methods over this namespace

__all__ = sorted(
    {n for m in _CHAPTERS for n in m.__all__}
    | {
        "Array", "DType", "Device", "DeviceUnavailableError", "AxisError", "device", "dtype",
        "ndarray", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
        "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "e",
        "pi", "inf", "nan", "newaxis", "__array_namespace_info__", "__array_api_version__",
        "__version__", "fft", "linalg", "nn", "random",
    }
)  # fmt: skip
del _mod, _name, _dt, _sys
