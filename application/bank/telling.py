"""The bank's words for a run's events and the results it knows (application/telling.py):
a transfer as `alice: paid 10.00 to bob; balance after: 30.00`, an account as `alice:
40.00 EUR, open`, a statement entry by its time; every memo and owner's name quoted with
its writer (a memo copied from another party's text is that party's, `memo_by`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from application.results import EventRecord
from application.telling import STAFF, Known, Quoted, Said, Telling, Told, when, writer

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


def tell_event(event: EventRecord, known: Known) -> list[Told] | None:
    account, data = event.account or "an account", event.data
    amount, other, memo = data.get("amount"), data.get("counterparty"), data.get("memo")
    copied = writer(data.get("memo_by"), known)  # a memo copied from what another party wrote
    kind = event.type
    if kind == "TransferDebited":
        line, by = f"{account}: paid {amount} to {other}", event.account
    elif kind == "TransferCredited":
        line, by = f"{account}: received {amount} from {other}", other
    elif kind == "Deposited":
        line, by = f"{account}: deposit {amount}", STAFF
    elif kind == "Withdrawn":
        line, by = f"{account}: withdrawal {amount}", event.account
    elif kind == "Opened":
        return [Said(f"{account}: opened"), Quoted(str(data.get("owner")), STAFF, "owner")]
    elif kind == "Closed":
        return [Said(f"{account}: closed")]
    else:
        return [Said(f"{account}: {kind}")]
    balance = known.figure_after(event.account, event.version)
    told: list[Told] = [Said(line + (f"; balance after: {balance}" if balance is not None else ""))]
    if memo:
        told.append(Quoted(str(memo), copied or by, "memo"))
    return told


def tell_shape(value: Mapping[str, Any], known: Known, telling: Telling) -> list[Told]:
    """A statement entry, an account or a receipt, when every field is what it says."""
    keys = frozenset(value)
    if keys == STATEMENT_ENTRY and telling.plain(value, ("version", "amount", "balance"), known):
        return _entry(value, known)
    if keys == ACCOUNT_VIEW and telling.plain(value, ("balance",), known):
        account = value["account"]
        line = f"{account}: {value['balance']} {value['currency']}, {value['status']}"
        return [Said(line), Quoted(str(value["owner"]), STAFF, f"owner of {account}")]
    if keys == RECEIPT and telling.plain(value, ("amount", "payer_balance"), known):
        payer, payee = value["payer"], value["payee"]
        line = f"{payer}: paid {value['amount']} to {payee}; balance after: "
        told: list[Told] = [Said(line + str(value["payer_balance"]))]
        if value["memo"]:
            by = writer(value["memo_by"], known) or payer
            told.append(Quoted(str(value["memo"]), by, "memo"))
        return told
    return []


def _entry(entry: Mapping[str, Any], known: Known) -> list[Told]:
    kind, other, memo = entry["kind"], entry["counterparty"], entry["memo"]
    amount = str(entry["amount"]).lstrip("-")
    what = {
        "transfer_in": f"received {amount} from {other}",
        "transfer_out": f"paid {amount} to {other}",
        "deposit": f"deposit {amount}",
        "withdrawal": f"withdrawal {amount}",
    }.get(kind, kind)
    told: list[Told] = [Said(f"{when(entry['timestamp'])}: {what}; balance {entry['balance']}")]
    if memo:
        by = (
            writer(entry["memo_by"], known)
            or {"transfer_in": other, "deposit": STAFF}.get(kind)
            or known.of(memo)
        )
        told.append(Quoted(str(memo), by, "memo"))
    return told


BANK_TELLING = Telling(event=tell_event, shape=tell_shape, id_keys=ACCOUNT_KEYS, words=WORDS)
