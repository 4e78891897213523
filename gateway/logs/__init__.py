"""The server's logging: Sluice's own, plain or one JSON object per line, written off the
event loop, credentials hidden.

`json_lines` and `plain` format a record (`redact` hides credentials, `context` names the
request being served); `queued` holds the queue handler and its writer thread;
`install` owns the process's logging (that handler alone on the root logger, every other
handler removed, wherever a library put it).
"""

from gateway.logs.install import (
    LOG_FORMAT_VARIABLE,
    LOG_LEVEL_VARIABLE,
    install,
    parse_format,
    parse_level,
    reclaim,
    stop,
    uvicorn_log_config,
)

__all__ = [
    "LOG_FORMAT_VARIABLE",
    "LOG_LEVEL_VARIABLE",
    "install",
    "parse_format",
    "parse_level",
    "reclaim",
    "stop",
    "uvicorn_log_config",
]
