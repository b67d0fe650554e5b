"""D3D input-element arrays and stream-output declarations in C/C++ source, read with
tree-sitter's C++ grammar (the ``source`` extra: ``tree-sitter``, ``tree-sitter-cpp``).

What is found, in the scanned file only (never in its includes):

- arrays of ``D3D12/D3D11/D3D10_INPUT_ELEMENT_DESC`` and ``D3D12/D3D11/D3D10_SO_DECLARATION_ENTRY``
  with an initializer, at any scope and with any qualifiers (``static``, ``const``,
  ``constexpr``, class-scope definitions such as ``Vertex::InputElements[]``, in-class static
  members), ``std::array<T, N>`` and ``std::vector<T>`` initialized with a brace list;
- ``std::vector<T>`` filled by ``push_back``/``emplace_back`` in the scope it is declared in.
  A push inside an ``if`` whose condition is not a constant is taken with the condition
  assumed true (its ``else`` branch skipped) unless the condition's text is in
  ``assume_false``; every such assumption is listed in the array's notes. A push inside a loop
  or a ``switch``, and any other change to the vector (``insert``, ``resize``, element
  assignment...), is refused.

Element initializers may be positional (C field order, missing trailing fields zero, as C
aggregate initialization makes them), designated (``.Format = ...``), compound literals
(``D3D12_INPUT_ELEMENT_DESC{...}``) or names of struct constants. Field values are constant
expressions: integers in any base with suffixes, ``+ - * / % << >> & | ^ ~``, casts
(C style, ``static_cast``), ``sizeof`` and ``offsetof`` (also the ``&((T*)0)->field`` idiom) of
types laid out from :mod:`gpuia.source.ctypes_table` and from structs defined in the file or its
local includes, ``_countof``/``ARRAYSIZE`` of arrays, enumerators, ``#define`` (object-like and
simple function-like macros), ``const``/``constexpr`` variables, the D3D constants of
:data:`D3D_CONSTANTS`, every ``DXGI_FORMAT_*`` name, string literals (concatenated too) and
``nullptr``/``NULL``/``0`` for an SO gap. Local includes (``#include "x.h"`` found next to the
including file) contribute definitions. Anything else raises :class:`SourceError` naming
``file:line:column``, the array, the element and the field.

Stream-output strides and the rasterized stream are taken from the source when a
``D3D12_STREAM_OUTPUT_DESC`` initializer, ``X.pSODeclaration = decl`` / ``X.pBufferStrides =
strides`` assignments on one object, or a ``CreateGeometryShaderWithStreamOutput`` call name
the declaration.

Preprocessor conditionals are not evaluated: arrays in every ``#if`` branch are reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CaseError
from ..util.files import read_input
from ..d3d.formats import DXGI_FORMAT_VALUES
from .ctypes_table import C_TYPES, POINTER_SIZE
from .model import STRUCTS, SourceArray, SourceError

__all__ = ["extract_cpp", "D3D_CONSTANTS", "parser"]

_U32 = 0xFFFFFFFF

D3D_CONSTANTS = {
    "D3D12_APPEND_ALIGNED_ELEMENT": _U32, "D3D11_APPEND_ALIGNED_ELEMENT": _U32,
    "D3D10_APPEND_ALIGNED_ELEMENT": _U32,
    "D3D12_SO_NO_RASTERIZED_STREAM": _U32, "D3D11_SO_NO_RASTERIZED_STREAM": _U32,
    "D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA": 0,
    "D3D12_INPUT_CLASSIFICATION_PER_INSTANCE_DATA": 1,
    "D3D11_INPUT_PER_VERTEX_DATA": 0, "D3D11_INPUT_PER_INSTANCE_DATA": 1,
    "D3D10_INPUT_PER_VERTEX_DATA": 0, "D3D10_INPUT_PER_INSTANCE_DATA": 1,
    "UINT_MAX": _U32, "TRUE": 1, "FALSE": 0, "true": 1, "false": 0,
}
"""Header constants a source file uses without defining them (d3d12.h, d3d11.h, d3d10.h,
limits.h, windef.h)."""

# How each struct field's value is read; every other field is an unsigned integer of the
# given width (C converts the initializer to it, wrapping).
_FIELD_KINDS = {"SemanticName": "name", "Format": "format", "InputSlotClass": "classification",
                "AlignedByteOffset": "offset"}
_FIELD_BITS = {"StartComponent": 8, "ComponentCount": 8, "OutputSlot": 8}
_CLASS_NAMES = {0: "PER_VERTEX_DATA", 1: "PER_INSTANCE_DATA"}
_CONTAINERS = {"array", "vector", "initializer_list", "span", "static_vector", "small_vector"}
_PUSH = {"push_back", "emplace_back"}
_ELEMENT_NODES = {"initializer_list", "compound_literal_expression", "identifier"}
_MUTATE = {"insert", "emplace", "resize", "assign", "erase", "pop_back", "clear", "swap"}
_LOOPS = {"for_statement", "for_range_loop", "while_statement", "do_statement"}
_COUNT_MACROS = {"_countof", "ARRAYSIZE", "ARRAY_SIZE", "_ARRAYSIZE", "IM_ARRAYSIZE", "std::size",
                 "size"}
_OFFSETOF = {"offsetof", "FIELD_OFFSET", "__builtin_offsetof"}
_UNSIGNED = {"UINT", "DWORD", "BYTE", "WORD", "size_t", "SIZE_T", "UINT8", "UINT16", "UINT32",
             "UINT64", "ULONG", "USHORT", "UCHAR", "ImU32", "ImU64"}
_QUALIFIER_WORDS = {"const", "volatile", "struct", "class", "typename", "constexpr", "static"}
# CreateGeometryShaderWithStreamOutput argument positions: (declaration, strides, rasterized
# stream); D3D10 passes one stride and has no rasterized stream.
_SO_CALLS = {"CreateGeometryShaderWithStreamOutput": {11: (2, 4, 6), 10: (2, 4, None)}}
_SO_DESC_FIELDS = ("pSODeclaration", "NumEntries", "pBufferStrides", "NumStrides",
                   "RasterizedStream")


def parser():
    """A tree-sitter parser for C++ (which also reads the C that D3D code is written in)."""
    try:
        import tree_sitter
        import tree_sitter_cpp
    except ImportError as e:
        from ..errors import UnsupportedError

        raise UnsupportedError(
            f"reading C/C++ needs the 'source' extra (pip install 'gpuia[source]': tree-sitter "
            f"and tree-sitter-cpp): {e}") from None
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cpp.language()))


class _Str(str):
    """A string literal's value."""


