"""The API's documentation pages, `/docs` (Swagger UI) and `/redoc`, with every file local.

FastAPI's own pages load Swagger UI and ReDoc from a CDN: offline, or behind a firewall,
`/docs` is blank. Here they are FastAPI's documented self-hosting recipe
(`get_swagger_ui_html` with local URLs) over the files the `fastapi-offline` package ships
(Swagger UI 5, ReDoc 2), served from the installed package under `/docs-assets/`. Nothing
is fetched at run time, and the pages' Content-Security-Policy lets them load nothing from
another host.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response

from gateway.core.errors import GatewayError

ASSETS = "/docs-assets"
OPENAPI_URL = "/openapi.json"
# Swagger UI's online validator badge would send the document to another host.
SWAGGER_PARAMETERS = {"validatorUrl": None, "persistAuthorization": False}
MEDIA_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
}
# The pages' own inline start-up script and styles, their local files, nothing else
# (ReDoc searches in a worker it makes from a blob).
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff"}

router = APIRouter(include_in_schema=False)


@cache
def shipped() -> dict[str, bytes]:
    """The package's files, by name (`swagger-ui-bundle.js`): only these are served."""
    folder = files("fastapi_offline") / "static"
    return {
        entry.name: entry.read_bytes()
        for entry in folder.iterdir()
        if any(entry.name.endswith(suffix) for suffix in MEDIA_TYPES)
    }


@router.get("/docs")
def swagger_ui() -> HTMLResponse:
    page = get_swagger_ui_html(
        openapi_url=OPENAPI_URL,
        title="Sluice - API",
        swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS}/favicon.png",
        oauth2_redirect_url=None,
        swagger_ui_parameters=SWAGGER_PARAMETERS,
    )
    page.headers.update(HEADERS)
    return page


@router.get("/redoc")
def redoc() -> HTMLResponse:
    page = get_redoc_html(
        openapi_url=OPENAPI_URL,
        title="Sluice - API",
        redoc_js_url=f"{ASSETS}/redoc.standalone.js",
        redoc_favicon_url=f"{ASSETS}/favicon.png",
        with_google_fonts=False,
    )
    page.headers.update(HEADERS)
    return page


@router.get(ASSETS + "/{name}")
def asset(name: Annotated[str, Path(max_length=64)]) -> Response:
    body = shipped().get(name)
    if body is None:
        raise GatewayError("not-found", f"the API docs have no file {name}")
    media = next(m for suffix, m in MEDIA_TYPES.items() if name.endswith(suffix))
    # The files change only with the package: a browser may keep them for a day.
    return Response(body, media_type=media, headers={"Cache-Control": "public, max-age=86400"})
