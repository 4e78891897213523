"""One line per bad argument, naming the argument and the reason."""

from __future__ import annotations

import re
from collections.abc import Collection
from decimal import Decimal

from pydantic import ValidationError

# The rules written here (an account id, an amount) quote the value they refuse; pydantic's
# own messages name the rule alone.
_OWN_RULES = frozenset({"value_error", "assertion_error"})


def describe(error: ValidationError, *, withheld: Collection[str] = ()) -> str:
    """`amount must be positive, got -5; unexpected argument foo`. The value given to an
    argument named in `withheld` is not quoted: `payer: <value> is not valid`."""
    return "; ".join(_describe_one(detail, withheld) for detail in error.errors())


def _describe_one(detail: object, withheld: Collection[str]) -> str:
    assert isinstance(detail, dict)
    where = ".".join(str(part) for part in detail.get("loc", ())) or "arguments"
    kind = detail.get("type", "")
    if kind == "missing":
        return f"missing argument {where}"
    if kind == "extra_forbidden":
        return f"unexpected argument {where}"
    message = str(detail.get("msg", "is invalid")).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    if detail.get("loc") and str(detail["loc"][0]) in withheld:
        value = detail.get("input")
        if kind in _OWN_RULES or _quotes(message, value):
            return f"{where}: <value> is not valid"
        return f"{where}: {message} (got <value>)"
    if message.startswith(f"{where} "):
        return message
    return f"{where}: {message} (got {_short(detail.get('input'))})"


def _quotes(message: str, value: object) -> bool:
    if value is None or isinstance(value, bool):
        return False
    if not isinstance(value, str | int | float | Decimal):
        return True  # a list or a mapping is not looked for in the message: taken as quoted
    text = value if isinstance(value, str) else _short(value)
    return bool(text) and re.search(rf"(?<![\w.-]){re.escape(text)}(?![\w-])", message) is not None


def _short(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        # repr() of an int past 4300 digits raises; its length says enough.
        return f"an integer of {Decimal(value).adjusted() + 1} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
