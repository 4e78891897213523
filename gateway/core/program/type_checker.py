"""Type-checking programs in warm sessions, so a program does not pay for the checker's start.

pydantic-monty type-checks what a session is fed, against the stubs the session was opened
with. Opening a session with a type checker costs ~16 ms (the checker loads its state); a
check in a session already open costs ~0.5 ms. So programs are checked in sessions kept open
per stub set, in a pool of their own, and then run in a fresh session of the sandbox's pool
that checks nothing: every program still runs alone in a clean session, and every program is
still checked against the same stubs before any of it runs.

A check is the program fed whole behind one line, a call to `STOP` (a function of the stubs
only): the checker checks the whole text, and if it passes, execution stops at that first
line, before any of the program runs, by an exception answered to the call. A feed that
did not complete leaves nothing behind for the next check (the checker's context grows
only with snippets that ran to the end), and a test keeps that true. A program whose text
holds the name `STOP` is checked the old way, in a fresh session, so no program can play
with it. A session is closed after `CHECKS_PER_SESSION` checks (its worker's memory grows by
about 1.5 KB a check), or when its worker failed.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from dataclasses import dataclass, field

from pydantic_monty import (
    CollectString,
    FunctionSnapshot,
    Monty,
    MontyError,
    MontyRuntimeError,
    MontySession,
    MontySyntaxError,
    MontyTypingError,
    NameLookupSnapshot,
)

from gateway.core.program.checked_sources import CheckedSources
from gateway.core.program.cpu_pairing import CpuPairing

STOP = "sluice_checked_stop"
_PREFIX = f"{STOP}()\n"
CHECKS_PER_SESSION = 1000
_PLACE = re.compile(r"^([^:\n]+):(\d+):", re.M)


# Answered to the `STOP` call: the check passed, and nothing of the program runs.
_STOPPED = "sluice: checked, not run"


class CheckedTypeError(Exception):
    """The program does not type-check; `display` is the checker's text, with its lines."""

    def __init__(self, display: str) -> None:
        super().__init__(display)
        self.shown = display

    def display(self) -> str:
        return self.shown


class CheckerError(Exception):
    """The checker's worker did something a check never does; the program did not run."""


@dataclass
class _Warm:
    session: MontySession
    stubs: str
    checks: int = 0


@dataclass
class _Idle:
    by_stubs: dict[str, list[_Warm]] = field(default_factory=dict)

    def take(self, stubs: str) -> _Warm | None:
        warm = self.by_stubs.get(stubs)
        return warm.pop() if warm else None

    def any(self) -> _Warm | None:
        for warm in self.by_stubs.values():
            if warm:
                return warm.pop()
        return None

    def put(self, warm: _Warm) -> None:
        self.by_stubs.setdefault(warm.stubs, []).append(warm)

    def drain(self) -> list[_Warm]:
        every = [warm for sessions in self.by_stubs.values() for warm in sessions]
        self.by_stubs.clear()
        return every


