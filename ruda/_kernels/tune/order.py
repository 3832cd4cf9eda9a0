"""The order the autotuner's search walks a family's candidates in: nearest to its seeds (the
default, the family's anchors) first, then climbing from each new best point (``tune._search``).

    >>> from ruda._kernels.tune.order import _distance
    >>> _distance({"wg": 256, "ipt": 4}, {"wg": 64, "ipt": 4})  # one parameter, 2 doublings off
    (1, 2.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

Params = dict[str, Any]


def _distance(p: Params, d: Params) -> tuple[int, float]:
    """(parameters that differ, how far numeric ones are on a log scale): neighbours first."""
    far = 0.0
    for k, v in d.items():
        w = p.get(k)
        if w != v and isinstance(w, int) and isinstance(v, int) and w > 0 and v > 0:
            far += abs(math.log2(w / v))
    return sum(p.get(k) != v for k, v in d.items()), far


class _Nearness:
    """``_distance`` from every candidate of ``cands`` to a seed, as one number (differences x
    1000 + log distance: the first dominates, far < 1000). Per parameter, each distinct
    value's distance is worked out once and spread with NumPy: a distance per candidate and
    seed in Python took 5 s for matmul's 52k; the search asks again for each new best."""

    def __init__(self, cands: list[Params]) -> None:
        self.cands, self.n = cands, len(cands)
        self._cols: dict[str, tuple[np.ndarray, list[Any]]] = {}

    def _col(self, name: str) -> tuple[np.ndarray, list[Any]]:
        if name not in self._cols:
            index: dict[Any, int] = {}
            col = (index.setdefault(p.get(name), len(index)) for p in self.cands)
            self._cols[name] = (np.fromiter(col, np.int64, self.n), list(index))
        return self._cols[name]

    def __call__(self, seed: Params) -> np.ndarray:
        out = np.zeros(self.n)
        for name, v in seed.items():
            codes, values = self._col(name)
            one = [_distance({name: w}, {name: v}) for w in values]
            out += np.array([d * 1000.0 + f for d, f in one])[codes]
        return out


def _nearest_first(cands: list[Params], seeds: list[Params],
                   vendor: Callable[[Params], bool]) -> np.ndarray:  # fmt: skip
    """The order of ``cands``: vendors first, then by ``_distance`` to the nearest seed (ties
    keep their order): ``_Order``'s walk before any climb."""
    return np.array(_Order(cands, seeds, vendor).order, np.int64)


class _Order:
    """The search's walk over ``cands``: nearest to the seeds first (``_nearest_first``), and
    each time a candidate beats every one timed before it, the rest re-sorted so that its own
    neighbours come next (ahead of the seeds' at the same distance): the walk climbs from
    the best point found so far, not only out from where it started."""

    BONUS = 500.0  # half a differing parameter: the best's neighbours win ties with the seeds'

    def __init__(self, cands: list[Params], seeds: list[Params], vendor: Callable[[Params], bool],
                 ties: list[int] | None = None) -> None:  # fmt: skip
        # ``ties``: the order equal candidates keep (a shuffle of the indices); ``cands`` stays in
        # the order it was made in, which its columns read ~3x faster (446k dicts: 4.2 -> 1.2 s)
        self.cands, self.near = cands, _Nearness(cands)
        n = len(cands)
        self.d = np.min([self.near(s) for s in seeds], axis=0) if seeds else np.zeros(n)
        self.last = np.array([not vendor(p) for p in cands], float) * 1e9
        tie = np.arange(n) if ties is None else np.asarray(ties, np.int64)
        self.order = list(tie[np.argsort((self.last + self.d)[tie], kind="stable")])

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, i: int) -> Params:
        return self.cands[self.order[i]]

    def upcoming(self, start: int, stop: int) -> list[Params]:
        return [self.cands[j] for j in self.order[start:stop]]

    def climb(self, best: Params, done: int) -> None:
        """Re-sort the candidates after the first ``done`` around ``best`` as well."""
        rest = np.array(self.order[done:], np.int64)
        if not len(rest):
            return
        self.d = np.minimum(self.d, self.near(best) - self.BONUS)
        rest = rest[np.argsort(self.last[rest] + self.d[rest], kind="stable")]
        self.order[done:] = list(rest)