class _Fmt(str):
    """A DXGI_FORMAT enumerator, by its name without the prefix."""


class _Null:
    """A null pointer constant (an SO gap's SemanticName)."""

    def __repr__(self):
        return "NULL"


NULL = _Null()


class _Unresolved(Exception):
    """Raised inside evaluation; turned into a SourceError with the full location."""

    def __init__(self, node, rule: str):
        super().__init__(rule)
        self.node = node
        self.rule = rule


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _squash(text: str) -> str:
    return " ".join(text.split())


def _pos(node) -> tuple[int, int]:
    return node.start_point[0] + 1, node.start_point[1] + 1


def _last_name(node) -> str:
    """The unqualified name of an identifier, ``A::B::name`` or a template type."""
    while node.type in ("qualified_identifier",):
        node = node.child_by_field_name("name")
    if node.type == "template_type":
        node = node.child_by_field_name("name")
    return _text(node)


@dataclass
class _Defs:
    """Definitions visible to the scanned file: its own and those of its local includes."""

    macros: dict = field(default_factory=dict)  # name -> expression node of the body
    fmacros: dict = field(default_factory=dict)  # name -> (param names, body node)
    values: dict = field(default_factory=dict)  # name -> initializer node (first definition)
    scoped: dict = field(default_factory=dict)  # name -> every initializer node of that name
    enums: dict = field(default_factory=dict)  # name -> (enumerator_list node, position)
    structs: dict = field(default_factory=dict)  # name -> field_declaration_list node
    typedefs: dict = field(default_factory=dict)  # name -> type text
    trees: list = field(default_factory=list)  # keeps parsed macro bodies alive


