"""Stream Output strides and the rasterized stream of a declaration, from the code that hands
it to D3D: a ``D3D12_STREAM_OUTPUT_DESC`` initializer, ``X.pSODeclaration = decl`` /
``X.pBufferStrides = strides`` assignments on one object, or a
``CreateGeometryShaderWithStreamOutput`` call. Names resolve as the compiler resolves them."""

from __future__ import annotations

from .kinds import kind_of
from .tree import Unresolved, children, designator, same

__all__ = ["StreamOutputStrides", "SO_DESC_FIELDS"]

# CreateGeometryShaderWithStreamOutput argument positions: (declaration, strides, rasterized
# stream); D3D10 passes one stride and has no rasterized stream.
_SO_CALLS = {"CreateGeometryShaderWithStreamOutput": {11: (2, 4, 6), 10: (2, 4, None)}}
SO_DESC_FIELDS = ("pSODeclaration", "NumEntries", "pBufferStrides", "NumStrides",
                  "RasterizedStream")
"""D3D12_STREAM_OUTPUT_DESC's members in declaration order (a brace list's positions)."""


class StreamOutputStrides:
    """Attaches strides found in the code to SO declarations.

    Arguments:
        parsed (gpuia.source.clang_parse.Parsed): the translation unit.
        tree (gpuia.source.tree.Tree): its main-file cursors.
        values (gpuia.source.values.Values): the value reader.
    """

    def __init__(self, parsed, tree, values):
        self.p = parsed
        self.tree = tree
        self.values = values
        self.kinds = parsed.ci.CursorKind

    def attach(self, arrays, decls) -> None:
        """Set ``buffer_strides`` and ``rasterized_stream`` of the SO declarations that code
        names; strides that cannot be resolved are noted on the declaration.

        Arguments:
            arrays (list[gpuia.source.model.SourceArray]): the arrays found.
            decls (dict): each array's declaration cursor, by ``id()`` of the array.
        """
        so = [(a, decls[id(a)]) for a in arrays if a.kind == "so_declaration" and a.error is None]
        if not so:
            return
        k = self.kinds
        groups: dict = {}
        for n in self.tree.nodes:
            if kind_of(n) == k.BINARY_OPERATOR and self.p.binary_operator(n) == "=":
                left = children(n)[0]
                if kind_of(left) == k.MEMBER_REF_EXPR and left.spelling in SO_DESC_FIELDS:
                    obj = children(left)
                    if obj:
                        base = next((x.referenced for x in obj[0].walk_preorder()
                                     if kind_of(x) == k.DECL_REF_EXPR), None)
                        key = (base.hash if base is not None else None, self.p.text(obj[0]))
                        group = groups.setdefault(key, {})
                        group[left.spelling] = children(n)[1]
            elif kind_of(n) == k.VAR_DECL and n.type.get_canonical().get_declaration().spelling \
                    .endswith("_STREAM_OUTPUT_DESC"):
                init = self.p.initializer(n)
                if init is not None and kind_of(init) == k.INIT_LIST_EXPR:
                    fields, pos = {}, 0
                    for child in children(init):
                        designated = designator(self.kinds, child)
                        if designated is not None:
                            name = designated[0].spelling
                            if name in SO_DESC_FIELDS:
                                pos = SO_DESC_FIELDS.index(name)
                            child = designated[-1]
                        if pos < len(SO_DESC_FIELDS):
                            fields[SO_DESC_FIELDS[pos]] = child
                        pos += 1
                    groups[n.hash] = fields
            elif kind_of(n) == k.CALL_EXPR and n.spelling in _SO_CALLS:
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
            arr = next((a for a, c in so if same(c, var)), None)
            if arr is None:
                continue
            try:
                self._strides_of(arr, fields)
            except Unresolved as e:
                arr.notes.append(f"stream-output strides not resolved: {e.rule}")

    def _var_in(self, expr):
        """The variable an expression points at (``decl``, ``&decl[0]``, ``decl.data()``)."""
        if expr is None:
            return None
        for node in expr.walk_preorder():
            if kind_of(node) == self.kinds.DECL_REF_EXPR and node.referenced is not None and \
                    kind_of(node.referenced) == self.kinds.VAR_DECL:
                return node.referenced
        return None

    def _strides_of(self, arr, fields) -> None:
        strides = fields.get("pBufferStrides")
        var = self._var_in(strides)
        if var is not None:
            init = self.p.initializer(var)
            if init is not None and kind_of(init) == self.kinds.INIT_LIST_EXPR:
                arr.buffer_strides = tuple(self.values.uint(c) for c in children(init))
                arr.notes.append(f"pBufferStrides {list(arr.buffer_strides)} from "
                                 f"`{var.spelling}`")
        if "OneStride" in fields:
            stride = self.values.uint(fields["OneStride"])
            arr.buffer_strides = (stride,)
            arr.notes.append(f"OutputStreamStride {stride} from the D3D10 call")
        if fields.get("RasterizedStream") is not None:
            arr.rasterized_stream = self.values.uint(fields["RasterizedStream"])