class TypeChecker:
    """At most `sessions` warm checker sessions; a check waits at most `wait_seconds` for one.

    `check` raises `CheckedTypeError` (its lines those of the program), `MontyCrashedError`
    when the worker died or timed out, `CheckerError` when it did what a check never does,
    and `TimeoutError` when no session came free in time. A syntax error is left for the
    run, which reports it in place. A text that passed against the same stubs before is not
    checked again (`checked_sources`)."""

    def __init__(
        self,
        *,
        sessions: int,
        wait_seconds: float,
        request_timeout: float,
        pairing: CpuPairing | None = None,
    ) -> None:
        """`pairing`: binds a check's turns to one CPU, as a run's (the sandbox's own)."""
        self.sessions = sessions
        self.wait_seconds = wait_seconds
        self._pairing = pairing or CpuPairing(cpus=())
        self._pool = Monty(
            min_processes=1,
            max_processes=sessions,
            checkout_timeout=wait_seconds,
            request_timeout=request_timeout,
        )
        self._started = False
        self._idle = _Idle()
        self._live = 0
        self._cond = threading.Condition()
        self.checked = CheckedSources()

    def start(self) -> None:
        with self._cond:
            if not self._started:
                self._pool.__enter__()
                self._started = True

    def close(self) -> None:
        with self._cond:
            idle, self._idle = self._idle.drain(), _Idle()
            self._live -= len(idle)
            started, self._started = self._started, False
        for warm in idle:
            _close(warm)
        if started:
            self._pool.__exit__(None, None, None)

    def check(self, source: str, stubs: str) -> None:
        if STOP in source:
            raise ValueError(f"a program naming {STOP} is checked in a fresh session")
        if self.checked.passed(source, stubs):
            return
        self.start()
        warm = self._take(stubs)
        keep = False
        try:
            warm.checks += 1
            with self._pairing.paired(warm.session.worker_pid):
                _check_in(warm.session, source)
            keep = warm.checks < CHECKS_PER_SESSION
            self.checked.remember(source, stubs)
        except CheckedTypeError:
            keep = warm.checks < CHECKS_PER_SESSION
            raise
        finally:
            self._give_back(warm, keep=keep)

    def _take(self, stubs: str) -> _Warm:
        deadline = time.monotonic() + self.wait_seconds
        with self._cond:
            while True:
                warm = self._idle.take(stubs)
                if warm is not None:
                    return warm
                if self._live < self.sessions:
                    self._live += 1
                    break
                other = self._idle.any()
                if other is not None:
                    # A session of another stub set gives its place to this one.
                    _close(other)
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no type checker came free")
                self._cond.wait(left)
        try:
            return _Warm(session=self._open(stubs), stubs=stubs)
        except BaseException:
            with self._cond:
                self._live -= 1
                self._cond.notify()
            raise

    def _open(self, stubs: str) -> MontySession:
        session = self._pool.checkout(
            type_check=True,
            type_check_stubs=f"{stubs}\n\ndef {STOP}() -> None: ...\n",
            type_check_format="concise",
            # Each check is one suspension (the STOP call); the pool counts them per session.
            limits={"max_suspensions": CHECKS_PER_SESSION * 2 + 10},
        )
        return session.__enter__()

    def _give_back(self, warm: _Warm, *, keep: bool) -> None:
        with self._cond:
            if keep and self._started:
                self._idle.put(warm)
            else:
                self._live -= 1
            self._cond.notify()
        if not keep:
            _close(warm)


def _check_in(session: MontySession, source: str) -> None:
    """Check `source` in a warm session; a typing error is raised with the program's lines."""
    try:
        snapshot = session.feed_start(
            _PREFIX + source, external_lookup={}, print_callback=CollectString(max_bytes=1024)
        )
        while isinstance(snapshot, NameLookupSnapshot):
            snapshot = snapshot.resume_auto()
        if not isinstance(snapshot, FunctionSnapshot) or snapshot.function_name != STOP:
            raise CheckerError(f"the type checker stopped at {type(snapshot).__name__}")
        snapshot.resume({"exception": RuntimeError(_STOPPED)})
    except MontyTypingError as error:
        raise CheckedTypeError(_shift_lines(error.display())) from None
    except MontySyntaxError:
        return  # the run meets it too, and reports it in place
    except MontyRuntimeError as error:
        frames = error.traceback()
        if frames and frames[-1].line == 1 and _STOPPED in error.display("msg"):
            return
        raise CheckerError(f"the type checker failed: {error.display('type-msg')}") from None
    raise CheckerError("the type checker ran the program past its first line")


def _shift_lines(display: str) -> str:
    """`main.py:3:9: error...` of the checked text is line 2 of the program."""
    return _PLACE.sub(lambda m: f"{m[1]}:{max(int(m[2]) - 1, 1)}:", display)


def _close(warm: _Warm) -> None:
    with contextlib.suppress(MontyError):
        warm.session.__exit__(None, None, None)
