"""Modes named by strings: one enum base for every mode gpuia takes as a string (a draw's path,
how its indices reach the GPU, a capture's route, Stream Output's vertex order)."""

from __future__ import annotations

import enum
from typing import Self

from ..errors import InvalidDescError

__all__ = ["NamedMode"]


class NamedMode(enum.StrEnum):
    """A mode named by its string: members equal, hash and print as their values, so code and
    files that compare with the strings keep working."""

    @classmethod
    def of(cls, value: Self | str, where: str, field_name: str) -> Self:
        """The member ``value`` names: a member is returned as it is, a string by its value
        (exact case: ``"auto"``, not ``"AUTO"``).

        Arguments:
            value: a member, or a member's value.
            where (str): the call or descriptor to name in the error (``"set_path"``).
            field_name (str): the field to name in the error (``"path"``).

        Returns:
            The member.

        Raises:
            InvalidDescError: ``value`` is neither a member nor a member's value; the message
                lists the values.
        """
        if isinstance(value, cls):
            return value
        try:
            return cls(value)
        except (ValueError, TypeError):
            names = [m.value for m in cls]
            raise InvalidDescError(where, field_name, value, "must be " + ", ".join(names[:-1])
                                   + f" or {names[-1]}") from None
