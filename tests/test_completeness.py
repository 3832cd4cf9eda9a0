"""Completeness: the public names are the standard's plus the NumPy surface, and the op table
covers every elementwise function on every available device."""

from __future__ import annotations

import inspect

import pytest

import ruda
from ruda import _dispatch
from ruda._ops import ELEMENTWISE, STANDARD_ELEMENTWISE

# The 2025.12 standard's main namespace: functions, constants, dtypes (from the specification).
STANDARD = set(
    """
abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert
bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide equal exp expm1
floor floor_divide greater greater_equal hypot imag isfinite isinf isnan less less_equal log log1p
log2 log10 logaddexp logical_and logical_not logical_or logical_xor maximum minimum multiply
negative nextafter not_equal positive pow real reciprocal remainder round sign signbit sin sinh
square sqrt subtract tan tanh trunc
arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones ones_like
tril triu zeros zeros_like
astype can_cast finfo iinfo isdtype result_type
take take_along_axis
matmul matrix_transpose tensordot vecdot
broadcast_arrays broadcast_shapes broadcast_to concat expand_dims flip moveaxis permute_dims
repeat reshape roll squeeze stack tile unstack
argmax argmin count_nonzero nonzero searchsorted where
isin unique_all unique_counts unique_inverse unique_values
argsort sort
cumulative_sum cumulative_prod max mean min prod std sum var
all any diff
e inf nan newaxis pi
bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128
__array_namespace_info__ __array_api_version__
""".split()
)

STANDARD_LINALG = set(
    """
cholesky cross det diagonal eigh eigvalsh eig eigvals inv matmul matrix_norm matrix_power
matrix_rank matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace vecdot
vector_norm
""".split()
)

STANDARD_FFT = set(
    """
fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift ifftshift
""".split()
)

STANDARD_ARRAY_ATTRS = set(
    """
dtype device mT ndim shape size T __abs__ __add__ __and__ __array_namespace__ __bool__
__complex__ __dlpack__ __dlpack_device__ __eq__ __float__ __floordiv__ __ge__ __getitem__ __gt__
__index__ __int__ __invert__ __le__ __lshift__ __lt__ __matmul__ __mod__ __mul__ __ne__ __neg__
__or__ __pos__ __pow__ __rshift__ __setitem__ __sub__ __truediv__ __xor__ to_device
__iadd__ __isub__ __imul__ __itruediv__ __ifloordiv__ __imod__ __ipow__ __iand__ __ior__ __ixor__
__ilshift__ __irshift__ __imatmul__ __radd__ __rsub__ __rmul__ __rtruediv__ __rfloordiv__
__rmod__ __rpow__ __rand__ __ror__ __rxor__ __rlshift__ __rrshift__ __rmatmul__
""".split()
)

# The NumPy surface that the foundation issue lists (NumPy's names, NumPy's semantics).
NUMPY_SURFACE = set(
    """
array ndarray copy ascontiguousarray zeros ones empty full zeros_like ones_like empty_like full_like
identity diag diagonal trace tri fromfunction logspace geomspace
absolute power true_divide arctan2 mod fmod fmax fmin rint fix degrees radians
dot vdot inner outer tensordot einsum kron cross
amin amax ptp average median percentile quantile nansum nanmean nanstd nanvar nanmin nanmax
nanprod nanmedian nanpercentile nanquantile nanargmin nanargmax cumsum cumprod diff gradient
convolve correlate interp polyfit polyval histogram histogram2d bincount digitize
ravel swapaxes moveaxis atleast_1d atleast_2d atleast_3d vstack hstack dstack column_stack split
array_split hsplit vsplit tile repeat flip fliplr flipud rot90 roll pad where nonzero argwhere
flatnonzero extract put take choose select sort argsort lexsort partition argpartition unique isin
intersect1d union1d setdiff1d searchsorted allclose isclose array_equal count_nonzero around round
meshgrid mgrid ogrid r_ c_ s_ ix_ unravel_index ravel_multi_index indices ndindex ndenumerate
apply_along_axis vectorize broadcast_to lib may_share_memory shares_memory
newaxis pi e inf nan euler_gamma float64 int_ bool_ dtype finfo iinfo issubdtype random
save load savez savez_compressed savetxt loadtxt genfromtxt
set_printoptions printoptions errstate seterr linalg fft
""".split()
)

