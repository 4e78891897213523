"""The keys that seal MCP's `requestState`, from SLUICE_MCP_STATE_KEYS.

From protocol 2026-07-28 a confirmation round trips through the client: the gateway
returns the question with a sealed `requestState` naming the proposal and preview, and
the client calls again with the person's answer and that state. Behind a load balancer
the second call may reach another process, which can open the state only with the same
keys: give every process the same SLUICE_MCP_STATE_KEYS.

The variable holds comma-separated keys, each at least 32 random bytes written in
base64url (`python -c "import secrets; print(secrets.token_urlsafe(32))"`) or in hex
(`secrets.token_hex(32)`): an even number of hex digits is read as hex, anything else as
base64. The first seals; all of them open, so keys rotate without a refused answer: add
the new key second, then move it first, then drop the old one once no question sealed
with it can still be answered.
Unset, each process seals with a random key of its own, which suits one process only:
an answer that reaches another process, or this one after a restart, is refused.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.request_state import RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from application.settings_error import SettingsError

VARIABLE = "SLUICE_MCP_STATE_KEYS"
MIN_KEY_BYTES = 32
GENERATE = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'
HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")
REFUSED_STATE = "Invalid or expired requestState"


def parse_keys(raw: str) -> list[bytes]:
    """The keys of a SLUICE_MCP_STATE_KEYS value, or a SettingsError naming the fault."""
    items = [item.strip() for item in raw.split(",")]
    keys: list[bytes] = []
    for number, item in enumerate(items, 1):
        where = f"{VARIABLE}: key {number} of {len(items)}"
        if not item:
            raise SettingsError(f"{where} is empty; separate keys with single commas")
        key = _decoded(item)
        if key is None:
            raise SettingsError(
                f"{where} is neither base64url nor hex; generate a key with: {GENERATE}"
            )
        if len(key) < MIN_KEY_BYTES:
            raise SettingsError(
                f"{where} is {len(key)} bytes; a key needs at least {MIN_KEY_BYTES} random "
                f"bytes (43 base64url characters, or 64 hex digits); generate one with: "
                f"{GENERATE}"
            )
        if key in keys:
            raise SettingsError(f"{where} repeats key {keys.index(key) + 1}")
        keys.append(key)
    return keys


def _decoded(item: str) -> bytes | None:
    if HEX.fullmatch(item):
        return bytes.fromhex(item)
    try:
        return base64.b64decode(item + "=" * (-len(item) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        return None


def request_state_security(keys: Sequence[bytes] = ()) -> RequestStateSecurity:
    """Sealing with the keys of SLUICE_MCP_STATE_KEYS (`parse_keys`); none, with a random key
    of this process only."""
    if not keys:
        return RequestStateSecurity.ephemeral()
    return RequestStateSecurity(keys=list(keys))


class ExplainRefusedState:
    """Server middleware, outside the SDK's sealing boundary: a state that does not open
    gets the SDK's refusal (same code, data, and no hint of which check failed) plus what
    it means for a Sluice confirmation, and what to do next."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        try:
            return await call_next(ctx)
        except MCPError as error:
            if error.code != INVALID_PARAMS or error.message != REFUSED_STATE:
                raise
            raise MCPError(
                code=error.code,
                message=(
                    f"{REFUSED_STATE}: this answer belongs to a confirmation asked too long "
                    f"ago, or by a gateway process sealing with other {VARIABLE}; nothing "
                    "was written. The proposal stays pending: confirm it in the web console "
                    "or with `sluice confirm`, or propose the program again."
                ),
                data=error.error.data,
            ) from None
