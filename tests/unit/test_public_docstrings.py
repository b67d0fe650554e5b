"""The public API documents itself, in wgpu-py's docstring style (needs no adapter).

The public API is what ``gpuia``'s ``__all__`` exports and what the core modules below export in
theirs (a module without ``__all__``, such as ``gpuia.errors``, exports its public top-level
definitions), the GPU side's included: ``gpuia.gpu`` (the context, its pipeline state and
capture, devices, buffers, adapters, planning, targets) and ``gpuia.gpu.quirks``; of a module
whose ``__all__`` also lists internals shared between the GPU side's modules, the names in
:data:`PUBLIC_NAMES` (``gpuia.gpu.device``'s DevicePool). For each such module:

* the module has a docstring;
* every exported name has one: a class or function its own (a dataclass's generated signature
  text does not count), a constant the string literal written right after its assignment
  (followed through ``from ... import`` to the module that assigns it);
* every public method and property of an exported class (its own and those of gpuia base
  classes) has a docstring;
* the rule for arguments: a function, a method or a class constructor (explicit ``__init__`` or
  a dataclass's fields) that takes arguments beyond ``self``/``cls`` has an ``Arguments:``
  section in its docstring (the class docstring for a constructor) with an entry for every
  argument (an entry names one argument, or several separated by commas, before its colon)
  and no entry for an argument it does not take;
* every entry of a ``Raises:`` section names an exception class;
* ``gpuia.gpu.Context`` states once, in its class docstring, what every method raises and what
  a method that reaches wgpu raises, and no method repeats it.

Each failure lists what is missing, by qualified name.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import functools
import importlib
import importlib.util
import inspect
import re
import textwrap

import pytest

import gpuia
import gpuia.errors

MODULES = [
    "gpuia",
    "gpuia.d3d.desc",
    "gpuia.d3d.ia_desc",
    "gpuia.d3d.draws",
    "gpuia.d3d.so_desc",
    "gpuia.d3d.layout",
    "gpuia.d3d.formats",
    "gpuia.d3d.topology",
    "gpuia.d3d.so_declaration",
    "gpuia.d3d.signature",
    "gpuia.reference",
    "gpuia.reference.ia",
    "gpuia.reference.decode",
    "gpuia.reference.vertex",
    "gpuia.reference.stream_output",
    "gpuia.harness.case",
    "gpuia.harness.run",
    "gpuia.harness.reference_run",
    "gpuia.harness.run_gpu",
    "gpuia.harness.compare",
    "gpuia.harness.crosscheck",
    "gpuia.errors",
    "gpuia.gpu",
    "gpuia.gpu.quirks",
    "gpuia.gpu.device",
    "gpuia.gpu.vertex.translate",
    "gpuia.harness.report.mesh",
    "gpuia.harness.export.mesh_csv",
    "gpuia.harness.export.junit",
    "gpuia.util.parallel",
]

PUBLIC_NAMES = {
    # The rest of its __all__ (Device, get_device) is gpuia.gpu's; DevicePool is for callers
    # that run many checks in one process.
    "gpuia.gpu.device": ["DevicePool"],
}


# -- reading docstrings ---------------------------------------------------------------------
def section_entries(doc: str, title: str) -> list[str] | None:
    """The entry names of the ``title:`` section of ``doc`` (None without one).

    A section is a line holding only ``title:``; its entries are the lines indented one level
    deeper than it (the first entry sets the level), each starting with its name, or names
    separated by commas, before an optional ``(type)`` and the colon; deeper lines continue an
    entry. The section ends at the first non-blank line indented no deeper than the title."""
    lines = inspect.cleandoc(doc).splitlines()
    for i, line in enumerate(lines):
        if line.strip() != f"{title}:":
            continue
        head = len(line) - len(line.lstrip())
        entries, level = [], None
        for follow in lines[i + 1:]:
            if not follow.strip():
                continue
            indent = len(follow) - len(follow.lstrip())
            if indent <= head:
                break
            if level is None:
                level = indent
            if indent == level:
                names = re.sub(r"\(.*?\)", "", follow.strip().split(":", 1)[0])
                entries += [name.strip().lstrip("*") for name in names.split(",")]
        return entries
    return None


def class_docstring(cls) -> str | None:
    """A class's own docstring, read from its source (a dataclass without one gets generated
    signature text as ``__doc__``, which is no documentation)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    return ast.get_docstring(tree.body[0], clean=False)


