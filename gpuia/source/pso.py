"""The pipeline state descs of a C/C++ file: which input-element array and which Stream Output
declaration one ``D3D12_GRAPHICS_PIPELINE_STATE_DESC`` (or pipeline state stream) sets
together, so that ``gpuia layout`` checks them as one pipeline.

A desc is an object whose ``InputLayout`` and ``StreamOutput`` members are assigned in the
scanned file, in any of the forms engines write:

- brace lists: ``psoDesc.InputLayout = { elements, _countof(elements) };``,
  ``psoDesc.StreamOutput = { decl, _countof(decl), strides, 1, rasterized };``;
- ``D3D12_INPUT_LAYOUT_DESC`` / ``D3D12_STREAM_OUTPUT_DESC`` variables assigned whole
  (``desc.InputLayout = layoutDesc;``), their arrays taken from the variable's initializer or
  from ``layoutDesc.pInputElementDescs = ...`` / ``soDesc.pSODeclaration = ...`` assignments;
- nested members: ``psoDesc.InputLayout.pInputElementDescs = elements;``;
- pipeline state streams: a struct of ``CD3DX12_PIPELINE_STATE_STREAM_INPUT_LAYOUT
  InputLayout`` and ``..._STREAM_OUTPUT StreamOutput`` subobjects assigned the same forms;
- a desc variable's designated initializer (``.InputLayout = {...}``).

Objects are told apart as Stream Output strides' objects are (the variable the member
expression starts from, and its text). Names resolve as the compiler resolves them: an array
is the declaration a reference in the assignment points at. A brace-list ``StreamOutput``
also gives its declaration's ``pBufferStrides`` and ``RasterizedStream`` where the source
holds no others for it.
"""

from __future__ import annotations

from .kinds import kind_of
from .model import SourcePipeline
from .so_strides import SO_DESC_FIELDS
from .tree import Unresolved, children, designator, same

__all__ = ["PipelineDescs", "MEMBERS"]

MEMBERS = {"InputLayout": ("input_layout", "pInputElementDescs"),
           "StreamOutput": ("so_declaration", "pSODeclaration")}
"""A pipeline state desc's member -> (the kind of array it points at, the member of its inner
desc that holds the array)."""
_INNER = {inner: member for member, (_, inner) in MEMBERS.items()}


