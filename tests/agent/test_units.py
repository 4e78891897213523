"""The small parts: configuration, reading structured replies, status lines, the aggregate."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from eventsourcing.application import Application

from domain.conversation import Conversation, Turn, TurnNotAnswerableError
from gateway.agent.config import AgentConfig
from gateway.agent.context import run_state
from gateway.agent.structured import (
    PLANNER_OUTPUT,
    OutputSchema,
    StructuredOutputError,
    extract_object,
    parse_answer,
    parse_planner_reply,
    planner_output,
)
from gateway.settings import SettingsError, load_settings

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
QUESTION = (
    '{"kind": "question", "language": null, "source": null, "explanation": null, "text": "?"}'
)


def load_settings_agent(env: dict[str, str]) -> AgentConfig:
    return load_settings(env).agent


def test_the_config_comes_from_the_environment() -> None:
    config = load_settings_agent(
        {
            "SLUICE_LLM_MODEL": "qwen2.5",
            "SLUICE_LLM_BASE_URL": "http://localhost:11434/v1",
            "OPENAI_API_KEY": "sk-fallback",
            "SLUICE_LLM_TIMEOUT_SECONDS": "12.5",
            "SLUICE_LLM_MAX_RETRIES": "0",
            "SLUICE_LLM_STRUCTURED_OUTPUT": "text",
            "SLUICE_LLM_TEMPERATURE": "0",
            "SLUICE_LLM_MAX_TOKENS": "512",
        }
    )

    assert (config.model, config.base_url, config.api_key) == (
        "qwen2.5",
        "http://localhost:11434/v1",
        "sk-fallback",
    )
    assert (config.timeout_seconds, config.max_retries, config.max_tokens) == (12.5, 0, 512)
    assert load_settings_agent({}).max_tokens == 1024
    assert (config.structured_output, config.temperature) == ("text", 0.0)
    assert config.unavailable() is None
    assert config.answerer_model == "qwen2.5"


def test_the_sluice_key_wins_and_a_local_server_needs_none() -> None:
    both = {"SLUICE_LLM_MODEL": "m", "SLUICE_LLM_API_KEY": "sk-own", "OPENAI_API_KEY": "sk-x"}
    assert load_settings_agent(both).api_key == "sk-own"
    local = load_settings_agent({"SLUICE_LLM_MODEL": "m", "SLUICE_LLM_BASE_URL": "http://h/v1"})
    assert local.unavailable() is None
    assert local.key  # a placeholder the client accepts


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({}, "no model configured: set SLUICE_LLM_MODEL"),
        ({"SLUICE_LLM_MODEL": "gpt-4o-mini"}, "no API key for OpenAI: set SLUICE_LLM_API_KEY"),
        (
            {"SLUICE_LLM_MODEL": "m", "OPENAI_API_KEY": "k", "SLUICE_LLM_TIMEOUT_SECONDS": "soon"},
            "SLUICE_LLM_TIMEOUT_SECONDS='soon' is not a number",
        ),
        (
            {"SLUICE_LLM_MODEL": "m", "OPENAI_API_KEY": "k", "SLUICE_LLM_MAX_RETRIES": "-1"},
            "SLUICE_LLM_MAX_RETRIES='-1' is not a whole number of at least 0",
        ),
        (
            {"SLUICE_LLM_MODEL": "m", "OPENAI_API_KEY": "k", "SLUICE_LLM_STRUCTURED_OUTPUT": "x"},
            "is not one of auto, json_schema, text",
        ),
        (
            {"SLUICE_LLM_MODEL": "m", "OPENAI_API_KEY": "k", "SLUICE_LLM_CATALOG": "sheets"},
            "SLUICE_LLM_CATALOG='sheets' is not one of auto, directory, stubs",
        ),
        (
            {"SLUICE_LLM_MODEL": "m", "OPENAI_API_KEY": "k", "SLUICE_LLM_MAX_TOKENS": "2k"},
            "SLUICE_LLM_MAX_TOKENS='2k' is not a whole number of at least 1",
        ),
        (
            {"SLUICE_LLM_MODEL": "m", "OPENAI_API_KEY": "k", "SLUICE_LLM_MAX_TOKENS": "0"},
            "SLUICE_LLM_MAX_TOKENS='0' is not a whole number of at least 1",
        ),
    ],
)
def test_an_unusable_config_says_what_to_set(env: dict[str, str], says: str) -> None:
    # A bad value is refused when the settings are read; no model or key is not (the rest
    # of Sluice runs, and the agent says what to set).
    if "is not " in says:
        with pytest.raises(SettingsError) as refused:
            load_settings(env)
        assert says in str(refused.value)
        return
    reason = load_settings(env).agent.unavailable()
    assert reason is not None and says in reason


PAY = 'transfer(payer="alice", payee="bob", amount=1)'


@pytest.mark.parametrize(
    "reply",
    [
        {"kind": "question", "text": "Shall I?", "language": "python", "source": PAY},
        {"kind": "answer", "text": "Done.", "source": PAY},
    ],
    ids=["question", "answer"],
)
def test_a_reply_that_also_holds_a_program_it_would_drop_is_refused(
    reply: dict[str, Any],
) -> None:
    says = f"the reply is of kind {reply['kind']} but also holds a program (source)"
    with pytest.raises(StructuredOutputError, match=re.escape(says)):
        parse_planner_reply(json.dumps(reply))


def test_a_draft_beside_a_request_for_sheets_waits_for_them_or_is_the_program() -> None:
    # As Qwen2.5-Coder-1.5B replied on llama.cpp: kind sheets, and a program in source.
    reply = {"kind": "sheets", "names": ["transfer"], "language": "python", "source": PAY}

    asked = parse_planner_reply(json.dumps(reply))
    last_round = parse_planner_reply(json.dumps(reply), may_read_sheets=False)

    assert (asked.kind, asked.names, asked.source) == ("sheets", ("transfer",), None)
    assert (last_round.kind, last_round.source) == ("program", PAY)


def test_parts_a_kind_does_not_use_are_left_aside_when_nothing_is_dropped() -> None:
    # As Qwen2.5-Coder-1.5B replied on llama.cpp: every field filled, the program sound.
    program = {
        "kind": "program",
        "names": ["transfer"],
        "language": "python",
        "source": "transfer(payer='alice', payee='bob', amount=10.0)",
        "explanation": "The program calls the transfer use case.",
        "text": "Transfer 10 euros to Bob? yes/no",
    }
    read = parse_planner_reply(json.dumps(program))
    assert (read.kind, read.source, read.text, read.names) == (
        "program",
        program["source"],
        None,
        (),
    )
    question = {"kind": "question", "text": "How much?", "language": "python", "source": " "}
    assert parse_planner_reply(json.dumps(question | {"names": ["transfer"]})).text == "How much?"


@pytest.mark.parametrize(
    "text",
    [
        QUESTION,
        f"```json\n{QUESTION}\n```",
        f"Sure, here it is:\n```\n{QUESTION}\n```\nAnything else?",
        f"Thinking... done. {QUESTION} That is all.",
    ],
)
def test_the_object_is_found_in_text(text: str) -> None:
    assert parse_planner_reply(text).text == "?"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (None, "empty"),
        ("no braces here", "no JSON object"),
        ("{not json}", "not valid JSON"),
        ('{"text": "?"}', "'kind' is a required property"),
        ('{"kind": "program"}', "a program needs its language and a non-empty source"),
        ('{"kind": "sheets", "names": []}', "sheets need the names of the use cases to read"),
        ('{"kind": "answer", "text": "ok", "names": 3}', "names: 3 is not valid"),
        (QUESTION.replace('"?"', "null"), "a question needs a non-empty text"),
        (
            '{"kind": "program", "language": "python", "source": " ", "explanation": null,'
            ' "text": null}',
            "a program needs its language and a non-empty source",
        ),
        (QUESTION.replace("}", ', "extra": 1}'), "Additional properties"),
    ],
)
def test_a_reply_off_schema_is_refused(text: str | None, says: str) -> None:
    with pytest.raises(StructuredOutputError, match=says):
        parse_planner_reply(text)


def test_the_answer_schema_allows_only_success_or_failure() -> None:
    assert parse_answer('{"text": "ok", "claims": "success"}').claims == "success"
    with pytest.raises(StructuredOutputError):
        parse_answer('{"text": "ok", "claims": "none"}')


@pytest.mark.parametrize(
    "schema",
    [PLANNER_OUTPUT, planner_output(["transfer", "get_balance"]), planner_output(None)],
    ids=["any-names", "directory-names", "no-more-sheets"],
)
def test_the_planner_schema_is_strict_mode_compatible(schema: OutputSchema) -> None:
    def check(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object":
                assert node["additionalProperties"] is False
                assert sorted(node["required"]) == sorted(node["properties"])
            for value in node.values():
                check(value)
        elif isinstance(node, list):
            for value in node:
                check(value)

    check(schema.schema)
    assert extract_object(QUESTION)["kind"] == "question"


def proposal(status: str, error: str | None = None, changed: Any = "nothing") -> dict[str, Any]:
    return {
        "status": status,
        "error": error,
        "expires_at": "2026-11-29T12:15:00+00:00",
        "outcome": {"changed": changed},
    }


PROGRAM_TURN = Turn(1, "pay", "program", source="a = 1\ntransfer(payer='a', payee='b', amount=1)")


@pytest.mark.parametrize(
    ("run", "state"),
    [
        (proposal("pending"), "waiting for the user's confirmation"),
        (proposal("committed", changed=2), "committed, 2 events appended"),
        (proposal("committed"), "ran; it wrote nothing"),
        (proposal("rejected"), "the user rejected it; nothing was written"),
        (proposal("expired"), "expired before the user confirmed it; nothing was written"),
        (
            proposal("failed", "transfer: alice has only 60.00 (line 2, column 1)"),
            "failed at line 2; nothing was written",
        ),
        (
            proposal("failed", "transfer: no account dan (step 3)"),
            "failed at step 3; nothing was written",
        ),
        (
            proposal("failed", "conflict: the store moved on and the program now fails: x"),
            "failed when confirmed, because the accounts had changed; nothing was written",
        ),
        # A place past the program's last line can only come from data: it is dropped.
        (
            proposal("failed", "refused: memo says (line 99, column 1)"),
            "failed; nothing was written",
        ),
        (proposal("failed", "whatever 123.45"), "failed; nothing was written"),
    ],
)
def test_a_status_line_keeps_no_data(run: dict[str, Any], state: str) -> None:
    assert run_state(PROGRAM_TURN, run, NOW) == state


def test_a_pending_proposal_past_its_expiry_reads_as_expired() -> None:
    late = datetime(2026, 11, 29, 12, 15, tzinfo=UTC)
    assert run_state(PROGRAM_TURN, proposal("pending"), late).startswith("expired")


def test_a_conversation_is_replayed_from_its_events() -> None:
    app = Application[Any](env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    conversation = Conversation(owner="alice")
    conversation.ask("pay bob", "How much?", [])
    attempts = [{"run_id": "r0", "language": "python", "source": "x(", "errors": ["syntax"]}]
    conversation.propose(
        "5", language="python", source="s", explanation="e", run_id="r1", attempts=attempts
    )
    conversation.refuse("again", attempts * 2)
    conversation.answer(
        2,
        run_id="r1",
        status="committed",
        text="done",
        claims="success",
        corrected=False,
        model_text=None,
    )
    app.save(conversation)

    copy: object = app.repository.get(conversation.id)

    assert isinstance(copy, Conversation)
    assert [t.kind for t in copy.turns] == ["question", "program", "refused"]
    assert copy.turns[1].attempts == attempts
    assert copy.turns[1].reply == {
        "status": "committed",
        "text": "done",
        "claims": "success",
        "corrected": False,
        "model_text": None,
    }
    for turn, run_id in ((2, "r1"), (1, "r1"), (2, "other"), (9, "r1")):
        with pytest.raises(TurnNotAnswerableError):
            copy.answer(
                turn,
                run_id=run_id,
                status="committed",
                text="again",
                claims="success",
                corrected=False,
                model_text=None,
            )
