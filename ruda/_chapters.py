"""The namespace's chapter modules, in the order ``ruda/__init__.py`` re-exports their ``__all__``:
one per chapter of the standard, and NumPy's surface beside them. ``ruda._compose`` gathers its
``rd`` from the same list."""

from __future__ import annotations

from . import (
    _bits,
    _creation,
    _creation_numpy,
    _data_type_functions,
    _elementwise,
    _histograms,
    _indexing,
    _interop,
    _io,
    _linear_algebra,
    _manipulation,
    _manipulation_numpy,
    _nanfunctions,
    _numpy_compat,
    _numpy_misc,
    _numpy_types,
    _order_statistics,
    _searching,
    _set,
    _sorting,
    _statistical,
    _utility,
    _windows,
)

CHAPTERS = (
    _elementwise,
    _creation,
    _creation_numpy,
    _data_type_functions,
    _manipulation,
    _manipulation_numpy,
    _indexing,
    _searching,
    _set,
    _sorting,
    _statistical,
    _histograms,
    _nanfunctions,
    _order_statistics,
    _utility,
    _linear_algebra,
    _numpy_compat,
    _io,
    _interop,
    _windows,
    _bits,
    _numpy_misc,
    _numpy_types,
)
