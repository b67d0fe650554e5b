"""D3D input-element arrays and Stream Output declarations in C/C++ source, read from the
compiler's syntax tree (:mod:`gpuia.source.clang_parse`: libclang, the ``source`` extra).

The preprocessor, the types, their layout and the constant values are the compiler's: ``#if``
is evaluated with the ``-D`` definitions given, ``#pragma pack`` and the target's type sizes
lay out structs, and ``sizeof``, ``offsetof``, enumerators, ``constexpr`` variables, macros,
templates and casts are folded by the compiler. What gpuia adds is the D3D reading of that tree.

What is found, in the scanned file only (never in its includes):

- arrays of ``D3D12/D3D11/D3D10_INPUT_ELEMENT_DESC`` and ``D3D12/D3D11/D3D10_SO_DECLARATION_ENTRY``
  with an initializer, at any scope and with any qualifiers (class-scope definitions such as
  ``Vertex::InputElements[]`` are named so), and ``std::array<T, N>``, ``std::vector<T>`` and
  the other containers of :data:`CONTAINERS` initialized with a brace list;
- ``std::vector<T>`` filled by ``push_back``/``emplace_back`` in the block it is declared in.
  A push inside an ``if`` whose condition is not a constant is taken with the condition
  assumed true (its ``else`` branch skipped) unless the condition's text is in
  ``assume_false``; every such assumption is listed in the array's notes. A push inside a
  loop, a ``switch``, a ``?:`` or a lambda, and any other change to the vector (``insert``,
  ``resize``, element assignment...), is refused, and so is a vector handed to code that can
  change it (a function given it by non-const reference or pointer, wherever that function is
  defined: :meth:`gpuia.source.pushes.Pushes.handed_over`).

A C++ array or ``std::array`` defined without an initializer (default-constructed) is refused:
its elements are set by code gpuia does not read. An array this reader fails on for any other
reason (a construct it does not expect) is refused alone; the file's other arrays are read.

Element initializers may be positional (C field order, missing trailing fields zero, as C
aggregate initialization makes them), designated (``.Format = ...``), compound literals
(``D3D12_INPUT_ELEMENT_DESC{...}``), names of ``const`` struct constants, or macros expanding
to any of these. Each field's value is what the compiler folds it to, converted to the field's
type as C does (the field sizes are the header's). A value the compiler cannot fold, one that
depends on a name nothing declares, and an array whose initializer does not compile are errors
naming ``file:line:column``, the array, the element, the field and the reason. A D3D array the
compiler dropped with the code around it (an error in an enclosing declaration) is an error
too, naming the nearest compiler error before it.

Stream Output strides and the rasterized stream are taken from the source when a
``D3D12_STREAM_OUTPUT_DESC`` initializer, ``X.pSODeclaration = decl`` / ``X.pBufferStrides =
strides`` assignments on one object, or a ``CreateGeometryShaderWithStreamOutput`` call name
the declaration; names resolve as the compiler resolves them (C scoping).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import CaseError
from ..util.files import read_input
from .clang_parse import Parsed, ParseOptions, parse
from .kinds import kind_of
from .model import STRUCTS, SourceArray, SourceError, SourceFile
from .pso import PipelineDescs
from .pushes import Pushes
from .recovery import dropped_arrays, dropped_initializer, field_at, field_text, initializer_follows
from .so_strides import StreamOutputStrides
from .tree import (
    WRAPPERS,
    Tree,
    Unresolved,
    children,
    designator,
    expressions,
    position,
    struct_name,
)
from .values import Values

__all__ = ["extract_cpp", "read_source_bytes", "source_label", "CONTAINERS", "GROWABLE"]

CONTAINERS = ("array", "vector", "initializer_list", "span", "static_vector", "small_vector")
"""Class templates whose first argument, a D3D struct, makes a variable an array of it."""
GROWABLE = ("vector", "static_vector", "small_vector")
"""Those of :data:`CONTAINERS` that ``push_back``/``emplace_back`` fill."""

_QUALIFIER = re.compile(rb"((?:[A-Za-z_]\w*\s*::\s*)+)$")


class _Reader:
    def __init__(self, parsed: Parsed, assume_false=()):
        self.p = parsed
        self.ci = parsed.ci
        self.kinds = parsed.ci.CursorKind
        self.tree = Tree(parsed)
        self.values = Values(parsed)
        self.pushes = Pushes(parsed, self.tree, self.values, assume_false)
        self._missing: dict = {}
        self.pipelines: list = []

    # -- arrays ------------------------------------------------------------------------------
    def arrays(self) -> list[SourceArray]:
        out, decls = [], {}
        for index, c in enumerate(self.tree.nodes):
            if kind_of(c) not in (self.kinds.VAR_DECL, self.kinds.FIELD_DECL):
                continue
            found = self._d3d_type(c.type)
            if found is None:
                continue
            arr = self._array(index, *found)
            if arr is not None:
                out.append(arr)
                decls[id(arr)] = c
        StreamOutputStrides(self.p, self.tree, self.values).attach(out, decls)
        self.pipelines = PipelineDescs(self.p, self.tree, self.values).find(out, decls)
        out += dropped_arrays(self.p)
        out.sort(key=lambda a: (a.line or 0, a.column or 0))
        return out

    def _d3d_type(self, typ):
        """(struct name, container or None) when ``typ`` is an array or container of a D3D
        struct."""
        t = typ.get_canonical()
        k = self.ci.TypeKind
        if t.kind in (k.CONSTANTARRAY, k.INCOMPLETEARRAY, k.VARIABLEARRAY,
                      k.DEPENDENTSIZEDARRAY):
            name = struct_name(t.get_array_element_type())
            return None if name is None else (name, None)
        if t.kind == k.RECORD:
            container = t.get_declaration().spelling
            if container in CONTAINERS and t.get_num_template_arguments() > 0:
                name = struct_name(t.get_template_argument_type(0))
                return None if name is None else (name, container)
        return None

    def _name(self, c) -> str:
        """The array's name as written: a definition outside its class keeps the qualifier
        it is written with (``Vertex::InputElements``)."""
        offset = c.location.offset
        if not self.p.in_main_file(c) or \
                self.p.data[offset:offset + len(c.spelling)] != c.spelling.encode():
            return c.spelling
        written = _QUALIFIER.search(self.p.data[max(0, offset - 512):offset])
        if written is None:
            return c.spelling
        return "::".join(re.findall(r"[A-Za-z_]\w*", written.group(1).decode()) + [c.spelling])

    def _array(self, index: int, struct: str, container: str | None) -> SourceArray | None:
        c = self.tree.nodes[index]
        kind = STRUCTS[struct]
        loc = c.location
        arr = SourceArray(kind.kind, self._name(c), self.p.label, struct, kind.profile,
                          loc.line, loc.column)
        try:
            items = self._items(index, container, arr, kind)
            if items is None:
                return None
            sizes = self._field_sizes(c, struct, kind)
            self._missing = {}
            arr.elements = [self._element(item, kind, i, arr, sizes)
                            for i, item in enumerate(items)]
            for missing, indices in self._missing.items():
                arr.notes.append(f"element(s) {', '.join(map(str, indices))}: "
                                 f"{', '.join(missing)} not given, so zero (C aggregate "
                                 f"initialization)")
        except Unresolved as e:
            line, col = position(e.where)
            arr.error = SourceError(f"{self.p.label}:{line}:{col}: array {arr.name}", e.rule)
            arr.elements = []
        except MemoryError:
            raise
        # A construct this reader does not expect (a libclang newer than the reader) costs
        # this array only.
        except Exception as e:  # noqa: BLE001 - becomes the array's error
            arr.error = SourceError(f"{self.p.label}:{loc.line}:{loc.column}: array {arr.name}",
                                    f"gpuia cannot read this array ({type(e).__name__}: {e}); "
                                    f"the file's other arrays are read")
            arr.elements = []
        return arr

    def _field_sizes(self, c, struct: str, kind) -> dict[str, int]:
        """Each field's size in bytes, from the struct as the header declares it."""
        t = c.type.get_canonical()
        element = t.get_array_element_type() if t.kind != self.ci.TypeKind.RECORD else \
            t.get_template_argument_type(0)
        record = element.get_canonical().get_declaration()
        sizes = {f.spelling: f.type.get_size() for f in record.get_children()
                 if kind_of(f) == self.kinds.FIELD_DECL}
        if tuple(sizes) != kind.fields:
            raise Unresolved(c, f"the D3D header declares {struct} with the fields "
                                 f"{', '.join(sizes) or 'none'}, not {', '.join(kind.fields)}")
        return sizes

    def _items(self, index, container, arr, kind):
        """The element initializers of one declared array or container, in order: cursors,
        or lists of argument cursors (``emplace_back(fields...)``)."""
        c = self.tree.nodes[index]
        init = self.p.initializer(c) if kind_of(c) == self.kinds.VAR_DECL else next(
            (k for k in children(c) if kind_of(k) == self.kinds.INIT_LIST_EXPR), None)
        items = None
        if init is not None:
            items = self._brace_items(init, container, arr)
        elif initializer_follows(self.p, c):
            raise dropped_initializer(self.p, c, kind)
        if container in GROWABLE:
            pushed = self.pushes.pushes(index, arr)
            if init is None and not pushed:
                return None
            return (items or []) + pushed
        if init is not None and items is None:
            # T a[N]; or std::array<T, N> a; in C++: N elements that other code sets.
            handed = self.pushes.handed_over(index)
            how = f" (it is {handed[1]})" if handed is not None else ""
            raise Unresolved(c, f"{arr.name} is declared without an initializer, so its "
                                 f"elements are set by code gpuia does not read{how}")
        return items

    def _brace_items(self, init, container, arr) -> list | None:
        """The items of a brace-list initializer, or None for a default construction (a
        declaration without an initializer, in C++)."""
        node = init
        while kind_of(node) != self.kinds.INIT_LIST_EXPR:
            inner = expressions(node)
            if kind_of(node) == self.kinds.CALL_EXPR and not inner:
                return None  # std::vector<T> v; (the default constructor)
            if len(inner) != 1 or (kind_of(node).name not in WRAPPERS
                                   and kind_of(node) != self.kinds.CALL_EXPR):
                raise Unresolved(init, f"{arr.name} is initialized from "
                                        f"`{self.p.text(init)}`, not a brace list")
            node = inner[0]
        items = children(node)
        # std::array<T, N> a = {{ {...}, {...} }}: the outer braces hold the C array member.
        if container == "array" and len(items) == 1 and \
                kind_of(items[0]) == self.kinds.INIT_LIST_EXPR and \
                items[0].type.get_canonical().kind == self.ci.TypeKind.CONSTANTARRAY:
            items = children(items[0])
        for item in items:
            if designator(self.kinds, item) is not None:
                raise Unresolved(item, "an array designator ([i] = ...) is not read; list "
                                        "the elements in order")
        return items

    # -- elements ----------------------------------------------------------------------------
    def _brace_element(self, item, where: str, arr):
        """The INIT_LIST_EXPR an element initializer comes down to."""
        node = item
        for _ in range(32):
            if kind_of(node) == self.kinds.INIT_LIST_EXPR:
                return node
            if kind_of(node) == self.kinds.DECL_REF_EXPR and node.referenced is not None and \
                    kind_of(node.referenced) == self.kinds.VAR_DECL:
                var = node.referenced
                init = self.p.initializer(var)
                if init is None or not var.type.is_const_qualified():
                    raise Unresolved(item, f"{where}: `{var.spelling}` is not a const struct "
                                            f"defined with a brace list")
                node = init
                continue
            inner = expressions(node)
            constructor = kind_of(node) == self.kinds.CALL_EXPR and node.referenced is not None \
                and kind_of(node.referenced) == self.kinds.CONSTRUCTOR
            if len(inner) == 1 and (kind_of(node).name in WRAPPERS or constructor):
                node = inner[0]
                continue
            break
        raise Unresolved(item, f"{where}: `{self.p.text(item)}` is not a brace initializer of "
                                f"{arr.struct}")

    def _element(self, item, kind, index, arr, sizes) -> dict:
        """One element's fields, by name, from its initializer."""
        where = f"element {index}"
        entries = item if isinstance(item, list) else children(
            self._brace_element(item, where, arr))
        given: dict[str, object] = {}
        position = 0
        for child in entries:
            value = child
            designated = designator(self.kinds, child)
            if designated is not None:
                names = [k.spelling for k in designated[:-1]]
                if len(names) != 1 or names[0] not in kind.fields:
                    raise Unresolved(child, f"{where}: {arr.struct} has no field "
                                             f"{'.'.join(names)}")
                position = kind.fields.index(names[0])
                value = designated[-1]
            if position >= len(kind.fields):
                raise Unresolved(child, f"{where}: more initializers than the "
                                         f"{len(kind.fields)} fields of {arr.struct}")
            fname = kind.fields[position]
            try:
                given[fname] = self.values.field(fname, value, sizes[fname])
            except Unresolved as e:
                raise Unresolved(e.where, f"{where}: {fname}: {e.rule}") from None
            position += 1
        self._compiles(item, kind, where)
        missing = tuple(f for f in kind.fields if f not in given)
        if missing:
            self._missing.setdefault(missing, []).append(index)
        out = {f: given[f] if f in given else self.values.convert(f, 0, sizes[f])
               for f in kind.fields}
        if kind.kind == "so_declaration" and "Stream" not in out:
            out = {"Stream": 0, **out}  # D3D10 entries have no Stream: its one stream is 0
        return out

    def _compiles(self, item, kind, where: str) -> None:
        """Refuse an element with a compiler error inside it that no field's value holds (the
        compiler's recovery replaced the expression it was in), naming the field from the
        element's tokens."""
        node = item[0] if isinstance(item, list) else item
        errors = self.p.errors_in(node if not isinstance(item, list) else
                                  self._call_of(node))
        if not errors:
            return
        d = errors[0]
        start, end = node.extent.start.offset, node.extent.end.offset
        span = self.p.tokens_between(start, end)
        at = self.p.offset_of(d)
        fname, token = field_at(span, at, kind) if at is not None else (None, None)
        if token is None:
            raise Unresolved((d.line, d.column), f"{where}: does not compile: {d}")
        raise Unresolved((token.line, token.column),
                          f"{where}: {fname}: `{field_text(self.p, span, token)}` does not "
                          f"compile: {d}")

    def _call_of(self, argument):
        """The call an ``emplace_back`` argument belongs to."""
        for a in self.tree.ancestors(self.tree.index_of(argument)):
            if kind_of(self.tree.nodes[a]) == self.kinds.CALL_EXPR:
                return self.tree.nodes[a]
        return argument

