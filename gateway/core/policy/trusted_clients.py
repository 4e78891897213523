"""SLUICE_MCP_TRUSTED_CLIENTS: the principals whose MCP clients the operator trusts to ask.

By default no MCP client's answer confirms anything: the server sends the person a link to
the console's review page (URL-mode elicitation), where they sign in with their own key. An
operator who knows that a principal's MCP client shows its questions to the person, and
never answers them itself, names that principal here (comma-separated, e.g. `alice,teller`);
that client is then asked with a form, and the person's acceptance commits. Even so, only
with a person's key (`decisions.may_decide_by_form`): an agent's key never confirms.

The names are principals', not the names clients give themselves: a client says what it is
in words anyone can write, while a principal is proven by its key.
"""

from __future__ import annotations

from application.principals import NAME_PATTERN, NAME_RULE
from application.settings_error import SettingsError

VARIABLE = "SLUICE_MCP_TRUSTED_CLIENTS"


def parse_trusted_clients(raw: str) -> frozenset[str]:
    """The principals a SLUICE_MCP_TRUSTED_CLIENTS value names (blank: none), or a
    SettingsError naming the variable."""
    if not raw.strip():
        return frozenset()
    names = [item.strip() for item in raw.split(",")]
    for number, name in enumerate(names, 1):
        where = f"{VARIABLE}: name {number} of {len(names)}"
        if not name:
            raise SettingsError(f"{where} is empty; separate names with single commas")
        if not NAME_PATTERN.fullmatch(name):
            shown = name if len(name) <= 40 else name[:37] + "..."
            raise SettingsError(
                f"{where} {shown!r} is not a principal name ({NAME_RULE}); name the "
                "principals whose MCP clients may confirm by a form"
            )
    return frozenset(names)
