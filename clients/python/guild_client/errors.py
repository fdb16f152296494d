"""Errors the daemon answers with: :class:`GuildError` and every code.

The code constants come from :mod:`guild_client.error_codes`, which is
generated from ``protocol/errors.md``: one constant per ``data.reason``,
whose value is its code (``CURSOR_EXPIRED == 41001``), and ``ERRORS``, every
``(code, reason)`` pair.  This module relies on nothing else of it.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Optional, Tuple

from .error_codes import *  # noqa: F401,F403 - every code, re-exported
from .error_codes import ERRORS, INTERNAL_ERROR

__all__ = ["CODES", "ERRORS", "GuildError", "REASONS", "reasons_for"] + [
    reason for _, reason in ERRORS
]

#: Every ``data.reason`` the contract defines.
REASONS: FrozenSet[str] = frozenset(reason for _, reason in ERRORS)
#: The code of each reason, e.g. ``CODES["CURSOR_EXPIRED"] == 41001``.
CODES: Dict[str, int] = {reason: code for code, reason in ERRORS}


def reasons_for(code: int) -> Tuple[str, ...]:
    """The reasons that may come with ``code``, in the contract's order.

    ``reasons_for(10007) == ("NOT_ALLOWED", "UNSUPPORTED_FOR_TYPE",
    "NOT_A_MEMBER")``; an unknown code gives ``()``.
    """
    return tuple(reason for known, reason in ERRORS if known == code)


class GuildError(Exception):
    """An error object returned by the daemon.

    Attributes:
        code: The JSON-RPC error code (e.g. ``-32602`` or ``40901``).
        message: The human readable error message.
        data: The ``data`` member of the error, or ``None``.
        reason: ``data["reason"]`` (e.g. ``"USER_ALREADY_EXISTS"``) or None.
        field: ``data["field"]`` (the offending parameter) or None.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data
        details = data if isinstance(data, dict) else {}
        self.reason: Optional[str] = details.get("reason")
        self.field: Optional[str] = details.get("field")

    @classmethod
    def from_error_object(cls, error: Any) -> "GuildError":
        """Build a GuildError from the ``error`` member of a response."""
        if not isinstance(error, dict):
            return cls(INTERNAL_ERROR, "malformed error object: {!r}".format(error))
        code = error.get("code")
        if not isinstance(code, int):
            code = INTERNAL_ERROR
        return cls(code, str(error.get("message", "")), error.get("data"))

    def __str__(self) -> str:
        text = "{} (code {}".format(self.message, self.code)
        if self.reason:
            text += ", reason {}".format(self.reason)
        if self.field:
            text += ", field {!r}".format(self.field)
        return text + ")"

    def __repr__(self) -> str:
        return "GuildError(code={!r}, message={!r}, data={!r})".format(
            self.code, self.message, self.data
        )
