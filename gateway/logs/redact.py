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
_NAMES = r"(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|token)"
_VALUE = r"""(?P<value>[^\s"'&,;)}\]]+)"""
# `NAME=value` (a query, an environment variable: SLUICE_LLM_API_KEY=...) and `"name": value`
# (JSON, a header); a message that names a setting (`SLUICE_API_KEY: this key is unknown`)
# is not a credential.
_ASSIGNED = re.compile(
    rf"""(?ix)(?<![a-z0-9])(?P<head>{_NAMES}["']?\s*=\s*["']?){_VALUE}"""
    rf"""|(?<![a-z0-9_])(?P<head2>{_NAMES}["']?\s*:\s*["']?){_VALUE.replace("value", "value2")}"""
)


def redact(text: str) -> str:
    """`text` with every credential it shows replaced by ***."""
    if not text:
        return text
    text = _URL_PASSWORD.sub(lambda m: f"{m['head']}{HIDDEN}@", text)
    text = _BEARER.sub(lambda m: f"{m['head']}{HIDDEN}", text)
    text = _KEY.sub(HIDDEN, text)
    return _ASSIGNED.sub(_hidden, text)


def _hidden(match: re.Match[str]) -> str:
    head, value = match["head"] or match["head2"], match["value"] or match["value2"]
    return match[0] if value == HIDDEN else f"{head}{HIDDEN}"
