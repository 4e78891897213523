"""The read models in memory, for `memory://` stores: one lock makes each window atomic."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import fields, replace
from typing import Any

from eventsourcing.popo import POPOTrackingRecorder

from application.read_models.rows import DeadLetter, DocumentRow, HistoryEntry, RunRow
from application.read_models.store import (
    RUNS,
    ReadModelStore,
    StaleWindowError,
    Window,
    WindowWrite,
)


class POPOReadModelStore(POPOTrackingRecorder, ReadModelStore):
    def __init__(
        self, prefix: str = "rm_", siblings: Mapping[str, POPOReadModelStore] | None = None
    ) -> None:
        super().__init__()
        self.prefix = prefix
        # The other views of the same store, by prefix (a rebuild to take over from).
        self.siblings = {} if siblings is None else siblings
        self._runs: dict[str, RunRow] = {}
        # The records of the declared read models, by (projection, key).
        self._documents: dict[tuple[str, str], DocumentRow] = {}
        # The history entries, by (projection, stream, version).
        self._histories: dict[tuple[str, str, int], HistoryEntry] = {}
        self._dead_letters: dict[tuple[str, int], DeadLetter] = {}

    def _claim(self, window: Window) -> None:
        recorded = self._max_tracking_ids[window.name]
        if (recorded or 0) != window.after:
            raise StaleWindowError(window, recorded)
        self._max_tracking_ids[window.name] = window.upto

    def write(self, writes: Sequence[WindowWrite]) -> None:
        with self._database_lock:
            recorded = dict(self._max_tracking_ids)
            try:
                for write in writes:
                    self._claim(write.window)
            except StaleWindowError:
                self._max_tracking_ids.clear()
                self._max_tracking_ids.update(recorded)  # nothing claimed, nothing written
                raise
            for write in writes:
                self._write_rows(write)

    def _write_rows(self, write: WindowWrite) -> None:
        for entry in write.entries:
            self._histories[(entry.projection, entry.stream, entry.version)] = entry
        for link in write.links:
            key = (link.projection, link.stream, link.version)
            if key in self._histories:
                self._histories[key] = replace(self._histories[key], run_id=link.run_id)
        for run in write.runs:
            old_run = self._runs.get(run.run_id)
            merged: dict[str, Any] = {
                f.name: getattr(run, f.name)
                if getattr(run, f.name) is not None
                else (getattr(old_run, f.name) if old_run else None)
                for f in fields(RunRow)
            }
            self._runs[run.run_id] = RunRow(**merged)
        for change in write.documents:  # in order: a later change of a key wins
            record = (change.projection, change.key)
            if change.body is None:
                self._documents.pop(record, None)
            else:
                self._documents[record] = DocumentRow(*record, change.owner, change.body)

    def record_dead_letter(self, letter: DeadLetter, window: Window) -> None:
        with self._database_lock:
            self._claim(window)
            self._dead_letters[(letter.projection, letter.position)] = letter

    def dead_letters(self, projection: str | None = None) -> list[DeadLetter]:
        with self._database_lock:
            letters = [
                letter
                for letter in self._dead_letters.values()
                if projection is None or letter.projection == projection
            ]
        return sorted(letters, key=lambda letter: (letter.position, letter.projection))

    def history(
        self, projection: str, stream: str, limit: int, before_version: int | None = None
    ) -> list[HistoryEntry]:
        older = before_version if before_version is not None else float("inf")
        with self._database_lock:
            rows = [
                r
                for r in self._histories.values()
                if r.projection == projection and r.stream == stream and r.version < older
            ]
        return sorted(rows, key=lambda r: -r.version)[:limit]

    def history_entries(self, projection: str) -> list[HistoryEntry]:
        with self._database_lock:
            rows = [r for r in self._histories.values() if r.projection == projection]
        return sorted(rows, key=lambda r: r.position)

    def last_entries(self, projection: str, streams: Collection[str]) -> dict[str, HistoryEntry]:
        latest: dict[str, HistoryEntry] = {}
        with self._database_lock:
            for row in self._histories.values():
                if row.projection == projection and row.stream in streams:
                    kept = latest.get(row.stream)
                    if kept is None or kept.version < row.version:
                        latest[row.stream] = row
        return latest

    def runs(self, run_ids: Collection[str] | None = None) -> list[RunRow]:
        with self._database_lock:
            rows = [r for r in self._runs.values() if run_ids is None or r.run_id in run_ids]
        return sorted(rows, key=lambda r: r.position)

    def runs_page(
        self, status: str | None, principal: str | None, before: int | None, limit: int
    ) -> list[RunRow]:
        with self._database_lock:
            rows = [
                r
                for r in self._runs.values()
                if (status is None or r.status == status)
                and (principal is None or r.principal == principal)
                and (before is None or r.position < before)
            ]
        return sorted(rows, key=lambda r: -r.position)[:limit]

    def run_ids_starting(self, start: str, principal: str | None, limit: int) -> list[str]:
        with self._database_lock:
            found = [
                r.run_id
                for r in self._runs.values()
                if r.run_id.startswith(start) and (principal is None or r.principal == principal)
            ]
        return found[:limit]

    def documents(
        self,
        projection: str,
        keys: Collection[str] | None = None,
        owners: Collection[str] | None = None,
    ) -> list[DocumentRow]:
        with self._database_lock:
            rows = [
                row
                for row in self._documents.values()
                if row.projection == projection
                and (keys is None or row.key in keys)
                and (owners is None or row.owner is None or row.owner in owners)
            ]
        return sorted(rows, key=lambda row: row.key)  # str order is code-point order

    def reset(self, projection: str, tracking_name: str) -> None:
        with self._database_lock:
            self._forget(projection)
            for key in [k for k in self._dead_letters if k[0] == projection]:
                del self._dead_letters[key]
            self._max_tracking_ids.pop(tracking_name, None)

    def take_over(self, projection: str, source_prefix: str, source: str, tracking: str) -> int:
        rebuilt = self.siblings[source_prefix]
        with self._database_lock, rebuilt._database_lock:
            self._forget(projection)
            for table, rows in zip(
                self._tables(projection), rebuilt._rows_of(projection), strict=True
            ):
                table.update(rows)
            for key in [k for k in self._dead_letters if k[0] == projection]:
                del self._dead_letters[key]
            self._dead_letters.update(
                {k: v for k, v in rebuilt._dead_letters.items() if k[0] == projection}
            )
            position = rebuilt._max_tracking_ids[source] or 0
            self._max_tracking_ids[tracking] = position or None
        return position

    def _tables(self, projection: str) -> list[dict[Any, Any]]:
        """Where a projection's rows are: the runs' table, or the records and histories of
        every domain's projection (theirs by their key's first part)."""
        return [self._runs] if projection == RUNS else [self._documents, self._histories]

    def _rows_of(self, projection: str) -> list[dict[Any, Any]]:
        if projection == RUNS:
            return [self._runs]
        return [
            {key: row for key, row in table.items() if key[0] == projection}
            for table in self._tables(projection)
        ]

    def _forget(self, projection: str) -> None:
        for table, rows in zip(self._tables(projection), self._rows_of(projection), strict=True):
            for key in list(rows):
                del table[key]
