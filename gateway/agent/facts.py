"""The facts of a run, written by the code from the gateway's typed outcome: its status,
each event (account, amount, counterparty, balance after), the program's result. Every text
in them that a principal wrote, or that the code cannot vouch for, becomes a quoted part
with its author (gateway/agent/authors.py); nothing the data says is put in the code's words.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from application.results import EventRecord, Outcome, Proposal
from gateway.agent.answer_parts import PROGRAM, SLUICE, STAFF, AnswerPart, facts, quoted
from gateway.agent.authors import Authors

TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)?$")
LABEL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")
ACCOUNT_KEYS = frozenset({"account", "payer", "payee", "counterparty"})
WORDS = {  # the only values these keys may have in the code's words
    "status": frozenset({"open", "closed"}),
    "kind": frozenset({"opened", "deposit", "withdrawal", "transfer_out", "transfer_in", "closed"}),
    "currency": frozenset({"EUR"}),
}
STATEMENT_ENTRY = frozenset(
    {"version", "kind", "amount", "balance", "counterparty", "memo", "memo_by", "timestamp"}
)
ACCOUNT_VIEW = frozenset({"account", "owner", "balance", "currency", "status"})
RECEIPT = frozenset({"payer", "payee", "amount", "memo", "memo_by", "payer_balance"})


def status_line(outcome: Outcome) -> str:
    status = outcome.status
    if status == "committed":
        count = len(outcome.events)
        if not count:
            return "Ran and read; nothing was written."
        return f"Committed: {count} event{'s' if count > 1 else ''} appended."
    if status == "failed":
        return "Failed; nothing was written."
    if status == "rejected":
        return "Rejected; nothing was written."
    if status == "expired":
        return "Expired before it was confirmed; nothing was written."
    return "Waiting for your confirmation; nothing is written yet."


def run_parts(proposal: Proposal, outcome: Outcome, authors: Authors) -> list[AnswerPart]:
    """The code's account of a decided run, with the data in it quoted."""
    authors.learn(_accounts(proposal, outcome, authors))
    authors.learn_results(proposal.preview.calls)
    parts = [facts(status_line(outcome))]
    if outcome.status == "failed" and outcome.error:
        parts.append(quoted(outcome.error, SLUICE, "error"))
    for event in outcome.events:
        parts += event_parts(event, authors)
    if outcome.status == "committed" and outcome.result is not None:
        parts += _Result(authors, _literals(proposal.source)).parts(outcome.result)
    return parts


def event_parts(event: EventRecord, authors: Authors) -> list[AnswerPart]:
    account, data = event.account or "an account", event.data
    amount, other, memo = data.get("amount"), data.get("counterparty"), data.get("memo")
    copied = _writer(data.get("memo_by"), authors)  # a memo copied from what another party wrote
    kind = event.type
    if kind == "TransferDebited":
        line, writer = f"{account}: paid {amount} to {other}", event.account
    elif kind == "TransferCredited":
        line, writer = f"{account}: received {amount} from {other}", other
    elif kind == "Deposited":
        line, writer = f"{account}: deposit {amount}", STAFF
    elif kind == "Withdrawn":
        line, writer = f"{account}: withdrawal {amount}", event.account
    elif kind == "Opened":
        return [facts(f"{account}: opened"), quoted(str(data.get("owner")), STAFF, "owner")]
    elif kind == "Closed":
        return [facts(f"{account}: closed")]
    else:
        return [facts(f"{account}: {kind}")]
    balance = authors.balance_after(event.account, event.version)
    parts = [facts(line + (f"; balance after: {balance}" if balance is not None else ""))]
    if memo:
        parts.append(quoted(str(memo), copied or writer, "memo"))
    return parts


