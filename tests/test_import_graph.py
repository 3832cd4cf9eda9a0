"""The package's import graph: no cycles (imports inside functions counted), and the backends
below the namespace (they import only other backends, the kernels and the lower layer)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "ruda"

# What a backend may import from outside ruda._backends and ruda._kernels: the lower layer, which
# imports no namespace module (dtypes, promotion rules, the op table, errors, the dispatch table),
# and the C extensions (the cuda backend's launch path is one).
LOWER = {"ruda._dtypes", "ruda._errors", "ruda._dispatch", "ruda._ops", "ruda._promotion",
         "ruda._ufunc", "ruda._version", "ruda._devices"}  # fmt: skip
LOWER |= {"ruda._native"} | {f"ruda._native.{c.stem}" for c in (ROOT / "_native").glob("*.c")}


def _modules() -> dict[str, tuple[Path, list[str]]]:
    """Module name -> (file, the package its relative imports start from)."""
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            mods[".".join(parts)] = (path, parts)
        else:
            mods[".".join(parts)] = (path, parts[:-1])
    for path in (ROOT / "_native").glob("*.c"):  # the C extensions: leaves of the graph
        mods[f"ruda._native.{path.stem}"] = (None, [])
    return mods


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node but those under ``if TYPE_CHECKING:`` (annotations only: never imported)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            test = getattr(child, "test", None) if isinstance(child, ast.If) else None
            if test is not None and "TYPE_CHECKING" in ast.unparse(test):
                todo.extend(child.orelse)
                continue
            todo.append(child)


def _imports(path: Path, package: list[str], mods: dict) -> Iterator[str]:
    """The ruda modules a file imports, at any depth of its code."""

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    for node in _runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # `from pkg import sub` imports the submodule; `from mod import name` the module
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names]
        else:
            continue
        for t in targets:
            if t.startswith("ruda") and (k := known(t)):
                yield k


def graph() -> dict[str, set[str]]:
    mods = _modules()
    g = {m: set(_imports(p, pkg, mods)) - {m} if p else set() for m, (p, pkg) in mods.items()}
    g.pop("ruda.__main__", None)  # the command line: nothing imports it
    return g


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while (w := stack.pop()) != v:
                comp.append(w)
            if comp:
                out.append(sorted([v, *comp]))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    found = cycles(graph())
    assert not found, "import cycles in ruda:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_backends_import_only_the_lower_layer() -> None:
    bad = sorted(
        f"{m} imports {t}"
        for m, targets in graph().items()
        if m.startswith("ruda._backends")
        for t in targets
        if not t.startswith(("ruda._backends", "ruda._kernels")) and t not in LOWER
    )
    assert not bad, "\n".join(bad)


def test_the_checker_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_kernels_import_no_backend() -> None:
    """Kernel builders, renderers and the tuner sit below every backend: a backend hands the tuner
    its runner, never the other way round."""
    bad = sorted(
        f"{m} imports {t}"
        for m, targets in graph().items()
        if m.startswith("ruda._kernels")
        for t in targets
        if not t.startswith("ruda._kernels") and t not in LOWER - {"ruda._devices"}
    )
    assert not bad, "\n".join(bad)
