"""`sluice principal ...` and `sluice key ...`: principals, their keys, and revoking them."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from application.principals import PrincipalError
from gateway.interfaces.cli.opening import open_sluice as _open
from gateway.interfaces.cli.opening import usage_error as _usage_error
from gateway.interfaces.cli.render import shown

principal_app = typer.Typer(help="Principals and their API keys.", no_args_is_help=True)
key_app = typer.Typer(help="API keys: list them, revoke them by id.", no_args_is_help=True)

ScopeOption = Annotated[
    str,
    typer.Option("--scope", help="human (may confirm) or agent (may propose, never confirm)."),
]
ExpiresOption = Annotated[
    str | None,
    typer.Option(
        "--expires",
        help="When the key stops working: a duration (90m, 12h, 30d) or an ISO 8601 time "
        "with its zone. Default: never.",
    ),
]
DURATION = re.compile(r"(\d+)([smhd])")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def _expiry(given: str | None) -> datetime | None:
    if given is None:
        return None
    duration = DURATION.fullmatch(given.strip())
    if duration:
        amount, unit = duration.groups()
        return datetime.now(UTC) + timedelta(**{UNITS[unit]: int(amount)})
    try:
        moment = datetime.fromisoformat(given)
    except ValueError:
        _usage_error(f"--expires {given!r}: give a duration (90m, 12h, 30d) or an ISO 8601 time")
    if moment.tzinfo is None:
        _usage_error(f"--expires {given!r}: give the time zone, e.g. {given}+00:00")
    return moment


def _when(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if moment else "-"


@principal_app.command("add")
def principal_add(
    name: Annotated[str, typer.Argument(help="The principal's name, e.g. dan.")],
    role: Annotated[str, typer.Option("--role", help="customer, teller, auditor or admin.")],
    owns: Annotated[
        list[str] | None,
        typer.Option("--owns", help="An id a customer owns, as the domain names them (repeat)."),
    ] = None,
    scope: ScopeOption = "human",
    expires: ExpiresOption = None,
) -> None:
    """Register a principal and print its new API key, once."""
    expires_at = _expiry(expires)
    with _open(expect_data=False) as sluice:
        try:
            issued = sluice.key_admin.register(
                name,
                role,
                owns or [],
                scope=scope,
                expires_at=expires_at,
                ownable=sluice.domain.ownable,
                words=sluice.domain.owned_words,
            )
        except PrincipalError as error:
            _usage_error(str(error))
    typer.echo(issued)


@principal_app.command("key")
def principal_key(
    name: Annotated[str, typer.Argument(help="An existing principal, e.g. alice.")],
    scope: ScopeOption = "human",
    expires: ExpiresOption = None,
) -> None:
    """Issue one more key for a principal (an agent key for a person, say); print it once."""
    expires_at = _expiry(expires)
    with _open() as sluice:
        try:
            issued = sluice.key_admin.issue_key(name, scope=scope, expires_at=expires_at)
        except PrincipalError as error:
            _usage_error(str(error))
    typer.echo(issued)


@principal_app.command("revoke")
def principal_revoke(
    key: Annotated[
        str, typer.Option("--key", prompt=True, hide_input=True, help="The key to revoke.")
    ],
) -> None:
    """Revoke a key: every interface refuses it from its next request, MCP calls included."""
    with _open() as sluice:
        try:
            name = sluice.key_admin.revoke(key)
        except PrincipalError as error:
            _usage_error(str(error))
    typer.echo(f"Revoked a key of {name}")


@principal_app.command("list")
def principal_list() -> None:
    """Every principal: name, role, the accounts a customer owns, and its keys in force."""
    with _open() as sluice:
        found = sluice.key_admin.principals()
        keys = sluice.key_admin.keys()
    now = datetime.now(UTC)
    table = Table(title="principals", title_justify="left")
    for column in ("name", "role", "owns", "keys in force"):
        table.add_column(column, overflow="fold")
    for principal in found:
        active = sum(k.principal == principal.name and k.state(now) == "active" for k in keys)
        owns = ", ".join(sorted(principal.owns)) or "-"
        table.add_row(*(shown(cell) for cell in (principal.name, principal.role, owns, active)))
    Console().print(table)


@key_app.command("list")
def key_list(
    principal: Annotated[
        str | None, typer.Argument(help="Only this principal's keys (default: every key).")
    ] = None,
) -> None:
    """Keys by id (never the key itself): scope, created, last used (the last run it proposed
    or call it made), expiry, and whether it is active, expired or revoked."""
    with _open() as sluice:
        try:
            rows = sluice.key_admin.keys(principal)
        except PrincipalError as error:
            _usage_error(str(error))
    now = datetime.now(UTC)
    table = Table(title="keys", title_justify="left")
    for column in ("id", "principal", "scope", "created (UTC)", "last used", "expires", "state"):
        table.add_column(column, overflow="fold", no_wrap=column == "id")
    for row in rows:
        cells = (row.key_id, row.principal, row.scope, _when(row.created),
                 _when(row.last_used), _when(row.expires_at), row.state(now))  # fmt: skip
        table.add_row(*(shown(cell) for cell in cells))
    Console().print(table)


@key_app.command("revoke")
def key_revoke(
    key_id: Annotated[
        str | None, typer.Argument(help="The key's id as `sluice key list` shows it.")
    ] = None,
    every: Annotated[
        str | None, typer.Option("--all", help="Revoke every key of this principal.")
    ] = None,
) -> None:
    """Revoke a key by its id, or every key of a principal: refused from the next request."""
    if (key_id is None) == (every is None):
        _usage_error("give a key id, or --all PRINCIPAL, not both")
    with _open() as sluice:
        try:
            if every is not None:
                revoked = sluice.key_admin.revoke_all(every)
                typer.echo(f"Revoked {len(revoked)} key(s) of {every}: {', '.join(revoked) or '-'}")
                return
            assert key_id is not None
            key = sluice.key_admin.revoke_by_id(key_id)
        except PrincipalError as error:
            _usage_error(str(error))
    typer.echo(f"Revoked key {key.key_id} of {key.principal}")
