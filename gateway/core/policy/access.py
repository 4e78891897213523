"""Least privilege (P5) and caps (P6) for one principal's program or call: the guard asks the
policy (gateway/core/policy/decisions.py) and counts what the program uses."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from typing import Any

from application.principals import PrincipalView
from application.use_case import UseCase
from gateway.core.catalog import Catalog
from gateway.core.policy.caps import Caps
from gateway.core.policy.decisions import denial, may_call, ownership_refusal
from gateway.core.program.errors import CallRefusedError, ProgramError
from gateway.core.program.static_check import ProgramShape


class PrincipalGuard:
    """Checks one program (or one direct call) of one principal, counting what it uses."""

    def __init__(self, principal: PrincipalView, catalog: Catalog, caps: Caps) -> None:
        self.principal = principal
        self.catalog = catalog
        self.caps = caps
        self.calls: Counter[str] = Counter()
        self._called: dict[str, type[UseCase[Any]]] = {}
        self.moved = Decimal("0.00")

    def check_shape(self, shape: ProgramShape) -> None:
        """Every use case the program names must be allowed; literal accounts must be owned."""
        for name in sorted(shape.named):
            if not may_call(self.principal, self.catalog.get(name)):
                where = next((c for c in shape.calls if c.name == name), None)
                line, column = (where.line, where.column) if where else (None, None)
                raise ProgramError("denied", denial(self.principal, name), line, column)
        for call in shape.calls:
            refusal = ownership_refusal(
                self.principal, self.catalog.get(call.name), call.literals, self.catalog.owned_words
            )
            if refusal:
                raise ProgramError("denied", refusal, call.line, call.column)

    def check_call(self, use_case: UseCase[Any]) -> None:
        """At run time: role, ownership, then the caps this call would exceed."""
        kind = type(use_case)
        if not may_call(self.principal, kind):
            raise CallRefusedError(denial(self.principal, kind.name), "denied")
        refusal = ownership_refusal(
            self.principal, kind, use_case.model_dump(), self.catalog.owned_words
        )
        if refusal:
            raise CallRefusedError(refusal, "denied")
        limit = self.caps.calls_allowed(kind)
        if limit is not None and self.calls[kind.name] >= limit:
            raise CallRefusedError(
                f"cap max_calls_per_use_case: more than {limit} {kind.name} calls in one program",
                "limit",
            )
        if kind.moves_amount:
            # Every amount that enters or leaves an account counts, open_account's included.
            amount = Decimal(getattr(use_case, kind.moves_amount))
            if self.moved + amount > self.caps.max_amount_per_program:
                raise CallRefusedError(
                    f"cap max_amount_per_program: moving {amount:f} more would bring the program "
                    f"to {self.moved + amount:f}, over {self.caps.max_amount_per_program:f}",
                    "limit",
                )
            self.moved += amount
        self.calls[kind.name] += 1
        self._called[kind.name] = kind

    def usage(self) -> dict[str, Any]:
        used: dict[str, Any] = {
            "calls": {"used": sum(self.calls.values()), "limit": self.caps.max_calls}
        }
        for name, count in sorted(self.calls.items()):
            limit = self.caps.calls_allowed(self._called[name])
            used[name] = {"used": count, "limit": limit}
        used["amount"] = {
            "used": f"{self.moved:f}",
            "limit": f"{self.caps.max_amount_per_program:f}",
        }
        return used