def constant_docstring(module_name: str, name: str) -> str | None:
    """The string literal right after the top-level assignment of ``name``, following
    ``from ... import name`` to the module that assigns it."""
    module = importlib.import_module(module_name)
    tree = ast.parse(inspect.getsource(module))
    body = tree.body
    for i, stmt in enumerate(body):
        targets = []
        if isinstance(stmt, ast.Assign):
            targets = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            targets = [stmt.target.id]
        if name in targets:
            after = body[i + 1] if i + 1 < len(body) else None
            if (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                    and isinstance(after.value.value, str)):
                return after.value.value
            return None
    package = module_name if hasattr(module, "__path__") else module_name.rpartition(".")[0]
    for stmt in body:
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if (alias.asname or alias.name) == name:
                    source = importlib.util.resolve_name("." * stmt.level + (stmt.module or ""),
                                                         package)
                    return constant_docstring(source, alias.name)
    return None


# -- what the public API holds --------------------------------------------------------------
def exported(module_name: str) -> list[str]:
    if module_name in PUBLIC_NAMES:
        return list(PUBLIC_NAMES[module_name])
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [n for n, v in vars(module).items() if not n.startswith("_")
            and getattr(v, "__module__", module_name) == module_name
            and (inspect.isclass(v) or inspect.isfunction(v))]


def gpuia_classes(cls) -> list[type]:
    return [k for k in cls.__mro__ if k.__module__.split(".")[0] == "gpuia"]


def public_members(cls):
    """(qualified name, kind, function or None, docstring) of each public method and property
    of ``cls`` and of its gpuia base classes."""
    seen = set()
    for klass in gpuia_classes(cls):
        for name, value in vars(klass).items():
            if name.startswith("_") or name in seen:
                continue
            if isinstance(value, (classmethod, staticmethod)):
                func, kind = value.__func__, type(value).__name__
            elif inspect.isfunction(value):
                func, kind = value, "method"
            elif isinstance(value, property):
                func, kind = None, "property"
                value = value.fget
            elif isinstance(value, functools.cached_property):
                func, kind = None, "property"
                value = value.func
            else:
                continue  # fields' defaults, enum members, class constants
            seen.add(name)
            yield f"{klass.__qualname__}.{name}", kind, func, value.__doc__


def arguments_of(func, kind: str) -> list[str]:
    params = list(inspect.signature(func).parameters)
    if kind in ("method", "classmethod") and params:
        params = params[1:]  # self / cls
    return params


def constructor_arguments(cls) -> list[str] | None:
    """The constructor's arguments when a gpuia class defines it (explicit or a dataclass's),
    else None (enums, exceptions that keep Exception's)."""
    if issubclass(cls, enum.Enum):
        return None
    if not any("__init__" in vars(k) for k in gpuia_classes(cls)):
        return None
    return list(inspect.signature(cls).parameters)


def argument_problems(qualname: str, doc: str, params: list[str]) -> list[str]:
    if not params:
        return []
    entries = section_entries(doc, "Arguments")
    if entries is None:
        return [f"{qualname}: no Arguments: section (takes {', '.join(params)})"]
    out = []
    missing = [p for p in params if p not in entries]
    if missing:
        out.append(f"{qualname}: Arguments: does not document {', '.join(missing)}")
    extra = [e for e in entries if e not in params]
    if extra:
        out.append(f"{qualname}: Arguments: documents {', '.join(extra)}, which it does not take")
    return out


def raises_problems(qualname: str, doc: str, namespace: dict) -> list[str]:
    out = []
    for name in section_entries(doc, "Raises") or []:
        exc = namespace.get(name, getattr(gpuia.errors, name, getattr(builtins, name, None)))
        if not (inspect.isclass(exc) and issubclass(exc, BaseException)):
            out.append(f"{qualname}: Raises: {name} is not an exception class")
    return out


