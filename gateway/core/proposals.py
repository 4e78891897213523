"""Proposals (P2, P3): preview, then commit exactly what was confirmed, or nothing.

A proposal is a Run in the store, not in process memory: it carries the previewed events
as the store will record them, and the versions of every account the program read. Any
gateway process can confirm it; confirming commits those very events with the run's
Confirmed and Committed events in ONE transaction, guarded by the read versions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError, Recording

from application import event_codec
from application.inert_text import clip
from application.ledger import Ledger
from application.money_moves import MoneyReader, no_money_moves
from application.principals import PrincipalView
from application.results import Outcome, Preview, Proposal
from application.runs import outcome_of, preview_of, proposal_of
from application.unit_of_work import UnitOfWork
from domain.run import COMMITTED, EXPIRED, PENDING, Run
from gateway.core.catalog import Catalog
from gateway.core.errors import MAX_ERROR_BYTES, GatewayError, StaleProposalError
from gateway.core.plans import at_step, compile_plan
from gateway.core.policy.access import PrincipalGuard
from gateway.core.policy.caps import Caps
from gateway.core.policy.decisions import may_decide_run, may_read_run, visible_owned
from gateway.core.program.errors import ProgramError
from gateway.core.program.runner import ProgramRun, ProgramRunner, events_of, previewed
from gateway.core.proposed_here import ProposedHere
from gateway.core.staleness import moved_since_preview

LANGUAGES = ("python", "plan")
A = TypeVar("A", Outcome, Proposal)
# Given a response, an aggregate to append with the effect that produced it.
Recorder = Callable[[Outcome], Aggregate]
# How many times a request that lost a race on a run reads it again before giving up.
RACES = 5
Clock = Callable[[], datetime]
# Held while a principal's program runs again: counts it, and holds one of the principal's
# programs at once; or raises GatewayError (rate-limited) on entering.
Running = Callable[[PrincipalView], AbstractContextManager[None]]


def utc_now() -> datetime:
    return datetime.now(UTC)


class Proposals:
    def __init__(
        self,
        ledger: Ledger,
        catalog: Catalog,
        runner: ProgramRunner,
        caps: Caps,
        clock: Clock = utc_now,
        *,
        running: Running | None = None,
        money_moves: MoneyReader = no_money_moves,
    ) -> None:
        self.ledger = ledger
        # The served domain's reading of the money a preview's events move.
        self.money_moves = money_moves
        self.catalog = catalog
        self.runner = runner
        self.caps = caps
        self.clock = clock
        self.running = running
        # The runs this process proposed that wait for a confirmation: the confirmation that
        # follows here takes its run from these instead of reading it from the store.
        self.proposed_here = ProposedHere()

    def propose(
        self, principal: PrincipalView, language: str, source: str, *, request: str | None = None
    ) -> Proposal:
        """Check and preview; a write program waits for confirmation of its preview hash."""
        preview, steps = self._preview(principal, language, source)
        run = Run(
            principal=principal.name,
            proposed_via=principal.via(),
            kind="program",
            language=language,
            source=source,
            request=request,
            **self._recorded_preview(principal, language, source, preview),
        )
        if not preview.ok:
            assert preview.error is not None
            error = at_step(preview.error, steps) if steps else preview.error
            run.fail(str(error))
            self.ledger.save(run)
            error.run_id = str(run.id)  # the refusal names the run that recorded it
            raise error
        if not preview.writes and self.caps.complete_reads_at_once:
            run.confirm(principal.name)
            run.commit([])
        placed = _placed(proposal_of(run, self.money_moves), self.ledger.save(run))
        if run.status == PENDING:
            self.proposed_here.put(run)
        return placed

    def get(self, principal: PrincipalView, run_id: str) -> Proposal:
        run = self._load(principal, run_id, reading=True)
        shown = proposal_of(run, self.money_moves)
        if run.status == PENDING and self.clock() >= run.expires_at:
            # Past its time, a proposal reads as expired before anyone records it so.
            outcome = shown.outcome.model_copy(update={"status": EXPIRED})
            return shown.model_copy(update={"status": EXPIRED, "outcome": outcome})
        if run.status == PENDING:
            return shown.model_copy(
                update={"moved_since_preview": moved_since_preview(self.ledger, run)}
            )
        return shown

    def refresh(self, principal: PrincipalView, run_id: str) -> Proposal:
        """Preview a pending proposal again when what it read has moved on, so that the
        person decides on today's numbers (a new preview hash); as it is, when nothing moved.
        A program that now fails ends the proposal as failed, nothing written."""
        run = self._load(principal, run_id)
        self._check_open(run)
        if not moved_since_preview(self.ledger, run):
            return proposal_of(run, self.money_moves).model_copy(update={"moved_since_preview": []})
        with self.running(principal) if self.running else nullcontext():
            preview, steps = self._preview(principal, run.language, run.source)
        if preview.ok:
            run.repreview(**self._recorded_preview(principal, run.language, run.source, preview))
        else:
            assert preview.error is not None
            error = at_step(preview.error, steps) if steps else preview.error
            run.fail(f"previewed again: the store moved on and the program now fails: {error}")
        try:
            self.ledger.save(run)
        except IntegrityError:
            run = self._reload(run)  # another request refreshed or decided it first
        return self.get(principal, run_id)

    def confirm(
        self,
        principal: PrincipalView,
        run_id: str,
        preview_hash: str,
        *,
        record: Recorder | None = None,
    ) -> Outcome:
        """Commit the confirmed preview once; a stale one gets a conflict and a fresh preview.

        Any number of requests may decide one proposal at once: whichever loses a race on
        the run reads it again and answers as the winner left it (200, 409 or 410).

        A run this process proposed is taken as it was saved, not read again: the commit is
        guarded by the run's version as well as by the read set's, so if another request
        changed the run meanwhile (decided it, previewed it again) nothing is written, and
        the run is read from the store to answer (`_after_conflict`)."""
        run = self._load(principal, run_id, proposed_here=preview_hash)
        settled = self._settled(run, preview_hash)
        if settled is not None:
            return settled
        events = event_codec.decode(self.ledger, run.stored_events)
        run.confirm(principal.name)
        run.commit(_references(run))
        read_versions = {UUID(k): v for k, v in run.read_versions.items()}
        response = outcome_of(run)
        kept = [record(response)] if record else []
        try:
            recordings = self.ledger.save(*events, run, *kept, read_versions=read_versions)
        except IntegrityError:
            return self._after_conflict(principal, run_id, preview_hash)
        if record:
            return response  # as kept, so that a replay of it is identical
        shown = len(preview_of(run).events)
        positions = [r.notification.id for r in recordings[:shown]]
        return _placed(outcome_of(run, positions), recordings)

    def reject(self, principal: PrincipalView, run_id: str) -> Proposal:
        for _ in range(RACES):
            run = self._load(principal, run_id)
            self._check_open(run)
            run.reject(principal.name)
            try:
                recordings = self.ledger.save(run)
            except IntegrityError:
                continue  # another request changed the run first: read it again
            return _placed(proposal_of(run, self.money_moves), recordings)
        raise _busy(run_id)

    # Inside.

    def _preview(
        self, principal: PrincipalView, language: str, source: str
    ) -> tuple[ProgramRun, int]:
        if language not in LANGUAGES:
            raise GatewayError("bad-request", f"language {language!r} is not one of python, plan")
        guard = PrincipalGuard(principal, self.catalog, self.caps)
        uow = UnitOfWork(
            self.ledger,
            visible=visible_owned(principal),
            owner_of=self.catalog.owned_words.owner_of,
        )
        if language == "python":
            return self.runner.preview(source, guard=guard, uow=uow), 0
        try:
            program = compile_plan(
                source,
                self.catalog,
                max_bytes=self.caps.max_program_bytes,
                max_steps=self.caps.max_calls,
            )
        except ProgramError as error:
            return previewed(uow, error), 0
        steps = program.count("\n") - 1
        return self.runner.preview(program, guard=guard, uow=uow), steps

    def direct_run(
        self,
        principal: PrincipalView,
        source: str,
        uow: UnitOfWork,
        result: Any,
    ) -> Run:
        """The run of a direct call, confirmed by its caller; the caller commits it.

        It keeps no encoded events: nothing will ever confirm it later."""
        # Its preview has no `error`: a direct call that runs is never refused.
        shown = Preview(events=events_of(uow), calls=[], result=result, output="", caps={})
        run = Run(
            principal=principal.name,
            proposed_via=principal.via(),
            kind="direct",
            language="call",
            source=source,
            request=None,
            **self._record(principal, "call", source, shown, uow, ok=True, encode=False),
        )
        run.confirm(principal.name)
        run.commit(
            [
                {
                    "account": uow.key_of(event.originator_id),
                    "aggregate_id": str(event.originator_id),
                    "version": event.originator_version,
                    "type": type(event).__name__,
                }
                for event in uow.events
            ]
        )
        return run

    def failed_run(self, principal: PrincipalView, source: str, error: str) -> Run:
        """Record a refused direct call: every refusal is part of the audit trail."""
        shown = Preview(events=[], calls=[], result=None, output="", caps={})
        run = Run(
            principal=principal.name,
            proposed_via=principal.via(),
            kind="direct",
            language="call",
            source=source,
            request=None,
            **self._record(principal, "call", source, shown, None, ok=False),
        )
        run.fail(clip(error, MAX_ERROR_BYTES))
        self.ledger.save(run)
        return run

    def _recorded_preview(
        self, principal: PrincipalView, language: str, source: str, run: ProgramRun
    ) -> dict[str, Any]:
        return self._record(principal, language, source, run.preview, run.uow, ok=run.ok)

    def _record(
        self,
        principal: PrincipalView,
        language: str,
        source: str,
        shown: Preview,
        uow: UnitOfWork | None,
        *,
        ok: bool,
        encode: bool = True,
    ) -> dict[str, Any]:
        """What a run keeps of its preview: the preview as JSON (the Run aggregate holds no
        model), its hash, the events to commit as the store encodes them, the read set."""
        preview = shown.to_json()
        stored = event_codec.encode(self.ledger, uow.recorded) if ok and uow and encode else []
        read_versions = {str(k): v for k, v in uow.read_versions().items()} if uow else {}
        fingerprint = {
            "principal": principal.name,
            "language": language,
            "source": source,
            "stored_events": stored,
            "read_versions": read_versions,
            "result": preview["result"],
        }
        digest = hashlib.sha256(json.dumps(fingerprint, sort_keys=True).encode()).hexdigest()
        return {
            "preview": preview,
            "preview_hash": digest,
            "stored_events": stored,
            "read_versions": read_versions,
            "expires_at": self.clock() + timedelta(seconds=self.caps.proposal_ttl_seconds),
        }

    def _load(
        self,
        principal: PrincipalView,
        run_id: str,
        *,
        reading: bool = False,
        proposed_here: str | None = None,
    ) -> Run:
        """The run, read from the store; or, given the preview hash a confirmation names
        (`proposed_here`), as this process saved it when it proposed it, if it still has it
        (each such run is handed out once) with that very preview; any other is read again."""
        kept = self.proposed_here.take(run_id) if proposed_here else None
        # A run previewed again since (here or elsewhere) is read again: the store says.
        run: object = kept if kept is not None and kept.preview_hash == proposed_here else None
        if run is None:
            try:
                run = self.ledger.load_record(UUID(run_id))
            except (ValueError, AggregateNotFoundError):
                raise GatewayError("not-found", f"no proposal {run_id}") from None
        if not isinstance(run, Run):
            raise GatewayError("not-found", f"no proposal {run_id}")
        allowed = may_read_run if reading else may_decide_run
        if not allowed(principal, run.principal):
            raise GatewayError(
                "forbidden", f"proposal {run_id} belongs to principal {run.principal}"
            )
        return run

    def _check_open(self, run: Run) -> None:
        """Raise `gone` (410) unless the run still waits for a decision."""
        if run.status == PENDING and self.clock() >= run.expires_at:
            run.expire()
            try:
                self.ledger.save(run)
            except IntegrityError:
                # Another request decided or refreshed it first: judge it as it is now.
                self._check_open(self._reload(run))
                return
        if run.status == EXPIRED:
            raise GatewayError(
                "gone",
                f"proposal {run.id} expired at {run.expires_at.isoformat()}; nothing was written",
                run_id=str(run.id),
            )
        if run.status != PENDING:
            raise GatewayError(
                "gone",
                f"proposal {run.id} is {run.status}; nothing more can happen to it",
                run_id=str(run.id),
            )

    def _settled(self, run: Run, preview_hash: str) -> Outcome | None:
        """The answer to confirming `preview_hash` when it cannot commit now, else None:
        the outcome if that very preview committed, `gone` if the run ended, `conflict`
        with the current preview if it is another."""
        if run.status == COMMITTED and run.preview_hash == preview_hash:
            return outcome_of(run)  # confirming twice commits once
        self._check_open(run)
        if preview_hash != run.preview_hash:
            raise StaleProposalError(
                f"preview_hash {preview_hash[:12]}... is not the current preview of "
                f"proposal {run.id}; nothing was written; review the current preview and "
                "confirm its hash",
                proposal_of(run, self.money_moves),
                kind="wrong-preview-hash",
            )
        return None

    def _reload(self, run: Run) -> Run:
        current: object = self.ledger.load_record(run.id)
        assert isinstance(current, Run)
        return current

    def _after_conflict(self, principal: PrincipalView, run_id: str, preview_hash: str) -> Outcome:
        """The commit was refused: the run or an account it read moved on since the preview."""
        run = self._load(principal, run_id)
        settled = self._settled(run, preview_hash)
        if settled is not None:
            return settled  # another confirmation of this preview won the race
        # A fresh preview is a run of the program, and is stored.
        with self.running(principal) if self.running else nullcontext():
            preview, steps = self._preview(principal, run.language, run.source)
        refusal, records = None, self.catalog.owned_words.records
        if not preview.ok:
            assert preview.error is not None
            error = at_step(preview.error, steps) if steps else preview.error
            refusal = error.refusal
            run.fail(f"conflict: the store moved on and the program now fails: {error}")
            message = (
                f"the {records} changed since the preview and the program now fails: {error}; "
                "nothing was written"
            )
        else:
            run.repreview(**self._recorded_preview(principal, run.language, run.source, preview))
            message = stale_detail(records)
        try:
            self.ledger.save(run)
        except IntegrityError:
            # Another confirmation refreshed or decided it first: answer as it left it.
            run = self._reload(run)
            settled = self._settled(run, preview_hash)
            if settled is not None:
                return settled
        raise StaleProposalError(message, proposal_of(run, self.money_moves), refusal=refusal)


def _placed(answer: A, recordings: Sequence[Recording[UUID]]) -> A:
    """The answer to a write, with the log position of the write's last event."""
    return answer.model_copy(update={"position": max(r.notification.id for r in recordings)})


def _busy(run_id: str) -> GatewayError:
    return GatewayError(
        "conflict",
        f"proposal {run_id} kept changing while this request tried to decide it; nothing was "
        "written; read it again",
        run_id=run_id,
    )


def _references(run: Run) -> list[dict[str, Any]]:
    """The accounts' events the run commits (the registry's, stored after them, are not)."""
    previewed = preview_of(run).events
    return [
        {
            "account": shown.account,
            "aggregate_id": stored["originator_id"],
            "version": stored["originator_version"],
            "type": shown.type,
        }
        for shown, stored in zip(previewed, run.stored_events[: len(previewed)], strict=True)
    ]


def stale_detail(records: str) -> str:
    """What a confirmation refused as stale says, with a fresh preview beside it."""
    return (
        f"the {records} this program read or wrote changed since the preview; nothing was "
        "written; here is a fresh preview to confirm"
    )