class _Result:
    """The program's result: known shapes in the code's words, any other text quoted."""

    def __init__(self, authors: Authors, literals: frozenset[str]) -> None:
        self.authors = authors
        self.literals = literals

    def parts(self, result: Any) -> list[AnswerPart]:
        if isinstance(result, list):
            noun = "entry" if len(result) == 1 else "entries"
            head = [facts(f"Result: {len(result)} {noun}")]
            return head + [p for item in result for p in self._item(item, "result")]
        scalar = _scalar(result)
        if scalar is not None:
            return [facts(f"Result: {scalar}")]
        return [facts("Result:"), *self._item(result, "result")]

    def _item(self, value: Any, path: str) -> list[AnswerPart]:
        scalar = _scalar(value)
        if scalar is not None:
            return [facts(f"{path}: {scalar}")]
        if isinstance(value, str):
            return [self._quote(value, path)]
        if isinstance(value, list):
            return [p for i, item in enumerate(value) for p in self._item(item, f"{path}[{i}]")]
        if isinstance(value, dict):
            return self._known(value) or self._fields(value, path)
        return [self._quote(str(value), path)]

    def _known(self, value: dict[str, Any]) -> list[AnswerPart]:
        """A statement entry, an account or a receipt, when every field is what it says."""
        keys = frozenset(value)
        if keys == STATEMENT_ENTRY and _plain(
            value, ("version", "amount", "balance"), self.authors
        ):
            return self._entry(value)
        if keys == ACCOUNT_VIEW and _plain(value, ("balance",), self.authors):
            account = value["account"]
            line = f"{account}: {value['balance']} {value['currency']}, {value['status']}"
            return [facts(line), quoted(str(value["owner"]), STAFF, f"owner of {account}")]
        if keys == RECEIPT and _plain(value, ("amount", "payer_balance"), self.authors):
            payer, payee = value["payer"], value["payee"]
            line = f"{payer}: paid {value['amount']} to {payee}; balance after: "
            parts = [facts(line + str(value["payer_balance"]))]
            if value["memo"]:
                writer = _writer(value["memo_by"], self.authors) or payer
                parts.append(quoted(str(value["memo"]), writer, "memo"))
            return parts
        return []

    def _entry(self, entry: dict[str, Any]) -> list[AnswerPart]:
        kind, other, memo = entry["kind"], entry["counterparty"], entry["memo"]
        amount = str(entry["amount"]).lstrip("-")
        what = {
            "transfer_in": f"received {amount} from {other}",
            "transfer_out": f"paid {amount} to {other}",
            "deposit": f"deposit {amount}",
            "withdrawal": f"withdrawal {amount}",
        }.get(kind, kind)
        line = f"{_when(entry['timestamp'])}: {what}; balance {entry['balance']}"
        parts = [facts(line)]
        if memo:
            writer = (
                _writer(entry["memo_by"], self.authors)
                or {"transfer_in": other, "deposit": STAFF}.get(kind)
                or self.authors.of(memo)
            )
            parts.append(quoted(str(memo), writer, "memo"))
        return parts

    def _fields(self, value: dict[str, Any], path: str) -> list[AnswerPart]:
        parts: list[AnswerPart] = []
        for key, item in value.items():
            name = str(key)
            if LABEL.match(name) and self.authors.of(name) is None:
                label = f"{path}.{name}"
            else:
                parts.append(self._quote(name, f"a key of {path}"))
                label = f"{path}[that key]"
            if _plain({name: item}, (), self.authors) and name in (
                *ACCOUNT_KEYS,
                *WORDS,
                "timestamp",
            ):
                parts.append(facts(f"{label}: {item}"))
            else:
                parts += self._item(item, label)
        return parts

    def _quote(self, text: str, path: str) -> AnswerPart:
        if self.authors.is_fact(text):  # a result's label says the system wrote it
            return facts(f"{path}: {text}")
        writer = self.authors.of(text)
        if writer is None and text in self.literals:
            writer = PROGRAM
        return quoted(text, writer, path)


def _writer(value: Any, authors: Authors) -> str | None:
    """A memo's writer as a result or an event names it: record ids (`a or b`) or staff;
    anything else names no one the code can vouch for."""
    if not isinstance(value, str) or not value:
        return None
    names = value.split(" or ")
    if all(name == STAFF or authors.is_id(name) for name in names):
        return value
    return None


def _when(timestamp: str) -> str:
    """An ISO timestamp to the second, in UTC when it is."""
    moment = datetime.fromisoformat(timestamp)
    if moment.utcoffset() == timedelta(0):
        return f"{moment:%Y-%m-%d %H:%M:%S} UTC"
    return moment.isoformat(timespec="seconds")


def _scalar(value: Any) -> str | None:
    """A number, a boolean or nothing, as the code writes it; None for anything else."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal):
        return str(value)
    if isinstance(value, str):
        try:
            Decimal(value)
        except InvalidOperation:
            return None
        return value if re.fullmatch(r"-?\d+(\.\d+)?", value) else None
    return None


def _plain(value: dict[str, Any], numbers: tuple[str, ...], authors: Authors) -> bool:
    """Every field of a known shape holds what the code may write as its own."""
    for key, item in value.items():
        if key in numbers and _scalar(item) is None:
            return False
        if key in ACCOUNT_KEYS and item is not None and not authors.is_id(item):
            return False
        if key in WORDS and item not in WORDS[key]:
            return False
        if key == "timestamp" and not (isinstance(item, str) and TIMESTAMP.match(item)):
            return False
    return True


def _literals(source: str) -> frozenset[str]:
    """The string constants of the program's source (a plan is JSON: its strings)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset(re.findall(r'"([^"\\]*)"', source))
    return frozenset(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _accounts(proposal: Proposal, outcome: Outcome, authors: Authors) -> Iterator[str]:
    """The accounts whose histories may hold the run's texts: those its calls named (it read
    or wrote them; bounded by the call caps) and those its events changed. A listing's
    owners and a transfer's payer need none: their shape says who wrote them."""
    for call in proposal.preview.calls:
        yield from _strings(call.arguments, authors)
    for event in outcome.events:
        if event.account:
            yield event.account


def _strings(value: Any, authors: Authors) -> Iterator[str]:
    if isinstance(value, str):
        if authors.is_id(value):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, authors)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, authors)
