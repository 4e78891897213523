"""Credentials out of every line the log writes: a password in a URL or a DSN, an API key,
an Authorization header's token.

    postgresql://sluice:hunter2@db:5432/sluice  ->  postgresql://sluice:***@db:5432/sluice
    Authorization: Bearer sk-Zq3...             ->  Authorization: Bearer ***
    password=hunter2 / "api_key": "abc"         ->  password=*** / "api_key": "***"

The log's writer thread applies it to every text of a record (message, fields, error,
traceback), whoever logged it: Sluice, uvicorn, asyncpg, the MCP SDK.
"""

from __future__ import annotations

import re

HIDDEN = "***"

# scheme://user:password@host: the password, up to the last @ before the host.
_URL_PASSWORD = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]*:)[^\s/]+@")
_BEARER = re.compile(r"(?i)\b(?P<head>bearer\s+)[A-Za-z0-9._~+/=-]+")
# Sluice's API keys (`sk-` then 43 URL-safe characters; the demo's `sk-demo-NAME`) and
# keys of the same shape (an OpenAI-compatible provider's).
_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{6,}")
_ASSIGNED = re.compile(
    r"""(?ix)(?<![a-z0-9])(?P<head>(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|token)
        ["']?\s*[=:]\s*["']?)(?P<value>[^\s"'&,;)}\]]+)"""
)


def redact(text: str) -> str:
    """`text` with every credential it shows replaced by ***."""
    if not text:
        return text
    text = _URL_PASSWORD.sub(lambda m: f"{m['head']}{HIDDEN}@", text)
    text = _BEARER.sub(lambda m: f"{m['head']}{HIDDEN}", text)
    text = _KEY.sub(HIDDEN, text)
    return _ASSIGNED.sub(lambda m: m[0] if m["value"] == HIDDEN else f"{m['head']}{HIDDEN}", text)
