"""One refusal hierarchy: a use-case call refused is a GatewayError from where it is raised,
of its stage's kind, and becomes the program's refusal at the call's place."""

from __future__ import annotations

import pytest

from domain.errors import AccountNotFoundError
from gateway.core.errors import STAGE_KINDS, GatewayError
from gateway.core.program.errors import CallRefusedError, ProgramError


@pytest.mark.parametrize(("stage", "kind"), sorted(STAGE_KINDS.items()))
def test_a_refused_call_is_a_gateway_error_of_its_stages_kind(stage: str, kind: str) -> None:
    refused = CallRefusedError("no", stage)  # type: ignore[arg-type]

    assert isinstance(refused, ProgramError)
    assert isinstance(refused, GatewayError)
    assert (refused.kind, refused.stage, str(refused)) == (kind, stage, "no")


def test_a_use_cases_refusal_keeps_its_class_to_its_place_in_the_program() -> None:
    refused = CallRefusedError.refusing("transfer", AccountNotFoundError("dan"))

    placed = refused.at(2, 5)

    assert type(placed) is ProgramError
    assert (placed.kind, placed.stage) == ("refused", "refused")
    assert str(placed) == "transfer: no account dan (line 2, column 5)"
    assert isinstance(placed.refusal, AccountNotFoundError)
    assert placed.to_json()["refusal"] == "account-not-found"


def test_a_refused_call_is_shown_bounded_and_keeps_its_text_as_written() -> None:
    refused = CallRefusedError("take: no shelf \x1b[2J", "denied")

    assert str(refused) == "take: no shelf \\x1b[2J"
    assert refused.raw == "take: no shelf \x1b[2J"
    assert str(refused.at(1, 1)) == "take: no shelf \\x1b[2J (line 1, column 1)"