class _Reader:
    def __init__(self, path: Path, assume_false=()):
        self.path = path
        self.label = str(path)
        self.parser = parser()
        self.defs = _Defs()
        self.assume_false = {_squash(c) for c in assume_false}
        self._seen_files: set = set()
        self._decl_nodes: dict = {}
        self.tree = self._parse_file(path)
        self._collect(self.tree.root_node, path.parent)

    # -- files and definitions ---------------------------------------------------------------
    def _parse_file(self, path: Path):
        try:
            data = read_input(path)
        except CaseError as e:
            raise SourceError(str(path), e.rule) from None
        self._seen_files.add(path.resolve())
        return self.parser.parse(data)

    def _expr_tree(self, text: str):
        """Parse a macro body as an expression (the initializer of a dummy variable)."""
        tree = self.parser.parse(f"auto __gpuia_macro = {text};".encode())
        self.defs.trees.append(tree)
        node = tree.root_node
        for n in _walk(node):
            if n.type == "init_declarator":
                value = n.child_by_field_name("value")
                if value is not None and not _has_error(value):
                    return value
        return None

    def _collect(self, root, folder: Path) -> None:
        d = self.defs
        for n in _walk(root):
            t = n.type
            if t == "preproc_include":
                self._include(n, folder)
            elif t == "preproc_def":
                value = n.child_by_field_name("value")
                if value is not None:
                    body = self._expr_tree(_text(value).strip())
                    if body is not None:
                        d.macros[_text(n.child_by_field_name("name"))] = body
            elif t == "preproc_function_def":
                value = n.child_by_field_name("value")
                params = n.child_by_field_name("parameters")
                if value is not None and params is not None:
                    body = self._expr_tree(_text(value).strip())
                    if body is not None:
                        names = [_text(p) for p in params.named_children]
                        d.fmacros[_text(n.child_by_field_name("name"))] = (names, body)
            elif t in ("init_declarator", "field_declaration"):
                decl = n.child_by_field_name("declarator")
                value = n.child_by_field_name("value" if t == "init_declarator" else
                                              "default_value")
                if decl is not None and value is not None:
                    name = _declared_name(decl)
                    if name is not None:
                        d.values.setdefault(name, value)
                        d.values.setdefault(name.split("::")[-1], value)
                        d.scoped.setdefault(name, []).append(value)
            elif t == "enumerator_list":
                for i, e in enumerate(n.named_children):
                    if e.type == "enumerator":
                        d.enums.setdefault(_text(e.child_by_field_name("name")), (n, i))
            elif t in ("struct_specifier", "class_specifier"):
                body = n.child_by_field_name("body")
                name = n.child_by_field_name("name")
                if body is not None and name is not None:
                    d.structs.setdefault(_last_name(name), (body, n))
            elif t == "type_definition":
                typ = n.child_by_field_name("type")
                for decl in n.children_by_field_name("declarator"):
                    if decl.type == "type_identifier" and typ is not None:
                        if typ.type in ("struct_specifier", "class_specifier") and \
                                typ.child_by_field_name("body") is not None:
                            d.structs.setdefault(_text(decl), (typ.child_by_field_name("body"),
                                                               typ))
                        else:
                            d.typedefs.setdefault(_text(decl), _squash(_text(typ)))
            elif t == "alias_declaration":
                name = n.child_by_field_name("name")
                typ = n.child_by_field_name("type")
                if name is not None and typ is not None:
                    d.typedefs.setdefault(_text(name), _squash(_text(typ)))

    def _include(self, node, folder: Path) -> None:
        path_node = node.child_by_field_name("path")
        if path_node is None or path_node.type != "string_literal":
            return  # <system> headers: the D3D ones are known through D3D_CONSTANTS
        name = _text(path_node).strip('"')
        target = folder / name
        if target.is_file() and target.resolve() not in self._seen_files:
            tree = self._parse_file(target)
            self.defs.trees.append(tree)
            self._collect(tree.root_node, target.parent)

    # -- evaluation ------------------------------------------------------------------------
    def evaluate(self, node, env=None, depth=0):
        """The value of a constant expression: int, _Str, _Fmt or NULL."""
        if depth > 64:
            raise _Unresolved(node, "constant definitions nest too deeply (a recursive macro?)")
        env = env or {}

        def ev(n):
            return self.evaluate(n, env, depth + 1)

        t = node.type
        if _has_error(node):
            raise _Unresolved(node, f"`{_squash(_text(node))}` does not parse")
        if t == "number_literal":
            return _number(node)
        if t in ("string_literal", "raw_string_literal"):
            return _Str(_string(node))
        if t == "concatenated_string":
            return _Str("".join(_string(c) for c in node.named_children))
        if t == "null" or t == "nullptr":
            return NULL
        if t == "true":
            return 1
        if t == "false":
            return 0
        if t == "char_literal":
            body = _text(node)[1:-1]
            if len(body) == 1:
                return ord(body)
            raise _Unresolved(node, f"character literal {_text(node)} is not supported")
        if t in ("parenthesized_expression", "condition_clause"):
            inner = [c for c in node.named_children if c.type != "comment"]
            if len(inner) == 1:
                return ev(inner[0])
        if t in ("identifier", "qualified_identifier", "type_identifier"):
            return self._name_value(node, env, depth)
        if t == "cast_expression":
            return self._cast(node.child_by_field_name("type"),
                              ev(node.child_by_field_name("value")), node)
        if t == "unary_expression":
            v = self._int(ev(node.child_by_field_name("argument")), node)
            op = _text(node.child_by_field_name("operator"))
            return {"-": lambda x: -x, "+": lambda x: x, "~": lambda x: ~x & _U32 if x >= 0
                    else ~x, "!": lambda x: int(not x)}[op](v)
        if t == "binary_expression":
            return self._binary(node, ev)
        if t == "conditional_expression":
            cond = self._int(ev(node.child_by_field_name("condition")), node)
            return ev(node.child_by_field_name("consequence" if cond else "alternative"))
        if t == "sizeof_expression":
            return self._sizeof(node, env)
        if t == "offsetof_expression":
            return self._offsetof(node.child_by_field_name("type"),
                                  node.child_by_field_name("member"), env, node)
        if t == "pointer_expression":
            offset = self._null_member_offset(node, env)
            if offset is not None:
                return offset
        if t == "call_expression":
            return self._call(node, env, depth)
        raise _Unresolved(node, f"`{_squash(_text(node))}` is not a constant expression gpuia "
                                f"can evaluate ({t})")

    @staticmethod
    def _int(v, node) -> int:
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        raise _Unresolved(node, f"`{_squash(_text(node))}` is not an integer (it is {v!r})")

    def _binary(self, node, ev):
        op = _text(node.child_by_field_name("operator"))
        a = self._int(ev(node.child_by_field_name("left")), node)
        b = self._int(ev(node.child_by_field_name("right")), node)
        if op in ("/", "%") and b == 0:
            raise _Unresolved(node, "division by zero")
        ops = {"+": a + b, "-": a - b, "*": a * b, "<<": a << b if 0 <= b < 64 else None,
               ">>": a >> b if 0 <= b < 64 else None, "&": a & b, "|": a | b, "^": a ^ b,
               "==": int(a == b), "!=": int(a != b), "<": int(a < b), ">": int(a > b),
               "<=": int(a <= b), ">=": int(a >= b), "&&": int(bool(a and b)),
               "||": int(bool(a or b))}
        if op == "/":
            return int(a / b)  # C truncates toward zero
        if op == "%":
            return a - int(a / b) * b
        value = ops.get(op)
        if value is None:
            raise _Unresolved(node, f"operator {op} is not supported here")
        return value

    def _cast(self, type_node, value, node):
        """C casts keep the value; casts to 8/16/32-bit unsigned types wrap as C does."""
        if isinstance(value, int) and type_node is not None:
            name = _type_key(_text(type_node))
            size = C_TYPES.get(self._resolve_typedef(name), (None,))[0]
            unsigned = name.startswith(("unsigned", "uint")) or name in _UNSIGNED
            if unsigned and size:
                return value & ((1 << (8 * size)) - 1)
        return value

    def _resolve_typedef(self, name: str, depth: int = 0) -> str:
        while name in self.defs.typedefs and depth < 32:
            name = _type_key(self.defs.typedefs[name])
            depth += 1
        return name

    def _name_value(self, node, env, depth):
        raw = _squash(_text(node))
        name = raw.split("::")[-1]
        if raw in env:
            return self.evaluate(env[raw][0], env[raw][1], depth + 1)
        if name in D3D_CONSTANTS:
            return D3D_CONSTANTS[name]
        if name in ("NULL", "nullptr"):
            return NULL
        if name.startswith("DXGI_FORMAT_") and name[len("DXGI_FORMAT_"):] in DXGI_FORMAT_VALUES:
            return _Fmt(name[len("DXGI_FORMAT_"):])
        d = self.defs
        if name in d.macros:
            return self.evaluate(d.macros[name], None, depth + 1)
        if raw in d.values or name in d.values:
            value = d.values.get(raw, d.values.get(name))
            if value.type == "initializer_list":
                raise _Unresolved(node, f"`{raw}` is an aggregate, not a value")
            return self.evaluate(value, None, depth + 1)
        if name in d.enums:
            return self._enumerator(*d.enums[name], depth)
        raise _Unresolved(node, f"`{raw}` is not defined in this file or its local includes "
                                f"(gpuia reads #define, const/constexpr variables, enumerators, "
                                f"DXGI_FORMAT_* and the D3D constants)")

    def _enumerator(self, enum_list, index, depth):
        value = -1
        for i, e in enumerate(enum_list.named_children):
            if e.type != "enumerator":
                continue
            init = e.child_by_field_name("value")
            value = self._int(self.evaluate(init, None, depth + 1), init) if init is not None \
                else value + 1
            if i == index:
                return value
        raise _Unresolved(enum_list, "enumerator not found")

    def _call(self, node, env, depth):
        fn = node.child_by_field_name("function")
        args = [a for a in node.child_by_field_name("arguments").named_children
                if a.type != "comment"]
        if fn.type == "template_function":
            name = _text(fn.child_by_field_name("name"))
            if name in ("static_cast", "reinterpret_cast", "const_cast") and len(args) == 1:
                targs = fn.child_by_field_name("arguments")
                value = self.evaluate(args[0], env, depth + 1)
                return self._cast(targs.named_children[0] if targs.named_child_count else None,
                                  value, node)
        name = _squash(_text(fn))
        short = name.split("::")[-1]
        if short in _OFFSETOF and len(args) == 2:
            return self._offsetof(args[0], args[1], env, node)
        if (name in _COUNT_MACROS or short in _COUNT_MACROS) and len(args) == 1:
            return self._count(args[0], env, node)
        if short in self.defs.fmacros:
            params, body = self.defs.fmacros[short]
            if len(params) != len(args):
                raise _Unresolved(node, f"macro {short} takes {len(params)} arguments")
            inner = {p: (a, env) for p, a in zip(params, args)}
            return self.evaluate(body, inner, depth + 1)
        if fn.type in ("primitive_type", "type_identifier", "sized_type_specifier") and \
                len(args) == 1:  # functional cast: UINT(x)
            return self._cast(fn, self.evaluate(args[0], env, depth + 1), node)
        raise _Unresolved(node, f"call `{_squash(_text(node))}` is not a constant gpuia can "
                                f"evaluate")

    def _count(self, arg, env, node) -> int:
        name = self._bound_name(arg, env)
        value = self.defs.values.get(name) or self.defs.values.get(name.split("::")[-1])
        if value is None or value.type != "initializer_list":
            raise _Unresolved(node, f"`{name}` is not an array defined with an initializer here")
        return len([c for c in value.named_children if c.type != "comment"])

    def _bound_name(self, node, env) -> str:
        """A name as written, or the macro argument it stands for."""
        text = _squash(_text(node))
        seen = 0
        while text in env and seen < 16:
            node, env = env[text]
            text = _squash(_text(node))
            seen += 1
        return text

    # -- sizeof / offsetof ------------------------------------------------------------------
    def _sizeof(self, node, env) -> int:
        typ = node.child_by_field_name("type")
        if typ is not None:
            return self.layout_of(self._bound_name(typ, env), node)[0]
        value = node.child_by_field_name("value")
        name = self._bound_name(value, env)
        if name.startswith("(") and name.endswith(")"):
            name = name[1:-1].strip()
        return self.layout_of(name, node)[0]

    def _offsetof(self, type_node, member_node, env, node) -> int:
        struct = self._bound_name(type_node, env)
        member = self._bound_name(member_node, env)
        offset = 0
        for part in member.split("."):
            fields, _, _ = self._struct_layout(struct, node)
            if part not in fields:
                raise _Unresolved(node, f"struct {struct} has no member {part} (members: "
                                        f"{', '.join(fields) or 'none'})")
            field_offset, struct = fields[part]
            offset += field_offset
        return offset

    def _null_member_offset(self, node, env):
        """``&((T*)0)->member``: the pre-offsetof idiom for a member's offset."""
        if _text(node.child_by_field_name("operator")) != "&":
            return None
        arg = node.child_by_field_name("argument")
        while arg.type == "parenthesized_expression" and arg.named_child_count == 1:
            arg = arg.named_children[0]
        if arg.type != "field_expression" or _text(arg.child_by_field_name("operator")) != "->":
            return None
        base = arg.child_by_field_name("argument")
        while base.type == "parenthesized_expression" and base.named_child_count == 1:
            base = base.named_children[0]
        if base.type != "cast_expression":
            return None
        typ = base.child_by_field_name("type")
        if typ is None or typ.child_by_field_name("declarator") is None or \
                self._int(self.evaluate(base.child_by_field_name("value"), env), base) != 0:
            return None
        struct = _text(typ.child_by_field_name("type"))
        member = _text(arg.child_by_field_name("field"))
        fields, _, _ = self._struct_layout(self._bound_name(typ.child_by_field_name("type"), env),
                                           node)
        if member not in fields:
            raise _Unresolved(node, f"struct {struct} has no member {member}")
        return fields[member][0]

    def layout_of(self, type_text: str, node) -> tuple[int, int]:
        """(size, alignment) of a type named in the source."""
        text = _squash(type_text)
        if text.endswith("*"):
            return POINTER_SIZE, POINTER_SIZE
        name = self._resolve_typedef(_type_key(text))
        if name in C_TYPES:
            return C_TYPES[name]
        if name in self.defs.structs:
            _, size, align = self._struct_layout(name, node)
            return size, align
        raise _Unresolved(node, f"the size of type `{text}` is unknown: it is neither a "
                                f"built-in or DirectXMath type nor a struct defined in this file "
                                f"or its local includes")

    def _struct_layout(self, name, node, depth=0):
        """({member: (offset, type name)}, size, alignment) of a struct defined in the source."""
        name = self._resolve_typedef(_type_key(name))
        if name not in self.defs.structs:
            raise _Unresolved(node, f"struct {name} is not defined in this file or its local "
                                    f"includes")
        if depth > 16:
            raise _Unresolved(node, f"struct {name} nests too deeply")
        body, spec = self.defs.structs[name]
        if any(c.type == "base_class_clause" for c in spec.children):
            raise _Unresolved(node, f"struct {name} has base classes; gpuia lays out plain "
                                    f"structs only")
        fields, offset, align = {}, 0, 1
        for decl in body.named_children:
            if decl.type != "field_declaration":
                continue
            if any(c.type == "storage_class_specifier" for c in decl.children):
                continue  # static members take no room in the object
            typ = decl.child_by_field_name("type")
            declarators = decl.children_by_field_name("declarator")
            if typ is not None and typ.type in ("union_specifier", "struct_specifier") and \
                    typ.child_by_field_name("body") is not None:
                raise _Unresolved(node, f"struct {name} has a nested struct or union member; "
                                        f"gpuia does not lay those out")
            if any(c.type == "bitfield_clause" for c in decl.children):
                raise _Unresolved(node, f"struct {name} has bit-fields; gpuia does not lay "
                                        f"those out")
            for d in declarators:
                if d.type == "function_declarator":
                    continue
                count = 1
                member_type = _text(typ)
                while d.type in ("array_declarator", "pointer_declarator"):
                    if d.type == "pointer_declarator":
                        member_type += "*"
                    else:
                        size_node = d.child_by_field_name("size")
                        count *= self._int(self.evaluate(size_node), size_node)
                    d = d.child_by_field_name("declarator")
                size, a = self.layout_of(member_type, node) if not member_type.endswith("*") \
                    else (POINTER_SIZE, POINTER_SIZE)
                offset = (offset + a - 1) // a * a
                fields[_text(d)] = (offset, member_type)
                offset += size * count
                align = max(align, a)
        size = (offset + align - 1) // align * align
        return fields, size, align

    # -- arrays ------------------------------------------------------------------------------
    def arrays(self) -> list[SourceArray]:
        out = []
        root = self.tree.root_node
        for n in _walk(root):
            if n.type in ("declaration", "field_declaration"):
                out.extend(self._declaration(n))
        self._so_strides(root, out)
        if not out and root.has_error:
            # A file that names a D3D struct but does not parse (an initializer cut off, say)
            # must not pass as "nothing found".
            text = _text(root)
            if any(name in text for name in STRUCTS):
                bad = next(n for n in _walk(root) if n.type == "ERROR" or n.is_missing)
                line, col = _pos(bad)
                raise SourceError(f"{self.label}:{line}:{col}",
                                  "the file does not parse here, and it names a D3D input-element "
                                  "or SO declaration type: no array could be read")
        return out

    def _declaration(self, node) -> list[SourceArray]:
        typ = node.child_by_field_name("type")
        if typ is None:
            return []
        container = None
        struct_name = _last_name(typ) if typ.type in ("type_identifier", "qualified_identifier") \
            else None
        if typ.type == "qualified_identifier" and struct_name not in STRUCTS:
            inner = typ
            while inner.type == "qualified_identifier":
                inner = inner.child_by_field_name("name")
            typ = inner
        if typ.type == "template_type":
            container = _text(typ.child_by_field_name("name"))
            targs = typ.child_by_field_name("arguments")
            first = targs.named_children[0] if targs is not None and targs.named_child_count \
                else None
            struct_name = _last_name(first.child_by_field_name("type")) if first is not None \
                and first.type == "type_descriptor" else None
            if container not in _CONTAINERS:
                return []
        if struct_name not in STRUCTS:
            return []
        kind = STRUCTS[struct_name]
        out = []
        if node.type == "field_declaration":
            pairs = [(d, node.child_by_field_name("default_value"))
                     for d in node.children_by_field_name("declarator")]
        else:
            pairs = []
            for d in node.children_by_field_name("declarator"):
                if d.type == "init_declarator":
                    pairs.append((d.child_by_field_name("declarator"),
                                  d.child_by_field_name("value")))
                else:
                    pairs.append((d, None))
        for decl, value in pairs:
            is_array = decl.type == "array_declarator"
            if not is_array and container is None:
                continue  # a single struct, not an array
            name = _declared_name(decl)
            if name is None:
                continue
            line, col = _pos(decl)
            arr = SourceArray(kind.kind, name, self.label, struct_name, kind.profile, line, col)
            self._decl_nodes[id(arr)] = decl
            try:
                items = self._items(node, decl, value, container, name, arr)
                if items is None:
                    continue
                self._missing = {}
                arr.elements = [self._element(item, kind, i, arr) for i, item in enumerate(items)]
                for missing, indices in self._missing.items():
                    arr.notes.append(f"element(s) {', '.join(map(str, indices))}: "
                                     f"{', '.join(missing)} not given, so zero (C aggregate "
                                     f"initialization)")
            except _Unresolved as e:
                arr.error = self._error(arr, e)
                arr.elements = []
            except SourceError as e:
                arr.error = e
                arr.elements = []
            out.append(arr)
        return out

    def _error(self, arr, e: _Unresolved, what: str = "") -> SourceError:
        line, col = _pos(e.node)
        where = f"{self.label}:{line}:{col}: array {arr.name}" + (f": {what}" if what else "")
        return SourceError(where, e.rule)

    def _items(self, decl_node, decl, value, container, name, arr):
        """The element initializers of one declared array or container, in order."""
        items = []
        if value is not None:
            if value.type == "argument_list":  # std::vector<T> v({...}) or v(n)
                inner = value.named_children
                value = inner[0] if len(inner) == 1 and inner[0].type == "initializer_list" \
                    else None
                if value is None:
                    raise _Unresolved(decl, f"{name} is constructed from something other than a "
                                            f"brace list")
            if value.type != "initializer_list":
                raise _Unresolved(value, f"{name} is initialized from `{_squash(_text(value))}`,"
                                         f" not a brace list")
            items = [c for c in value.named_children if c.type != "comment"]
            # std::array<T, N> a = {{ {...}, {...} }}: the outer braces hold the C array.
            if container == "array" and len(items) == 1 and items[0].type == "initializer_list":
                inner = [c for c in items[0].named_children if c.type != "comment"]
                if inner and all(c.type in _ELEMENT_NODES for c in inner) and any(
                        c.type != "identifier" for c in inner):
                    items = inner
        if container == "vector":
            pushed = self._pushes(decl_node, name, arr)
            if value is None and not pushed:
                return None
            items = items + pushed
        elif value is None:
            return None
        return items

    def _pushes(self, decl_node, name, arr) -> list:
        """Elements added by push_back/emplace_back in the declaring scope, in source order."""
        scope = decl_node.parent
        while scope is not None and scope.type not in ("compound_statement", "translation_unit"):
            scope = scope.parent
        if scope is None:
            return []
        out = []
        for n in _walk(scope):
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left.type == "subscript_expression" and \
                        _text(left.child_by_field_name("argument")) == name:
                    raise _Unresolved(n, f"{name} is changed by element assignment; gpuia reads "
                                         f"only push_back/emplace_back")
            if n.type != "call_expression" or n.start_byte < decl_node.end_byte:
                continue
            fn = n.child_by_field_name("function")
            if fn.type != "field_expression":
                continue
            target = fn.child_by_field_name("argument")
            method = _text(fn.child_by_field_name("field"))
            if _text(target) != name:
                continue
            if method in _MUTATE:
                raise _Unresolved(n, f"{name}.{method}(...) changes the vector in a way gpuia "
                                     f"does not follow (only push_back/emplace_back)")
            if method not in _PUSH:
                continue
            if not self._taken(n, scope, name, arr):
                continue
            args = [a for a in n.child_by_field_name("arguments").named_children
                    if a.type != "comment"]
            if method == "push_back" or (len(args) == 1 and args[0].type in (
                    "initializer_list", "compound_literal_expression", "identifier")):
                if len(args) != 1:
                    raise _Unresolved(n, f"{name}.{method} takes one element")
                out.append(args[0])
            else:
                out.append(n.child_by_field_name("arguments"))  # emplace_back(fields...)
        return out

    def _taken(self, call, scope, name, arr) -> bool:
        """Whether a push is executed, given the conditions around it (see module doc)."""
        node, taken = call, True
        while node is not None and node != scope:
            parent = node.parent
            if parent is None:
                break
            if parent.type in _LOOPS:
                raise _Unresolved(call, f"{name} is filled inside a loop: the number of elements "
                                        f"is not known without running the code")
            if parent.type in ("switch_statement", "case_statement"):
                raise _Unresolved(call, f"{name} is filled inside a switch: gpuia does not "
                                        f"choose a case")
            if parent.type == "conditional_expression":
                raise _Unresolved(call, f"{name} is filled inside a ?: expression")
            branch = None
            if parent.type == "if_statement":
                branch = "then" if node == parent.child_by_field_name("consequence") else None
            elif parent.type == "else_clause" and parent.parent is not None and \
                    parent.parent.type == "if_statement":
                parent = parent.parent
                branch = "else"
            if branch is not None:
                cond = parent.child_by_field_name("condition")
                value = self._condition(cond, arr)
                taken = taken and (value if branch == "then" else not value)
            node = parent
        return taken

    def _condition(self, cond, arr) -> bool:
        try:
            value = self.evaluate(cond)
            if isinstance(value, int):
                return bool(value)
        except _Unresolved:
            pass
        text = _squash(_text(cond))
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1].strip()
        assumed = text not in self.assume_false
        note = f"condition `{text}` assumed {'true' if assumed else 'false'}"
        if note not in arr.notes:
            arr.notes.append(note)
        return assumed

    def _element(self, item, kind, index, arr) -> dict:
        """One element's fields, by name, from its initializer."""
        where = f"element {index}"
        node = item
        if node.type == "compound_literal_expression":
            node = node.child_by_field_name("value")
        if node.type == "identifier":
            value = self.defs.values.get(_text(node))
            if value is None or value.type != "initializer_list":
                raise _Unresolved(item, f"{where}: `{_text(node)}` is not a struct constant "
                                        f"defined with a brace list here")
            node = value
        if node.type not in ("initializer_list", "argument_list"):
            raise _Unresolved(item, f"{where}: `{_squash(_text(item))}` is not a brace "
                                    f"initializer of {arr.struct}")
        given: dict[str, object] = {}
        position = 0
        for child in node.named_children:
            if child.type == "comment":
                continue
            if child.type == "initializer_pair":
                designators = child.children_by_field_name("designator")
                fname = _text(designators[0]).lstrip(".") if designators else ""
                if fname not in kind.fields:
                    raise _Unresolved(child, f"{where}: {arr.struct} has no field {fname}")
                position = kind.fields.index(fname)
                value_node = child.child_by_field_name("value")
            else:
                value_node = child
            if position >= len(kind.fields):
                raise _Unresolved(child, f"{where}: more initializers than the "
                                         f"{len(kind.fields)} fields of {arr.struct}")
            fname = kind.fields[position]
            try:
                given[fname] = self._field(fname, self.evaluate(value_node), value_node)
            except _Unresolved as e:
                raise _Unresolved(e.node, f"{where}: {fname}: {e.rule}") from None
            position += 1
        missing = tuple(f for f in kind.fields if f not in given)
        if missing:
            self._missing.setdefault(missing, []).append(index)
        out = {f: given[f] if f in given else self._field(f, 0, node) for f in kind.fields}
        if kind.kind == "so_declaration" and "Stream" not in out:
            out = {"Stream": 0, **out}  # D3D10 entries have no Stream: its one stream is 0
        return out

    def _field(self, fname, value, node):
        kind = _FIELD_KINDS.get(fname, "uint")
        if kind == "name":
            if value is NULL or (isinstance(value, int) and value == 0):
                return None
            if isinstance(value, _Str):
                return str(value)
            raise _Unresolved(node, f"a semantic name must be a string literal or NULL, not "
                                    f"{value!r}")
        if kind == "format":
            if isinstance(value, _Fmt):
                return str(value)
            if isinstance(value, int) and not isinstance(value, _Fmt):
                return value & _U32
            raise _Unresolved(node, f"a DXGI_FORMAT must be a DXGI_FORMAT_* name or an integer, "
                                    f"not {value!r}")
        if not isinstance(value, int) or isinstance(value, (_Fmt,)):
            raise _Unresolved(node, f"expected an integer, got {value!r}")
        if kind == "classification":
            value &= _U32
            return _CLASS_NAMES.get(value, value)
        bits = _FIELD_BITS.get(fname, 32)
        value &= (1 << bits) - 1  # C converts the initializer to the field's unsigned type
        if kind == "offset" and value == _U32:
            return "APPEND_ALIGNED_ELEMENT"
        return value

    # -- stream-output strides ------------------------------------------------------------
    def _so_strides(self, root, arrays) -> None:
        so = [a for a in arrays if a.kind == "so_declaration" and a.error is None]
        if not so:
            return
        groups: dict[str, dict] = {}
        for n in _walk(root):
            if n.type == "assignment_expression":
                left = n.child_by_field_name("left")
                if left.type == "field_expression":
                    fname = _text(left.child_by_field_name("field"))
                    if fname in _SO_DESC_FIELDS:
                        obj = _squash(_text(left.child_by_field_name("argument")))
                        key = f"{_enclosing_block(n).start_byte}:{obj}"
                        group = groups.setdefault(key, {"@": n})
                        group[fname] = n.child_by_field_name("right")
            elif n.type == "init_declarator":
                value = n.child_by_field_name("value")
                decl_type = n.parent.child_by_field_name("type") if n.parent else None
                if value is not None and value.type == "initializer_list" and decl_type is not \
                        None and _last_name(decl_type).endswith("_STREAM_OUTPUT_DESC"):
                    fields = {}
                    pos = 0
                    for c in value.named_children:
                        if c.type == "initializer_pair":
                            ds = c.children_by_field_name("designator")
                            fname = _text(ds[0]).lstrip(".") if ds else ""
                            if fname in _SO_DESC_FIELDS:
                                pos = _SO_DESC_FIELDS.index(fname)
                                fields[fname] = c.child_by_field_name("value")
                        elif pos < len(_SO_DESC_FIELDS):
                            fields[_SO_DESC_FIELDS[pos]] = c
                        pos += 1
                    fields["@"] = n
                    groups[f"{n.start_byte}"] = fields
            elif n.type == "call_expression":
                fn = n.child_by_field_name("function")
                short = _squash(_text(fn)).split("->")[-1].split(".")[-1]
                if short in _SO_CALLS:
                    args = [a for a in n.child_by_field_name("arguments").named_children
                            if a.type != "comment"]
                    version = 11 if len(args) >= 9 else 10
                    d, s, r = _SO_CALLS[short][version]
                    fields = {"pSODeclaration": args[d] if d < len(args) else None}
                    if version == 11:
                        fields["pBufferStrides"] = args[s] if s < len(args) else None
                        if r is not None and r < len(args):
                            fields["RasterizedStream"] = args[r]
                    elif s < len(args):
                        fields["OneStride"] = args[s]
                    fields["@"] = n
                    groups[f"{n.start_byte}"] = fields
        for fields in groups.values():
            decl = fields.get("pSODeclaration")
            if decl is None:
                continue
            at = fields["@"]
            candidates = [(a, self._decl_nodes[id(a)]) for a in so if a.name == _array_ref(decl)]
            arr = _innermost_visible(candidates, at)
            if arr is None:
                continue
            try:
                if "pBufferStrides" in fields and fields["pBufferStrides"] is not None:
                    ref = _array_ref(fields["pBufferStrides"])
                    init = _innermost_visible([(v, v) for v in self.defs.scoped.get(ref, [])], at)
                    if init is not None and init.type == "initializer_list":
                        arr.buffer_strides = tuple(
                            self._int(self.evaluate(c), c) & _U32 for c in init.named_children
                            if c.type != "comment")
                        arr.notes.append(f"pBufferStrides {list(arr.buffer_strides)} from "
                                         f"`{ref}`")
                if "OneStride" in fields:
                    stride = self._int(self.evaluate(fields["OneStride"]), fields["OneStride"])
                    arr.buffer_strides = (stride & _U32,)
                    arr.notes.append(f"OutputStreamStride {stride} from the D3D10 call")
                if fields.get("RasterizedStream") is not None:
                    node = fields["RasterizedStream"]
                    arr.rasterized_stream = self._int(self.evaluate(node), node) & _U32
            except _Unresolved as e:
                arr.notes.append(f"stream-output strides not resolved: {e.rule}")


