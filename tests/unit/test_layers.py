"""The package's layer contract (docs/architecture.md), checked on the source: each layer
imports only the layers below it, imports inside function bodies included; no import cycle
between modules; no two packages that import each other, directly or through others; no module
that reads another module's private names (imported, as a module's attribute, or as an
attribute of another module's objects). Needs no adapter."""

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


# -- packages -------------------------------------------------------------------------------
def _package(module: str) -> str:
    """The package a module belongs to: its folder (a package's __init__ belongs to the package
    itself). gpuia's top-level modules (errors, pytest_plugin, __main__, the top-level API) are
    each one of their own: they are not one folder's job."""
    if MODULES[module].name == "__init__.py" or module.count(".") == 1:
        return module
    return module.rsplit(".", 1)[0]


def _package_graph() -> dict[str, dict[str, tuple[str, str, int]]]:
    """package -> {package it imports: (importing module, imported module, line)}. A package's
    __init__ re-exporting its own subpackages is the package's face, not a dependency of the
    folder: those imports are left out (gpuia.gpu's __init__ exports gpuia.gpu.context's
    Context, whose modules import gpuia.gpu.device)."""
    graph: dict[str, dict[str, tuple[str, str, int]]] = {}
    for m, edges in EDGES.items():
        a = _package(m)
        for target, _, line, _ in edges:
            if target not in MODULES:
                continue
            if MODULES[m].name == "__init__.py" and target.startswith(m + "."):
                continue
            b = _package(target)
            if a != b:
                graph.setdefault(a, {}).setdefault(b, (m, target, line))
    return graph


def _path(graph, start: str, goal: str) -> list[str] | None:
    """The shortest chain of imports from package ``start`` to package ``goal`` (breadth
    first), as ``module:line imports module`` steps; None when there is none."""
    came: dict[str, tuple[str, tuple[str, str, int]] | None] = {start: None}
    todo = [start]
    while todo:
        nxt = []
        for p in todo:
            for q, why in sorted(graph.get(p, {}).items()):
                if q in came:
                    continue
                came[q] = (p, why)
                if q == goal:
                    steps = []
                    while came[q] is not None:
                        p, (m, t, line) = came[q]
                        steps.append(f"{MODULES[m].relative_to(ROOT.parent)}:{line} imports {t}")
                        q = p
                    return steps[::-1]
                nxt.append(q)
        todo = nxt
    return None


# Pairs of packages allowed to reach each other for now, each with why and until when. The
# test fails when a pair listed here no longer does: delete its entry then.
ALLOWED_PACKAGE_PAIRS: set[tuple[str, str]] = set()


def test_no_two_packages_import_each_other():
    """No two packages import each other, in either direction, directly or through other
    packages, imports inside function bodies included: what two folders share belongs in the
    lower one or in a module both use."""
    graph = _package_graph()
    packages = sorted(set(graph) | {q for deps in graph.values() for q in deps})
    pairs = {}
    for i, a in enumerate(packages):
        for b in packages[i + 1:]:
            there, back = _path(graph, a, b), _path(graph, b, a)
            if there and back:
                pairs[(a, b)] = there + back
    wrong = [f"{a} <-> {b}:\n  " + "\n  ".join(steps) for (a, b), steps in sorted(pairs.items())
             if (a, b) not in ALLOWED_PACKAGE_PAIRS]
    assert not wrong, "packages that import each other:\n" + "\n".join(wrong)
    stale = sorted(ALLOWED_PACKAGE_PAIRS - set(pairs))
    assert not stale, f"no longer importing each other, delete from ALLOWED_PACKAGE_PAIRS: {stale}"


def test_the_package_rule_sees_a_pair():
    """The rule itself, on a graph written out: a pair through a third package is found, a
    one-way chain is not."""
    graph = {"gpuia.a": {"gpuia.b": ("gpuia.errors", "gpuia.util", 1)},
             "gpuia.b": {"gpuia.c": ("gpuia.errors", "gpuia.util", 2)},
             "gpuia.c": {"gpuia.a": ("gpuia.errors", "gpuia.util", 3)}}
    assert _path(graph, "gpuia.a", "gpuia.c") and _path(graph, "gpuia.c", "gpuia.a")
    del graph["gpuia.c"]
    assert _path(graph, "gpuia.a", "gpuia.c") and _path(graph, "gpuia.c", "gpuia.a") is None


# -- private names read across modules ------------------------------------------------------
def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


