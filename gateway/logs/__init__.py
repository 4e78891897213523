"""The server's logging: Sluice's own, one JSON object per line, written off the event loop.

`json_lines` formats a record; `queued` holds the queue handler and its writer thread;
`install` owns the process's logging (that handler alone on the root logger, every other
handler removed, wherever a library put it).
"""

from gateway.logs.install import (
    LOG_LEVEL_VARIABLE,
    LogConfigError,
    install,
    level_from_env,
    reclaim,
    stop,
    uvicorn_log_config,
)

__all__ = [
    "LOG_LEVEL_VARIABLE",
    "LogConfigError",
    "install",
    "level_from_env",
    "reclaim",
    "stop",
    "uvicorn_log_config",
]
