"""The package's layer contract (docs/architecture.md), checked on the source: each layer
imports only the layers below it, imports inside function bodies included; no import cycle
between modules; no module imports another module's private names. Needs no adapter."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers import REPO

ROOT = REPO / "gpuia"

# Lowest first. A module may import its own layer and those below; the packages of one layer
# listed as separate sets are independent siblings (neither imports the other).
LAYERS = [
    [{"gpuia.errors", "gpuia.util"}],
    [{"gpuia.d3d"}],
    [{"gpuia.reference", "gpuia"}],  # gpuia's top level re-exports the model and the reference
    [{"gpuia.wgsl"}],
    [{"gpuia.hlsl"}, {"gpuia.gpu"}],
    [{"gpuia.harness", "gpuia.source"}],
    [{"gpuia.cli", "gpuia.fuzz", "gpuia.pytest_plugin", "gpuia.demos", "gpuia.__main__"}],
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _place(module: str) -> tuple[int, int]:
    """(layer, sibling group) of a module: the longest package prefix listed in LAYERS."""
    best = None
    for rank, groups in enumerate(LAYERS):
        for g, names in enumerate(groups):
            for name in names:
                if module == name or module.startswith(name + ".") and name != "gpuia":
                    if best is None or len(name) > best[0]:
                        best = (len(name), rank, g)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[1], best[2]


def _imports(module: str, path: Path):
    """(imported gpuia module, imported names, line, inside a function) for every import."""
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    functions = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef,
                                                                 ast.AsyncFunctionDef))
                 for n in ast.walk(f) if n is not f}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_pkg else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "gpuia" or target.startswith("gpuia."):
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    yield (sub if sub in MODULES else target,
                           None if sub in MODULES else alias.name, node.lineno,
                           id(node) in functions)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "gpuia" or alias.name.startswith("gpuia."):
                    yield alias.name, None, node.lineno, id(node) in functions


EDGES = {m: list(_imports(m, p)) for m, p in MODULES.items()}



def test_every_module_is_in_a_layer():
    for m in MODULES:
        _place(m)


def test_no_module_imports_a_layer_above_it():
    wrong = []
    for m, edges in EDGES.items():
        rank, group = _place(m)
        for target, _, line, _ in edges:
            if target not in MODULES:
                continue
            t_rank, t_group = _place(target)
            if t_rank > rank or (t_rank == rank and t_group != group):
                wrong.append(f"{MODULES[m].relative_to(ROOT.parent)}:{line} imports {target}")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_no_module_imports_private_names_of_another():
    wrong = []
    for m, edges in EDGES.items():
        for target, name, line, _ in edges:
            if name and name.startswith("_") and not name.startswith("__") and target != m:
                wrong.append(f"{MODULES[m].relative_to(ROOT.parent)}:{line} imports "
                             f"{target}.{name}")
    assert not wrong, "private names imported across modules:\n" + "\n".join(wrong)


def test_no_import_cycles():
    """Tarjan's strongly connected components over module imports (function bodies too)."""
    graph = {m: {t for t, _, _, _ in e if t in MODULES and t != m} for m, e in EDGES.items()}
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            # A package's __init__ re-exporting its submodules, which import the package's
            # siblings through it, is no cycle between modules.
            pkg = min(comp, key=len)
            if len(comp) > 1 and not (MODULES[pkg].name == "__init__.py" and all(
                    c == pkg or c.startswith(pkg + ".") for c in comp)):
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("layer", range(len(LAYERS)))
def test_layer_table_names_real_packages(layer):
    for group in LAYERS[layer]:
        for name in group:
            if name == "gpuia.demos":
                continue  # being moved out of the package to programs under demos/
            assert name in MODULES, f"{name} in LAYERS does not exist"
