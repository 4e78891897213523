"""What a log line shows: plain text for a person (the default) or JSON when asked; never a
credential, whoever logged it; the request a line belongs to."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from application.settings_error import SettingsError
from application.store_config import eventsourcing_env, redacted
from gateway.logs import parse_format, parse_level
from gateway.logs.context import REQUEST_ID
from gateway.logs.json_lines import JsonLines
from gateway.logs.plain import PlainLines
from gateway.logs.queued import Drops, SluiceQueueHandler
from gateway.logs.redact import redact

KEY = "sk-" + "Zq3v" * 10 + "abc"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("postgresql://sluice:hunter2@db:5432/x", "postgresql://sluice:***@db:5432/x"),
        ("at postgres://u:p@ss@h/d now", "at postgres://u:***@h/d now"),
        ("Authorization: Bearer abc.DEF-123", "Authorization: Bearer ***"),
        (f"key {KEY} refused", "key *** refused"),
        ("host=db password=hunter2 user=x", "host=db password=*** user=x"),
        ('{"api_key": "abc123", "n": 1}', '{"api_key": "***", "n": 1}'),
        ("SLUICE_LLM_API_KEY=abc", "SLUICE_LLM_API_KEY=***"),
        # A message about a setting names it; the words after it are no credential.
        (
            "SLUICE_API_KEY: this API key is unknown or revoked",
            "SLUICE_API_KEY: this API key is unknown or revoked",
        ),
        ("SLUICE_NOTIFY_SECRET: the secret is short", "SLUICE_NOTIFY_SECRET: the secret is short"),
        (
            "postgresql://u@db/x and http://h:8000/docs",
            "postgresql://u@db/x and http://h:8000/docs",
        ),
    ],
)
def test_a_credential_in_a_log_text_is_hidden_and_nothing_else_changes(
    text: str, shown: str
) -> None:
    assert redact(text) == shown


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:hunter2@db:5432/x?schema=s", "postgresql://u:***@db:5432/x?schema=s"),
        (
            "postgresql://u@db/x?password=hunter2&schema=s",
            "postgresql://u@db/x?password=***&schema=s",
        ),
        ("sqlite:///tmp/x.db", "sqlite:///tmp/x.db"),
    ],
)
def test_a_database_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert redacted(url) == shown


def test_a_refused_database_url_is_quoted_without_its_password() -> None:
    with pytest.raises(SettingsError) as refused:
        eventsourcing_env("postgresql://u:hunter2@db:5432/")
    assert "hunter2" not in str(refused.value)
    assert "postgresql://u:***@db:5432/" in str(refused.value)


def record(message: str, error: BaseException | None = None, **fields: Any) -> logging.LogRecord:
    info = (type(error), error, error.__traceback__) if error else None
    made = logging.LogRecord("sluice.http", logging.ERROR, __file__, 1, message, None, info)
    made.__dict__.update(fields)
    return made


def raised(error: BaseException) -> BaseException:
    try:
        raise error
    except BaseException as caught:
        return caught


def test_a_plain_line_is_the_record_then_its_traceback_indented() -> None:
    failed = raised(ValueError(f"bad key {KEY}\nTIME INFO forged"))
    text = PlainLines().format(
        record("unexpected error on GET /x", failed, method="GET", path="/x", status=500)
    )
    first, *rest = text.splitlines()
    assert " ERROR sluice.http unexpected error on GET /x " in first
    assert "method=GET path=/x status=500" in first
    assert 'error="ValueError: bad key *** TIME INFO forged"' not in first  # newline escaped
    assert 'error="ValueError: bad key ***\\nTIME INFO forged"' in first
    assert rest[0] == "    Traceback (most recent call last):"
    assert all(line.startswith("    ") for line in rest)  # no line can pass for a record
    assert KEY not in text


def test_a_plain_message_cannot_forge_a_second_line() -> None:
    text = PlainLines().format(record("GET /x\n2026-12-01T00:00:00.000Z INFO forged\x1b[2J"))
    assert "\n" not in text and "\x1b" not in text
    assert "\\n2026-12-01" in text


def test_a_json_line_hides_credentials_in_its_message_fields_and_traceback() -> None:
    failed = raised(RuntimeError("connect postgresql://u:hunter2@db/x failed"))
    line = JsonLines().format(
        record("Authorization: Bearer abcdef", failed, path="/x?token=hunter2")
    )
    assert "hunter2" not in line and "abcdef" not in line
    entry = json.loads(line)
    assert entry["message"] == "Authorization: Bearer ***"
    assert entry["path"] == "/x?token=***"
    assert "postgresql://u:***@db/x" in entry["error"]


def test_a_record_logged_while_serving_a_request_names_its_id() -> None:
    handler = SluiceQueueHandler(__import__("queue").Queue(), Drops())
    token = REQUEST_ID.set("req-42")
    try:
        prepared = handler.prepare(record("inside"))
    finally:
        REQUEST_ID.reset(token)
    outside = handler.prepare(record("outside"))
    assert json.loads(JsonLines().format(prepared))["request_id"] == "req-42"
    assert "request_id" not in json.loads(JsonLines().format(outside))


@pytest.mark.parametrize(("raw", "level"), [("debug", 10), (" Info ", 20), ("ERROR", 40)])
def test_a_log_level_is_read_in_any_case(raw: str, level: int) -> None:
    assert parse_level(raw, "--log-level") == level


def test_an_unknown_log_level_or_format_is_refused_naming_where_it_came_from() -> None:
    with pytest.raises(SettingsError, match=r"--log-level='loud' is not a log level"):
        parse_level("loud", "--log-level")
    with pytest.raises(SettingsError, match=r"SLUICE_LOG_FORMAT='xml' is not a log format"):
        parse_format("xml")
    assert parse_format(None) == "plain"
    assert parse_format("JSON", "--log-format") == "json"
