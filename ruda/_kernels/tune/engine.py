"""The autotuner: declared variant spaces, a timed search, decisions persisted per device and key.

A *family* is one declaration (``register``): its parameter space (name -> allowed values), a
constraint predicate, the heuristic default and a builder ``build(params, key) -> Plan``; plus,
for the search, how to make inputs, NumPy's reference and the output size. Algorithm choice
(look-back scans) is one more parameter whose constraint names the backend; a vendor library
(cuBLAS on cuda, ``add_vendor``) gives the family an ``algorithm`` parameter on its backend,
whose values are the family's own kernels and the vendor. One engine serves CUDA and WGSL: a
backend hands in a ``Target`` (what device) and, to tune, a runner (``prepare(plan, inputs,
out) -> candidate`` with ``output()`` and ``time(reps)``, see ``timing``). The families declared
from the start (reductions, scan, elementwise, cuBLAS in matmul) are in ``families``; the
declarations themselves (``Key``, ``Target``, ``Family``, ``register``) in ``space``.

Modes (``RUDA_TUNE``): ``off`` heuristic defaults; ``cached`` (default) the stored decision, else
the heuristic; ``on`` as cached, but a key with no decision is tuned on first use within
``RUDA_TUNE_BUDGET`` seconds (default 5) when the backend passed a runner.

How a backend picks a variant, on every call (a dict lookup once the key was seen)::

    params = tune.choose("reduce.rows", tune.Key("sum", ("f32", "f32"), "rows", (rows, cols)),
                         target, runner=lambda: ctx.tune_runner(ops))
    plan = tune.build("reduce.rows", params, key)

    >>> from ruda._kernels.tune import engine as tune
    >>> t = tune.Target("wgpu", "doc device", "doc driver", frozenset(), 256)
    >>> tune.choose("reduce.full", tune.Key("sum", ("f32", "f32"), "full", (1000,)), t)["wg"]
    256
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import statistics
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import store as tune_store
from .check import agrees, matches

# (threads_per_row stays importable as tune.threads_per_row: the backends' rows default reads it)
from .families import register_families, threads_per_row  # noqa: F401
from .order import Params, _distance, _nearest_first, _Nearness, _Order  # noqa: F401
from .space import (  # noqa: F401  (the declarations, read through the engine as tune.X)
    _FAST,
    _HOT,
    _MEMO,
    ALGORITHM,
    BACKEND_DEFAULTS,
    FAMILIES,
    VENDORS,
    Family,
    Key,
    Target,
    Vendor,
    VendorPlan,
    _clear_memos,
    add_vendor,
    bucket,
    build,
    hot_memo,
    register,
    set_backend_default,
)

MODES = ("off", "cached", "on")
DEFAULT_BUDGET_S = 5.0
REPS = 3  # timed runs per candidate in the first round (after its warm-up run)
MAX_REPS = 48  # successive halving doubles the runs per round up to this
STOP_RATIO = 2.0  # a candidate this much slower than the best so far stops at once
MARGIN = 0.02  # a winner must beat the default by this much, else the default stays
# The walk's 3-run timings are noisy: among thousands of near-equal candidates the fastest-
# looking is often a lucky one (16 x 4096 x 11008 through Vulkan picked 90 us points over an
# 85 us one). The best few are kept (their buffers too) and re-timed at the end, with more runs.
FINALISTS = 32
FINAL_SHARE = 0.1  # of the budget, kept for re-timing the finalists


# -- modes, keys and targets ----------------------------------------------------------------------
def mode() -> str:
    """``RUDA_TUNE``: off | cached (default) | on; anything else warns and reads as cached."""
    m = os.environ.get("RUDA_TUNE", "cached").strip().lower() or "cached"
    if m not in MODES:
        _warn_once(f"mode{m}", f"ruda: RUDA_TUNE={m!r} is not one of {', '.join(MODES)}; "
                   "using 'cached'", RuntimeWarning)  # fmt: skip
        return "cached"
    return m


def budget() -> float:
    """``RUDA_TUNE_BUDGET``: seconds the search of one key may take (default 5)."""
    try:
        return max(0.0, float(os.environ.get("RUDA_TUNE_BUDGET", DEFAULT_BUDGET_S)))
    except ValueError:
        return DEFAULT_BUDGET_S


# -- decisions ------------------------------------------------------------------------------------
@dataclass
class Decision:
    """The outcome of a search: the chosen params and how they were measured."""

    params: Params
    time_s: float | None = None
    default_s: float | None = None
    clock: str = ""
    tried: int = 0  # candidates run (compiled, checked, timed)
    total: int = 0  # candidates in the space
    rejected: list[tuple[Params, str]] = field(default_factory=list)
    source: str = "tuned"  # tuned | stored | heuristic

    @property
    def speedup(self) -> float | None:
        if not self.time_s or not self.default_s:
            return None
        return self.default_s / self.time_s


_STORES: dict[str, tune_store.Store] = {}
_LOCK = threading.RLock()
_WARNED: set[str] = set()
_progress: Callable[[str, dict[str, Any]], None] | None = None


def _warn_once(tag: str, msg: str, cls: type[Warning] = tune_store.StoreWarning) -> None:
    if tag not in _WARNED:
        _WARNED.add(tag)
        warnings.warn(msg, cls, stacklevel=3)


def store() -> tune_store.Store:
    """The store at ``$RUDA_CACHE_DIR/tune.sqlite`` (one object per path)."""
    path = tune_store.default_path()
    s = _STORES.get(path)
    if s is None:
        with _LOCK:
            s = _STORES.setdefault(path, tune_store.Store(path))
    return s


def set_progress(callback: Callable[[str, dict[str, Any]], None] | None) -> None:
    """Call ``callback(event, info)`` during searches: ``start`` (family, key, total), ``step``
    (done, total), ``done`` (decision). The CLI draws its progress bar with it."""
    global _progress
    _progress = callback


def _emit(event: str, **info: Any) -> None:
    if _progress is not None:
        _progress(event, info)


def _row_key(family: str, key: Key, target: Target) -> dict[str, str]:
    from ..._version import __version__

    return {"device": f"{target.backend}:{target.device}", "driver": target.driver,
            "version": __version__, "family": family, "op": key.op,
            "dtypes": ",".join(key.dtypes), "layout": key.layout, "bucket": key.bucket}  # fmt: skip


def lookup(family: str, key: Key, target: Target) -> Params | None:
    """The stored decision for ``key`` on ``target`` if it is still a valid variant, else None.
    Store failures warn (once) and read as no decision."""
    try:
        row = store().get(_row_key(family, key, target))
    except Exception as e:  # never let the cache break a computation
        _warn_once(f"read{type(e).__name__}", f"ruda: tuning store unreadable ({e}); "
                   "using heuristic defaults")  # fmt: skip
        return None
    if row is None or not FAMILIES[family].accepts(row["params"], key, target):
        return None
    return row["params"]


def choose(family: str, key: Key, target: Target,
           runner: Callable[[], Any] | Any | None = None) -> Params:  # fmt: skip
    """The parameters a backend should build ``family`` with for ``key`` on ``target``.

    ``runner`` (a runner, or a function making one, called only when a search runs) lets mode
    ``on`` tune a key that has no decision yet. The result is shared: do not modify it.
    """
    return decide(family, key, target, runner)[0]


def decide(family: str, key: Key, target: Target,
           runner: Callable[[], Any] | Any | None = None) -> tuple[Params, str]:  # fmt: skip
    """``choose``'s parameters and where they come from: ``stored`` or ``tuned`` (a decision),
    ``heuristic``, ``off`` or ``untunable`` (the default: the backend keeps its own choice)."""
    m, env = mode(), os.environ.get("RUDA_CACHE_DIR")
    fk = (m, env, family, target, key)  # exact shape: no bucketing on the hot path
    hit = _FAST.get(fk)
    if hit is not None and (hit[1] != "heuristic" or m != "on" or runner is None):
        return hit
    fam = FAMILIES[family]
    if m == "off":
        return _remember(fk, None, (fam.heuristic(key, target), "off"))
    mk = _memo_key(family, key, target)
    hit = _MEMO.get(mk)
    # A bucket's decision is rechecked for this exact key (a variant may need, say, n % 4 == 0).
    if (
        hit is not None
        and (hit[1] != "heuristic" or m != "on" or runner is None)
        and (hit[1] not in ("stored", "tuned") or fam.accepts(hit[0], key, target))
    ):
        return _remember(fk, None, hit)
    with _LOCK:
        params = lookup(family, key, target)
        src = "stored"
        if params is None and m == "on" and runner is not None:
            try:
                r = runner() if callable(runner) and not hasattr(runner, "prepare") else runner
                dec = tune(family, key, target, r)
                # a default that disagrees with NumPy is kept, and not searched again
                params, src = dec.params, "tuned" if dec.source == "tuned" else "untunable"
            except Exception as e:  # a failed search must not fail the computation
                _warn_once(f"tune{family}{key}", f"ruda tune: tuning {family} {key} failed "
                           f"({type(e).__name__}: {e}); using the heuristic default",
                           RuntimeWarning)  # fmt: skip
                params, src = fam.heuristic(key, target), "untunable"  # not retried
        if params is None:
            params, src = fam.heuristic(key, target), "heuristic"
        return _remember(fk, mk, (params, src))


def _memo_key(family: str, key: Key, target: Target) -> tuple:
    return (os.environ.get("RUDA_CACHE_DIR"), family, target, key.op, key.dtypes, key.layout,
            key.bucket)  # fmt: skip


def _remember(fk: tuple, mk: tuple | None, entry: tuple[Params, str]) -> tuple[Params, str]:
    if len(_FAST) > 65536:  # many distinct shapes: start over rather than grow without bound
        _FAST.clear()
    _FAST[fk] = entry
    if mk is not None:
        _MEMO[mk] = entry
    return entry


def forget() -> None:
    """Drop this process's memo of decisions and warnings given (the store is untouched)."""
    _clear_memos()
    _WARNED.clear()
    for s in list(_STORES.values()):
        s.close()
    _STORES.clear()


