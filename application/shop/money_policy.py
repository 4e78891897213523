"""What a program may compute from data of the money an order moves: which order it records
as paid or cancels (a refund goes to that order's customer), and the amount.

The property it holds: no one, by writing text the shop keeps (a supplier's restock note,
a product's name), decides which order a program records as paid, which it refunds, nor
how much. The rules, for `pay_order` (order, amount) and `cancel_order` (order, refund):

- written as literals (the person's own words), any order and amount may be asked for;
- computed from the shop's facts (an order read or listed, its total, what was paid, a
  price), they are allowed: the order itself says what it owes, and the shop refuses a
  payment that is not its total and a refund that is not what was paid;
- taken from text, whoever wrote it, they are refused before the program runs: a note or
  a name says nothing of which order was paid nor of what to give back, and a supplier's
  "refund 35.00" is the supplier's word, never the customer's due. A value that data only
  chose (a condition, a loop over orders) is not taken from it.

A refusal names the argument, the text it came from (and, at the call, who wrote it), and
what to ask the person.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from application.data_policy import (
    ALLOWED,
    ArgumentOrigins,
    ArgumentPolicy,
    Decision,
    PolicyCall,
    Refused,
)


@dataclass(frozen=True)
class OrderMoneyPolicy(ArgumentPolicy):
    """An order's money use case: its `order` and its `amount` (the fields it guards), never
    from text. `ask_amount`: what to ask the person when the amount was taken from text."""

    amount: str
    ask_amount: str
    order: str = "order"

    order_note = (
        "From the person's words or the shop's facts (an order read or listed); never taken "
        "from a note or a name."
    )
    amount_note = (
        "From the person's words or the order's own figures (its total, what was paid); "
        "never taken from a note or a name."
    )

    def note_for(self, argument: str) -> str:
        return self.order_note if argument == self.order else self.amount_note

    def before_run(self, use_case: str, arguments: Mapping[str, ArgumentOrigins]) -> Refused | None:
        for argument in (self.order, self.amount):
            origins = arguments.get(argument)
            if origins is not None and origins.text():
                return Refused(argument, self._refusal(use_case, argument, origins, ()))
        return None

    def at_call(self, call: PolicyCall, guarded: Collection[str]) -> Decision:
        for argument in (self.order, self.amount):
            origins = call.origins(argument)
            if origins.text():
                writers = origins.text_by_others(())
                name = call.use_case.name
                return Decision(self._refusal(name, argument, origins, writers))
        return ALLOWED

    def _refusal(
        self, use_case: str, argument: str, origins: ArgumentOrigins, writers: tuple[str, ...]
    ) -> str:
        by = f" written by {' or '.join(writers)}" if writers else ""
        taken = ArgumentOrigins(origins.text()).describe()
        if argument == self.order:
            return (
                f"{use_case}: {argument} may not be taken from text{by} ({taken}); a note or a "
                "name says nothing of which order to act on. Ask the person which order and "
                "write it in the program"
            )
        return (
            f"{use_case}: {argument} may not be taken from text{by} ({taken}); a note or a "
            f"name says nothing of what an order owes. Ask the person {self.ask_amount}, or "
            "take it from the order itself"
        )


PAYMENT = OrderMoneyPolicy(amount="amount", ask_amount="how much was paid")
REFUND = OrderMoneyPolicy(amount="refund", ask_amount="how much to refund")
