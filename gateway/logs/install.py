"""Sluice owns the logging of its long-running processes (`sluice serve`, `sluice project`,
`sluice mcp`): whatever a library configures, every record goes to one handler of ours.

`install` runs before the app is built, so no library finds the root logger bare and dresses
it (the MCP SDK's server calls `logging.basicConfig` with a rich handler whose highlighted
tracebacks cost about a second of CPU each, on the event loop). `reclaim` runs after the app
and its libraries are built: it removes any handler they set on the root logger or on their
own loggers, and hands their records to the root. uvicorn gets a configuration of levels
only (`uvicorn_log_config`), so it installs no formatter or handler of its own.

Everything goes to stderr, as plain lines (gateway/logs/plain.py) or, when asked
(`--log-format json`, SLUICE_LOG_FORMAT=json), one JSON object per line
(gateway/logs/json_lines.py); stdout is left to the protocol (`sluice mcp`) or to the lines a
person reads at start.
"""

from __future__ import annotations

import atexit
import logging
import queue
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any, TextIO

from application.settings_error import SettingsError
from gateway.logs.queued import QUEUE_SIZE, Drops, Listener, SluiceQueueHandler, Writer

LOG_LEVEL_VARIABLE = "SLUICE_LOG_LEVEL"
LOG_FORMAT_VARIABLE = "SLUICE_LOG_FORMAT"
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
FORMATS = ("plain", "json")
DEFAULT_LEVEL = logging.WARNING
UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")

log = logging.getLogger("sluice")


def parse_level(raw: str, source: str) -> int:
    """The level `raw` names (any case), or a SettingsError naming `source` (an option or
    a variable)."""
    name = raw.strip().upper()
    if name not in LEVELS:
        raise SettingsError(f"{source}={raw!r} is not a log level; use one of {', '.join(LEVELS)}")
    level: int = logging.getLevelNamesMapping()[name]
    return level


def parse_format(raw: str | None, source: str = LOG_FORMAT_VARIABLE) -> str:
    """`plain` or `json` (any case; plain when `raw` is None), or a SettingsError naming
    `source`."""
    if raw is None:
        return "plain"
    name = raw.strip().lower()
    if name not in FORMATS:
        raise SettingsError(f"{source}={raw!r} is not a log format; use plain or json")
    return name


def formatter(name: str) -> logging.Formatter:
    from gateway.logs.json_lines import JsonLines
    from gateway.logs.plain import PlainLines

    return JsonLines() if name == "json" else PlainLines()


def uvicorn_log_config(level: int) -> dict[str, Any]:
    """uvicorn's `log_config`: its loggers' levels, and their records passed to the root.

    Incremental, so it neither clears the process's handlers nor adds any. uvicorn's own
    access line is off (CRITICAL: it logs none at that level): the HTTP server writes its
    own, with the request id (gateway/interfaces/http/request_log.py)."""
    name = logging.getLevelName(level)
    loggers = {logger: {"level": name, "propagate": True} for logger in UVICORN_LOGGERS}
    loggers["uvicorn.access"]["level"] = "CRITICAL"
    return {"version": 1, "incremental": True, "loggers": loggers}


@dataclass
class _Installation:
    handler: SluiceQueueHandler
    listener: Listener
    level: int
    restore: Callable[[], None]


_installed: _Installation | None = None
_lock = threading.Lock()


def install(level: int, stream: TextIO | None = None, log_format: str = "json") -> logging.Handler:
    """Start the writer thread (once) and make Sluice's queue handler the root logger's only
    handler, at `level`, writing `log_format` (plain or json) lines; warnings and uncaught
    errors in threads become records too."""
    global _installed  # noqa: PLW0603 (one logging per process)
    with _lock:
        if _installed is None:
            drops = Drops()
            records: queue.Queue[Any] = queue.Queue(QUEUE_SIZE)
            writer = Writer(stream or sys.stderr, drops, formatter(log_format))
            listener = Listener(records, writer)
            listener.start()
            _installed = _Installation(
                SluiceQueueHandler(records, drops), listener, level, _hook_errors()
            )
            atexit.register(stop)
        _installed.level = level
    reclaim()
    return _installed.handler


def reclaim() -> None:
    """Remove every handler but Sluice's, wherever a library put it, and let every logger's
    records reach the root. Call it after the app and its libraries are built."""
    installed = _installed
    if installed is None:
        raise RuntimeError("Sluice's logging is not installed: call install(level) first")
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler is not installed.handler:
            root.removeHandler(handler)
    if installed.handler not in root.handlers:
        root.addHandler(installed.handler)
    root.setLevel(installed.level)
    for logger in list(logging.Logger.manager.loggerDict.values()):
        if isinstance(logger, logging.Logger):
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
            logger.propagate = True


def stop() -> None:
    """Write what is queued and stop the writer thread (at exit, or on SIGTERM)."""
    global _installed
    with _lock:
        installed, _installed = _installed, None
    if installed is None:
        return
    logging.getLogger().removeHandler(installed.handler)
    installed.listener.stop()
    installed.restore()


def _hook_errors() -> Callable[[], None]:
    """Warnings, uncaught errors in threads and SIGTERM go through Sluice's logging; the
    returned function puts back what was there."""
    logging.captureWarnings(True)
    thread_hook = threading.excepthook
    threading.excepthook = _thread_error
    on_sigterm = None
    if threading.current_thread() is threading.main_thread():
        on_sigterm = signal.getsignal(signal.SIGTERM)
        if on_sigterm == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _stop_then_terminate)

    def restore() -> None:
        logging.captureWarnings(False)
        threading.excepthook = thread_hook
        ours = signal.getsignal(signal.SIGTERM) is _stop_then_terminate
        if on_sigterm == signal.SIG_DFL and ours:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)

    return restore


def _thread_error(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread else "a thread"
    error: tuple[type[BaseException], BaseException, TracebackType | None] | None = None
    if args.exc_value is not None:
        error = (args.exc_type, args.exc_value, args.exc_traceback)
    log.error("uncaught error in %s", name, exc_info=error)


def _stop_then_terminate(signum: int, _: FrameType | None) -> None:
    # A SIGTERM left to its default would end the process before the queued lines are
    # written (uvicorn raises it again once it has shut down): write them, then end as
    # SIGTERM would.
    stop()
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)
