"""``std::vector`` layouts filled in code: the ``push_back``/``emplace_back`` calls on a vector
in the block that declares it, taken or skipped by the conditions around them, and the refusal
of what gpuia does not follow (loops, switches, other changes to the vector, calls the compiler
did not keep)."""

from __future__ import annotations

from .kinds import kind_of
from .tree import WRAPPERS, Unresolved, children, expressions, same, struct_name

__all__ = ["Pushes"]

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


class Pushes:
    """Finds the elements pushed onto vectors.

    Arguments:
        parsed (gpuia.source.clang_parse.Parsed): the translation unit.
        tree (gpuia.source.tree.Tree): its main-file cursors.
        values (gpuia.source.values.Values): the value reader (a constant condition is one).
        assume_false: texts of conditions to take as false.
    """

    def __init__(self, parsed, tree, values, assume_false=()):
        self.p = parsed
        self.tree = tree
        self.values = values
        self.kinds = parsed.ci.CursorKind
        self.assume_false = {" ".join(c.split()) for c in assume_false}

    def pushes(self, index: int, arr) -> list:
        """Elements added by push_back/emplace_back in the block that declares a vector, in
        source order.

        Arguments:
            index: the vector's node in the tree.
            arr (gpuia.source.model.SourceArray): its array, for names and notes.

        Returns:
            For each push taken, the element's cursor, or the list of argument cursors of
            ``emplace_back(fields...)``.

        Raises:
            Unresolved: a push gpuia does not follow (see the module docstring).
        """
        var = self.tree.nodes[index]
        scope = next((a for a in self.tree.ancestors(index)
                      if kind_of(self.tree.nodes[a]) == self.kinds.COMPOUND_STMT), None)
        lo, hi = (scope + 1, self.tree.end[scope]) if scope is not None else \
            (0, len(self.tree.nodes))
        after = var.extent.end.offset
        out = []
        for i in range(lo, hi):
            n = self.tree.nodes[i]
            if kind_of(n) != self.kinds.CALL_EXPR or n.extent.start.offset < after:
                continue
            method, obj = self._member_call(n)
            if obj is None or not self._refers_to(obj, var):
                continue
            if method == "operator[]" and self._assigned(i):
                raise Unresolved(n, f"{arr.name} is changed by element assignment; gpuia "
                                     f"reads only push_back/emplace_back")
            if method in _MUTATE:
                raise Unresolved(n, f"{arr.name}.{method}(...) changes the vector in a way "
                                     f"gpuia does not follow (only push_back/emplace_back)")
            if method not in _PUSH or not self._taken(i, scope, arr):
                continue
            args = list(n.get_arguments())
            if method == "push_back" or (len(args) == 1 and struct_name(args[0].type) is not None):
                if len(args) != 1:
                    raise Unresolved(n, f"{arr.name}.{method} takes one element")
                out.append(args[0])
            else:
                out.append(args)  # emplace_back(fields...)
        self._check_pushes_read(arr, var, scope, lo, hi)
        return out

    def _member_call(self, call):
        """(method name, object expression) of a member call, or (None, None)."""
        kids = children(call)
        if call.spelling == "operator[]" and kids:
            return "operator[]", kids[0]
        if call.spelling == "operator=" and kids:
            return "operator=", kids[0]
        if kids and kind_of(kids[0]) == self.kinds.MEMBER_REF_EXPR:
            inner = children(kids[0])
            return kids[0].spelling, inner[0] if inner else None
        return None, None

    def _refers_to(self, expr, var) -> bool:
        node = expr
        while kind_of(node).name in WRAPPERS:
            inner = expressions(node)
            if len(inner) != 1:
                return False
            node = inner[0]
        return kind_of(node) in (self.kinds.DECL_REF_EXPR, self.kinds.MEMBER_REF_EXPR) and \
            same(node.referenced, var)

    def _assigned(self, index: int) -> bool:
        """Whether the expression at ``index`` is on the left of an assignment."""
        child = index
        for a in self.tree.ancestors(index):
            node = self.tree.nodes[a]
            if kind_of(node) in (self.kinds.BINARY_OPERATOR,
                             self.kinds.COMPOUND_ASSIGNMENT_OPERATOR):
                if self.p.binary_operator(node) in _ASSIGNMENTS:
                    return child == a + 1  # the left operand is the first child
            if kind_of(node) == self.kinds.CALL_EXPR and node.spelling == "operator=":
                return child == a + 1
            if kind_of(node).is_statement():
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
            raise Unresolved(var, f"{written - kept} of its push_back/emplace_back calls do "
                                   f"not compile{said}, so its elements are not known")

    def _pushes_kept(self, var, lo: int, hi: int) -> int:
        """Push calls on ``var`` the compiler kept, taken or not."""
        count = 0
        for i in range(lo, hi):
            n = self.tree.nodes[i]
            if kind_of(n) == self.kinds.CALL_EXPR:
                method, obj = self._member_call(n)
                if method in _PUSH and obj is not None and self._refers_to(obj, var):
                    count += 1
        return count

    def _taken(self, call: int, scope, arr) -> bool:
        """Whether a push is executed, given the conditions around it (see the module
        docstring)."""
        taken, child = True, call
        for a in self.tree.ancestors(call):
            if scope is not None and a == scope:
                break
            node = self.tree.nodes[a]
            kind = kind_of(node).name
            if kind in _LOOPS:
                raise Unresolved(self.tree.nodes[call],
                                  f"{arr.name} is filled inside a loop: the number of elements "
                                  f"is not known without running the code")
            if kind in _REFUSED_PARENTS:
                raise Unresolved(self.tree.nodes[call],
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
            self.values.trusted(cond)
            value = self.p.evaluate(cond)
        except Unresolved:
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
