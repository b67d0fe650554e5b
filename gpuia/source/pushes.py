"""``std::vector`` layouts filled in code: the ``push_back``/``emplace_back`` calls on a vector
in the block that declares it, taken or skipped by the conditions around them, and the refusal
of what gpuia does not follow (loops, switches, other changes to the vector, calls the compiler
did not keep, and the container handed to other code that can change it: a function given it by
non-const reference or pointer, such as ``Fill(layout)``, wherever that function is defined)."""

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
# Members whose result gives access to the elements (a pointer or reference to them).
_ELEMENT_ACCESS = {"data", "operator[]", "at", "front", "back", "begin", "end"}


def _writable(typ) -> bool:
    """Whether a parameter or variable of type ``typ`` can change what it is bound to: a
    reference or pointer to non-const, or a type the compiler leaves dependent (a template's
    parameter pack) which may be one."""
    t = typ.get_canonical()
    name = t.kind.name
    if name in ("LVALUEREFERENCE", "RVALUEREFERENCE", "POINTER"):
        return not t.get_pointee().is_const_qualified()
    return name in ("UNEXPOSED", "DEPENDENT", "INVALID")


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
        handed = self.handed_over(index)
        if handed is not None:
            raise Unresolved(handed[0], f"{arr.name} is {handed[1]}: gpuia reads only the "
                                         f"push_back/emplace_back calls in the block that "
                                         f"declares it, not what other code does to it")
        scope, lo, hi = self._block(index)
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

    def handed_over(self, index: int):
        """The first place after a container's declaration, in the block that declares it,
        where code gpuia does not read can change it: a call given the container, a pointer
        or reference to it or to its elements, for a parameter of a non-const reference or
        pointer type (or one the compiler cannot tell), or a non-const reference or pointer
        variable bound to it.

        Arguments:
            index: the container's node in the tree.

        Returns:
            ``(cursor, how)``: where, and what happens there in words (``passed to `Fill`,
            which can change it``); None when there is no such place.
        """
        var = self.tree.nodes[index]
        _, lo, hi = self._block(index)
        after = var.extent.end.offset
        k = self.kinds
        for i in range(lo, hi):
            n = self.tree.nodes[i]
            kind = kind_of(n)
            if kind not in (k.CALL_EXPR, k.VAR_DECL) or n.extent.start.offset < after:
                continue
            if kind == k.VAR_DECL:
                init = self.p.initializer(n)
                if init is not None and _writable(n.type) and self._gives_access(init, var):
                    return n, f"bound to `{n.spelling}`, through which other code can change it"
                continue
            _, obj = self._member_call(n)
            if obj is not None and self._refers_to(obj, var):
                continue  # its own member call: pushes() reads it
            args = list(n.get_arguments())
            for position, arg in enumerate(args):
                if self._gives_access(arg, var) and self._writable_parameter(n, position,
                                                                             len(args)):
                    return n, f"passed to `{self._callee(n)}`, which can change it"
        return None

    def _block(self, index: int):
        """(the index of the block declaring node ``index`` or None for file scope, and the
        range of node indices it covers)."""
        scope = next((a for a in self.tree.ancestors(index)
                      if kind_of(self.tree.nodes[a]) == self.kinds.COMPOUND_STMT), None)
        if scope is None:
            return None, 0, len(self.tree.nodes)
        return scope, scope + 1, self.tree.end[scope]

    def _gives_access(self, expr, var) -> bool:
        """Whether ``expr`` is ``var``, its address, or a pointer or reference to its
        elements (``v.data()``, ``&v[0]``)."""
        if self._refers_to(expr, var):
            return True
        node = self._unwrapped(expr)
        if node is None:
            return False
        if kind_of(node) == self.kinds.ARRAY_SUBSCRIPT_EXPR:  # &a[i] of a C array
            inner = expressions(node)
            return bool(inner) and self._refers_to(inner[0], var)
        if kind_of(node) != self.kinds.CALL_EXPR:
            return False
        method, obj = self._member_call(node)
        return method in _ELEMENT_ACCESS and obj is not None and self._refers_to(obj, var)

    def _writable_parameter(self, call, position: int, count: int) -> bool:
        """Whether the argument at ``position`` of ``call`` (of ``count``) is bound to a
        parameter through which the callee can change it (unknown parameters can)."""
        ref = call.referenced
        if ref is None:
            return True  # the compiler did not resolve the callee
        params = [c for c in children(ref) if kind_of(c) == self.kinds.PARM_DECL]
        # A member operator's call lists its object first; its declaration does not.
        shift = 1 if kind_of(ref) == self.kinds.CXX_METHOD and \
            call.spelling.startswith("operator") and count == len(params) + 1 else 0
        at = position - shift
        if at < 0:
            return False  # the object of a member operator: pushes() reads it
        return at >= len(params) or _writable(params[at].type)  # past them: variadic

    def _callee(self, call) -> str:
        """The called function as the source names it."""
        ref = call.referenced
        if ref is not None and kind_of(ref) == self.kinds.CONSTRUCTOR:
            return f"{ref.spelling}'s constructor"
        head = self.p.text(call).split("(", 1)[0].strip()
        return head or call.spelling

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

    def _unwrapped(self, expr):
        """``expr`` without the casts, parentheses and address-of (``&``) around it, or None
        when one of them holds more than one expression."""
        node = expr
        while kind_of(node).name in WRAPPERS or (kind_of(node) == self.kinds.UNARY_OPERATOR
                                                 and self.p.text(node).startswith("&")):
            inner = expressions(node)
            if len(inner) != 1:
                return None
            node = inner[0]
        return node

    def _refers_to(self, expr, var) -> bool:
        """Whether ``expr`` names ``var`` (or takes its address)."""
        node = self._unwrapped(expr)
        return node is not None and \
            kind_of(node) in (self.kinds.DECL_REF_EXPR, self.kinds.MEMBER_REF_EXPR) and \
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
