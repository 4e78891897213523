"""The gateway's policy: the one place that answers "may this principal ...?" (P5).

Roles and scopes are named in domain/principal.py and grouped in application/permissions.py;
a use case declares the roles that may call it (`permission`) and marks the account
arguments a scoped caller must own (`Owned`). Every other module asks here and turns a "no"
into its own refusal; none compares roles or scopes itself, and none builds a principal with
more authority than its key gave. tests/gateway/test_policy.py lists every answer in one
table.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from application.domains import OwnedWords
from application.permissions import AUDITORS
from application.principals import PrincipalView
from application.use_case import UseCase
from domain.text import unprintable

# Use cases.


def may_call(principal: PrincipalView, use_case: type[UseCase[Any]]) -> bool:
    """The use case names the principal's role: it may appear in its directory and programs."""
    return principal.role in use_case.permission.roles


def may_call_directly(principal: PrincipalView, use_case: type[UseCase[Any]]) -> bool:
    """A direct call has no preview to confirm: a read, or a write by a person's key."""
    return may_call(principal, use_case) and (use_case.kind == "read" or principal.decides)


# What a principal owns, in words, when no domain says (`OwnedWords`' defaults).
DEFAULT_WORDS = OwnedWords()


def ownership_refusal(
    principal: PrincipalView,
    use_case: type[UseCase[Any]],
    arguments: dict[str, Any],
    words: OwnedWords = DEFAULT_WORDS,
) -> str | None:
    """Why these arguments name an account the principal may not act on, or None.

    Only a scoped principal (a customer) is held to the accounts it owns, and only in the
    arguments its use case declares as owned. The refusal names what it owns in `words`,
    the served domain's (`Domain.owned_words`)."""
    if not principal.scoped:
        return None
    for argument in use_case.owned:
        account = arguments.get(argument)
        # Text that is not printable names no account, and a refusal must not quote it:
        # validation refuses that call when it runs, quoting it escaped.
        if not isinstance(account, str) or unprintable(account) is not None:
            continue
        if account not in principal.owns:
            return ownership_denial(principal, use_case.name, argument, account, words)
    return None


def call_refusal(
    principal: PrincipalView,
    use_case: type[UseCase[Any]],
    arguments: dict[str, Any],
    words: OwnedWords = DEFAULT_WORDS,
) -> str | None:
    """Why the principal may not make this call, or None: its role, then its accounts."""
    if not may_call(principal, use_case):
        return denial(principal, use_case.name)
    return ownership_refusal(principal, use_case, arguments, words)


def visible_owned(principal: PrincipalView) -> frozenset[str] | None:
    """The ids its reads and writes may see (what it owns); None: every record."""
    return principal.owns if principal.scoped else None


def denial(principal: PrincipalView, name: str) -> str:
    return f"{name} is not allowed for principal {principal.name}"


def ownership_denial(
    principal: PrincipalView,
    name: str,
    argument: str,
    account: str,
    words: OwnedWords = DEFAULT_WORDS,
) -> str:
    """`transfer: payer bob is not an account of principal alice`, in the domain's words."""
    return words.refusal(name, argument, account, principal.name)


# Proposals and runs.


def may_decide(principal: PrincipalView) -> bool:
    """Agents propose, people decide (confirm or reject): a person's key."""
    return principal.decides


def may_decide_by_form(principal: PrincipalView, trusted: Collection[str]) -> bool:
    """An answer to the form an MCP client shows decides only on a client the operator
    declared trusted (its principal is in `trusted`), and only with a person's key.

    Whoever holds the key answers its client's questions: with an agent's key that may be
    the agent itself, so no setting lets it decide. Elsewhere the question is a link to the
    web console, where the person decides with their own key."""
    return may_decide(principal) and principal.name in trusted


def may_decide_run(principal: PrincipalView, owner: str) -> bool:
    """Only the principal that proposed a run decides it (when `may_decide` lets it)."""
    return principal.name == owner


def may_read_run(principal: PrincipalView, owner: str) -> bool:
    """A proposal is read by the principal that made it, or by an auditor or admin."""
    return principal.name == owner or may_read_any_run(principal)


def may_read_any_run(principal: PrincipalView) -> bool:
    """Any run's record and history: auditors and admins."""
    return principal.role in AUDITORS


def may_read_events(principal: PrincipalView) -> bool:
    """The whole event log: auditors and admins."""
    return principal.role in AUDITORS


# Conversations with the agent.


def may_read_conversation(principal: PrincipalView, owner: str) -> bool:
    """Its owner, or an auditor or admin."""
    return principal.name == owner or principal.role in AUDITORS


def may_write_conversation(principal: PrincipalView, owner: str) -> bool:
    """Only its owner adds turns, and answers to them."""
    return principal.name == owner


# Operating.


def sees_health_details(principal: PrincipalView) -> bool:
    """/health's details (the log position, dead letters, lag, why a check failed)."""
    return principal.role in AUDITORS
