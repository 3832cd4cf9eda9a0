"""Every elementwise kernel the builder renders: op-table entries x dtypes x layouts."""

from __future__ import annotations

from ruda._kernels import elementwise, ir
from ruda._kernels.math import fpstatus
from ruda._kernels.render import wgsl
from ruda._ops import ELEMENTWISE

LAYOUTS = (None, 1, 2, 3, 4)  # contiguous, then strided of rank 1..4


def all_kernels(layouts=LAYOUTS) -> list[ir.Kernel]:
    out = []
    for op in ELEMENTWISE:
        for in_types, out_type in elementwise.supported_types(op.name):
            for nd in layouts:
                out.append(elementwise.build(op.name, in_types, out_type, nd))
                # what the backends launch: with the floating-point status words
                if nd in (None, 1) and fpstatus.applies(op.name, in_types, out_type):
                    out.append(elementwise.build(op.name, in_types, out_type, nd, status=True))
    return out


def wgsl_gap(k: ir.Kernel) -> str | None:
    """Why WGSL cannot render ``k`` (f64 transcendentals), or None."""
    try:
        wgsl.render(k)
    except NotImplementedError as e:
        return str(e)
    return None
