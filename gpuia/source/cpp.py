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
  ``resize``, element assignment...), is refused.

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

from ..d3d.desc import APPEND_ALIGNED_ELEMENT
from ..d3d.formats import DXGI_FORMAT_VALUES
from ..errors import CaseError
from ..util.files import read_input
from .clang_parse import Parsed, ParseOptions, parse
from .model import STRUCTS, SourceArray, SourceError, SourceFile

__all__ = ["extract_cpp", "CONTAINERS"]

CONTAINERS = ("array", "vector", "initializer_list", "span", "static_vector", "small_vector")
"""Class templates whose first argument, a D3D struct, makes a variable an array of it."""

_U32 = 0xFFFFFFFF
_FORMAT_NAMES = {value: name for name, value in DXGI_FORMAT_VALUES.items()}
# How each struct field's value is read; every other field is an unsigned integer of the
# header's field size (C converts the initializer to it, wrapping).
_FIELD_KINDS = {"SemanticName": "name", "Format": "format", "InputSlotClass": "classification",
                "AlignedByteOffset": "offset"}
_CLASS_NAMES = {0: "PER_VERTEX_DATA", 1: "PER_INSTANCE_DATA"}
_PUSH = {"push_back", "emplace_back"}
_MUTATE = {"insert", "emplace", "resize", "assign", "erase", "pop_back", "clear", "swap",
           "operator="}
_LOOPS = {"FOR_STMT", "WHILE_STMT", "DO_STMT", "CXX_FOR_RANGE_STMT"}
_REFUSED_PARENTS = {"SWITCH_STMT": "a switch: gpuia does not choose a case",
                    "CASE_STMT": "a switch: gpuia does not choose a case",
                    "DEFAULT_STMT": "a switch: gpuia does not choose a case",
                    "CONDITIONAL_OPERATOR": "a ?: expression",
                    "LAMBDA_EXPR": "a lambda: gpuia does not follow when it runs"}
_ASSIGNMENTS = {"=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|="}
# Expressions that only wrap the one expression inside them (implicit conversions, parentheses,
# casts to the struct, temporaries).
_WRAPPERS = {"UNEXPOSED_EXPR", "PAREN_EXPR", "CXX_FUNCTIONAL_CAST_EXPR", "COMPOUND_LITERAL_EXPR",
             "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_CONST_CAST_EXPR"}
# CreateGeometryShaderWithStreamOutput argument positions: (declaration, strides, rasterized
# stream); D3D10 passes one stride and has no rasterized stream.
_SO_CALLS = {"CreateGeometryShaderWithStreamOutput": {11: (2, 4, 6), 10: (2, 4, None)}}
_SO_DESC_FIELDS = ("pSODeclaration", "NumEntries", "pBufferStrides", "NumStrides",
                   "RasterizedStream")
_IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")
_QUALIFIER = re.compile(rb"((?:[A-Za-z_]\w*\s*::\s*)+)$")


class _Unresolved(Exception):
    """Raised while reading an array; turned into its SourceError with the full location."""

    def __init__(self, where, rule: str):
        super().__init__(rule)
        self.where = where  # a cursor, or (line, column)
        self.rule = rule


def _position(where) -> tuple[int, int]:
    if isinstance(where, tuple):
        return where
    return where.extent.start.line, where.extent.start.column


class _Tree:
    """The main file's cursors in preorder, with parent links and subtree ends."""

    def __init__(self, parsed: Parsed):
        self.nodes: list = []
        self.parent: list[int] = []
        self.end: list[int] = []
        top = [c for c in parsed.tu.cursor.get_children() if parsed.in_main_file(c)]
        stack: list = [(c, -1) for c in reversed(top)]
        while stack:
            item, parent = stack.pop()
            if item is None:  # the end marker of node ``parent``
                self.end[parent] = len(self.nodes)
                continue
            index = len(self.nodes)
            self.nodes.append(item)
            self.parent.append(parent)
            self.end.append(index + 1)
            stack.append((None, index))
            stack.extend((c, index) for c in reversed(list(item.get_children())))

    def ancestors(self, index: int):
        """Indices from the parent of ``index`` up to the top."""
        index = self.parent[index]
        while index >= 0:
            yield index
            index = self.parent[index]


def _children(cursor) -> list:
    return list(cursor.get_children())


def _expressions(cursor) -> list:
    """The children of ``cursor`` that are expressions (type and member references left out)."""
    return [c for c in cursor.get_children() if c.kind.is_expression()]


def _same(a, b) -> bool:
    return a is not None and b is not None and a.canonical == b.canonical


