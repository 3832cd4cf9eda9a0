"""``Philox``: ruda's counter-based bit generator (Philox4x32-10), the same stream on every device.

The stream is a sequence of uint32 words; word ``i`` is lane ``i % 4`` of the Philox block with
counter ``i // 4`` under the generator's 64-bit key. Nothing else is state: the position (the next
unused word) advances by the words each draw consumes, so drawing n values in one call or in
several calls that sum to n gives the same values.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._devices import CPU, Device
from .._dispatch import lookup
from .._dtypes import kind_of

__all__ = ["Philox", "SeedSequence"]

SeedSequence = np.random.SeedSequence
_WORDS = 4 << 128  # the stream's length in words: 2**128 blocks of 4 words
_M32 = 0xFFFFFFFF


def seed_to_key(seed: Any) -> tuple[int, int]:
    """The 64-bit Philox key (two 32-bit words) for a seed.

    The rule: an int in [0, 2**64) is the key itself, ``(seed & 0xFFFFFFFF, seed >> 32)``;
    None draws fresh OS entropy; a ``SeedSequence``, a larger int or a sequence of ints goes
    through ``numpy.random.SeedSequence(seed).generate_state(2, numpy.uint32)``.
    """
    if isinstance(seed, np.random.SeedSequence):
        return tuple(int(w) for w in seed.generate_state(2, np.uint32))  # type: ignore[return-value]
    if seed is None:
        return seed_to_key(np.random.SeedSequence())
    if isinstance(seed, (str, bytes, float, complex)) or (
        hasattr(seed, "dtype")
        and getattr(seed.dtype, "kind", "i") not in "iub"
        and getattr(seed, "ndim", 1) == 0
    ):
        raise TypeError(
            f"ruda.random: seed must be None, an int or a sequence of ints, got {seed!r}"
        )
    if not isinstance(seed, Sequence) and getattr(seed, "ndim", 0) == 0:
        try:
            s = operator.index(seed)
        except TypeError:
            raise TypeError(
                f"ruda.random: seed must be None, an int or a sequence of ints, got {seed!r}"
            ) from None
        if s < 0:
            raise ValueError(f"ruda.random: seed must be non-negative, got {s}")
        if s < 1 << 64:
            return (s & _M32, (s >> 32) & _M32)
        return seed_to_key(np.random.SeedSequence(s))
    ints = np.asarray(seed)
    if kind_of(ints.dtype) not in "iu" and ints.size:
        raise TypeError(f"ruda.random: seed must be a sequence of ints, got dtype {ints.dtype}")
    if ints.size and ints.min() < 0:
        raise ValueError("ruda.random: seed values must be non-negative")
    return seed_to_key(np.random.SeedSequence([int(v) for v in ints.reshape(-1)]))


# Note: numpy.random.Philox is Philox4x64-10 with another seeding rule; ruda's Philox is
# Philox4x32-10 (32-bit words suit every GPU), so the streams differ from NumPy's.
class Philox:
    """Philox4x32-10 bit generator with a 64-bit key and a 128-bit block counter.

    ``Philox(seed)`` takes the key from the seed (see ``seed_to_key``); ``key=`` and
    ``counter=`` set them directly. ``state`` is a dict (key, counter, lane) that can be
    read and assigned; ``advance(n)`` skips n blocks; ``jumped()`` is a copy 2**64 blocks on.

    >>> import ruda as np
    >>> bg = np.random.Philox(42)
    >>> bg.state["state"]["key"]
    (42, 0)
    """

    def __init__(self, seed: Any = None, *, key: Any = None, counter: int = 0) -> None:
        if key is not None:
            if seed is not None:
                raise ValueError("ruda.random.Philox: give seed or key, not both")
            k = np.asarray(key).reshape(-1)
            if k.size != 2:
                raise ValueError("ruda.random.Philox: key must be two 32-bit ints")
            self._key = (int(k[0]) & _M32, int(k[1]) & _M32)
        else:
            self._key = seed_to_key(seed)
        self._pos = (4 * operator.index(counter)) % _WORDS
        self._spawned = 0  # children handed out by spawn()

    # -- state --------------------------------------------------------------------------
    @property
    def state(self) -> dict[str, Any]:
        """``{"bit_generator": "Philox", "state": {"key", "counter"}, "lane"}``."""
        return {
            "bit_generator": "Philox",
            "state": {"key": self._key, "counter": self._pos // 4},
            "lane": self._pos % 4,
        }

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox":
            raise ValueError("ruda.random.Philox.state: expects a dict from Philox.state")
        st = value["state"]
        k = tuple(int(x) & _M32 for x in st["key"])
        if len(k) != 2:
            raise ValueError("ruda.random.Philox.state: key must be two 32-bit ints")
        lane = int(value.get("lane", 0))
        if not 0 <= lane < 4:
            raise ValueError("ruda.random.Philox.state: lane must be in [0, 4)")
        self._key = k
        self._pos = (4 * int(st["counter"]) + lane) % _WORDS

    def advance(self, delta: int) -> Philox:
        """Skip ``delta`` blocks (4 words each) of the stream; returns self.

        >>> import ruda as np
        >>> np.random.Philox(1).advance(10).state["state"]["counter"]
        10
        """
        self._pos = (self._pos + 4 * operator.index(delta)) % _WORDS
        return self

    def jumped(self, jumps: int = 1) -> Philox:
        """A new bit generator ``jumps * 2**64`` blocks further on: non-overlapping streams.

        >>> import ruda as np
        >>> np.random.Philox(1).jumped().state["state"]["counter"] == 2**64
        True
        """
        out = Philox(key=self._key)
        out._pos = (self._pos + (operator.index(jumps) << 66)) % _WORDS
        return out

    def spawn(self, n_children: int) -> list[Philox]:
        """``n_children`` new bit generators with keys independent of this one's stream.

        As NumPy's ``SeedSequence.spawn`` does in spirit: child j (counting every child this
        generator has spawned so far) gets the key
        ``SeedSequence(entropy=key, spawn_key=(j,)).generate_state(2, uint32)``, a hash of the
        parent's 64-bit key and the child's index; each child starts at counter 0. The key
        alone decides the children (two generators with one key spawn the same children), and
        children of children hash their own keys. Distinct keys give unrelated Philox streams;
        64-bit keys collide with probability about m**2 / 2**65 among m generators.

        >>> import ruda as np
        >>> a, b = np.random.Philox(0).spawn(2)
        >>> a.state["state"]["key"] != b.state["state"]["key"]
        True
        """
        n = operator.index(n_children)
        if n < 0:
            raise ValueError("ruda.random.Philox.spawn: n_children must be non-negative")
        entropy = self._key[0] | self._key[1] << 32
        out = []
        for j in range(self._spawned, self._spawned + n):
            ss = np.random.SeedSequence(entropy=entropy, spawn_key=(j,))
            out.append(Philox(key=ss.generate_state(2, np.uint32)))
        self._spawned += n
        return out

    def __repr__(self) -> str:
        return f"Philox(key=({self._key[0]:#010x}, {self._key[1]:#010x}), counter={self._pos // 4})"

    # -- words --------------------------------------------------------------------------
    def random_raw(self, size: int | None = None, *, device: Any = None) -> Any:
        """The next ``size`` raw uint32 words as a ruda array (one Python int for size=None).

        >>> import ruda as np
        >>> np.random.Philox(0).random_raw(4).dtype
        ruda.uint32
        """
        from .._array import _wrap
        from .._devices import resolve

        dev = resolve(device)
        n = 1 if size is None else operator.index(size)
        w = self.take(n, 1, 1, dev)[0]
        if size is None:
            return int(dev.backend.allocator.to_host(w)[0])
        return _wrap(w, dev)

    def words_at(self, pos: int, nwords: int, dev: Device) -> Any:
        """``nwords`` words from word ``pos`` (no state change), native on ``dev``."""
        b0, off = divmod(pos % _WORDS, 4)
        nblocks = -(-(off + nwords) // 4)
        try:
            kernel = dev._ops["random.philox4x32"]
        except NotImplementedError:
            kernel = None
        if kernel is None:
            # A backend without the kernel yet: the CPU computes the identical words.
            cpu_kernel = lookup("random.philox4x32", CPU)
            host = cpu_kernel(self._key, b0, nblocks)[off : off + nwords]
            return dev.backend.allocator.from_host(host)
        # A GPU kernel is told the device (the op row is per kind, not per device).
        on = {} if dev.kind == "cpu" else {"device": dev}
        w = kernel(self._key, b0, nblocks, **on)
        return w if off == 0 and nblocks * 4 == nwords else w[off : off + nwords]

    def take(self, nvalues: int, per: int, group: int, dev: Device) -> tuple[Any, int]:
        """Words for the next ``nvalues`` values of ``per`` words each, computed in groups.

        The first value starts at the position rounded up to a multiple of ``per``; a group of
        ``group`` values (e.g. a Box-Muller pair) always comes from the same aligned words, so
        a value's words depend only on its index. Returns ``(words, skip)``: words from the
        start of the first value's group, and how many leading values of it to drop.
        """
        start, skip = self.claim(nvalues, per, group)
        nwords = -(-(skip + nvalues) // group) * per * group
        return self.words_at(start, nwords, dev), skip

    def claim(self, nvalues: int, per: int, group: int) -> tuple[int, int]:
        """Advance past ``nvalues`` values as ``take`` does; returns ``(start, skip)``: the word
        position of the first value's group and how many leading values of it to drop."""
        pos = self._pos
        p = pos if pos % per == 0 else pos + per - pos % per
        start = p - p % (per * group)
        self._pos = (p + nvalues * per) % _WORDS
        return start, (p - start) // per
