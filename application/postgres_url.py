"""A PostgreSQL URL as libpq writes it, checked, not taken apart: one host or several
(`postgresql://USER@H1:P1,H2:P2/DB?target_session_attrs=read-write`), passed on whole to
the driver, which follows the one that accepts writes across a failover.

Checked here, so that a URL that cannot work is refused at start naming what is wrong:
each host's port, the database name, `target_session_attrs`. Sluice's own parameter,
`schema`, is taken out of what the driver gets (the driver would send any other parameter
to the server as a setting).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

# What libpq and asyncpg accept for target_session_attrs.
SESSION_ATTRS = ("any", "primary", "standby", "prefer-standby", "read-write", "read-only")
# Those that only ever pick a server that accepts writes.
WRITABLE = ("read-write", "primary")
SCHEMA_PARAMETER = "schema"
MAX_PORT = 65535


class PostgresUrlError(ValueError):
    """The reason a PostgreSQL URL cannot be used (the caller names the URL)."""


@dataclass(frozen=True)
class PostgresUrl:
    """A checked URL: what the driver is given, and what Sluice reads of it."""

    dsn: str  # the URL without Sluice's own parameters
    hosts: tuple[str, ...]  # host:port as written (empty: the driver's default)
    dbname: str
    schema: str | None
    session_attrs: str | None

    @property
    def address(self) -> str:
        """The servers it names, for a message: `h1:5432,h2:5432`."""
        return ",".join(self.hosts) or "the default host"


def parse_postgres_url(url: str, *, writes: bool) -> PostgresUrl:
    """The URL checked; PostgresUrlError naming the first problem. `writes`: the URL must
    lead to a server that accepts writes (with several hosts, the one that does)."""
    parts = urlsplit(url)
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise PostgresUrlError("a PostgreSQL URL needs a database name")
    hosts = _hosts(parts.netloc.rpartition("@")[2])
    query = parse_qsl(parts.query, keep_blank_values=True)
    values = dict(query)
    attrs = values.get("target_session_attrs")
    if attrs is not None and attrs not in SESSION_ATTRS:
        raise PostgresUrlError(
            f"target_session_attrs {attrs!r} is not one of {', '.join(SESSION_ATTRS)}"
        )
    if writes and attrs not in WRITABLE:
        if attrs in ("standby", "read-only", "prefer-standby"):
            raise PostgresUrlError(
                f"target_session_attrs={attrs}: writes need a server that accepts them; "
                "use target_session_attrs=read-write"
            )
        if len(hosts) > 1:
            raise PostgresUrlError(
                "with several hosts, add target_session_attrs=read-write, so that writes "
                "go to the one that accepts them (and follow it across a failover)"
            )
    kept = "&".join(
        item for item in parts.query.split("&") if item.split("=", 1)[0] != SCHEMA_PARAMETER
    )
    dsn = parts._replace(query=kept).geturl()
    return PostgresUrl(dsn, hosts, dbname, values.get(SCHEMA_PARAMETER), attrs)


def _hosts(hostspec: str) -> tuple[str, ...]:
    if not hostspec:
        return ()
    hosts = []
    for number, host in enumerate(hostspec.split(","), 1):
        if host.startswith("["):  # [ipv6]:port
            name, _, rest = host[1:].partition("]")
            port = rest[1:] if rest.startswith(":") else None
            if rest and port is None:
                raise PostgresUrlError(f"host {number} {host!r} is not [ADDRESS]:PORT")
        else:
            name, colon, port_text = host.rpartition(":")
            name, port = (name, port_text) if colon else (host, None)
        if not name:
            raise PostgresUrlError(f"host {number} has no name (in {hostspec!r})")
        numeric = port is not None and port.isascii() and port.isdigit()
        if port is not None and not (numeric and 0 < int(port) <= MAX_PORT):
            raise PostgresUrlError(
                f"port {port!r} of host {number} is not a number from 1 to {MAX_PORT}"
            )
        hosts.append(host)
    return tuple(hosts)