# -- the search -----------------------------------------------------------------------------------
def _median_time(cand: Any, reps: int) -> float:
    return statistics.median(cand.time(reps))


def tune(family: str, key: Key, target: Target, runner: Any, *, budget_s: float | None = None,
         candidates: list[Params] | None = None, persist: bool = True,
         seed: int = 0) -> Decision:  # fmt: skip
    """Search ``family``'s space for ``key`` on ``runner``'s device and store the winner.

    The default runs first and is checked against NumPy's reference; every other candidate
    (nearest to the default and the family's anchors first, and after each new best, nearest
    to it: ``_Order``) is compiled, run once (warm-up), checked against the default's output (a
    mismatch or a failure rejects it), then timed; one ``STOP_RATIO`` times slower than the best
    so far stops there, and only the ``FINALISTS`` fastest so far (and the seeds) are kept. The
    walk stops with ``FINAL_SHARE`` of the budget left; successive halving then re-times the
    finalists with twice the runs and keeps the faster half, until one is left or the budget
    is spent. The winner must beat the default by ``MARGIN``, else the default stays.
    """
    try:
        return _search(family, key, target, runner, budget_s, candidates, persist, seed)
    finally:  # the search's inputs leave the device (a runner kept per context sees many)
        end = getattr(runner, "end_search", None)
        if end is not None:
            end()


