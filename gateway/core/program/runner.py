"""Preview a program against a unit of work; `gateway.core.proposals` commits what it showed."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError

from application.event_json import plain
from application.executor import execute
from application.inert_text import clip, clip_value, inert_value
from application.ledger import Ledger
from application.results import CallRecord, EventRecord, OriginRecord, Preview
from application.unit_of_work import UnitOfWork
from application.validation import describe
from domain.errors import DomainError
from gateway.core.catalog import Catalog
from gateway.core.errors import refusal_name
from gateway.core.program import withheld
from gateway.core.program.data_checks import check_data, provenance_of
from gateway.core.program.errors import CallRefusedError, ProgramError
from gateway.core.program.guard import OpenGuard, ProgramGuard
from gateway.core.program.limits import ProgramLimits
from gateway.core.program.sandbox import Sandbox
from gateway.core.program.static_check import ProgramShape, check_program


@dataclass(frozen=True)
class ProgramRun:
    """A program run on a unit of work: its preview (the one `Preview` every interface
    shows: what it would append, or why it cannot), the work that holds those events for a
    commit, and the refusal with its stage and place."""

    preview: Preview
    uow: UnitOfWork
    error: ProgramError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def writes(self) -> bool:
        return bool(self.uow.events)


def events_of(uow: UnitOfWork) -> list[EventRecord]:
    """The events a unit of work collected, as its principal may see them."""
    return [EventRecord.model_validate(uow.event_json(e)) for e in uow.events]


def previewed(
    uow: UnitOfWork,
    error: ProgramError | None = None,
    *,
    calls: Sequence[CallRecord] = (),
    result: Any = None,
    output: str = "",
    caps: dict[str, Any] | None = None,
) -> ProgramRun:
    """The run of a program on `uow` as it stands: every event it collected, every field of
    its preview given (so that a run stores all of them)."""
    preview = Preview(
        events=events_of(uow),
        calls=list(calls),
        result=result,
        output=output,
        caps=caps or {},
        error=None if error is None else str(error),
    )
    return ProgramRun(preview, uow, error)


class ProgramRunner:
    def __init__(
        self, ledger: Ledger, catalog: Catalog, sandbox: Sandbox, limits: ProgramLimits
    ) -> None:
        self.ledger = ledger
        self.catalog = catalog
        self.sandbox = sandbox
        self.limits = limits

    def preview(
        self, source: str, *, guard: ProgramGuard | None = None, uow: UnitOfWork | None = None
    ) -> ProgramRun:
        """Check and run the program; nothing is written whatever happens."""
        checks = guard or OpenGuard()
        work = uow or UnitOfWork(self.ledger)
        made: list[CallRecord] = []  # the calls the program made, in order
        output, result = "", None
        error: ProgramError | None = None
        try:
            catalog = self.catalog
            shape = check_program(source, catalog.program_rules, self.limits)
            checks.check_shape(shape)
            # The time cap is the sandbox's clock alone: waiting for a worker, or for the
            # store while a call is answered, is not the program's run. A busy sandbox
            # raises SandboxBusyError, which is no ProgramError: it is not the program's.
            calls = _Calls(self, work, checks, shape, made)
            run = self.sandbox.run(source, catalog.stubs, shape.named, calls)
            # Printed text is the program's: stored and shown inert, with its lines.
            output = clip(run.output, self.limits.max_output_bytes, lines=True)
            result = self._result(run.result)
        except ProgramError as refused:
            error = _told(refused, read_data=bool(made))
        return previewed(work, error, calls=made, result=result, output=output, caps=checks.usage())

    def _result(self, value: Any) -> Any:
        result = inert_value(plain(value))
        try:
            size = len(json.dumps(result))
        except (TypeError, ValueError):
            try:
                shown = repr(value)
            except ValueError:
                # Neither JSON nor repr writes an int past sys.get_int_max_str_digits().
                raise ProgramError(
                    "limit",
                    "result limit: the result holds an integer of more than "
                    f"{sys.get_int_max_str_digits()} digits",
                ) from None
            result = inert_value(shown)
            size = len(json.dumps(result))
        if size > self.limits.max_result_bytes:
            raise ProgramError(
                "limit",
                f"result limit: the result is {size} bytes, over {self.limits.max_result_bytes}",
            )
        return result


def _told(error: ProgramError, *, read_data: bool) -> ProgramError:
    """The error as a run keeps it: the program's own exception is named without its
    message once the program may hold data (a use case returned to it)."""
    if error.exception is None or not read_data:
        return error
    return ProgramError(
        error.stage, withheld.runtime_error(error.exception), error.line, error.column
    )


class _Calls:
    """Answers one program's use-case calls: caps first, then validation, then execute.

    A refusal quotes an argument the program computed from data as `<value>`
    (`gateway.core.program.withheld`): the arguments its shape knows as computed, or
    every argument of a call it does not know."""

    def __init__(
        self,
        runner: ProgramRunner,
        uow: UnitOfWork,
        guard: ProgramGuard,
        shape: ProgramShape,
        made: list[CallRecord],
    ) -> None:
        self.limits = runner.limits
        self.catalog = runner.catalog
        self.uow = uow
        self.guard = guard
        self.shape = shape
        self.made = made
        # What each call (by its place) answered: whose text a later argument copied.
        self.answers: dict[tuple[int, int], list[Any]] = {}

    def __call__(self, name: str, arguments: dict[str, Any], line: int, column: int) -> Any:
        if len(self.made) >= self.limits.max_calls:
            raise CallRefusedError(
                f"call limit: the program made more than {self.limits.max_calls} use-case calls",
                "limit",
            )
        use_case_class = self.catalog.get(name)
        written = self.shape.at(line, column)
        computed = frozenset(arguments) if written is None else written.computed
        try:
            use_case = use_case_class.model_validate(arguments)
        except ValidationError as error:
            raise CallRefusedError(f"{name}: {describe(error, withheld=computed)}") from None
        try:
            self.guard.check_call(use_case)
        except CallRefusedError as refused:
            kind: str = refused.kind
            values = withheld.computed_values(computed, arguments, dict(use_case))
            told = withheld.refusal(name, refused.raw, values, kind)
            raise CallRefusedError(told, refused.stage, refusal=refused.refusal) from None
        provenance = provenance_of(written, self.shape, self.answers, arguments)
        decision = check_data(use_case, provenance, self.guard.principal, self.uow)
        if decision.refusal is not None:
            values = withheld.computed_values(computed, arguments, dict(use_case))
            told = withheld.refusal(name, decision.refusal, values, "provenance")
            raise CallRefusedError(told, "check") from None
        provenance = replace(provenance, grants=decision.grants)
        try:
            executed = execute(use_case, self.uow, provenance)
        except DomainError as refusal:
            kind = refusal_name(type(refusal))
            # The use case is frozen: what it was given is what it holds now.
            values = withheld.computed_values(computed, arguments, dict(use_case))
            told = withheld.refusal(name, f"{name}: {refusal}", values, kind)
            raise CallRefusedError(told, refusal=refusal) from None
        adapter = use_case_class.result_adapter()
        bound = self.limits.max_call_value_bytes
        arguments = plain(use_case.model_dump(mode="python"))
        self.made.append(
            CallRecord(
                name=name,
                arguments={key: clip_value(value, bound) for key, value in arguments.items()},
                result=clip_value(adapter.dump_python(executed.value, mode="json"), bound),
                line=line,
                column=column,
                events=len(executed.events),
                origins={
                    argument: [OriginRecord.model_validate(o.to_json()) for o in found.origins]
                    for argument, found in provenance.arguments.items()
                },
            )
        )
        answer = adapter.dump_python(executed.value, mode="python")
        self.answers.setdefault((line, column), []).append(answer)
        return answer