def _literal(spelling: str) -> str:
    """A string literal's characters from libclang's spelling of it (quoted, escaped)."""
    body = spelling[spelling.index('"') + 1: spelling.rindex('"')]
    if "\\" not in body:
        return body
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape")


class _Reader:
    def __init__(self, parsed: Parsed, assume_false=()):
        self.p = parsed
        self.ci = parsed.ci
        self.kinds = parsed.ci.CursorKind
        self.tree = _Tree(parsed)
        self.assume_false = {" ".join(c.split()) for c in assume_false}
        self._missing: dict = {}

    # -- arrays ------------------------------------------------------------------------------
    def arrays(self) -> list[SourceArray]:
        out, decls = [], {}
        for index, c in enumerate(self.tree.nodes):
            if c.kind not in (self.kinds.VAR_DECL, self.kinds.FIELD_DECL):
                continue
            found = self._d3d_type(c.type)
            if found is None:
                continue
            arr = self._array(index, *found)
            if arr is not None:
                out.append(arr)
                decls[id(arr)] = c
        self._so_strides(out, decls)
        out += self._dropped()
        out.sort(key=lambda a: (a.line or 0, a.column or 0))
        return out

    def _d3d_type(self, typ):
        """(struct name, container or None) when ``typ`` is an array or container of a D3D
        struct."""
        t = typ.get_canonical()
        k = self.ci.TypeKind
        if t.kind in (k.CONSTANTARRAY, k.INCOMPLETEARRAY, k.VARIABLEARRAY,
                      k.DEPENDENTSIZEDARRAY):
            name = self._struct_name(t.get_array_element_type())
            return None if name is None else (name, None)
        if t.kind == k.RECORD:
            container = t.get_declaration().spelling
            if container in CONTAINERS and t.get_num_template_arguments() > 0:
                name = self._struct_name(t.get_template_argument_type(0))
                return None if name is None else (name, container)
        return None

    @staticmethod
    def _struct_name(element) -> str | None:
        decl = element.get_canonical().get_declaration()
        for name in (decl.spelling, element.spelling.replace("const ", "").strip()):
            if name in STRUCTS:
                return name
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
        except _Unresolved as e:
            line, col = _position(e.where)
            arr.error = SourceError(f"{self.p.label}:{line}:{col}: array {arr.name}", e.rule)
            arr.elements = []
        return arr

    def _field_sizes(self, c, struct: str, kind) -> dict[str, int]:
        """Each field's size in bytes, from the struct as the header declares it."""
        t = c.type.get_canonical()
        element = t.get_array_element_type() if t.kind != self.ci.TypeKind.RECORD else \
            t.get_template_argument_type(0)
        record = element.get_canonical().get_declaration()
        sizes = {f.spelling: f.type.get_size() for f in record.get_children()
                 if f.kind == self.kinds.FIELD_DECL}
        if tuple(sizes) != kind.fields:
            raise _Unresolved(c, f"the D3D header declares {struct} with the fields "
                                 f"{', '.join(sizes) or 'none'}, not {', '.join(kind.fields)}")
        return sizes

    def _items(self, index, container, arr, kind):
        """The element initializers of one declared array or container, in order: cursors,
        or lists of argument cursors (``emplace_back(fields...)``)."""
        c = self.tree.nodes[index]
        init = self.p.initializer(c) if c.kind == self.kinds.VAR_DECL else next(
            (k for k in _children(c) if k.kind == self.kinds.INIT_LIST_EXPR), None)
        items: list = []
        if init is not None:
            items = self._brace_items(init, container, arr)
        elif self._initializer_follows(c):
            raise self._dropped_initializer(c, arr, kind)
        if container == "vector":
            pushed = self._pushes(index, arr)
            if init is None and not pushed:
                return None
            return items + pushed
        return items if init is not None else None

    def _brace_items(self, init, container, arr) -> list:
        node = init
        while node.kind != self.kinds.INIT_LIST_EXPR:
            inner = _expressions(node)
            if node.kind == self.kinds.CALL_EXPR and not inner:
                return []  # std::vector<T> v; (the default constructor)
            if len(inner) != 1 or (node.kind.name not in _WRAPPERS
                                   and node.kind != self.kinds.CALL_EXPR):
                raise _Unresolved(init, f"{arr.name} is initialized from "
                                        f"`{self.p.text(init)}`, not a brace list")
            node = inner[0]
        items = _children(node)
        # std::array<T, N> a = {{ {...}, {...} }}: the outer braces hold the C array member.
        if container == "array" and len(items) == 1 and \
                items[0].kind == self.kinds.INIT_LIST_EXPR and \
                items[0].type.get_canonical().kind == self.ci.TypeKind.CONSTANTARRAY:
            items = _children(items[0])
        for item in items:
            if self._designator(item) is not None:
                raise _Unresolved(item, "an array designator ([i] = ...) is not read; list "
                                        "the elements in order")
        return items

    def _initializer_follows(self, c) -> bool:
        """Whether the source gives ``c`` an initializer the compiler did not keep."""
        if not self.p.has_errors():
            return False  # only an error makes the compiler drop an initializer
        tokens = self.p.tokens()
        at = self.p.token_index(c.extent.end.offset)
        return at < len(tokens) and tokens[at].spelling in ("=", "{")

    # -- elements ----------------------------------------------------------------------------
    def _designator(self, cursor):
        """The member a designated initializer names, or None for a positional one."""
        kids = _children(cursor)
        if cursor.kind == self.kinds.UNEXPOSED_EXPR and len(kids) >= 2 and \
                kids[0].kind == self.kinds.MEMBER_REF:
            return kids
        if cursor.kind == self.kinds.UNEXPOSED_EXPR and cursor.type.spelling == "void" and \
                len(kids) >= 2:
            return kids  # [i] = ...
        return None

    def _brace_element(self, item, where: str, arr):
        """The INIT_LIST_EXPR an element initializer comes down to."""
        node = item
        for _ in range(32):
            if node.kind == self.kinds.INIT_LIST_EXPR:
                return node
            if node.kind == self.kinds.DECL_REF_EXPR and node.referenced is not None and \
                    node.referenced.kind == self.kinds.VAR_DECL:
                var = node.referenced
                init = self.p.initializer(var)
                if init is None or not var.type.is_const_qualified():
                    raise _Unresolved(item, f"{where}: `{var.spelling}` is not a const struct "
                                            f"defined with a brace list")
                node = init
                continue
            inner = _expressions(node)
            constructor = node.kind == self.kinds.CALL_EXPR and node.referenced is not None \
                and node.referenced.kind == self.kinds.CONSTRUCTOR
            if len(inner) == 1 and (node.kind.name in _WRAPPERS or constructor):
                node = inner[0]
                continue
            break
        raise _Unresolved(item, f"{where}: `{self.p.text(item)}` is not a brace initializer of "
                                f"{arr.struct}")

    def _element(self, item, kind, index, arr, sizes) -> dict:
        """One element's fields, by name, from its initializer."""
        where = f"element {index}"
        entries = item if isinstance(item, list) else _children(
            self._brace_element(item, where, arr))
        given: dict[str, object] = {}
        position = 0
        for child in entries:
            value = child
            designated = self._designator(child)
            if designated is not None:
                names = [k.spelling for k in designated[:-1]]
                if len(names) != 1 or names[0] not in kind.fields:
                    raise _Unresolved(child, f"{where}: {arr.struct} has no field "
                                             f"{'.'.join(names)}")
                position = kind.fields.index(names[0])
                value = designated[-1]
            if position >= len(kind.fields):
                raise _Unresolved(child, f"{where}: more initializers than the "
                                         f"{len(kind.fields)} fields of {arr.struct}")
            fname = kind.fields[position]
            try:
                given[fname] = self._field(fname, value, sizes[fname])
            except _Unresolved as e:
                raise _Unresolved(e.where, f"{where}: {fname}: {e.rule}") from None
            position += 1
        self._compiles(item, kind, where)
        missing = tuple(f for f in kind.fields if f not in given)
        if missing:
            self._missing.setdefault(missing, []).append(index)
        out = {f: given[f] if f in given else self._convert(f, 0, sizes[f])
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
        fname, token = _field_at(span, at, kind) if at is not None else (None, None)
        if token is None:
            raise _Unresolved((d.line, d.column), f"{where}: does not compile: {d}")
        raise _Unresolved((token.line, token.column),
                          f"{where}: {fname}: `{_field_text(self.p, span, token)}` does not "
                          f"compile: {d}")

    def _call_of(self, argument):
        """The call an ``emplace_back`` argument belongs to."""
        index = next(i for i, n in enumerate(self.tree.nodes) if n == argument)
        for a in self.tree.ancestors(index):
            if self.tree.nodes[a].kind == self.kinds.CALL_EXPR:
                return self.tree.nodes[a]
        return argument

    def _trusted(self, value) -> None:
        """Refuse a value the compiler did not compile cleanly: one that depends on a
        placeholder, holds an error, or refers to a declaration with errors. (Its recovery
        can still fold such a value, to a number the source does not mean.)"""
        name = self.p.placeholder_in(value)
        if name is not None:
            raise _Unresolved(value, self._undeclared(value, name))
        errors = self.p.errors_in(value)
        if errors:
            raise _Unresolved(value, f"`{self.p.text(value)}` does not compile: {errors[0]}")
        k = self.kinds
        for _, ref in self.p.references(value):
            decl = ref.semantic_parent if ref.kind == k.FIELD_DECL else ref
            if decl is not None and decl.kind.is_declaration() and self.p.invalid(decl):
                errors = self.p.errors_in(decl)
                reason = f": {errors[0]}" if errors else ""
                raise _Unresolved(value, f"`{self.p.text(value)}` is not a constant: "
                                         f"{decl.spelling} does not compile{reason}")

    def _field(self, fname: str, value, size: int):
        self._trusted(value)
        if _FIELD_KINDS.get(fname) == "name":
            return self._semantic_name(value)
        v = self.p.evaluate(value)
        if not isinstance(v, int):
            raise _Unresolved(value, self._why(value))
        return self._convert(fname, v, size)

    def _undeclared(self, value, name: str) -> str:
        d = self.p.undeclared.get(name)
        said = f" ({d})" if d else ""
        text = self.p.text(value)
        if text == name:
            return f"`{name}` is not declared{said}"
        return f"`{text}` depends on `{name}`, which is not declared{said}"

    @staticmethod
    def _convert(fname: str, value: int, size: int):
        """``value`` converted to the field's type as C does, in the case-file form."""
        kind = _FIELD_KINDS.get(fname, "uint")
        if kind == "name":
            return None  # a zero pointer
        value &= (1 << (8 * size)) - 1
        if kind == "format":
            return _FORMAT_NAMES.get(value, value)
        if kind == "classification":
            return _CLASS_NAMES.get(value, value)
        if kind == "offset" and value == APPEND_ALIGNED_ELEMENT:
            return "APPEND_ALIGNED_ELEMENT"
        return value

    def _semantic_name(self, value):
        """A string literal's characters, or None for a null pointer."""
        node = value
        for _ in range(32):
            folded = self.p.evaluate(node)
            if isinstance(folded, str):
                return folded
            if node.kind == self.kinds.STRING_LITERAL:
                return _literal(node.spelling)
            if folded == 0 or node.kind in (self.kinds.CXX_NULL_PTR_LITERAL_EXPR,
                                            self.kinds.GNU_NULL_EXPR):
                return None
            ref = node.referenced if node.kind == self.kinds.DECL_REF_EXPR else None
            if ref is not None and ref.kind == self.kinds.VAR_DECL and \
                    ref.type.is_const_qualified() and self.p.initializer(ref) is not None:
                node = self.p.initializer(ref)
                continue
            inner = _expressions(node)
            if len(inner) == 1 and node.kind.name in _WRAPPERS:
                node = inner[0]
                continue
            break
        raise _Unresolved(value, f"a semantic name must be a string literal or NULL, not "
                                 f"`{self.p.text(value)}`")

    def _why(self, value) -> str:
        """Why the compiler does not fold ``value`` to an integer, as precisely as it says."""
        text = self.p.text(value)
        k = self.kinds
        for node, ref in self.p.references(value):
            if node.kind == k.DECL_REF_EXPR and ref.kind in (k.VAR_DECL, k.PARM_DECL) and \
                    not ref.type.is_const_qualified():
                return (f"`{text}` is not a constant: `{ref.spelling}` is a variable whose "
                        f"value is known only when the code runs")
            if node.kind == k.CALL_EXPR and ref.kind in (k.FUNCTION_DECL, k.CXX_METHOD):
                return (f"`{text}` calls `{ref.spelling}`, which the compiler does not "
                        f"evaluate at compile time")
        folded = self.p.evaluate(value)
        if folded is not None:
            return f"`{text}` is {folded!r}, not an integer"
        return f"`{text}` is not a constant expression the compiler can evaluate"

    # -- what the compiler did not keep -------------------------------------------------------
    def _dropped_initializer(self, c, arr, kind) -> _Unresolved:
        """The error of an array whose initializer does not compile: the first compiler error
        in it, with the element and field it is in when the braces say so."""
        tokens = self.p.tokens()
        start = self.p.token_index(c.extent.end.offset)
        depth, end = 0, len(tokens)
        for i in range(start, len(tokens)):
            s = tokens[i].spelling
            depth += s in ("(", "{", "[")
            depth -= s in (")", "}", "]")
            if depth == 0 and s in ("}", ";", ","):
                end = i
                break
        span = tokens[start:end + 1]
        # An initializer cut off by the end of the file has its error at the end.
        last = span[-1].offset + 1 if end < len(tokens) else len(self.p.data) + 1
        errors = self.p.errors_between(span[0].offset, last)
        if not errors:
            before = self.p.errors_before(span[0].offset)
            reason = f": the nearest compiler error before it is {before[-1][0]}" if before \
                else ""
            return _Unresolved(c, f"the compiler did not keep its initializer{reason}")
        diag, at = errors[0]
        located = self._locate(span, at, kind)
        if located is None:
            return _Unresolved((diag.line, diag.column),
                               f"its initializer does not compile: {diag}")
        element, fname, token = located
        field = f"{fname}: " if fname else ""
        return _Unresolved((token.line, token.column),
                           f"element {element}: {field}does not compile: {diag}")

    @staticmethod
    def _locate(span, at: int, kind):
        """(element index, field name or None, first token of the field or element) of the
        byte offset ``at`` in an initializer's tokens, counted from its braces and commas;
        None when a preprocessor directive inside makes the tokens differ from what the
        compiler read."""
        if any(t.spelling == "#" for t in span):
            return None
        opening = next((i for i, t in enumerate(span) if t.spelling == "{"), None)
        if opening is None:
            return None
        depth, element, first = 0, 0, None
        for i in range(opening, len(span)):
            t = span[i]
            if t.offset > at:
                break
            s = t.spelling
            if depth == 1 and first is None and s not in (",", "}"):
                first = i
            if s in ("{", "(", "["):
                depth += 1
            elif s in ("}", ")", "]"):
                depth -= 1
            elif s == "," and depth == 1:
                element, first = element + 1, None
        if first is None:
            return None
        end, depth = first, 0
        for end in range(first, len(span)):
            depth += span[end].spelling in ("{", "(", "[")
            depth -= span[end].spelling in ("}", ")", "]")
            if depth <= 0 and span[end].spelling in ("}", ","):
                break
        fname, token = _field_at(span[first:end + 1], at, kind)
        return element, fname, token or span[first]

    def _dropped(self) -> list[SourceArray]:
        """D3D arrays in code the compiler did not keep (an error in an enclosing
        declaration), each as an unresolved array naming the nearest error before it."""
        out: list[SourceArray] = []
        if not self.p.has_errors():
            return out  # only an error makes the compiler drop code
        tokens = self.p.tokens()
        for i, t in enumerate(tokens):
            if t.spelling not in STRUCTS:
                continue
            cursor = self.p.cursor_at(t.offset)
            if cursor.kind.is_reference() or (cursor.kind.is_declaration()
                                              and cursor.spelling == t.spelling):
                continue
            name, at = _declared_after(tokens, i)
            if name is None:
                continue
            kind = STRUCTS[t.spelling]
            arr = SourceArray(kind.kind, name, self.p.label, t.spelling, kind.profile,
                              at.line, at.column)
            before = self.p.errors_before(t.offset)
            reason = f": the nearest compiler error before it is {before[-1][0]}" if before \
                else ""
            arr.error = SourceError(f"{self.p.label}:{at.line}:{at.column}: array {name}",
                                    f"the compiler did not keep this declaration (the code "
                                    f"around it does not compile){reason}")
            out.append(arr)
        return out

    # -- vectors filled in code --------------------------------------------------------------
    def _pushes(self, index: int, arr) -> list:
        """Elements added by push_back/emplace_back in the declaring block, in source order."""
        var = self.tree.nodes[index]
        scope = next((a for a in self.tree.ancestors(index)
                      if self.tree.nodes[a].kind == self.kinds.COMPOUND_STMT), None)
        lo, hi = (scope + 1, self.tree.end[scope]) if scope is not None else \
            (0, len(self.tree.nodes))
        after = var.extent.end.offset
        out = []
        for i in range(lo, hi):
            n = self.tree.nodes[i]
            if n.kind != self.kinds.CALL_EXPR or n.extent.start.offset < after:
                continue
            method, obj = self._member_call(n)
            if obj is None or not self._refers_to(obj, var):
                continue
            if method == "operator[]" and self._assigned(i):
                raise _Unresolved(n, f"{arr.name} is changed by element assignment; gpuia "
                                     f"reads only push_back/emplace_back")
            if method in _MUTATE:
                raise _Unresolved(n, f"{arr.name}.{method}(...) changes the vector in a way "
                                     f"gpuia does not follow (only push_back/emplace_back)")
            if method not in _PUSH or not self._taken(i, scope, arr):
                continue
            args = list(n.get_arguments())
            if method == "push_back" or (len(args) == 1 and self._d3d_type_of(args[0])):
                if len(args) != 1:
                    raise _Unresolved(n, f"{arr.name}.{method} takes one element")
                out.append(args[0])
            else:
                out.append(args)  # emplace_back(fields...)
        self._check_pushes_read(arr, var, scope, lo, hi)
        return out

    def _d3d_type_of(self, expr) -> bool:
        return self._struct_name(expr.type) is not None

    def _member_call(self, call):
        """(method name, object expression) of a member call, or (None, None)."""
        kids = _children(call)
        if call.spelling == "operator[]" and kids:
            return "operator[]", kids[0]
        if call.spelling == "operator=" and kids:
            return "operator=", kids[0]
        if kids and kids[0].kind == self.kinds.MEMBER_REF_EXPR:
            inner = _children(kids[0])
            return kids[0].spelling, inner[0] if inner else None
        return None, None

    def _refers_to(self, expr, var) -> bool:
        node = expr
        while node.kind.name in _WRAPPERS:
            inner = _expressions(node)
            if len(inner) != 1:
                return False
            node = inner[0]
        return node.kind in (self.kinds.DECL_REF_EXPR, self.kinds.MEMBER_REF_EXPR) and \
            _same(node.referenced, var)

    def _assigned(self, index: int) -> bool:
        """Whether the expression at ``index`` is on the left of an assignment."""
        child = index
        for a in self.tree.ancestors(index):
            node = self.tree.nodes[a]
            if node.kind in (self.kinds.BINARY_OPERATOR,
                             self.kinds.COMPOUND_ASSIGNMENT_OPERATOR):
                if self.p.binary_operator(node) in _ASSIGNMENTS:
                    return child == a + 1  # the left operand is the first child
            if node.kind == self.kinds.CALL_EXPR and node.spelling == "operator=":
                return child == a + 1
            if node.kind.is_statement():
                return False
            child = a
        return False

    def _check_pushes_read(self, arr, var, scope, lo: int, hi: int) -> None:
        """Refuse a vector whose push calls in the source outnumber those the compiler kept
        (the others are in statements that do not compile)."""
        if not self.p.has_errors():
            return
        if scope is None:
            start, end = 0, len(self.p.data)
        else:
            extent = self.tree.nodes[scope].extent
            start, end = extent.start.offset, extent.end.offset
        tokens = self.p.tokens()
        written = sum(1 for i in range(max(2, self.p.token_index(start)),
                                       self.p.token_index(end))
                      if tokens[i].spelling in _PUSH and tokens[i - 1].spelling in (".", "->")
                      and tokens[i - 2].spelling == var.spelling)
        kept = self._pushes_kept(var, lo, hi)
        if written > kept:
            errors = self.p.errors_between(start, end)
            said = f" (the first error: {errors[0][0]})" if errors else ""
            raise _Unresolved(var, f"{written - kept} of its push_back/emplace_back calls do "
                                   f"not compile{said}, so its elements are not known")

    def _pushes_kept(self, var, lo: int, hi: int) -> int:
        """Push calls on ``var`` the compiler kept, taken or not."""
        count = 0
        for i in range(lo, hi):
            n = self.tree.nodes[i]
            if n.kind == self.kinds.CALL_EXPR:
                method, obj = self._member_call(n)
                if method in _PUSH and obj is not None and self._refers_to(obj, var):
                    count += 1
        return count

    def _taken(self, call: int, scope, arr) -> bool:
        """Whether a push is executed, given the conditions around it (see module doc)."""
        taken, child = True, call
        for a in self.tree.ancestors(call):
            if scope is not None and a == scope:
                break
            node = self.tree.nodes[a]
            kind = node.kind.name
            if kind in _LOOPS:
                raise _Unresolved(self.tree.nodes[call],
                                  f"{arr.name} is filled inside a loop: the number of elements "
                                  f"is not known without running the code")
            if kind in _REFUSED_PARENTS:
                raise _Unresolved(self.tree.nodes[call],
                                  f"{arr.name} is filled inside {_REFUSED_PARENTS[kind]}")
            if kind == "IF_STMT":
                branch = self._branch(a, child)
                if branch is not None:
                    cond, then = branch
                    value = self._condition(cond, arr)
                    taken = taken and (value if then else not value)
            child = a
        return taken

    def _branch(self, if_index: int, child: int):
        """(condition, True for the then branch / False for else) of the branch of an if
        statement that holds node ``child``; None when ``child`` is its condition."""
        kids = [i for i in range(if_index + 1, self.tree.end[if_index])
                if self.tree.parent[i] == if_index]
        nodes = self.tree.nodes
        has_else = len(kids) >= 3 and any(
            t.spelling == "else" for t in self.p.tokens_between(
                nodes[kids[-2]].extent.end.offset, nodes[kids[-1]].extent.start.offset))
        then_at = len(kids) - 2 if has_else else len(kids) - 1
        position = kids.index(child)
        if position == then_at:
            return nodes[kids[then_at - 1]], True
        if has_else and position == len(kids) - 1:
            return nodes[kids[then_at - 1]], False
        return None

    def _condition(self, cond, arr) -> bool:
        try:
            self._trusted(cond)
            value = self.p.evaluate(cond)
        except _Unresolved:
            value = None  # not a constant: the condition is assumed, as a run-time one
        if isinstance(value, int):
            return bool(value)
        text = self.p.text(cond)
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1].strip()
        assumed = text not in self.assume_false
        note = f"condition `{text}` assumed {'true' if assumed else 'false'}"
        if note not in arr.notes:
            arr.notes.append(note)
        return assumed

    # -- stream-output strides ------------------------------------------------------------
    def _so_strides(self, arrays, decls) -> None:
        so = [(a, decls[id(a)]) for a in arrays if a.kind == "so_declaration" and a.error is None]
        if not so:
            return
        k = self.kinds
        groups: dict = {}
        for n in self.tree.nodes:
            if n.kind == k.BINARY_OPERATOR and self.p.binary_operator(n) == "=":
                left = _children(n)[0]
                if left.kind == k.MEMBER_REF_EXPR and left.spelling in _SO_DESC_FIELDS:
                    obj = _children(left)
                    if obj:
                        base = next((x.referenced for x in obj[0].walk_preorder()
                                     if x.kind == k.DECL_REF_EXPR), None)
                        key = (base.hash if base is not None else None, self.p.text(obj[0]))
                        group = groups.setdefault(key, {})
                        group[left.spelling] = _children(n)[1]
            elif n.kind == k.VAR_DECL and n.type.get_canonical().get_declaration().spelling \
                    .endswith("_STREAM_OUTPUT_DESC"):
                init = self.p.initializer(n)
                if init is not None and init.kind == k.INIT_LIST_EXPR:
                    fields, pos = {}, 0
                    for child in _children(init):
                        designated = self._designator(child)
                        if designated is not None:
                            name = designated[0].spelling
                            if name in _SO_DESC_FIELDS:
                                pos = _SO_DESC_FIELDS.index(name)
                            child = designated[-1]
                        if pos < len(_SO_DESC_FIELDS):
                            fields[_SO_DESC_FIELDS[pos]] = child
                        pos += 1
                    groups[n.hash] = fields
            elif n.kind == k.CALL_EXPR and n.spelling in _SO_CALLS:
                args = list(n.get_arguments())
                version = 11 if len(args) >= 9 else 10
                d, s, r = _SO_CALLS[n.spelling][version]
                fields = {"pSODeclaration": args[d] if d < len(args) else None}
                if version == 11:
                    fields["pBufferStrides"] = args[s] if s < len(args) else None
                    if r is not None and r < len(args):
                        fields["RasterizedStream"] = args[r]
                elif s < len(args):
                    fields["OneStride"] = args[s]
                groups[n.hash] = fields
        for fields in groups.values():
            decl = fields.get("pSODeclaration")
            var = self._var_in(decl)
            arr = next((a for a, c in so if _same(c, var)), None)
            if arr is None:
                continue
            try:
                self._strides_of(arr, fields)
            except _Unresolved as e:
                arr.notes.append(f"stream-output strides not resolved: {e.rule}")

    def _var_in(self, expr):
        """The variable an expression points at (``decl``, ``&decl[0]``, ``decl.data()``)."""
        if expr is None:
            return None
        for node in expr.walk_preorder():
            if node.kind == self.kinds.DECL_REF_EXPR and node.referenced is not None and \
                    node.referenced.kind == self.kinds.VAR_DECL:
                return node.referenced
        return None

    def _uint(self, expr) -> int:
        self._trusted(expr)
        value = self.p.evaluate(expr)
        if isinstance(value, int):
            return value & _U32
        raise _Unresolved(expr, self._why(expr))

    def _strides_of(self, arr, fields) -> None:
        strides = fields.get("pBufferStrides")
        var = self._var_in(strides)
        if var is not None:
            init = self.p.initializer(var)
            if init is not None and init.kind == self.kinds.INIT_LIST_EXPR:
                arr.buffer_strides = tuple(self._uint(c) for c in _children(init))
                arr.notes.append(f"pBufferStrides {list(arr.buffer_strides)} from "
                                 f"`{var.spelling}`")
        if "OneStride" in fields:
            stride = self._uint(fields["OneStride"])
            arr.buffer_strides = (stride,)
            arr.notes.append(f"OutputStreamStride {stride} from the D3D10 call")
        if fields.get("RasterizedStream") is not None:
            arr.rasterized_stream = self._uint(fields["RasterizedStream"])


