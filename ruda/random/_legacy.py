"""NumPy's legacy random API (``RandomState``, ``seed``, ``rand``...), stream for stream.

Each method runs NumPy's Mersenne-Twister ``RandomState`` on the host and places the result on
the requested device, so ``ruda.random.seed(0); ruda.random.rand(3)`` equals
``numpy.random.seed(0); numpy.random.rand(3)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._array import Array, _wrap
from .._devices import CPU, Device, resolve
from .._errors import annotate

__all__ = [
    "RandomState", "seed", "get_state", "set_state", "rand", "randn", "randint", "random",
    "random_sample", "ranf", "sample", "uniform", "normal", "standard_normal", "choice",
    "shuffle", "permutation", "beta", "binomial", "exponential", "gamma", "poisson",
    "multivariate_normal", "bytes", "chisquare", "dirichlet", "f", "geometric", "gumbel",
    "hypergeometric", "laplace", "logistic", "lognormal", "logseries", "multinomial",
    "negative_binomial", "noncentral_chisquare", "noncentral_f", "pareto", "power",
    "random_integers", "rayleigh", "standard_cauchy", "standard_exponential", "standard_gamma",
    "standard_t", "triangular", "vonmises", "wald", "weibull", "zipf",
]  # fmt: skip

# Example arguments for each generated method's docstring.
_EXAMPLES = {
    "rand": "2, 3", "randn": "2, 3", "randint": "0, 10, size=4", "random": "size=3",
    "random_sample": "size=3", "uniform": "-1.0, 1.0, size=3", "normal": "0.0, 2.0, size=3",
    "standard_normal": "size=3", "choice": "5, size=3", "permutation": "5",
    "beta": "2.0, 3.0, size=3", "binomial": "10, 0.5, size=3", "exponential": "1.5, size=3",
    "gamma": "2.0, 1.0, size=3", "poisson": "4.0, size=3",
    "multivariate_normal": "[0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]], size=3",
    "chisquare": "2.0, size=3", "dirichlet": "[1.0, 2.0, 3.0], size=3",
    "f": "2.0, 3.0, size=3", "geometric": "0.3, size=3", "gumbel": "0.0, 1.0, size=3",
    "hypergeometric": "10, 5, 4, size=3", "laplace": "0.0, 1.0, size=3",
    "logistic": "0.0, 1.0, size=3", "lognormal": "0.0, 1.0, size=3",
    "logseries": "0.5, size=3", "multinomial": "10, [0.2, 0.8], size=3",
    "negative_binomial": "5, 0.5, size=3", "noncentral_chisquare": "2.0, 1.0, size=3",
    "noncentral_f": "2.0, 3.0, 1.0, size=3", "pareto": "3.0, size=3", "power": "2.0, size=3",
    "random_integers": "1, 6, size=3", "rayleigh": "1.0, size=3",
    "standard_cauchy": "size=3", "standard_exponential": "size=3",
    "standard_gamma": "2.0, size=3", "standard_t": "3.0, size=3",
    "triangular": "0.0, 0.5, 1.0, size=3", "vonmises": "0.0, 1.0, size=3",
    "wald": "1.0, 1.0, size=3", "weibull": "2.0, size=3", "zipf": "2.0, size=3",
}  # fmt: skip


def _host(x: Any) -> Any:
    """Ruda arrays as host NumPy arrays (NumPy's RandomState reads its arguments on the host)."""
    if isinstance(x, Array):
        return x._host() if x._device is CPU else np.asarray(x.to_device("cpu"))
    return x


def _device_of(device: Any, args: tuple, kwargs: dict) -> Device:
    """``device=`` if given, else the device of the first ruda array argument, else the default."""
    if device is not None:
        return resolve(device)
    for a in (*args, *kwargs.values()):
        if isinstance(a, Array):
            return a._device
    return resolve(None)


def _place(res: Any, dev: Device) -> Any:
    # Note: NumPy scalars and Python numbers (size=None) are returned as NumPy returns them,
    # since scripts use them as scalars; arrays become ruda arrays on the device.
    if type(res) is not np.ndarray:
        return res
    if dev is CPU:
        return _wrap(res, dev)
    return _wrap(dev.backend.allocator.from_host(res), dev)


def _method(name: str) -> Any:
    def method(self: RandomState, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        dev = _device_of(device, args, kwargs)
        args = tuple(_host(a) for a in args)
        kwargs = {k: _host(v) for k, v in kwargs.items()}
        try:
            res = getattr(self._rs, name)(*args, **kwargs)
        except Exception as e:  # NumPy's error, naming ruda's function, of the same type
            raise annotate(f"random.{name}", e) from e
        return _place(res, dev)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f"NumPy's legacy ``{name}``: the same values as ``numpy.random.{name}`` for the same\n"
        f"state, as a ruda array on ``device`` (a scalar where NumPy returns one).\n\n"
        f">>> import ruda as np\n>>> np.random.seed(0)\n"
        f">>> x = np.random.{name}({_EXAMPLES[name]})\n"
    )
    return method


class RandomState:
    """NumPy's legacy Mersenne-Twister generator; methods return ruda arrays.

    ``RandomState(seed)`` gives the same stream as ``numpy.random.RandomState(seed)``.

    >>> import ruda as np
    >>> rs = np.random.RandomState(0)
    >>> rs.rand(3).shape
    (3,)
    """

    def __init__(self, seed: Any = None) -> None:
        self._rs = np.random.RandomState(_host(seed))

    def __repr__(self) -> str:
        return "RandomState(MT19937)"

    def seed(self, seed: Any = None) -> None:
        """Reseed, exactly as ``numpy.random.RandomState.seed``.

        >>> import ruda as np
        >>> np.random.seed(42)
        """
        self._rs.seed(_host(seed))

    def get_state(self, legacy: bool = True) -> Any:
        """The Mersenne-Twister state, as ``numpy.random.get_state`` gives it.

        >>> import ruda as np
        >>> np.random.get_state()[0]
        'MT19937'
        """
        return self._rs.get_state(legacy=legacy)

    def set_state(self, state: Any) -> None:
        """Restore a state from ``get_state`` (also NumPy's own states).

        >>> import ruda as np
        >>> s = np.random.get_state(); a = np.random.rand(); np.random.set_state(s)
        >>> a == np.random.rand()
        True
        """
        self._rs.set_state(state)

    def shuffle(self, x: Any) -> None:
        """Shuffle ``x`` in place along its first axis (NumPy's legacy stream).

        >>> import ruda as np
        >>> x = np.asarray([1, 2, 3, 4]); np.random.shuffle(x)
        >>> sorted(x.tolist())
        [1, 2, 3, 4]
        """
        if not isinstance(x, Array):
            self._rs.shuffle(x)
        elif x._device is CPU:
            self._rs.shuffle(x._data)  # in place on the array's own buffer (views included)
        else:
            h = np.array(x.to_device("cpu"))
            self._rs.shuffle(h)
            x[...] = _wrap(x._device.backend.allocator.from_host(h), x._device)


for _name in _EXAMPLES:
    setattr(RandomState, _name, _method(_name))
RandomState.bytes = lambda self, length: self._rs.bytes(length)  # type: ignore[attr-defined]
RandomState.bytes.__doc__ = "``length`` random bytes (NumPy's legacy stream).\n\n>>> import ruda as np\n>>> len(np.random.bytes(4))\n4\n"  # noqa: E501

# Note: ruda keeps its own global RandomState, independent of numpy.random's: ruda.random.seed
# determines ruda.random.* results, and NumPy code in the same process does not disturb them.
_rand = RandomState()
seed = _rand.seed
get_state = _rand.get_state
set_state = _rand.set_state
shuffle = _rand.shuffle
bytes = _rand.bytes  # noqa: A001
rand = _rand.rand
randn = _rand.randn
randint = _rand.randint
random = _rand.random
random_sample = _rand.random_sample
ranf = _rand.random_sample
sample = _rand.random_sample
uniform = _rand.uniform
normal = _rand.normal
standard_normal = _rand.standard_normal
choice = _rand.choice
permutation = _rand.permutation
beta = _rand.beta
binomial = _rand.binomial
exponential = _rand.exponential
gamma = _rand.gamma
poisson = _rand.poisson
multivariate_normal = _rand.multivariate_normal
chisquare = _rand.chisquare
dirichlet = _rand.dirichlet
f = _rand.f
geometric = _rand.geometric
gumbel = _rand.gumbel
hypergeometric = _rand.hypergeometric
laplace = _rand.laplace
logistic = _rand.logistic
lognormal = _rand.lognormal
logseries = _rand.logseries
multinomial = _rand.multinomial
negative_binomial = _rand.negative_binomial
noncentral_chisquare = _rand.noncentral_chisquare
noncentral_f = _rand.noncentral_f
pareto = _rand.pareto
power = _rand.power
random_integers = _rand.random_integers
rayleigh = _rand.rayleigh
standard_cauchy = _rand.standard_cauchy
standard_exponential = _rand.standard_exponential
standard_gamma = _rand.standard_gamma
standard_t = _rand.standard_t
triangular = _rand.triangular
vonmises = _rand.vonmises
wald = _rand.wald
weibull = _rand.weibull
zipf = _rand.zipf
