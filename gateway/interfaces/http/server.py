"""What `sluice serve` runs: the app, uvicorn, and Sluice's logging around both."""

from __future__ import annotations

import uvicorn

from gateway import logs
from gateway.bootstrap import Sluice
from gateway.interfaces.http.app import create_app


def http_server(
    sluice: Sluice,
    *,
    host: str,
    port: int,
    projector: bool,
    log_level: int,
    demo: bool = False,
) -> uvicorn.Server:
    """The server, ready to run. Logging is Sluice's before the app is built (so no library
    finds the root logger bare and sets up its own) and again after (whatever a library set
    up anyway is removed). `demo`: the console's sign-in page names the demo keys."""
    logs.install(log_level)
    app = create_app(sluice, projector=projector, host=host, demo=demo)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=logs.uvicorn_log_config(log_level),
        # Sluice writes its own access line, with the request id (http/request_log.py).
        access_log=False,
    )
    logs.reclaim()
    return uvicorn.Server(config)
