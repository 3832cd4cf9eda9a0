"""Narrow-type packing: an IR-to-IR pass for languages without 8/16-bit or bool storage (WGSL).

Device buffers hold NumPy's bytes. A buffer of bool, int8/uint8 or int16/uint16 becomes an
array of u32 words: a load extracts the byte or halfword (sign-extending signed types; bool is
``byte != 0``); a ``StoreWord`` (one invocation owns the word) packs its elements into one plain
store, merging only the last, partial word; any other store becomes ``atomicAnd`` + ``atomicOr``
on ``array<atomic<u32>>`` so that neighbours written by other invocations never race.

    >>> from ruda._kernels import elementwise, ir
    >>> from ruda._kernels.render import storage
    >>> k = storage.pack_narrow(elementwise.build("equal", (ir.I8, ir.I8), ir.BOOL, 2))
    >>> [(b.name, b.elem.name, b.atomic) for b in k.buffers]
    [('in0', 'u32', False), ('in1', 'u32', False), ('out', 'u32', True)]
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from .. import ir
from ..ir import BOOL, I32, U32


def pack_narrow(k: ir.Kernel) -> ir.Kernel:
    """``k`` with every narrow buffer rewritten as u32 words (a no-op when there are none)."""
    narrow = {b.name: b for b in k.buffers if b.elem.is_narrow}
    if not narrow:
        return k
    sc = ir.scan(k)
    stored, worded = sc.stored & narrow.keys(), sc.worded
    if stored & worded:
        raise ValueError("ruda kernels: a buffer written both by Store and StoreWord")
    words = {name: replace(b, elem=U32, atomic=name in stored) for name, b in narrow.items()}
    p = _Packer(narrow, words)
    buffers = tuple(words.get(b.name, b) for b in k.buffers)
    return replace(k, buffers=buffers, body=p.stmts(k.body))


def _shift_of(per: int) -> int:
    return {4: 2, 2: 1}[per]


def to_bits(v: ir.Expr) -> ir.Expr:
    """The low ``v.type.bits`` bits of a narrow value, as a u32."""
    if v.type is BOOL:
        return ir.select(v, ir.Const(1, U32), ir.Const(0, U32))
    return ir.Bitcast(v, U32) & ((1 << v.type.bits) - 1)


class _Packer:
    def __init__(self, narrow: dict[str, ir.Buffer], words: dict[str, ir.Buffer]) -> None:
        self.narrow, self.words = narrow, words

    # -- expressions -----------------------------------------------------------------------
    def expr(self, e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Load) and e.buf.name in self.narrow:
            return self.extract(e.buf.elem, self.words[e.buf.name], self.expr(e.index))
        changes: dict[str, Any] = {}
        for f in fields(e):
            v = getattr(e, f.name)
            if isinstance(v, ir.Expr):
                changes[f.name] = self.expr(v)
            elif isinstance(v, tuple) and v and isinstance(v[0], ir.Expr):
                changes[f.name] = tuple(self.expr(x) for x in v)
        return replace(e, **changes) if changes else e

    def extract(self, t: ir.Type, wbuf: ir.Buffer, idx: ir.Expr) -> ir.Expr:
        per = 32 // t.bits
        word = ir.Load(wbuf, idx >> _shift_of(per), U32)
        sh = (idx & (per - 1)) * t.bits
        if t is BOOL:
            return ((word >> sh) & 0xFF).ne(0)
        if t.kind == "i":  # move the field to the top, then shift back arithmetically
            top = ir.Bitcast(word << (ir.Const(32 - t.bits, U32) - sh), I32)
            return ir.Bitcast(top >> (32 - t.bits), t)
        return ir.Bitcast((word >> sh) & ((1 << t.bits) - 1), t)

    # -- statements --------------------------------------------------------------------------
    def stmts(self, body: tuple[Any, ...]) -> tuple[Any, ...]:
        out: list[Any] = []
        for s in body:
            r = self.stmt(s)
            out.extend(r if isinstance(r, list) else [r])
        return tuple(out)

    def stmt(self, s: Any) -> Any:
        if isinstance(s, ir.Store) and s.buf.name in self.narrow:
            return self.store(s)
        if isinstance(s, ir.StoreWord) and s.buf.name in self.narrow:
            return self.store_word(s)
        if isinstance(s, ir.If):
            return replace(s, cond=self.expr(s.cond), then=self.stmts(s.then),
                           orelse=self.stmts(s.orelse))  # fmt: skip
        if isinstance(s, ir.For):
            return replace(s, start=self.expr(s.start), stop=self.expr(s.stop),
                           step=self.expr(s.step), body=self.stmts(s.body))  # fmt: skip
        changes = {}
        for f in fields(s):
            v = getattr(s, f.name)
            if isinstance(v, ir.Expr):
                changes[f.name] = self.expr(v)
        return replace(s, **changes) if changes else s

    def store(self, s: ir.Store) -> list[Any]:
        t, wbuf = s.buf.elem, self.words[s.buf.name]
        per = 32 // t.bits
        idx = self.expr(s.index)
        w = idx >> _shift_of(per)
        sh = (idx & (per - 1)) * t.bits
        mask = ir.Const((1 << t.bits) - 1, U32)
        bits = to_bits(self.expr(s.value))
        # the two atomics touch only this element's bits, so other elements' writes commute
        return [ir.Atomic("and", wbuf, w, ~(mask << sh)), ir.Atomic("or", wbuf, w, bits << sh)]

    def store_word(self, s: ir.StoreWord) -> list[Any]:
        t, wbuf = s.buf.elem, self.words[s.buf.name]
        per = len(s.values)
        word = self.expr(s.word)
        packed: ir.Expr = ir.Const(0, U32)
        for j, v in enumerate(s.values):
            b = to_bits(self.expr(v))
            packed = packed | (b << (j * t.bits)) if j else b
        p, m = ir.Var("packed", U32), ir.Var("valid", U32)
        keep = ir.Const(0xFFFFFFFF, U32) << (m * t.bits)  # the bits of elements past count
        merged = (ir.Load(wbuf, word, U32) & keep) | (p & ~keep)
        return [
            ir.Let(p, packed),
            ir.Let(m, self.expr(s.count) - word * per),
            ir.If(m >= per, (ir.Store(wbuf, word, p),), (ir.Store(wbuf, word, merged),)),
        ]
