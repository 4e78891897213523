"""The one error of a setting Sluice cannot use.

Every `SLUICE_*` variable is declared once, in `gateway/settings.py`, and read once at
start; a value that is malformed, out of range or contradicts another is refused with this
error, whose message names the variable and says why. The CLI turns it into a usage
error (exit 2). It lives here, below the gateway, because the application checks the store
URLs (`application/store_config.py`) that the settings carry.
"""

from __future__ import annotations


class SettingsError(ValueError):
    """A setting with a value Sluice cannot use; the message names the variable and why."""
