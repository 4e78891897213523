"""One table answers every kind: each kind of refusal, and each kind HTTP answers of its own,
has exactly one entry in `gateway.core.problem.PROBLEMS`, its status and title."""

from __future__ import annotations

import ast
import inspect
from collections import Counter
from typing import get_args

import pytest

from gateway.core import problem
from gateway.core.errors import ErrorKind, GatewayError
from gateway.core.problem import PROBLEMS, TYPE_PREFIX, HttpKind, problem_body


def table_keys() -> list[str]:
    """The keys of the PROBLEMS table as written in its source, repeats included."""
    for node in ast.walk(ast.parse(inspect.getsource(problem))):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "PROBLEMS":
            assert isinstance(node.value, ast.Dict)
            return [ast.literal_eval(key) for key in node.value.keys if key is not None]
    raise AssertionError("no PROBLEMS table in gateway/core/problem.py")


def test_every_kind_has_exactly_one_entry() -> None:
    kinds = [*get_args(ErrorKind), *get_args(HttpKind)]
    written = Counter(table_keys())

    assert not set(get_args(ErrorKind)) & set(get_args(HttpKind))
    assert {kind: written[kind] for kind in kinds} == dict.fromkeys(kinds, 1)
    assert set(written) == set(kinds) == set(PROBLEMS)


@pytest.mark.parametrize("kind", get_args(ErrorKind))
def test_a_refusal_of_each_kind_is_answered_from_the_table(kind: ErrorKind) -> None:
    status, body = problem_body(GatewayError(kind, "why"))

    assert status == body["status"] == PROBLEMS[kind].status
    assert body == {
        "type": TYPE_PREFIX + kind,
        "title": PROBLEMS[kind].title,
        "status": status,
        "detail": "why",
    }
