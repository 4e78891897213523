"""The sandbox: pydantic-monty's pool of worker subprocesses, with only the use cases bound.

A program is type-checked against the catalog's stubs (in a warm session of the type
checker's own pool: `gateway.core.program.type_checker`), then started in a fresh session
that checks nothing; each use-case call
suspends it and comes to the host as a snapshot carrying its place in the text. The
host answers it, or stops the program there for good: a refused call is the end of the
program, so no `try` in the program can step over it.

The time cap is the sandbox's own clock, which runs only while the program executes: not
while it waits for a worker, nor while it is type-checked, nor while the host answers one of
its calls (the store may be slow). Waiting for a worker is bounded apart (`PoolSettings`);
past that wait the program is not run at all, and `SandboxBusyError` says so.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from pydantic_monty import (
    CollectString,
    FunctionSnapshot,
    Monty,
    MontyComplete,
    MontyCrashedError,
    MontyError,
    MontyRuntimeError,
    MontySession,
    MontySyntaxError,
    MontyTypingError,
    NameLookupSnapshot,
)

from gateway.core.program.cpu_pairing import CpuPairing
from gateway.core.program.errors import CallRefusedError, ProgramError, position_of
from gateway.core.program.limits import ProgramLimits
from gateway.core.program.pool_settings import DEFAULT_WAIT_SECONDS, DEFAULT_WORKERS, PoolSettings
from gateway.core.program.sandbox_stats import SandboxStats
from gateway.core.program.type_checker import STOP, CheckedTypeError, CheckerError, TypeChecker

# dispatch(name, keyword arguments, line, column) -> value returned to the program.
Dispatch = Callable[[str, dict[str, Any], int, int], Any]

_DIAGNOSTIC = re.compile(r"^[^:\n]+:(\d+):(\d+): (?:error|warning)\[([\w-]+)\] (.+)$", re.M)
_LIMIT_BYTES = re.compile(r"> (\d+) bytes")


class SandboxBusyError(Exception):
    """No worker came free within the wait: the program did not run, so it did not fail.

    Not a ProgramError: it is the process's capacity, retryable, never a run's outcome.
    """

    # A worker comes free whenever any program ends, so a short pause is enough.
    retry_after = 1

    def __init__(self, wait_seconds: float) -> None:
        super().__init__(f"the sandbox is busy: no worker came free within {wait_seconds:g} s")
        self.wait_seconds = wait_seconds


@dataclass(frozen=True)
class SandboxRun:
    result: Any
    output: str


class Sandbox:
    """Owns the worker pool; safe to share between threads."""

    def __init__(
        self,
        limits: ProgramLimits,
        *,
        workers: int = DEFAULT_WORKERS,
        wait_seconds: float = DEFAULT_WAIT_SECONDS,
    ) -> None:
        self.limits = limits
        self.settings = PoolSettings(workers=workers, wait_seconds=wait_seconds)
        self._pool = Monty(
            min_processes=1,
            max_processes=self.settings.workers,
            checkout_timeout=self.settings.wait_seconds,
            # A backstop past the sandbox's own clock: a worker stuck in one turn is killed.
            # A turn ends at each use-case call, so the host's answers are never part of it.
            request_timeout=limits.wall_seconds + 5.0,
        )
        # Programs are type-checked in warm sessions of a pool of their own, then run in a
        # fresh session of this one (`gateway.core.program.type_checker`).
        # A run's (and a check's) host thread and worker share one CPU while they take turns.
        self._pairing = CpuPairing()
        self._checker = TypeChecker(
            sessions=self.settings.workers,
            wait_seconds=self.settings.wait_seconds,
            request_timeout=limits.wall_seconds + 5.0,
            pairing=self._pairing,
        )
        self._started = False
        self._lock = threading.Lock()
        self.stats = SandboxStats()

    def _start(self) -> None:
        # Workers are spawned on the first program, not for commands that run none.
        with self._lock:
            if not self._started:
                self._pool.__enter__()
                self._started = True

    def close(self) -> None:
        with self._lock:
            self._checker.close()
            if self._started:
                self._pool.__exit__(None, None, None)
                self._started = False

    def run(
        self, source: str, stubs: str, functions: Collection[str], dispatch: Dispatch
    ) -> SandboxRun:
        self._start()
        tally = self.stats.run()
        outcome = "failed"
        try:
            run = self._run(source, stubs, functions, dispatch, tally.started)
            outcome = "ok"
            return run
        except SandboxBusyError:
            outcome = "busy"
            raise
        except ProgramError as error:
            outcome = "limit" if error.stage == "limit" else "failed"
            raise
        finally:
            tally.ended(outcome)

    def _run(
        self,
        source: str,
        stubs: str,
        functions: Collection[str],
        dispatch: Dispatch,
        started: Callable[[], None],
    ) -> SandboxRun:
        output = CollectString(max_bytes=self.limits.max_output_bytes)
        placeholders = {name: _never_called for name in functions}
        try:
            # A program naming the checker's STOP is checked in its own fresh session.
            checked_apart = STOP not in source
            if checked_apart:
                self._type_check(source, stubs)
            with ExitStack() as stack:
                session = self._checkout(stack, stubs, type_check=not checked_apart)
                stack.enter_context(self._pairing.paired(session.worker_pid))
                started()
                snapshot = session.feed_start(
                    source, external_lookup=placeholders, print_callback=output
                )
                while not isinstance(snapshot, MontyComplete):
                    snapshot = self._answer(source, snapshot, dispatch)
                return SandboxRun(result=snapshot.output, output=output.output)
        except MontyTypingError as error:
            raise _typing_error(error.display()) from None
        except MontySyntaxError as error:
            raise _located(
                source, "syntax", f"syntax error: {error.display('msg')}", error
            ) from None
        except MontyRuntimeError as error:
            raise self._runtime_error(source, error) from None
        except MontyCrashedError as error:
            if error.timed_out:
                raise ProgramError("limit", self._time_message()) from None
            raise ProgramError("sandbox", f"the sandbox worker stopped: {error}") from None
        except MontyError as error:
            raise ProgramError("sandbox", f"sandbox error: {error}") from None

    def _type_check(self, source: str, stubs: str) -> None:
        try:
            self._checker.check(source, stubs)
        except CheckedTypeError as error:
            raise _typing_error(error.display()) from None
        except CheckerError as error:
            raise ProgramError("sandbox", f"sandbox error: {error}") from None
        except TimeoutError:
            raise SandboxBusyError(self.settings.wait_seconds) from None

    def _checkout(self, stack: ExitStack, stubs: str, *, type_check: bool) -> MontySession:
        """A worker of the pool, waited for at most `wait_seconds`; the stack returns it."""
        try:
            session = self._pool.checkout(
                type_check=type_check,
                type_check_stubs=stubs if type_check else None,
                type_check_format="concise",
                limits={
                    # The sandbox's own clock: it runs only while the program executes.
                    "max_feed_duration_secs": self.limits.wall_seconds,
                    "max_memory": self.limits.max_memory_bytes,
                    "max_recursion_depth": self.limits.max_recursion_depth,
                    # The call cap is the host's; this only stops a runaway of lookups.
                    "max_suspensions": self.limits.max_calls * 4 + 100,
                },
                os_policy={"sleep": "zero"},
            )
            # Entering the session is what takes a worker from the pool (or waits for one).
            return stack.enter_context(session)
        except TimeoutError:
            raise SandboxBusyError(self.settings.wait_seconds) from None

    def _answer(self, source: str, snapshot: Any, dispatch: Dispatch) -> Any:
        if isinstance(snapshot, FunctionSnapshot):
            line, column = position_of(source, snapshot.position.start)
            try:
                value = dispatch(str(snapshot.function_name), dict(snapshot.kwargs), line, column)
            except CallRefusedError as refusal:
                raise refusal.at(line, column) from None
            return snapshot.resume({"return_value": value})
        if isinstance(snapshot, NameLookupSnapshot):
            return snapshot.resume_auto()
        raise ProgramError("sandbox", f"the program waited on {type(snapshot).__name__}")

    def _runtime_error(self, source: str, error: MontyRuntimeError) -> ProgramError:
        inner = error.exception()
        text = error.display("msg")
        if isinstance(inner, TimeoutError):
            return _located(source, "limit", self._time_message(), error)
        if isinstance(inner, MemoryError):
            match = _LIMIT_BYTES.search(text)
            printed_too_much = match and int(match.group(1)) == self.limits.max_output_bytes
            if printed_too_much:
                message = "output limit: the program printed more than "
                message += f"{self.limits.max_output_bytes} bytes"
            else:
                message = "memory limit: the program needed more than "
                message += _mib(self.limits.max_memory_bytes)
            return _located(source, "limit", message, error)
        if isinstance(inner, RecursionError):
            message = f"recursion limit: calls nested deeper than {self.limits.max_recursion_depth}"
            return _located(source, "limit", message, error)
        located = _located(source, "runtime", error.display("type-msg"), error)
        located.exception = type(inner).__name__
        return located

    def _time_message(self) -> str:
        return f"time limit: the program ran longer than {self.limits.wall_seconds:g} s"


def _mib(size: int) -> str:
    return f"{size / 2**20:g} MiB"


def _never_called(**_: Any) -> Any:
    raise AssertionError("every use-case call is answered by the host")


def _located(
    source: str, stage: Any, message: str, error: MontyRuntimeError | MontySyntaxError
) -> ProgramError:
    frames = error.traceback()
    if not frames:
        return ProgramError(stage, message)
    frame = frames[-1]
    return ProgramError(stage, message, frame.line, frame.column)


def _typing_error(display: str) -> ProgramError:
    diagnostics = _DIAGNOSTIC.findall(display)
    if not diagnostics:
        return ProgramError("type", f"type error: {display.strip()}")
    line, column, _code, message = diagnostics[0]
    more = f" (and {len(diagnostics) - 1} more)" if len(diagnostics) > 1 else ""
    return ProgramError("type", f"type error: {message.strip()}{more}", int(line), int(column))
