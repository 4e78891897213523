"""The examples a domain's OpenAPI document shows, in the domain's own words.

The gateway's request and response models carry examples for the reader of `/docs`; the
ones that name a domain's use cases, records and refusals (a program, a plan, an event, a
program's result, a refusal) are the served domain's (`Domain.api_examples`). Each is what
the served domain really takes or answers: its tests ask a server and compare. A domain
that declares none shows none of those examples, rather than another domain's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ApiExamples:
    # A Python program that writes, as POST /v1/programs takes it, and the use case it calls
    # (its name is the example of a use case, and of a cap a preview counts).
    program: str
    use_case: str
    # A JSON plan that reads (the plan language's source).
    plan: str
    # What the program returns once committed.
    result: Any
    # An event as a preview shows it: `account` (its record's key), `type`, `data`.
    event: Mapping[str, Any]
    # The 403 detail of a customer's read of a record another customer owns.
    not_yours: str
    # A program a use case refuses at line 1, column 1: the detail before its place, and
    # the refusal's name.
    refused: str
    refusal: str
    # One line of the directory a principal reads (GET /v1/directory).
    directory: str