def _search(family: str, key: Key, target: Target, runner: Any, budget_s: float | None,
            candidates: list[Params] | None, persist: bool, seed: int) -> Decision:  # fmt: skip
    fam = FAMILIES[family]
    seconds = budget() if budget_s is None else budget_s
    deadline = time.perf_counter() + seconds
    walk_end = deadline - FINAL_SHARE * seconds
    default = fam.heuristic(key, target)
    if candidates:
        pool = [p for p in candidates if fam.accepts(p, key, target)]
    else:  # the family's own enumeration: valid by construction
        pool = fam.candidates(key, target)
    others = [p for p in pool if p != default]
    ties = list(range(len(others)))
    random.Random(seed).shuffle(ties)  # the same order a shuffle of ``others`` itself makes
    # vendors first, then the family's kernels nearest to its own default (a vendor's default
    # has no kernel parameters to be near to)
    native = fam.algorithms(target)[0]
    anchor = default
    if native is not None and default[ALGORITHM] != native:
        anchor = fam.heuristic(key, target, vendors=False)
    vendor = lambda p: native is not None and p[ALGORITHM] != native  # noqa: E731
    seeds = [anchor, *(fam.anchors(key, target) if fam.anchors else ())]
    seeds = [s if native is None else {**s, ALGORITHM: native} for s in seeds]
    walk = _Order(others, seeds, vendor, ties)
    total = len(others) + 1
    _emit("start", family=family, key=key, total=total)
    if fam.inputs is None or fam.output is None:
        raise ValueError(f"ruda tune: family {family} declares no inputs/output to tune with")
    inputs = fam.inputs(key, np.random.default_rng(seed))
    out, tol = fam.output(key), fam.tolerance(key)
    clock = str(getattr(runner, "clock", "host"))
    base = runner.prepare(fam.make(default, key), inputs, out)
    ref_out = base.output()
    if fam.reference is not None and not matches(ref_out, fam.reference(key, inputs), tol):
        warnings.warn(f"ruda tune: the default variant of {family} disagrees with NumPy for "
                      f"{key}; not tuning it", RuntimeWarning, stacklevel=2)  # fmt: skip
        dec = Decision(default, clock=clock, total=total, source="heuristic")
        _emit("done", decision=dec)
        return dec
    alive: list[list[Any]] = [[default, base, _median_time(base, REPS)]]
    kept: list[list[Any]] = []  # the seeds' entries, never dropped before the last stage
    rejected: list[tuple[Params, str]] = []
    tried = 1
    _emit("step", done=1, total=total)
    prefetch, depth, ahead = getattr(runner, "prefetch", None), 0, 0
    if prefetch is not None:
        depth = int(getattr(runner, "prefetch_depth", 1))
    for i in range(len(walk)):
        if time.perf_counter() > walk_end:
            break
        p = walk[i]
        tried += 1
        for q in walk.upcoming(max(ahead, i + 1), i + 1 + depth):  # they compile meanwhile
            with contextlib.suppress(Exception):  # its own prepare() below reports a failure
                prefetch(fam.make(q, key))  # type: ignore[misc]
        ahead = max(ahead, i + 1 + depth)
        try:
            cand = runner.prepare(fam.make(p, key), inputs, out)
            got = cand.output()
        except Exception as e:  # a variant the device cannot compile or run
            rejected.append((p, f"failed: {type(e).__name__}: {str(e)[:200]}"))
            continue
        finally:
            _emit("step", done=i + 2, total=total)
        if not agrees(got, ref_out, tol):
            rejected.append((p, "output differs from the reference"))
            continue
        t = _median_time(cand, REPS)
        fastest = min(a[2] for a in alive)
        if t <= STOP_RATIO * fastest:
            alive.append([p, cand, t])
            if p in seeds:  # the family's own guesses all reach the last stage
                kept.append(alive[-1])
            elif len(alive) > FINALISTS + 1 + len(kept):  # the slowest other rival goes
                alive.remove(max((a for a in alive[1:] if a not in kept), key=lambda a: a[2]))
        if t < fastest:  # a new best: its neighbours next (those compiling ahead stay queued)
            walk.climb(p, i + 1)
            ahead = i + 1
    dflt, rivals = alive[0], alive[1:]
    reps = REPS
    while rivals and time.perf_counter() < deadline:  # successive halving: re-time, keep half
        reps = min(2 * reps, MAX_REPS)
        for a in (dflt, *rivals):  # the default is the baseline of every round
            a[2] = _median_time(a[1], reps)
        rivals.sort(key=lambda a: a[2])
        if len(rivals) == 1:
            break
        rivals = rivals[: math.ceil(len(rivals) / 2)]
    alive = [dflt, *rivals]
    best = min(alive, key=lambda a: a[2])
    if best is not dflt:  # confirm against the default, interleaved, before replacing it
        tb, td = [], []
        for _ in range(3):
            tb += best[1].time(reps)
            td += dflt[1].time(reps)
        best[2], dflt[2] = statistics.median(tb), statistics.median(td)
        if best[2] > dflt[2] * (1 - MARGIN):
            best = dflt
    dec = Decision(dict(best[0]), best[2], dflt[2], clock, tried, total, rejected)
    if persist:
        row = {**_row_key(family, key, target), "params": dec.params, "time_s": dec.time_s,
               "default_s": dec.default_s, "clock": clock, "tried": tried, "total": total,
               "rejected": len(rejected)}  # fmt: skip
        try:
            store().put(row)
        except Exception as e:
            _warn_once(f"write{type(e).__name__}", f"ruda: could not store a tuning decision ({e})")
        _FAST.clear()  # shapes of this bucket memoised before now see the decision
        for memo in _HOT:
            memo.clear()
        _MEMO[_memo_key(family, key, target)] = (dec.params, "tuned")
    _emit("done", decision=dec)
    return dec


