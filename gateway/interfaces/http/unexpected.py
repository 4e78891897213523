"""An error no handler answered: one log record, and a problem (500) for the client.

Starlette's own last resort answers such an error and then raises it again for the server
to log: two records of one event, each with its traceback. Here it is logged once, with the
request's method and path as fields, and the server is not told (the response is complete).
An error after the response has started cannot become a problem: it goes on to the server,
which logs it once and closes the connection.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.interfaces.http.problems import log, problem


class UnexpectedErrors:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as error:
            if started:
                raise
            method, path = scope.get("method"), scope.get("path")
            log.error(
                "unexpected error on %s %s", method, path,
                exc_info=error, extra={"method": method, "path": path},
            )  # fmt: skip
            response = problem("internal", "an unexpected error; the server log has the details")
            await response(scope, receive, send)