def documented_items(module_name: str):
    """(qualified name, docstring or None, argument names or None, namespace) of everything
    ``module_name`` exports, its classes' public members included."""
    module = importlib.import_module(module_name)
    for name in exported(module_name):
        obj = getattr(module, name)
        qual = f"{module_name}.{name}"
        if inspect.isclass(obj):
            namespace = vars(importlib.import_module(obj.__module__))
            yield qual, class_docstring(obj), constructor_arguments(obj), namespace
            for member, kind, func, doc in public_members(obj):
                args = arguments_of(func, kind) if func is not None else None
                yield f"{obj.__module__}.{member}", doc, args, namespace
        elif callable(obj):
            namespace = vars(importlib.import_module(obj.__module__))
            yield qual, obj.__doc__, arguments_of(obj, "function"), namespace
        else:
            yield qual, constant_docstring(module_name, name), None, vars(module)


# -- the tests ------------------------------------------------------------------------------
@pytest.mark.parametrize("module_name", MODULES)
def test_module_and_every_exported_name_have_a_docstring(module_name):
    module = importlib.import_module(module_name)
    missing = [] if (module.__doc__ or "").strip() else [f"{module_name}: no module docstring"]
    missing += [f"{qual}: no docstring" for qual, doc, _, _ in documented_items(module_name)
                if not (doc or "").strip()]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("module_name", MODULES)
def test_arguments_are_documented(module_name):
    problems = []
    for qual, doc, args, _ in documented_items(module_name):
        if doc and args:
            problems += argument_problems(qual, doc, args)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("module_name", MODULES)
def test_raises_sections_name_exceptions(module_name):
    problems = []
    for qual, doc, _, namespace in documented_items(module_name):
        if doc:
            problems += raises_problems(qual, doc, namespace)
    assert not problems, "\n".join(problems)


def test_context_states_once_what_every_method_raises():
    """gpuia.gpu.Context's docstring says once what every method raises (another thread is
    inside the context) and what a method that reaches wgpu raises (the device lost, out of
    memory), naming exception classes; no method's own docstring repeats them, and the methods
    it names as reaching wgpu are methods of the class and include every one that maps wgpu's
    errors (decorated ``guarded``)."""
    from gpuia.gpu import Context

    doc = class_docstring(Context)
    assert doc is not None
    namespace = vars(importlib.import_module(Context.__module__))
    every = section_entries(doc, "Every method raises")
    reaching = section_entries(doc, "A method that reaches wgpu raises")
    assert every == ["UnsupportedError"], every
    assert reaching == ["DeviceLostError", "GpuOutOfMemoryError"], reaching
    for name in every + reaching:
        assert not raises_problems("Context", f"S.\n\nRaises:\n    {name}: x.\n", namespace)
    repeated = []
    for qual, _, _, member_doc in public_members(Context):
        own = section_entries(member_doc or "", "Raises") or []
        if ("another thread is inside" in (member_doc or "")
                or {"DeviceLostError", "GpuOutOfMemoryError"} & set(own)):
            repeated.append(qual)
    assert not repeated, f"repeat what the class docstring states once: {repeated}"
    named = set(re.findall(r":meth:`(\w+)`", doc.split("The methods that reach wgpu:", 1)[1]))
    tree = ast.parse(textwrap.dedent(inspect.getsource(Context)))
    guarded = {f.name for f in tree.body[0].body if isinstance(f, ast.FunctionDef)
               and any(isinstance(d, ast.Name) and d.id == "guarded" for d in f.decorator_list)}
    assert guarded and guarded <= named, guarded - named
    # its own methods or inherited ones (the query calls, gpuia.gpu.context.query_calls)
    assert named <= {n for n in dir(Context) if not n.startswith("_")}, named


