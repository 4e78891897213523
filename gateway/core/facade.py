"""The hardened facade: everything an agent, a client or an operator may ask of Sluice.

Every entry takes the authenticated principal; HTTP, the CLI and the agent call only this.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate, AggregateEvent
from eventsourcing.persistence import IntegrityError
from pydantic import ValidationError

from application import principals as principal_store
from application.event_json import plain
from application.executor import execute
from application.key_cache import KeyCache
from application.ledger import Ledger
from application.money_moves import MoneyReader, no_money_moves
from application.principals import PrincipalView
from application.read_models.queries import ReadModelQueries
from application.results import Outcome, Proposal, Sheet
from application.runs import outcome_of
from application.turns import TurnNotFreeError
from application.unit_of_work import ConflictError, UnitOfWork
from application.use_case import UseCase
from application.validation import describe
from domain.errors import DomainError
from domain.idempotency import IdempotentRequest, request_id
from gateway.core.catalog import Catalog, UnknownUseCaseError
from gateway.core.conversations import Conversations
from gateway.core.errors import GatewayError
from gateway.core.key_admin import KeyAdmin
from gateway.core.notices import PendingNotifier, tell
from gateway.core.operations import Operations
from gateway.core.plans import plan_schema
from gateway.core.policy.access import PrincipalGuard
from gateway.core.policy.at_once import ProgramsAtOnce
from gateway.core.policy.caps import Caps
from gateway.core.policy.decisions import (
    denial,
    may_call,
    may_call_directly,
    may_decide,
    may_decide_by_form,
    visible_owned,
)
from gateway.core.policy.rate import PROGRAMS, RateLimiter
from gateway.core.program.errors import CallRefusedError
from gateway.core.program.runner import ProgramRunner
from gateway.core.program.sandbox import SandboxBusyError
from gateway.core.proposals import Clock, Proposals, Recorder, utc_now
from gateway.core.run_ids import run_id_for
from gateway.core.text_fields import check_source, check_words


class _NotSettledError(Exception):
    """A try on cached accounts that was refused or changed nothing: only the stored state
    may answer it."""


# How many times a direct call is done again, on fresh state, when its commit meets a change.
DIRECT_ATTEMPTS = 3


class Gateway:
    # A direct write's first try acts on the cached accounts, taking their turns (see `call`);
    # `make bench-call` turns it off on one gateway to compare.
    writes_as_cached = True

    def __init__(
        self,
        ledger: Ledger,
        catalog: Catalog,
        runner: ProgramRunner,
        caps: Caps,
        clock: Clock = utc_now,
        *,
        trusted_clients: Collection[str] = frozenset(),
        money_moves: MoneyReader = no_money_moves,
    ) -> None:
        """`trusted_clients`: the principals whose MCP clients the operator trusts to show
        the person a confirmation form (SLUICE_MCP_TRUSTED_CLIENTS); by default none.
        `money_moves`: the served domain's reading of the money a preview's events move
        (`Domain.money_moves`), which every proposal shown states."""
        self.ledger = ledger
        self.catalog = catalog
        self.caps = caps
        self.trusted_clients = frozenset(trusted_clients)
        self.rate = RateLimiter.in_store(ledger, PROGRAMS, caps.programs_per_minute)
        self.at_once = ProgramsAtOnce(caps.programs_at_once)
        # A person's confirmation that must run the program again waits for a slot as long
        # as a program waits for a sandbox worker.
        self.rerun_wait_seconds = runner.sandbox.settings.wait_seconds
        self.clock = clock  # also what a key's expiry is measured by
        self.keys = KeyCache(ledger)
        # The operator's commands: principals and keys, and the store's log and audit.
        self.key_admin = KeyAdmin(ledger)
        self.money_moves = money_moves
        self.operations = Operations(ledger, money_moves)
        self.proposals = Proposals(
            ledger, catalog, runner, caps, clock, running=self._rerun, money_moves=money_moves
        )
        # The agent's conversations, read and written through the same policy.
        self.conversations = Conversations(ledger)
        # Direct reads are answered from the read models when they are wired in.
        self.queries: ReadModelQueries | None = None
        # Told of each proposal that waits for a person (SLUICE_NOTIFY_URL), when wired in.
        self.notifier: PendingNotifier | None = None

    # Who is asking.

    def authenticate(self, api_key: str | None, interface: str | None = None) -> PrincipalView:
        """The key's principal, with the key's id and scope and the interface it came through
        (http, mcp, cli, console, agent), which every proposal records."""
        if not api_key:
            raise GatewayError("unauthenticated", "an API key is required")
        now = self.clock()
        principal = self.keys.authenticate(api_key, now)
        if principal is None:
            raise GatewayError(
                "unauthenticated", principal_store.refusal(self.ledger, api_key, now)
            )
        return replace(principal, interface=interface)

    def remembered(self, api_key: str | None, interface: str | None) -> PrincipalView | None:
        """The principal this process remembers for the key, asking no store: what
        `async_admitted` admits unless the principals moved since (then it admits nothing)."""
        known = self.keys.known(api_key, self.clock()) if api_key else None
        return None if known is None else replace(known[0], interface=interface)

    async def async_admitted(
        self, api_key: str | None, interface: str | None, limiter: RateLimiter
    ) -> PrincipalView | None:
        """As `authenticate` and `limiter.admit_request`, without blocking the caller's event
        loop, for a key this process remembers, on a store that reads the principals
        position asynchronously; None otherwise, with nothing counted (then both, in a
        thread, decide)."""
        if not api_key or not limiter.admits_async:
            return None
        known = self.keys.known(api_key, self.clock())
        if known is None:
            return None
        principal, remembered_at = known
        principal = replace(principal, interface=interface)
        # One statement where the store can: the position, and the count if it has not moved.
        unmoved = await limiter.async_admit_request_unless_moved(
            principal, self.ledger, remembered_at
        )
        if unmoved is None:
            if await self.ledger.async_principals_position() != remembered_at:
                return None
            await limiter.async_admit_request(principal)
            unmoved = True
        return principal if unmoved else None

    # What it may see.

    def catalog_for(self, principal: PrincipalView) -> Catalog:
        allowed = [n for n in self.catalog.names if may_call(principal, self.catalog.get(n))]
        return self.catalog.only(allowed)

    def directory(self, principal: PrincipalView) -> str:
        return self.catalog_for(principal).directory()

    def sheets(self, principal: PrincipalView, names: list[str]) -> list[Sheet]:
        for name in names:
            self._use_case(principal, name)
        return self.catalog.sheets(names)

    def plan_schema(self, principal: PrincipalView) -> dict[str, Any]:
        """The JSON Schema (draft 2020-12) a plan must satisfy: a JSON Schema document, so
        free JSON by nature, and a dict rather than a model."""
        return plan_schema(self.catalog_for(principal), self.caps.max_calls)

    # What it may do.

    def call(
        self,
        principal: PrincipalView,
        name: str,
        arguments: Any,
        *,
        record: Recorder | None = None,
        consistent: bool = False,
    ) -> Outcome:
        """A direct call by the principal's own client: same permissions and caps, no preview.

        `record`, given the response, returns an aggregate to append in the same transaction
        as the call's events (an Idempotency-Key's answer); the response then carries no
        log positions, so that a replay of it is identical.
        """
        use_case = self._direct_use_case(principal, name, arguments)
        use_case_class = type(use_case)
        source = json.dumps({"use_case": name, "arguments": plain(use_case.model_dump())})
        visible = visible_owned(principal)
        # A write first tries on the accounts as this process last saw them (no store read:
        # its commit is guarded by the versions it read, so a stale one conflicts and
        # nothing is written). What such a try cannot settle, it leaves to a try on the
        # stored state: a conflict, a refusal, or a write that changed nothing.
        # Each try of a write takes its accounts' turns in this process (other writes of this
        # process to them wait), unless one did not get them in time.
        write = use_case_class.kind == "write" and self.writes_as_cached
        turns = write
        # A direct call has no preview a person agreed to: when the accounts it read moved
        # before its commit, doing it again on their new state is what was asked.
        attempt = 0 if write else 1
        while True:
            as_cached = attempt == 0
            with UnitOfWork(
                self.ledger,
                visible=visible,
                as_cached=as_cached,
                turns=turns,
                owner_of=self.catalog.owned_words.owner_of,
            ) as uow:
                try:
                    return self._direct_attempt(
                        principal, use_case, source, uow, record, consistent=consistent
                    )
                except TurnNotFreeError:
                    turns = False
                    if not as_cached:
                        continue  # the same try again, without turns
                except _NotSettledError:
                    pass
                except ConflictError as conflict:
                    if attempt == DIRECT_ATTEMPTS:
                        raise GatewayError(
                            "conflict", f"{conflict} (tried {DIRECT_ATTEMPTS} times)"
                        ) from None
            attempt += 1

    def _direct_attempt(
        self,
        principal: PrincipalView,
        use_case: UseCase[Any],
        source: str,
        uow: UnitOfWork,
        record: Recorder | None,
        *,
        consistent: bool,
    ) -> Outcome:
        """One try of a direct call; _NotSettledError when a try on cached accounts cannot say."""
        use_case_class = type(use_case)
        try:
            PrincipalGuard(principal, self.catalog, self.caps).check_call(use_case)
            if self.queries is not None and self.queries.handles(use_case_class):
                return self._query(use_case, uow.visible, consistent=consistent)
            result = self._execute(use_case, uow)
        except CallRefusedError as refusal:
            if uow.as_cached:
                raise _NotSettledError from None
            run = self._record_failure(principal, source, refusal.raw)
            raise GatewayError(
                refusal.kind, refusal.raw, run_id=run, refusal=refusal.refusal
            ) from None
        if not uow.events and uow.as_cached:
            raise _NotSettledError
        if not uow.events and use_case_class.kind == "read":
            return _answered(result)
        return self._commit_direct(principal, source, uow, result, record)

    async def async_query(
        self, principal: PrincipalView, name: str, arguments: Any, *, consistent: bool = False
    ) -> Outcome | None:
        """As `call` for a read the read models answer on the caller's event loop (see
        `ReadModelQueries.answers_async`); None when they cannot, or when the call is
        refused: `call`, in a thread, then answers it and records the refusal."""
        queries = self.queries
        use_case = self._direct_use_case(principal, name, arguments)
        if queries is None or not queries.answers_async(type(use_case), consistent=consistent):
            return None
        try:
            PrincipalGuard(principal, self.catalog, self.caps).check_call(use_case)
            value = await queries.async_answer(use_case, visible_owned(principal))
        except (CallRefusedError, DomainError):
            return None
        return _answered(type(use_case).result_adapter().dump_python(value, mode="json"))

    def _direct_use_case(self, principal: PrincipalView, name: str, arguments: Any) -> UseCase[Any]:
        """The use case a direct call names, validated; `forbidden` or `bad-request` if not."""
        use_case_class = self.check_direct(principal, name)
        if not isinstance(arguments, dict):
            raise GatewayError("bad-request", f"{name}: arguments must be a JSON object")
        try:
            return use_case_class.model_validate(arguments)
        except ValidationError as error:
            raise GatewayError("bad-request", f"{name}: {describe(error)}") from None

    def propose(
        self, principal: PrincipalView, language: str, source: str, *, request: str | None = None
    ) -> Proposal:
        # Text no store or screen should hold is refused before anything is counted or kept.
        check_source(source)
        if request is not None:
            check_words("request", request)
        with self._running(principal, "propose", ""), _sandbox_busy_is_unavailable():
            proposal = self.proposals.propose(principal, language, source, request=request)
        tell(self.notifier, proposal)
        return proposal

    def proposal(self, principal: PrincipalView, run_id: str) -> Proposal:
        """A proposal by its id, or by the start of it a person typed (`3f2a9c1e`)."""
        return self.proposals.get(principal, self.run_id(principal, run_id, "proposal"))

    def run_id(self, principal: PrincipalView, given: str, noun: str = "run") -> str:
        """The whole id of the run `given` names, among those the principal may read."""
        return run_id_for(self.queries, principal, given, noun)

    def confirm(
        self,
        principal: PrincipalView,
        run_id: str,
        preview_hash: str,
        *,
        record: Recorder | None = None,
    ) -> Outcome:
        self.check_decides(principal, run_id, "confirm")
        # Committing a preview runs nothing, so it takes none of the principal's programs at
        # once; a stale one previews the program again (`_rerun`), and may meet a busy sandbox.
        with _sandbox_busy_is_unavailable():
            return self.proposals.confirm(principal, run_id, preview_hash, record=record)

    def refresh(self, principal: PrincipalView, run_id: str) -> Proposal:
        """A fresh preview of a pending proposal whose accounts moved since its preview."""
        self.check_decides(principal, run_id, "preview again")
        with _sandbox_busy_is_unavailable():
            return self.proposals.refresh(principal, run_id)

    def reject(self, principal: PrincipalView, run_id: str) -> Proposal:
        self.check_decides(principal, run_id, "reject")
        return self.proposals.reject(principal, run_id)

    def confirms_by_form(self, principal: PrincipalView) -> bool:
        """Whether the principal's MCP client may ask its person with a form whose
        acceptance commits; otherwise the question is a link to the web console."""
        return may_decide_by_form(principal, self.trusted_clients)

    def confirm_elicited(self, principal: PrincipalView, run_id: str, preview_hash: str) -> Outcome:
        """Confirm for the person at the principal's MCP client, who accepted this very
        preview in the form their client showed: only on a client the operator trusts, and
        with a person's key (`confirms_by_form`)."""
        self.check_decides_by_form(principal, run_id, "confirm")
        with _sandbox_busy_is_unavailable():
            return self.proposals.confirm(principal, run_id, preview_hash)

    def reject_elicited(self, principal: PrincipalView, run_id: str) -> Proposal:
        """Reject for the person at the principal's MCP client, who declined its form."""
        self.check_decides_by_form(principal, run_id, "reject")
        return self.proposals.reject(principal, run_id)

    # What the agent reads to tell who wrote a text (gateway/agent/authors.py), which
    # checks first that its reader may read the record.

    def events_of(self, aggregate_id: UUID) -> list[AggregateEvent]:
        """Every event of a record, oldest first."""
        return self.ledger.events_of(aggregate_id)

    def keys_in_log(self, kind: type[Aggregate]) -> list[str]:
        """The keys of every record of a kind ever created, in log order."""
        return self.ledger.keys_in_log(kind)

    # The answers kept for an Idempotency-Key (HTTP's), by principal and key.

    def kept_answer(self, principal: PrincipalView, key: str) -> IdempotentRequest | None:
        """The answer kept for the principal's Idempotency-Key, or None."""
        try:
            found: object = self.ledger.load_record(request_id(principal.name, key))
        except AggregateNotFoundError:
            return None
        assert isinstance(found, IdempotentRequest)
        return found

    def keep_refusal(self, answer: IdempotentRequest) -> None:
        """Keep a refusal as the answer to its key (an answer that committed was kept with
        its effect); another request with the key may have answered first: that one stands."""
        with suppress(IntegrityError):
            self.ledger.save(answer)

    def check_direct(self, principal: PrincipalView, name: str) -> type[UseCase[Any]]:
        """The use case a direct call names, if the principal may call it without a preview.

        A direct write commits with no preview to confirm, so only a person makes one."""
        use_case_class = self._use_case(principal, name)
        if not may_call_directly(principal, use_case_class):
            raise GatewayError(
                "forbidden",
                f"{name} writes, and a key with scope agent may not write directly: propose a "
                "program instead, and a person confirms its preview",
            )
        return use_case_class

    @staticmethod
    def check_decides(principal: PrincipalView, run_id: str, verb: str) -> None:
        """Agents propose, people decide: a key with scope agent never confirms or rejects."""
        if not may_decide(principal):
            raise GatewayError(
                "forbidden",
                f"proposal {run_id}: a key with scope agent may propose but never {verb}; "
                "a person does, with a human key (the web console, `sluice confirm`)",
                run_id=run_id,
            )

    def check_decides_by_form(self, principal: PrincipalView, run_id: str, verb: str) -> None:
        """An answer to an MCP client's form decides only as `confirms_by_form` says."""
        self.check_decides(principal, run_id, verb)
        if not self.confirms_by_form(principal):
            raise GatewayError(
                "forbidden",
                f"proposal {run_id}: the MCP client of principal {principal.name} is not "
                f"declared trusted (SLUICE_MCP_TRUSTED_CLIENTS), so an answer to its form "
                f"may not {verb}; a person does in the web console or with `sluice confirm`",
                run_id=run_id,
            )

    # Inside.

    def _admit_program(self, principal: PrincipalView, verb: str, why: str) -> None:
        """Count one program run of the principal's; past programs_per_minute, refuse it."""
        allowed = f"{verb} {self.caps.programs_per_minute} programs a minute{why}"
        self.rate.admit_or_refuse(principal, PROGRAMS, allowed)

    @contextmanager
    def _running(
        self, principal: PrincipalView, verb: str, why: str, *, wait_seconds: float = 0
    ) -> Iterator[None]:
        """Hold one of the principal's programs_at_once while its program is checked and run;
        with none free (after `wait_seconds`), refuse it before anything is counted."""
        if not self.at_once.take(principal.name, wait_seconds=wait_seconds):
            raise self._too_many_at_once(principal, wait_seconds, why)
        try:
            self._admit_program(principal, verb, why)
            yield
        finally:
            self.at_once.give_back(principal.name)

    @contextmanager
    def _rerun(self, principal: PrincipalView) -> Iterator[None]:
        # A stale proposal's fresh preview runs the program again and is stored with the
        # run: it counts, so the previews a principal can store are bounded by the rate,
        # and it runs in the sandbox, so it holds one of the principal's programs at once.
        why = " (a fresh preview of a stale proposal is one); nothing was written"
        with self._running(principal, "run", why, wait_seconds=self.rerun_wait_seconds):
            yield

    def _too_many_at_once(self, principal: PrincipalView, waited: float, why: str) -> GatewayError:
        limit = self.caps.programs_at_once
        still, after = ("still ", f" after {waited:g} s") if waited else ("", "")
        held = f"1 program at once and 1 is {still}running{after}"
        if limit > 1:
            held = f"{limit} programs at once and {limit} are {still}running{after}"
        # A slot frees when one of the principal's programs ends: within its time cap.
        retry = max(1, math.ceil(self.caps.max_run_seconds))
        return GatewayError(
            "rate-limited",
            f"cap programs_at_once: principal {principal.name} may run {held}"
            f"{why or '; nothing was written'}; retry in {retry} s",
            extra={"retry_after": retry},
        )

    def _use_case(self, principal: PrincipalView, name: str) -> type[UseCase[Any]]:
        try:
            use_case = self.catalog.get(name)
        except UnknownUseCaseError as error:
            raise GatewayError("not-found", str(error)) from None
        if not may_call(principal, use_case):
            raise GatewayError("forbidden", denial(principal, name))
        return use_case

    def _query(
        self, use_case: UseCase[Any], visible: frozenset[str] | None, *, consistent: bool
    ) -> Outcome:
        assert self.queries is not None
        try:
            value = self.queries.answer(use_case, visible, consistent=consistent)
        except DomainError as refusal:
            raise CallRefusedError.refusing(use_case.name, refusal) from None
        result = type(use_case).result_adapter().dump_python(value, mode="json")
        return _answered(result)

    def _execute(self, use_case: UseCase[Any], uow: UnitOfWork) -> Any:
        try:
            executed = execute(use_case, uow)
        except DomainError as refusal:
            raise CallRefusedError.refusing(use_case.name, refusal) from None
        return type(use_case).result_adapter().dump_python(executed.value, mode="json")

    def _commit_direct(
        self,
        principal: PrincipalView,
        source: str,
        uow: UnitOfWork,
        result: Any,
        record: Recorder | None,
    ) -> Outcome:
        run = self.proposals.direct_run(principal, source, uow, result)
        response = outcome_of(run)
        kept = [record(response)] if record else []
        committed = uow.commit(run, *kept)
        at = {"position": uow.last_position}
        if record:
            return response  # as kept, so that a replay of it is identical
        # The run's previewed events are the work's, in their order: now with their positions.
        return outcome_of(run, [c.position for c in committed]).model_copy(update=at)

    def _record_failure(self, principal: PrincipalView, source: str, error: str) -> str:
        run = self.proposals.failed_run(principal, source, error)
        return str(run.id)


def _answered(result: Any) -> Outcome:
    """A read's answer: nothing changed, nothing recorded."""
    return Outcome(
        run_id=None, status="committed", changed="nothing", events=[], result=result, error=None
    )


@contextmanager
def _sandbox_busy_is_unavailable() -> Iterator[None]:
    """No worker came free: the program did not run, so nothing is recorded; retry later."""
    try:
        yield
    except SandboxBusyError as busy:
        raise GatewayError(
            "unavailable",
            f"{busy}; the program did not run and nothing was written; "
            f"retry in {busy.retry_after} s",
            extra={"retry_after": busy.retry_after},
        ) from None


__all__ = ["Gateway", "GatewayError"]
