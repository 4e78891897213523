"""A recording proxy in front of an OpenAI-compatible endpoint: it counts what the agent spends.

The gateway's agent is pointed at the proxy; each request is forwarded as it is to the real
endpoint and its answer returned as it is, while the proxy notes the call: planner or
answerer (by the first words of the system prompt), HTTP status, the `usage` the endpoint
reported, and how long the endpoint took. Nothing the agent says about itself is trusted.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx

PLANNER_MARK = "You are the planner"
ANSWERER_MARK = "You are the answerer"
FORWARDED = ("authorization", "content-type", "accept")


@dataclass(frozen=True)
class ModelCall:
    role: str  # planner, answerer or other
    status: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish: str  # the first choice's finish_reason: "length" is a reply cut at the token cap


class MeteredProxy:
    """Serves on 127.0.0.1 until `close()`; `url` replaces the endpoint's base URL."""

    def __init__(self, upstream: str, timeout: float) -> None:
        self.upstream = upstream.rstrip("/")
        self.prefix = urlsplit(self.upstream).path  # e.g. /v1
        self.client = httpx.Client(timeout=timeout)
        self.calls: list[ModelCall] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                proxy._forward(self, "POST")

            def do_GET(self) -> None:
                proxy._forward(self, "GET")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}{self.prefix}"

    def take(self) -> list[ModelCall]:
        """The calls noted since the last take."""
        with self._lock:
            taken, self.calls = self.calls, []
        return taken

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.client.close()

    def _forward(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        path = handler.path[len(self.prefix) :] if handler.path.startswith(self.prefix) else ""
        headers = {k: v for k, v in handler.headers.items() if k.lower() in FORWARDED}
        start = time.monotonic()
        try:
            answer = self.client.request(method, self.upstream + path, content=raw, headers=headers)
            status, body = answer.status_code, answer.content
            kind = answer.headers.get("content-type", "application/json")
        except httpx.HTTPError as failure:
            status, kind = 502, "application/json"
            body = json.dumps({"error": {"message": f"proxy: {failure!r}"}}).encode()
        seconds = time.monotonic() - start
        if method == "POST":
            self._note(raw, status, body, seconds)
        try:
            handler.send_response(status)
            handler.send_header("content-type", kind)
            handler.send_header("content-length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the agent gave up waiting (its own timeout): the call is noted all the same

    def _note(self, raw: bytes, status: int, body: bytes, seconds: float) -> None:
        answer = _json(body)
        usage = answer.get("usage") or {}
        choices = answer.get("choices") or [{}]
        first = choices[0] if isinstance(choices[0], dict) else {}
        call = ModelCall(
            role=_role(_json(raw)),
            status=status,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            seconds=seconds,
            finish=str(first.get("finish_reason") or ""),
        )
        with self._lock:
            self.calls.append(call)


def _json(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def _role(request: dict[str, Any]) -> str:
    messages = request.get("messages") or [{}]
    first = messages[0] if isinstance(messages[0], dict) else {}
    system = str(first.get("content") or "")
    if PLANNER_MARK in system:
        return "planner"
    if ANSWERER_MARK in system:
        return "answerer"
    return "other"