class PipelineDescs:
    """Finds the pipeline state descs of a translation unit (module docstring).

    Arguments:
        parsed (gpuia.source.clang_parse.Parsed): the translation unit.
        tree (gpuia.source.tree.Tree): its main-file cursors.
        values (gpuia.source.values.Values): the value reader.
    """

    def __init__(self, parsed, tree, values):
        self.p = parsed
        self.tree = tree
        self.values = values
        self.k = parsed.ci.CursorKind

    def find(self, arrays, decls) -> list[SourcePipeline]:
        """The descs that set both an input layout and a Stream Output declaration found in
        the file, in source order.

        Arguments:
            arrays (list[gpuia.source.model.SourceArray]): the arrays found.
            decls (dict): each array's declaration cursor, by ``id()`` of the array.

        Returns:
            One :class:`~gpuia.source.model.SourcePipeline` per such desc.
        """
        known = [(a, decls[id(a)]) for a in arrays if a.error is None]
        inner = self._inner_descs(known)
        groups: dict = {}
        for node in self.tree.nodes:
            for member, rhs, obj, at in self._assignments(node):
                name = obj.spelling if kind_of(obj) == self.k.VAR_DECL else self.p.text(obj)
                group = groups.setdefault(self._key(obj), {"at": at, "name": name})
                arr = self._array_in(rhs, known, inner, MEMBERS[member][0])
                if arr is not None:
                    group[member] = arr
                    if member == "StreamOutput":
                        self._so_fields(arr, rhs)
        out = []
        for g in groups.values():
            if "InputLayout" in g and "StreamOutput" in g:
                line, column = g["at"]
                out.append(SourcePipeline(g["name"], self.p.label, line, column,
                                          g["InputLayout"].name, g["StreamOutput"].name))
        out.sort(key=lambda s: (s.line, s.column))
        return out

    # -- the assignments ------------------------------------------------------------------------
    def _assignments(self, node):
        """(member, value, object, (line, column)) of a desc member that ``node`` sets: an
        assignment (C's operator or C++'s ``operator=``) to ``X.InputLayout`` /
        ``X.StreamOutput`` or to their inner array member, or a designated initializer of a
        desc variable."""
        k = self.k
        kind = kind_of(node)
        if kind == k.VAR_DECL:
            init = self.p.initializer(node)
            if init is not None and kind_of(init) == k.INIT_LIST_EXPR:
                for child in children(init):
                    parts = designator(k, child)
                    if parts is not None and parts[0].spelling in MEMBERS:
                        yield parts[0].spelling, parts[-1], node, _at(node)
            return
        assign = (kind == k.BINARY_OPERATOR and self.p.binary_operator(node) == "=") or (
            kind == k.CALL_EXPR and node.spelling == "operator=")
        if not assign:
            return
        parts = children(node)
        left, right = parts[0], parts[-1]
        if kind_of(left) != k.MEMBER_REF_EXPR:
            return
        obj = children(left)
        if not obj:
            return
        if left.spelling in MEMBERS:
            yield left.spelling, right, obj[0], _at(node)
        elif left.spelling in _INNER and kind_of(obj[0]) == k.MEMBER_REF_EXPR \
                and obj[0].spelling == _INNER[left.spelling]:
            outer = children(obj[0])
            if outer:  # psoDesc.InputLayout.pInputElementDescs = elements
                yield _INNER[left.spelling], right, outer[0], _at(node)

    def _key(self, obj):
        """An object's identity: the variable its expression starts from, and its text."""
        if kind_of(obj) == self.k.VAR_DECL:
            return (obj.hash, obj.spelling)
        base = next((x.referenced for x in obj.walk_preorder()
                     if kind_of(x) == self.k.DECL_REF_EXPR), None)
        return (base.hash if base is not None else None, self.p.text(obj))

    # -- the arrays -----------------------------------------------------------------------------
    def _inner_descs(self, known) -> dict:
        """``D3D12_INPUT_LAYOUT_DESC`` / ``D3D12_STREAM_OUTPUT_DESC`` variables -> the array
        each points at (its initializer's first field, or an assignment to its array
        member), by the variable's hash."""
        k = self.k
        out: dict = {}
        for node in self.tree.nodes:
            if kind_of(node) == k.VAR_DECL:
                name = node.type.get_canonical().get_declaration().spelling
                if name.endswith(("_INPUT_LAYOUT_DESC", "_STREAM_OUTPUT_DESC")):
                    init = self.p.initializer(node)
                    if init is not None and kind_of(init) == k.INIT_LIST_EXPR:
                        arr = self._first_array(init, known)
                        if arr is not None:
                            out[node.hash] = (arr, init)
            elif kind_of(node) == k.BINARY_OPERATOR and self.p.binary_operator(node) == "=":
                left = children(node)[0]
                if kind_of(left) == k.MEMBER_REF_EXPR and left.spelling in _INNER:
                    var = self._var(children(left)[0] if children(left) else None)
                    arr = self._first_array(children(node)[-1], known)
                    if var is not None and arr is not None:
                        out[var.hash] = (arr, None)
        return out

    def _var(self, expr):
        """The variable an expression names (through wrappers), or None."""
        if expr is None:
            return None
        for node in expr.walk_preorder():
            if kind_of(node) == self.k.DECL_REF_EXPR:
                ref = node.referenced
                return ref if ref is not None and kind_of(ref) == self.k.VAR_DECL else None
        return None

    def _first_array(self, expr, known):
        """The first array of ``known`` that ``expr`` refers to (a variable or a member)."""
        for node in expr.walk_preorder():
            if kind_of(node) in (self.k.DECL_REF_EXPR, self.k.MEMBER_REF_EXPR):
                arr = next((a for a, c in known if same(c, node.referenced)), None)
                if arr is not None:
                    return arr
        return None

    def _array_in(self, rhs, known, inner, kind):
        """The array of ``kind`` a member's value sets: named in it, or through an inner desc
        variable it names."""
        arr = self._first_array(rhs, known)
        if arr is None:
            var = self._var(rhs)
            if var is not None and var.hash in inner:
                arr = inner[var.hash][0]
        return arr if arr is not None and arr.kind == kind else None

    def _so_fields(self, arr, rhs) -> None:
        """A brace-list ``StreamOutput``'s strides and rasterized stream, for a declaration the
        source gives none for elsewhere (positional fields, C order)."""
        lists = [n for n in rhs.walk_preorder() if kind_of(n) == self.k.INIT_LIST_EXPR]
        if not lists or arr.buffer_strides is not None:
            return
        fields = dict(zip(SO_DESC_FIELDS, children(lists[0]), strict=False))
        try:
            var = self._var(fields.get("pBufferStrides"))
            init = None if var is None else self.p.initializer(var)
            if init is not None and kind_of(init) == self.k.INIT_LIST_EXPR:
                arr.buffer_strides = tuple(self.values.uint(c) for c in children(init))
                arr.notes.append(f"pBufferStrides {list(arr.buffer_strides)} from "
                                 f"`{var.spelling}` (its pipeline state's StreamOutput)")
            if "RasterizedStream" in fields and arr.rasterized_stream is None:
                arr.rasterized_stream = self.values.uint(fields["RasterizedStream"])
        except Unresolved as e:
            arr.notes.append(f"stream-output strides not resolved: {e.rule}")


def _at(cursor) -> tuple[int, int]:
    return cursor.extent.start.line, cursor.extent.start.column
