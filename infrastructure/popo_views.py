"""The read models in memory, for `memory://` stores: one lock makes each batch atomic."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import fields, replace
from decimal import Decimal
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.popo import POPOTrackingRecorder

from application.read_models.rows import (
    BalanceChange,
    BalanceRow,
    RunChange,
    RunLink,
    RunRow,
    StatementRow,
)
from application.read_models.view import ReadModelView


class POPOReadModelView(POPOTrackingRecorder, ReadModelView):
    def __init__(self, prefix: str = "rm_") -> None:
        super().__init__()
        self.prefix = prefix
        self._balances: dict[str, BalanceRow] = {}
        self._statement: dict[tuple[str, int], StatementRow] = {}
        self._runs: dict[str, RunRow] = {}

    def apply_balances(self, changes: Sequence[BalanceChange], tracking: Tracking) -> None:
        with self._database_lock:
            self._assert_tracking_uniqueness(tracking)
            for ch in changes:
                old = self._balances.get(ch.aggregate_id)
                self._balances[ch.aggregate_id] = BalanceRow(
                    account=ch.account or (old.account if old else ""),
                    owner=ch.owner or (old.owner if old else ""),
                    balance=(old.balance if old else Decimal("0.00")) + ch.delta,
                    status=ch.status or (old.status if old else "open"),
                    version=max(ch.version, old.version if old else 0),
                )
            self._insert_tracking(tracking)

    def apply_statement(
        self, entries: Sequence[StatementRow], links: Sequence[RunLink], tracking: Tracking
    ) -> None:
        with self._database_lock:
            self._assert_tracking_uniqueness(tracking)
            for entry in entries:
                self._statement[(entry.aggregate_id, entry.version)] = entry
            for link in links:
                key = (link.aggregate_id, link.version)
                if key in self._statement:
                    self._statement[key] = replace(self._statement[key], run_id=link.run_id)
            self._insert_tracking(tracking)

    def apply_runs(self, changes: Sequence[RunChange], tracking: Tracking) -> None:
        with self._database_lock:
            self._assert_tracking_uniqueness(tracking)
            for ch in changes:
                old = self._runs.get(ch.run_id)
                merged: dict[str, Any] = {
                    f.name: getattr(ch, f.name)
                    if getattr(ch, f.name) is not None
                    else (getattr(old, f.name) if old else None)
                    for f in fields(RunRow)
                }
                self._runs[ch.run_id] = RunRow(**merged)
            self._insert_tracking(tracking)

    def balances(self, accounts: Collection[str] | None = None) -> list[BalanceRow]:
        with self._database_lock:
            rows = [r for r in self._balances.values() if accounts is None or r.account in accounts]
        return sorted(rows, key=lambda r: r.account)

    def statement(self, aggregate_id: str, limit: int) -> list[StatementRow]:
        with self._database_lock:
            rows = [r for r in self._statement.values() if r.aggregate_id == aggregate_id]
        return sorted(rows, key=lambda r: -r.version)[:limit]

    def statement_entries(self) -> list[StatementRow]:
        with self._database_lock:
            return sorted(self._statement.values(), key=lambda r: r.position)

    def last_balances(self, aggregate_ids: Collection[str]) -> dict[str, Decimal]:
        latest: dict[str, StatementRow] = {}
        with self._database_lock:
            for row in self._statement.values():
                if row.aggregate_id in aggregate_ids:
                    kept = latest.get(row.aggregate_id)
                    if kept is None or kept.version < row.version:
                        latest[row.aggregate_id] = row
        return {key: row.balance for key, row in latest.items()}

    def runs(self, run_ids: Collection[str] | None = None) -> list[RunRow]:
        with self._database_lock:
            rows = [r for r in self._runs.values() if run_ids is None or r.run_id in run_ids]
        return sorted(rows, key=lambda r: r.position)

    def reset(self, projection: str, tracking_name: str) -> None:
        with self._database_lock:
            if projection == "balances":
                self._balances.clear()
            elif projection == "statement":
                self._statement.clear()
            else:
                self._runs.clear()
            self._max_tracking_ids.pop(tracking_name, None)
