"""The shared C-like renderer: IR -> source text. CUDA and WGSL are small subclasses of tables.

A renderer is a table of type names, operator spellings and function spellings plus the few
methods where the languages' syntax differs (declarations, literals, casts, the entry point).
"""

from __future__ import annotations

import math
from typing import Any

from .. import ir
from ..math import cmath

_BINARY = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "and": "&", "or": "|", "xor": "^",
    "shl": "<<", "shr": ">>", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=",
    "land": "&&", "lor": "||",
}  # fmt: skip
_UNARY = {"neg": "-", "not": "!", "bnot": "~"}


class CLike:
    """Renders kernels for a C-like language; subclasses fill in the tables."""

    types: dict[ir.Type, str] = {}
    functions: dict[str, str] = {}  # IR function name -> language spelling ({t}: type suffix)
    # IR function name -> builder of an IR ``Function`` replacing it (by argument type), for
    # functions the language lacks or gets wrong.
    ir_functions: dict[str, Any] = {}
    indent = "    "

    def __init__(self) -> None:
        self.helpers: dict[str, str] = {}  # helper functions the body needed, by name

    # -- expressions --------------------------------------------------------------------
    def type(self, t: ir.Type) -> str:
        try:
            return self.types[t]
        except KeyError:
            raise TypeError(f"{type(self).__name__}: no {t.name} type") from None

    def expr(self, e: ir.Expr) -> str:
        low = cmath.lower(e)  # complex operators and casts become calls of complex helpers
        if low is not None:
            e = low
        return getattr(self, f"_e_{type(e).__name__.lower()}")(e)

    def _e_const(self, e: ir.Const) -> str:
        return self.literal(e.value, e.type)

    def _e_var(self, e: ir.Var) -> str:
        return e.name

    def _e_unary(self, e: ir.Unary) -> str:
        return f"({_UNARY[e.op]}{self.expr(e.a)})"

    def _e_binary(self, e: ir.Binary) -> str:
        return f"({self.expr(e.a)} {_BINARY[e.op]} {self.expr(e.b)})"

    def _e_call(self, e: ir.Call) -> str:
        args = [self.expr(a) for a in e.args]
        if e.fn == "complex":
            return self.complex_value(e.type, *args)
        if e.fn in ("creal", "cimag"):
            return f"{args[0]}.{'x' if e.fn == 'creal' else 'y'}"
        defn = e.defn
        if defn is None and e.fn in self.ir_functions and e.args:
            defn = self.ir_functions[e.fn](e.args[0].type)
        if defn is not None:
            self.need(defn)
            return f"{defn.name}({', '.join(args)})"
        spelled = self.function(e.fn, e.args[0].type if e.args else e.type)
        if "{0}" in spelled:  # an inline expansion, e.g. isnan(x) -> (x != x)
            return "(" + spelled.format(*args) + ")"
        return f"{spelled}({', '.join(args)})"

    def _e_select(self, e: ir.Select) -> str:
        c, t, f = self.expr(e.cond), self.expr(e.if_true), self.expr(e.if_false)
        return f"({c} ? {t} : {f})"

    def _e_cast(self, e: ir.Cast) -> str:
        return f"{self.type(e.type)}({self.expr(e.a)})"

    def _e_load(self, e: ir.Load) -> str:
        return f"{e.buf.name}[{self.expr(e.index)}]"

    def _e_bitcast(self, e: ir.Bitcast) -> str:
        raise NotImplementedError

    def need(self, f: ir.Function) -> None:
        """Render helper ``f`` (and, first, the helpers it calls) into ``self.helpers`` once."""
        if f.name in self.helpers:
            return
        self.helpers[f.name] = ""  # placeholder: recursion stops here
        body = self.stmts(f.body, 1)
        del self.helpers[f.name]
        self.helpers[f.name] = "\n".join([self.function_head(f) + " {", *body, "}"])

    def function_head(self, f: ir.Function) -> str:
        raise NotImplementedError

    def function(self, fn: str, t: ir.Type) -> str:
        spelled = self.functions.get(fn, fn)
        return spelled.replace("{t}", self.suffix(t))

    def suffix(self, t: ir.Type) -> str:
        return ""

    def complex_value(self, t: ir.Type, re: str, im: str) -> str:
        """A complex value of type ``t`` from its rendered parts."""
        return f"{self.type(t)}({re}, {im})"

    def literal(self, v: Any, t: ir.Type) -> str:
        if t.is_complex:
            v = complex(v)
            return self.complex_value(t, self.literal(v.real, t.part), self.literal(v.imag, t.part))
        if t is ir.BOOL:
            return "true" if v else "false"
        if t.is_float:
            if math.isnan(v) or math.isinf(v):
                return self.special_float(v, t)
            return self.float_literal(float(v), t)
        return self.int_literal(int(v), t)

    def float_literal(self, v: float, t: ir.Type) -> str:
        return repr(v)

    def int_literal(self, v: int, t: ir.Type) -> str:
        return str(v)

    def special_float(self, v: float, t: ir.Type) -> str:
        raise NotImplementedError

    # -- statements -----------------------------------------------------------------------
    def stmts(self, body: tuple[Any, ...], depth: int) -> list[str]:
        out: list[str] = []
        for s in body:
            out.extend(getattr(self, f"_s_{type(s).__name__.lower()}")(s, depth))
        return out

    def _s_let(self, s: ir.Let, d: int) -> list[str]:
        return [self.indent * d + self.declare(s.var, self.expr(s.value), s.mutable)]

    def _s_assign(self, s: ir.Assign, d: int) -> list[str]:
        return [f"{self.indent * d}{s.var.name} = {self.expr(s.value)};"]

    def _s_store(self, s: ir.Store, d: int) -> list[str]:
        return [f"{self.indent * d}{s.buf.name}[{self.expr(s.index)}] = {self.expr(s.value)};"]

    def _s_if(self, s: ir.If, d: int) -> list[str]:
        pad = self.indent * d
        out = [f"{pad}if ({self.expr(s.cond)}) {{", *self.stmts(s.then, d + 1)]
        if s.orelse:
            out += [f"{pad}}} else {{", *self.stmts(s.orelse, d + 1)]
        return out + [f"{pad}}}"]

    def _s_for(self, s: ir.For, d: int) -> list[str]:
        pad = self.indent * d
        head = self.for_head(s.var, self.expr(s.start), self.expr(s.stop), self.expr(s.step))
        return [f"{pad}{head} {{", *self.stmts(s.body, d + 1), f"{pad}}}"]

    def _s_while(self, s: ir.While, d: int) -> list[str]:
        pad = self.indent * d
        return [f"{pad}while ({self.expr(s.cond)}) {{", *self.stmts(s.body, d + 1), f"{pad}}}"]

    def _s_break(self, s: ir.Break, d: int) -> list[str]:
        return [self.indent * d + "break;"]

    def _s_barrier(self, s: ir.Barrier, d: int) -> list[str]:
        return [self.indent * d + (self.storage_barrier() if s.storage else self.barrier())]

    def storage_barrier(self) -> str:
        """A barrier that also orders storage-buffer accesses (CUDA's ``__syncthreads`` does)."""
        return self.barrier()

    def _s_return(self, s: ir.Return, d: int) -> list[str]:
        if s.value is None:
            return [self.indent * d + "return;"]
        return [f"{self.indent * d}return {self.expr(s.value)};"]

    def _s_atomic(self, s: ir.Atomic, d: int) -> list[str]:
        raise NotImplementedError

    def _s_storeword(self, s: ir.StoreWord, d: int) -> list[str]:
        # Languages with byte stores: one guarded store per element.
        pad, per = self.indent * d, len(s.values)
        out = []
        for j, v in enumerate(s.values):
            idx = ir.Binary("add", ir.Binary("mul", s.word, ir.Const(per, ir.U32), ir.U32),
                            ir.Const(j, ir.U32), ir.U32)  # fmt: skip
            cond = self.expr(ir.Binary("lt", idx, s.count, ir.BOOL))
            out.append(f"{pad}if ({cond}) {{ {s.buf.name}[{self.expr(idx)}] = {self.expr(v)}; }}")
        return out

    def declare(self, var: ir.Var, value: str, mutable: bool) -> str:
        raise NotImplementedError

    def for_head(self, var: ir.Var, start: str, stop: str, step: str) -> str:
        raise NotImplementedError

    def barrier(self) -> str:
        raise NotImplementedError

    # -- whole kernels ----------------------------------------------------------------------
    def render(self, k: ir.Kernel) -> str:
        self.helpers = {}
        body = self.stmts(k.body, 1)
        return self.module(k, body)

    def render_many(self, kernels: list[ir.Kernel]) -> str:
        """One module holding several kernels (entry points), helpers emitted once."""
        raise NotImplementedError

    def module(self, k: ir.Kernel, body: list[str]) -> str:
        raise NotImplementedError