NUMPY_LINALG = set(
    """
norm inv solve det eig eigh svd qr cholesky lstsq pinv matrix_rank matrix_power multi_dot
""".split()
)

NUMPY_RANDOM = set(
    """
seed rand randn randint random uniform normal choice shuffle permutation default_rng
""".split()
)

NDARRAY_METHODS = set(
    """
astype reshape sum mean std var min max argmin argmax cumsum prod any all round clip dot copy
fill flatten ravel item tolist sort argsort nonzero transpose T squeeze view size ndim itemsize
nbytes strides flat real imag conj
""".split()
)


def test_standard_names_present():
    missing = sorted(n for n in STANDARD if not hasattr(ruda, n))
    assert not missing, f"missing standard names: {missing}"
    assert not sorted(n for n in STANDARD_LINALG if not hasattr(ruda.linalg, n))
    assert not sorted(n for n in STANDARD_FFT if not hasattr(ruda.fft, n))


def test_array_object_complete():
    x = ruda.asarray([[1.0]])
    missing = sorted(n for n in STANDARD_ARRAY_ATTRS | NDARRAY_METHODS if not hasattr(x, n))
    assert not missing, missing


def test_numpy_surface_present():
    assert not sorted(n for n in NUMPY_SURFACE if not hasattr(ruda, n))
    assert not sorted(n for n in NUMPY_LINALG if not hasattr(ruda.linalg, n))
    assert not sorted(n for n in NUMPY_RANDOM if not hasattr(ruda.random, n))
    assert hasattr(ruda.lib.stride_tricks, "sliding_window_view")


def test_public_names_are_standard_plus_numpy_surface():
    """__all__ holds exactly the standard, the NumPy surface, and the documented extras."""
    public = set(ruda.__all__)
    assert STANDARD <= public and NUMPY_SURFACE <= public
    extras = public - STANDARD - NUMPY_SURFACE
    for name in sorted(extras):
        obj = getattr(ruda, name)
        # Every extra is NumPy's own name (the drop-in promise) or one of ruda's few own objects.
        import numpy

        ours = {"Array", "DType", "Device", "DeviceUnavailableError", "AxisError", "device",
                "float16", "bfloat16", "__version__", "around", "get_implicit_transfer",
                "implicit_transfer", "set_implicit_transfer", "nn"}  # fmt: skip
        # NumPy 2.x names that a later NumPy removed: kept so code written for 2.0-2.4 runs.
        removed = {"row_stack"}
        known = hasattr(numpy, name) or hasattr(numpy.linalg, name) or name in removed
        assert known or name in ours, name
        assert obj is not None


def test_standard_elementwise_in_op_table():
    names = {op.name for op in ELEMENTWISE}
    std = {n for n in STANDARD if callable(getattr(ruda, n, None))}
    elementwise_std = STANDARD_ELEMENTWISE
    assert elementwise_std <= names and elementwise_std <= std


@pytest.mark.parametrize("op", ELEMENTWISE, ids=lambda o: o.name)
def test_every_op_has_an_implementation_on_every_device(op, device):
    """The completeness rule of the architecture: each op table entry resolves on each backend."""
    assert callable(_dispatch.lookup(op.name, device))


def test_public_functions_have_docstrings_and_hints():
    undocumented = []
    for name in ruda.__all__:
        obj = getattr(ruda, name)
        if inspect.isfunction(obj) and obj.__module__.startswith("ruda"):
            if not (obj.__doc__ or "").strip():
                undocumented.append(name)
    assert not undocumented, undocumented