# (module, what it reads) -> why. Only other libraries' privates, each where gpuia has no public
# way to the same thing; nothing of gpuia's own is allowed here.
ALLOWED_PRIVATE_READS = {
    ("gpuia.gpu._ffi", "wgpu.backends.wgpu_native._ffi"):
        "wgpu-native's cffi lib, for direct calls of the hottest render-pass commands (wgpu-py's "
        "public methods are the fallback when the module is not there)",
    ("gpuia.gpu._ffi", "_internal"):
        "the wgpu-native handle of a wgpu-py object, for the same direct calls",
    ("gpuia.gpu.caps", "wgpu.backends.wgpu_native._mappings"):
        "the binding's enum table: the vertex formats this wgpu-native build maps (the enum "
        "is trusted when the module is not there)",
    ("gpuia.gpu.targets", "_device"):
        "the device a wgpu texture belongs to, which wgpu-py exposes no other way (read with "
        "getattr and a default)",
    ("gpuia.util.wgpu_types", "wgpu.backends.wgpu_native._ffi"):
        "wgpu-py's cffi instance, whose cache of parsed type texts gets every text's type from "
        "one parse (nothing is done when the module is not there)",
    ("gpuia.util.wgpu_types", "_parsed_types"):
        "cffi's cache of parsed type texts (read with getattr; nothing is done when absent)",
    ("gpuia.util.wgpu_types", "_lock"):
        "the lock cffi holds while it fills that cache (read with getattr)",
    ("gpuia.util.wgpu_ffi", "_cffi_backend"):
        "cffi's C module, whose FFI class is what cffi's own out-of-line ABI modules call (the "
        "module wgpu-py's declarations are cached as); parsed as before when it is not there",
    ("gpuia.util.wgpu_ffi", "wgpu._coreutils"):
        "where wgpu-py finds its header, read as wgpu-py reads it, to key the cached "
        "declarations (parsed as before when the function is not there)",
    ("gpuia.source.kinds", "_kind_id"):
        "libclang's Python bindings keep a cursor kind they do not name only there",
    ("gpuia.util.interrupt", "_thread"):
        "a standard-library module, documented (interrupt_main)",
    ("gpuia.util.interrupt", "os._exit"): "a documented standard-library function",
    ("gpuia.hlsl.sandbox", "os._exit"): "a documented standard-library function",
}


def _private_reads(module: str, path: Path):
    """(line, what) for each private name of another module that ``module`` reads:

    * an import of a private module (``from .. import _ffi``, ``import _thread``), unless the
      module is gpuia's and the reader is in the package that holds it;
    * ``m._name`` where ``m`` is a name an ``import`` bound to a module;
    * ``x._name`` and ``getattr(x, "_name")`` on any other object but ``self`` and ``cls``,
      unless this module itself defines an attribute or class member ``_name`` (then it reads
      its own objects' state, as ``other._key`` in ``__eq__``): what is left is another
      module's object. (An object of another module read through a name this module also
      defines goes unseen: the check is static and errs that way only.)"""
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    own_package = module if is_pkg else module.rsplit(".", 1)[0]
    defined: set[str] = set()
    modules: set[str] = set()  # local names bound to modules by an import
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    defined.add(item.name)
                elif isinstance(item, ast.Assign):
                    defined.update(t.id for t in item.targets if isinstance(t, ast.Name))
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    defined.add(item.target.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            defined.add(node.attr)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "setattr" and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant)):
            defined.add(str(node.args[1].value))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules.add(alias.asname or alias.name.split(".")[0])
                if any(_private(part) for part in alias.name.split(".")):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_pkg else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if full in MODULES:
                    modules.add(alias.asname or alias.name)
                if any(_private(part) for part in full.split(".")[:-1] if part):
                    what = source  # a name from a private module
                elif full in MODULES and _private(alias.name):
                    what = full  # a private module itself
                else:
                    continue
                if what.startswith("gpuia.") and (own_package + ".").startswith(
                        what.rsplit(".", 1)[0] + "."):
                    continue  # a private module of the reader's own package
                yield node.lineno, what
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            obj, name = node.value, node.attr
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "getattr" and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str)):
            obj, name = node.args[0], node.args[1].value
        else:
            continue
        if not _private(name) or isinstance(obj, ast.Name) and obj.id in ("self", "cls"):
            continue
        dotted = ast.unparse(obj)
        if dotted.split(".")[0] in modules and all(
                part.isidentifier() for part in dotted.split(".")):
            yield node.lineno, f"{dotted}.{name}"  # a module's private name
        elif name not in defined:
            yield node.lineno, name


def test_no_module_reads_private_names_of_another():
    wrong, used = [], set()
    for m, path in MODULES.items():
        for line, what in _private_reads(m, path):
            if (m, what) in ALLOWED_PRIVATE_READS:
                used.add((m, what))
                continue
            wrong.append(f"{path.relative_to(ROOT.parent)}:{line} reads {what}")
    assert not wrong, "private names read across modules:\n" + "\n".join(wrong)
    stale = sorted(set(ALLOWED_PRIVATE_READS) - used)
    assert not stale, f"no longer read, delete from ALLOWED_PRIVATE_READS: {stale}"


def test_the_private_rule_sees_each_form(tmp_path):
    """The rule itself, on a module written out: each form is found, a module's own objects'
    private state is not."""
    path = tmp_path / "example.py"
    path.write_text(
        "import os\n"
        "from gpuia.d3d import desc\n"
        "from gpuia.gpu import _ffi\n"
        "from wgpu._private import thing\n"
        "class Key:\n"
        "    _order = 0\n"
        "    def __eq__(self, other):\n"
        "        return self._order == other._order and cls._x\n"
        "def f(d, buf):\n"
        "    return desc._TABLE, type(d)._ALIASES, getattr(buf, '_internal'), os._exit\n")
    found = {what for _, what in _private_reads("gpuia.harness.example", path)}
    assert found == {"gpuia.gpu._ffi", "wgpu._private", "desc._TABLE", "_ALIASES", "_internal",
                     "os._exit"}
    # The same import from inside the package that holds the private module is allowed.
    found = {what for _, what in _private_reads("gpuia.gpu.context.example", path)}
    assert "gpuia.gpu._ffi" not in found


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
            assert name in MODULES, f"{name} in LAYERS does not exist"
