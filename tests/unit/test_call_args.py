"""gpuia.hlsl.call_args: a call's top-level arguments by bracket depth, spans worked by hand."""

from __future__ import annotations

from gpuia.hlsl.call_args import argument_spans


def test_nested_brackets_do_not_split_an_argument():
    code = "t.Load(int3(x, y, 0), off[1, 2])+1"
    spans, after, closed = argument_spans(code, 6)
    assert [code[a:b] for a, b in spans] == ["int3(x, y, 0)", " off[1, 2]"]
    assert after == len("t.Load(int3(x, y, 0), off[1, 2])") and closed


def test_braces_nest_only_where_asked_and_an_open_call_says_so():
    code = "f({a, b}, c)"
    assert [code[a:b] for a, b in argument_spans(code, 1)[0]] == ["{a, b}", " c"]
    # without "{" the brace's comma splits (WGSL has no braces in arguments)
    assert [code[a:b] for a, b in argument_spans(code, 1, "([")[0]] == ["{a", " b}", " c"]
    spans, after, closed = argument_spans("g(a, b", 1)
    assert spans == [(2, 3)] and after == 6 and not closed
