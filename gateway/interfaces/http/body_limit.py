"""Refuse request bodies over a size limit with 413, before any handler reads them."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.core.problem import PROBLEM_JSON, PROBLEMS, ProblemKind, problem_document
from gateway.interfaces.http.problems import with_request_id


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._too_large(send)
            return
        # Read the whole body (it is small by definition), then hand it on.
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                await self._too_large(send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        kind: ProblemKind = "payload-too-large"
        detail = f"the request body is over the limit of {self.max_bytes} bytes"
        body = json.dumps(with_request_id(problem_document(kind, detail))).encode()
        await send(
            {
                "type": "http.response.start",
                "status": PROBLEMS[kind].status,
                "headers": [
                    (b"content-type", PROBLEM_JSON.encode()),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
