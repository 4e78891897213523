"""One line per bad argument, naming the argument and the reason."""

from __future__ import annotations

from decimal import Decimal

from pydantic import ValidationError


def describe(error: ValidationError) -> str:
    """`amount must be positive, got -5; unexpected argument foo`."""
    return "; ".join(_describe_one(detail) for detail in error.errors())


def _describe_one(detail: object) -> str:
    assert isinstance(detail, dict)
    where = ".".join(str(part) for part in detail.get("loc", ())) or "arguments"
    kind = detail.get("type", "")
    if kind == "missing":
        return f"missing argument {where}"
    if kind == "extra_forbidden":
        return f"unexpected argument {where}"
    message = str(detail.get("msg", "is invalid")).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    if message.startswith(f"{where} "):
        return message
    return f"{where}: {message} (got {_short(detail.get('input'))})"


def _short(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        # repr() of an int past 4300 digits raises; its length says enough.
        return f"an integer of {Decimal(value).adjusted() + 1} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
