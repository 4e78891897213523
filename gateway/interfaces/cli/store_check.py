"""Which store a command opens, and a refusal to open none where data is expected.

Run in the wrong folder, a command would open (and create) an empty ./var/sluice.db and then
answer as if the data were gone: "this API key is unknown", say. A command that reads or
changes data is refused instead, naming the file it looked for."""

from __future__ import annotations

import os

from application.store_config import DATABASE_URL_VARIABLE, redacted, sqlite_path
from gateway.bootstrap import Sluice


def missing_store(url: str | None) -> str | None:
    """Why the store of `url` (SLUICE_DATABASE_URL; None: the default) holds no data yet (its
    SQLite file does not exist), or None."""
    if url is None:  # the default: ./var/sluice.db in the current folder
        path = os.path.join(os.getcwd(), "var", "sluice.db")
        if os.path.exists(path):
            return None
        return (
            f"no store at {path}: {DATABASE_URL_VARIABLE} is not set, so the store is "
            f"./var/sluice.db in the current folder ({os.getcwd()}); run the command where "
            f"the store is, set {DATABASE_URL_VARIABLE}, or create one with `sluice demo`"
        )
    path_named = sqlite_path(url)
    if path_named is None or path_named.exists():
        return None
    return (
        f"no store at {path_named} ({DATABASE_URL_VARIABLE} {redacted(url)}): check the "
        "path, or create the store with `sluice demo`"
    )


def store_note(sluice: Sluice) -> str:
    """Which store answered, and whether it is empty: to say beside "unknown key"."""
    empty = sluice.operations.log_position() in (None, 0)
    return f"the store is {redacted(sluice.database_url)}" + (
        ", which holds no events at all" if empty else ""
    )