# -- the checker itself, on hand-written examples -------------------------------------------
def _documented(a, b=0, *rest, key=None):
    """Summary.

    Arguments:
        a (int): first.
            More about a.
        b: second.
        *rest: the others.
        key: a keyword.

    Returns:
        Nothing.

    Raises:
        ValueError: never.
        InvalidDescError: never either.
        TypeError, KeyError: neither of them.
    """


def _half_documented(a, b):
    """Summary naming a and b in prose only.

    Arguments:
        a: first.
        c: an argument that is gone.
    """


@dataclasses.dataclass
class _Undocumented:
    x: int


def test_checker_reads_sections_as_written():
    assert section_entries(_documented.__doc__, "Arguments") == ["a", "b", "rest", "key"]
    assert section_entries(_documented.__doc__, "Raises") == [
        "ValueError", "InvalidDescError", "TypeError", "KeyError"]
    assert section_entries(_documented.__doc__, "Yields") is None
    assert argument_problems("f", _documented.__doc__, arguments_of(_documented, "function")) == []
    assert raises_problems("f", _documented.__doc__, {}) == []


def test_checker_names_what_is_missing():
    assert argument_problems("g", _half_documented.__doc__,
                             arguments_of(_half_documented, "function")) == [
        "g: Arguments: does not document b",
        "g: Arguments: documents c, which it does not take"]
    assert argument_problems("h", "Summary only.", ["x"]) == [
        "h: no Arguments: section (takes x)"]
    assert raises_problems("k", "S.\n\nRaises:\n    NotAnError: x.\n", {}) == [
        "k: Raises: NotAnError is not an exception class"]
    assert _Undocumented.__doc__  # generated by dataclasses ...
    assert class_docstring(_Undocumented) is None  # ... and not counted


def test_checker_finds_constructors_and_constants():
    # D3D12's DrawInstanced takes its four arguments in this order (d3d12.h).
    assert constructor_arguments(gpuia.DrawInstanced) == [
        "vertex_count_per_instance", "instance_count", "start_vertex_location",
        "start_instance_location"]
    assert constructor_arguments(gpuia.PrimitiveTopology) is None  # an enum: Enum's own
    assert constructor_arguments(gpuia.UnsupportedError) is None  # Exception's own
    # A constant re-exported by the package is found where it is assigned.
    assert constant_docstring("gpuia", "APPEND_ALIGNED_ELEMENT").startswith(
        "D3D12_APPEND_ALIGNED_ELEMENT")


def test_checker_covers_the_gpu_side():
    # Names of gpuia.gpu's API written out by hand: a context method behind its thread guard,
    # a property, a buffer's property, DevicePool and its methods, constants found where they
    # are assigned, and the of() DrawPath and IndexMode inherit from a gpuia base class.
    items = {qual: args for module in ("gpuia.gpu", "gpuia.gpu.quirks", "gpuia.gpu.device")
             for qual, _, args, _ in documented_items(module)}
    for qual in ("gpuia.gpu.Context", "gpuia.gpu.context.Context.draw_indexed_instanced",
                 "gpuia.gpu.context.Context.timings", "gpuia.gpu.buffers.Buffer.nbytes",
                 "gpuia.gpu.device.DevicePool", "gpuia.gpu.device.DevicePool.select",
                 "gpuia.gpu.TARGET_FORMATS",
                 "gpuia.gpu.quirks.QUIRKS", "gpuia.gpu.quirks.ONE_DEVICE"):
        assert qual in items, qual
    assert items["gpuia.gpu.Context"] == ["device", "target"]
    assert items["gpuia.gpu.context.Context.set_path"] == ["path"]  # through the guard
    inherited = [qual for qual in items if qual.startswith("gpuia.gpu.vertex.plan.")
                 and qual.endswith(".of")]
    assert inherited, "DrawPath.of is not checked"
    assert all(items[qual] == ["value", "where", "field_name"] for qual in inherited)
    # A module listed in PUBLIC_NAMES contributes those names only, each one it exports.
    assert exported("gpuia.gpu.device") == ["DevicePool"]
    for module_name, names in PUBLIC_NAMES.items():
        assert set(names) <= set(importlib.import_module(module_name).__all__), module_name
