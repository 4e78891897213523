"""SLUICE_MCP_TRUSTED_CLIENTS names principals, or is refused naming the fault."""

from __future__ import annotations

import pytest

from gateway.core.policy.trusted_clients import VARIABLE
from gateway.settings import SettingsError, load_settings


@pytest.mark.parametrize(
    ("value", "names"),
    [
        (None, set()),
        ("", set()),
        ("  ", set()),
        ("alice", {"alice"}),
        (" alice , teller", {"alice", "teller"}),
    ],
)
def test_the_principals_it_names(value: str | None, names: set[str]) -> None:
    env = {} if value is None else {VARIABLE: value}

    assert load_settings(env).mcp_trusted_clients == names


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("alice,", "name 2 of 2 is empty; separate names with single commas"),
        ("alice;bob", "name 1 of 1 'alice;bob' is not a principal name (1 to 32 lowercase"),
        ("Alice", "name 1 of 1 'Alice' is not a principal name"),
        ("*", "name 1 of 1 '*' is not a principal name"),
        ("a" * 50, f"name 1 of 1 '{'a' * 37}...' is not a principal name"),
    ],
)
def test_anything_else_is_refused_naming_the_variable(value: str, error: str) -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings({VARIABLE: value})

    assert str(refused.value).startswith(f"{VARIABLE}: {error}")