# -- the table of stored decisions ----------------------------------------------------------------
def decisions() -> list[dict[str, Any]]:
    """Every stored decision (rows of the store, params decoded)."""
    return store().rows()


def report() -> str:
    """The stored decisions as a text table (one line per key)."""
    rows = decisions()
    if not rows:
        return f"no tuning decisions stored in {store().path}"
    head = ("device", "family", "op", "dtypes", "layout", "bucket", "params", "time", "speedup",
            "clock", "tried")  # fmt: skip
    lines = []
    for r in rows:
        sp = f"{r['default_s'] / r['time_s']:.2f}x" if r["time_s"] and r["default_s"] else "-"
        t = f"{r['time_s'] * 1e6:.1f}us" if r["time_s"] else "-"
        ps = " ".join(f"{k}={v}" for k, v in (r["params"] or {}).items())
        lines.append((r["device"], r["family"], r["op"], r["dtypes"], r["layout"], r["bucket"],
                      ps, t, sp, r["clock"] or "-", f"{r['tried']}/{r['total']}"))  # fmt: skip
    widths = [max(len(str(x)) for x in col) for col in zip(head, *lines, strict=True)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [f"{len(rows)} decision(s) in {store().path}", fmt.format(*head).rstrip()]
    out += [fmt.format(*map(str, ln)).rstrip() for ln in lines]
    return "\n".join(out)


# -- the families declared from the start: reductions, scan, elementwise, cuBLAS in matmul --------
register_families()
