"""Sluice's logging, in process: after the app and its MCP servers are built, the root logger's
only handler is Sluice's queue handler and no logger has another (the MCP SDK's rich handler
included); a record is one bounded ASCII JSON line; a flood is dropped and counted, never
waited for."""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.logging import RichHandler

from application.principals import PrincipalView
from gateway import logs
from gateway.bootstrap import Sluice
from gateway.demo import seed
from gateway.interfaces.http.server import http_server
from gateway.interfaces.mcp.server import SluiceMCP
from gateway.interfaces.mcp.stdio import stdio_server
from gateway.logs.json_lines import MAX_FRAMES, MAX_TRACEBACK, JsonLines
from gateway.logs.queued import QUEUE_SIZE, SluiceQueueHandler


def _loggers() -> dict[str, logging.Logger]:
    return {
        name: logger
        for name, logger in logging.Logger.manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }


def bare_root() -> None:
    """The root logger as a fresh process has it: no handler (pytest's own, which it adds for
    each test's run and removes after, are taken off early)."""
    root = logging.getLogger()
    for handler in root.handlers[:]:
        root.removeHandler(handler)


@pytest.fixture
def owned_logging() -> Iterator[None]:
    """Afterwards: Sluice's logging stopped, any other handler gone, levels as they were."""
    root_level = logging.getLogger().level
    others = {name: (lg.handlers[:], lg.propagate, lg.level) for name, lg in _loggers().items()}
    yield
    logs.stop()
    bare_root()
    logging.getLogger().setLevel(root_level)
    for name, logger in _loggers().items():
        handlers, propagate, level = others.get(name, ([], True, logging.NOTSET))
        logger.handlers[:] = handlers
        logger.propagate, logger.level = propagate, level


@pytest.fixture
def sluice(tmp_path: Path) -> Iterator[Sluice]:
    with Sluice(f"sqlite:///{tmp_path / 'sluice.db'}") as opened:
        seed(opened.gateway)
        yield opened


def assert_sluice_alone() -> None:
    root = logging.getLogger()
    assert [type(handler) for handler in root.handlers] == [SluiceQueueHandler]
    elsewhere = {name: lg.handlers for name, lg in _loggers().items() if lg.handlers}
    assert elsewhere == {}
    everywhere = [h for lg in [root, *_loggers().values()] for h in lg.handlers]
    assert not any(isinstance(h, RichHandler) for h in everywhere)


def test_after_the_app_and_its_mcp_server_are_built_sluices_handler_is_the_only_one(
    owned_logging: None, sluice: Sluice
) -> None:
    http_server(sluice, host="127.0.0.1", port=0, projector=False, log_level=logging.INFO)
    assert_sluice_alone()
    assert logging.getLogger().level == logging.INFO
    assert logging.getLogger("uvicorn.error").level == logging.INFO
    # Sluice writes the access line itself (with the request id): uvicorn's is off.
    assert logging.getLogger("uvicorn.access").level == logging.CRITICAL

    stdio_server(
        sluice.gateway, "sk-demo-alice", console_url="http://127.0.0.1:8000/", elicit=True,
        log_level=logging.WARNING,
    )  # fmt: skip
    assert_sluice_alone()
    assert logging.getLogger().level == logging.WARNING


def test_what_a_library_set_up_before_sluice_is_removed(
    owned_logging: None, sluice: Sluice
) -> None:
    def who(_: object) -> PrincipalView:
        return sluice.gateway.authenticate("sk-demo-alice")

    bare_root()
    SluiceMCP(sluice.gateway, who, lambda _: "http://127.0.0.1:8000/", elicit=False)
    # The MCP SDK found the root logger bare and dressed it.
    assert any(isinstance(h, RichHandler) for h in logging.getLogger().handlers)
    logging.getLogger("uvicorn.access").addHandler(logging.StreamHandler())
    logging.getLogger("uvicorn.access").propagate = False

    logs.install(logging.WARNING)
    assert_sluice_alone()
    assert logging.getLogger("uvicorn.access").propagate


def _record(message: str, *, error: BaseException | None = None) -> logging.LogRecord:
    info = (type(error), error, error.__traceback__) if error else None
    return logging.LogRecord("sluice.http", logging.ERROR, __file__, 1, message, None, info)