def _enclosing_block(node):
    """The innermost ``{...}`` block (or the file) a node is declared in."""
    node = node.parent
    while node is not None and node.type not in ("compound_statement", "translation_unit"):
        node = node.parent
    return node


def _innermost_visible(candidates, at):
    """Of (item, declaration node) pairs, the item declared in the innermost block enclosing
    ``at`` (C scoping, which matters when every test function names its array alike)."""
    best, best_size = None, None
    for item, node in candidates:
        block = _enclosing_block(node)
        if block is None or not block.start_byte <= at.start_byte < block.end_byte:
            continue
        size = block.end_byte - block.start_byte
        if best_size is None or size < best_size:
            best, best_size = item, size
    return best


def _array_ref(node) -> str:
    """The array an expression points at: ``decl``, ``&decl[0]``, ``decl.data()``."""
    text = _squash(_text(node))
    for prefix in ("&",):
        text = text.removeprefix(prefix)
    for suffix in ("[0]", ".data()"):
        text = text.removesuffix(suffix)
    return text.strip("() ")


def _type_key(text: str) -> str:
    words = [w for w in _squash(text).replace("*", " * ").split() if w not in _QUALIFIER_WORDS]
    name = " ".join(words)
    return name.split("::")[-1].strip() if "::" in name else name


