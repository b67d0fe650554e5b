"""The HTML report's views (:mod:`.html_views`) as JSON and back, so that a report written per
shard can be rendered again by ``gpuia report merge`` (docs/scale-out.md).

Guaranteed: :func:`view_from_json` of :func:`view_to_json` of a :class:`~.html_views.CaseView`
is equal to it; the conversion follows the dataclasses' own type annotations (dataclasses,
lists, tuples, ``X | None``, dicts, numbers, strings), so a field added to a view travels
without a change here. Refused: data that does not fit the annotation (ValueError naming the
field and the type).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from .html_views import CaseView

__all__ = ["view_to_json", "view_from_json"]


def view_to_json(value: Any) -> Any:
    """A view (any dataclass of :mod:`.html_views`) as plain JSON values: dataclasses as
    objects of their fields, tuples as lists, numpy scalars as Python numbers."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: view_to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [view_to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): view_to_json(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def view_from_json(data: Any) -> CaseView:
    """The :class:`~.html_views.CaseView` :func:`view_to_json` wrote."""
    return _decode(CaseView, data, "view")


@cache
def _hints(cls) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _decode(hint: Any, data: Any, where: str) -> Any:  # noqa: PLR0911 - one return per kind
    origin = typing.get_origin(hint)
    if hint is Any or hint is typing.Any:
        return data
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected an object for {hint.__name__}")
        hints = _hints(hint)
        return hint(**{f.name: _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
                       for f in dataclasses.fields(hint) if f.name in data})
    if origin in (types.UnionType, typing.Union):
        if data is None and type(None) in typing.get_args(hint):
            return None
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _decode(options[0], data, where) if len(options) == 1 else data
    if origin in (list, Sequence) or hint in (list, Sequence):
        (item,) = typing.get_args(hint) or (Any,)
        return [_decode(item, v, f"{where}[{i}]") for i, v in enumerate(_list(data, where))]
    if origin is tuple:
        args = typing.get_args(hint)
        items = _list(data, where)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v, where) for v in items)
        return tuple(_decode(a, v, where) for a, v in zip(args, items, strict=True))
    if origin is dict or hint is dict:
        args = typing.get_args(hint)
        value_hint = args[1] if args else Any
        return {k: _decode(value_hint, v, f"{where}.{k}") for k, v in dict(data).items()}
    return data


def _list(data: Any, where: str) -> list:
    if not isinstance(data, list):
        raise ValueError(f"{where}: expected a list")
    return data