def _raised(error: BaseException) -> BaseException:
    try:
        raise error
    except BaseException as caught:
        return caught


def test_a_record_is_one_ascii_json_line_whatever_its_text_holds() -> None:
    hostile = 'GET /x\n{"level": "INFO"}\x1b[2J\u202eé\x00'
    line = JsonLines().format(_record(hostile, error=_raised(ValueError(hostile))))
    assert "\n" not in line and line.isascii()
    entry = json.loads(line)
    assert entry["message"] == hostile  # escaped on the line, intact once parsed
    assert (entry["error_type"], entry["error"]) == ("ValueError", hostile)
    assert entry["traceback"].endswith(f"ValueError: {hostile}\n")


def test_a_chain_of_errors_shows_the_last_ones_frames_and_a_long_message_is_cut() -> None:
    def layers(n: int) -> None:
        try:
            if n:
                layers(n - 1)
            else:
                raise KeyError("the first error")
        except Exception as error:
            raise RuntimeError(f"layer {n}") from error

    error = _raised(RuntimeError("not raised"))
    try:
        layers(100)  # a hundred chained errors, each with its traceback
    except RuntimeError as caught:
        error = caught
    line = JsonLines().format(_record("m" * 100_000, error=error))
    assert len(line) < 16 * 1024
    entry = json.loads(line)
    assert entry["message"].startswith("mmm") and entry["message"].endswith("characters cut]")
    shown = entry["traceback"]
    assert shown.startswith("Traceback (most recent call last):\n")
    assert "(raised from RuntimeError: layer 99)" in shown  # the chain: one line
    assert "layer 98" not in shown and "the first error" not in shown
    assert shown.endswith("RuntimeError: layer 100\n")
    assert len(shown.splitlines()) < 10


def test_a_deep_traceback_keeps_its_innermost_frames_and_says_how_many_are_not_shown() -> None:
    def deep(n: int) -> None:
        if n:
            deep(n - 1)
        raise ValueError("at the bottom")

    error = _raised(RuntimeError("not raised"))
    try:
        deep(150)
    except ValueError as caught:
        error = caught
    shown = json.loads(JsonLines().format(_record("failed", error=error)))["traceback"]
    # (Python folds the repeated frames of a recursion into one "repeated N more times")
    assert 0 < shown.count('  File "') <= MAX_FRAMES
    assert f"... {152 - MAX_FRAMES} outer frame(s) not shown" in shown
    assert shown.endswith("ValueError: at the bottom\n")
    assert len(shown) < MAX_TRACEBACK


def test_a_flood_the_writer_cannot_keep_up_with_is_dropped_and_counted(
    owned_logging: None,
) -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "w") as stream, os.fdopen(read_end) as reader:
        bare_root()
        handler = logs.install(logging.WARNING, stream=stream)
        log = logging.getLogger("sluice.flood")
        sent = QUEUE_SIZE + 5000
        for n in range(sent):  # nobody reads the pipe: it fills, then the queue does
            log.warning("record %d", n)
        lines: list[str] = []
        draining = threading.Thread(target=lambda: lines.extend(reader))
        draining.start()
        assert isinstance(handler, SluiceQueueHandler)
        waiting = handler.queue
        assert isinstance(waiting, queue.Queue)
        deadline = time.monotonic() + 30
        while waiting.qsize() and time.monotonic() < deadline:  # the writer catches up
            time.sleep(0.01)
        log.warning("after the flood")
        logs.stop()  # writes what is queued
        stream.close()
        draining.join(30)

    written = [json.loads(line) for line in lines]
    notices = [e for e in written if e["logger"] == "sluice.logs"]
    # One notice per stretch of drops: a writer slowed down by a busy machine may see several.
    assert notices, written[-3:]
    dropped = sum(int(notice["message"].split()[0]) for notice in notices)
    assert dropped > 0
    records = [e for e in written if e["logger"] == "sluice.flood"]
    assert len(records) + dropped == sent + 1  # each record written, or counted
    assert records[-1]["message"] == "after the flood"