def _field_at(span, at: int, kind):
    """(field name, first token of the field) of the byte offset ``at`` in one element's
    tokens (``{`` to ``}``), from its commas and designators; (None, None) when the tokens
    are not a brace list or hold a preprocessor directive."""
    if not span or span[0].spelling != "{" or any(t.spelling == "#" for t in span):
        return None, None
    depth, position, first = 0, 0, None
    for i, t in enumerate(span):
        if t.offset > at:
            break
        s = t.spelling
        if depth == 1 and first is None and s not in (",", "}", ")", "]"):
            first = t
            if s == "." and i + 2 < len(span) and span[i + 2].spelling == "=" and \
                    span[i + 1].spelling in kind.fields:
                position = kind.fields.index(span[i + 1].spelling)
        if s in ("{", "(", "["):
            depth += 1
        elif s in ("}", ")", "]"):
            depth -= 1
        elif s == "," and depth == 1:
            position, first = position + 1, None
    if first is None or position >= len(kind.fields):
        return None, None
    return kind.fields[position], first


def _field_text(parsed, span, first) -> str:
    """The source text of the field starting at token ``first`` of an element's tokens."""
    start = span.index(first)
    depth, last = 0, first
    for t in span[start:]:
        if depth == 0 and t.spelling in (",", "}"):
            break
        depth += t.spelling in ("{", "(", "[")
        depth -= t.spelling in ("}", ")", "]")
        last = t
    raw = parsed.data[first.offset:last.offset + len(last.spelling.encode())]
    return " ".join(raw.decode("utf-8", "replace").split())