def _declared_name(decl) -> str | None:
    """The name a declarator declares (``name``, ``Class::name``), through arrays/pointers."""
    while decl is not None and decl.type in ("array_declarator", "pointer_declarator",
                                             "reference_declarator", "init_declarator"):
        decl = decl.child_by_field_name("declarator") or (
            decl.named_children[-1] if decl.type == "reference_declarator" else None)
    if decl is None or decl.type not in ("identifier", "qualified_identifier",
                                         "field_identifier"):
        return None
    return _squash(_text(decl))


def _number(node) -> int:
    text = _text(node).replace("'", "")
    body = text.rstrip("uUlLzZ")
    try:
        if body.lower().startswith(("0x", "0b")):
            return int(body, 0)
        if len(body) > 1 and body.startswith("0") and body.isdigit():
            return int(body, 8)
        return int(body)
    except ValueError:
        raise _Unresolved(node, f"{text} is not an integer literal") from None


def _string(node) -> str:
    """A string literal's characters (escapes beyond \\\\ and \\\" are kept as written)."""
    if node.type == "raw_string_literal":
        raw = _text(node)
        return raw[raw.index("(") + 1: raw.rindex(")")]
    parts = []
    for c in node.named_children:
        if c.type == "string_content":
            parts.append(_text(c))
        elif c.type == "escape_sequence":
            parts.append({"\\\\": "\\", '\\"': '"', "\\n": "\n", "\\t": "\t"}.get(_text(c),
                                                                               _text(c)))
    return "".join(parts)


def _walk(root):
    """Every node below ``root`` in source order (iterative: deep files do not recurse)."""
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.named_children))


def _has_error(node) -> bool:
    return node.has_error


def extract_cpp(path: str | Path, assume_false=()) -> list[SourceArray]:
    """Every D3D input-element array and SO declaration in one C/C++ file (see the module
    docstring). An array that cannot be resolved is returned with ``error`` set; a file that
    cannot be read raises :class:`SourceError`."""
    reader = _Reader(Path(path), assume_false)
    return reader.arrays()
