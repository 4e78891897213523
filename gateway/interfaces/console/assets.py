"""The console's files: the page at `/` and its stylesheet and scripts under `/console/`.

Only files that ship in `static/` are served, looked up by name in a table built once, so
no request path ever reaches the file system.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response

from gateway.core.errors import GatewayError

MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
# The page runs only its own files: a script injected into data could not load or run.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Assets are small; revalidating keeps a console in step with the gateway it came with.
    "Cache-Control": "no-cache",
}

router = APIRouter(include_in_schema=False)


@cache
def shipped() -> dict[str, bytes]:
    """Every file under static/, by its path relative to it (`js/main.js`)."""
    found: dict[str, bytes] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            if entry.is_dir():
                walk(entry, f"{prefix}{entry.name}/")
            elif any(entry.name.endswith(suffix) for suffix in MEDIA_TYPES):
                found[prefix + entry.name] = entry.read_bytes()

    walk(files("gateway.interfaces.console") / "static", "")
    return found


def asset(name: str) -> Response:
    body = shipped().get(name)
    if body is None:
        raise GatewayError("not-found", f"the console has no file {name}")
    suffix = name[name.rfind(".") :]
    return Response(body, media_type=MEDIA_TYPES[suffix], headers=HEADERS)


@router.get("/")
def index() -> Response:
    """The console's one page; the scripts draw each view in it."""
    return asset("index.html")


@router.get("/console/{name:path}")
def console_file(name: Annotated[str, Path(max_length=200)]) -> Response:
    return asset(name)