def read_source_bytes(path: str | Path) -> bytes:
    """A C/C++ file's bytes, read as every input file is (:func:`gpuia.util.files.read_input`).

    Arguments:
        path: the file.

    Returns:
        Its bytes.

    Raises:
        SourceError: naming the file and why it cannot be read, or that it is not source text
            (a NUL byte: a binary file, or text saved as UTF-16).
    """
    try:
        data = read_input(path)
    except CaseError as e:
        raise SourceError(source_label(path), e.rule) from None
    _refuse_binary(source_label(path), data)
    return data


def source_label(path: str | Path) -> str:
    """The name a file is given to the compiler and named by: ``stdin`` for ``-`` (libclang
    reads a main file named ``-`` from standard input, not from the bytes it is given)."""
    return "stdin" if str(path) == "-" else str(path)


def _refuse_binary(label: str, data: bytes) -> None:
    """Refuse bytes that hold a NUL, which no C or C++ source holds: a binary file (an
    executable, an image), or text saved as UTF-16."""
    at = data.find(b"\0")
    if at >= 0:
        raise SourceError(label, f"not C or C++ source: byte {at} is NUL (a binary file, or text "
                                 f"saved as UTF-16; gpuia reads C/C++ as UTF-8)")


def _not_utf8(data: bytes) -> str:
    """The rule for a file whose compiler report cannot be read: where its text is not UTF-8
    (the compiler quotes the file's bytes in its diagnostics and tokens), or else that a file
    it includes is not."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        return (f"not UTF-8 text (byte {e.start}, line {line}: {e.reason}): what the compiler "
                f"reports of it cannot be read; save it as UTF-8")
    return ("a file it includes is not UTF-8 text: what the compiler reports of it cannot be "
            "read; save it as UTF-8")


def extract_cpp(path: str | Path, assume_false=(), options: ParseOptions | None = None,
                data: bytes | None = None) -> SourceFile:
    """Every D3D input-element array and SO declaration in one C/C++ file (see the module
    docstring), with the compiler's diagnostics and the D3D header it read.

    Arguments:
        path: the file.
        assume_false: texts of ``if`` conditions to take as false where a vector is filled
            conditionally.
        options: ``-D``, ``-I`` and the target (:class:`gpuia.source.clang_parse.ParseOptions`);
            None for the defaults.
        data: the file's bytes, already read (:func:`read_source_bytes`); None to read them.

    Returns:
        The :class:`gpuia.source.model.SourceFile`: an array that cannot be resolved has its
        ``error`` set.

    Raises:
        SourceError: the file cannot be read, is not source text (a NUL byte), or is not UTF-8
            where the compiler's report of it quotes it (a comment in another encoding is
            read), or an option is malformed.
        UnsupportedError: libclang (the ``source`` extra) is missing.
    """
    label = source_label(path)
    if data is None:
        data = read_source_bytes(path)  # refuses a NUL byte itself
    else:
        _refuse_binary(label, data)
    try:
        parsed = parse(label, data, options)
        reader = _Reader(parsed, assume_false)
        arrays = reader.arrays()
    except UnicodeDecodeError:  # libclang's bindings decode what it reports as UTF-8
        raise SourceError(label, _not_utf8(data)) from None
    return SourceFile(label, parsed.language, arrays, parsed.diagnostics, parsed.d3d_header,
                      reader.pipelines)