def _declared_after(tokens, i: int):
    """(the name, its token) an array or container declaration with the type at token ``i``
    declares, or (None, None) when the tokens around it are not one."""
    j = i + 1
    container = i >= 1 and tokens[i - 1].spelling == "<"
    if container:
        depth = 1
        while j < len(tokens) and depth:
            depth += {"<": 1, ">": -1, ">>": -2}.get(tokens[j].spelling, 0)
            j += 1
    while j < len(tokens) and tokens[j].spelling in ("const", "constexpr", "volatile"):
        j += 1
    if j >= len(tokens) or not _IDENTIFIER.match(tokens[j].spelling):
        return None, None
    at, parts = tokens[j], [tokens[j].spelling]
    j += 1
    while j + 1 < len(tokens) and tokens[j].spelling == "::" and \
            _IDENTIFIER.match(tokens[j + 1].spelling):
        parts.append(tokens[j + 1].spelling)
        j += 2
    follow = tokens[j].spelling if j < len(tokens) else ""
    if (container and follow in ("=", "{", "(", ";")) or (not container and follow == "["):
        return "::".join(parts), at
    return None, None


def extract_cpp(path: str | Path, assume_false=(), options: ParseOptions | None = None
                ) -> SourceFile:
    """Every D3D input-element array and SO declaration in one C/C++ file (see the module
    docstring), with the compiler's diagnostics and the D3D header it read.

    Arguments:
        path: the file.
        assume_false: texts of ``if`` conditions to take as false where a vector is filled
            conditionally.
        options: ``-D``, ``-I`` and the target (:class:`gpuia.source.clang_parse.ParseOptions`);
            None for the defaults.

    Returns:
        The :class:`gpuia.source.model.SourceFile`: an array that cannot be resolved has its
        ``error`` set.

    Raises:
        SourceError: the file cannot be read, or an option is malformed.
        UnsupportedError: libclang (the ``source`` extra) is missing.
    """
    label = str(path)
    try:
        data = read_input(path)
    except CaseError as e:
        raise SourceError(label, e.rule) from None
    parsed = parse(label, data, options)
    arrays = _Reader(parsed, assume_false).arrays()
    return SourceFile(label, parsed.language, arrays, parsed.diagnostics, parsed.d3d_header)
