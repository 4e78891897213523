"""The web console: pages served by the gateway itself at `/`, and the few reads they need.

Everything the browser loads ships in this package (no CDN, no build step); the pages talk
to the same HTTP API as any other client, with the API key the person signs in with.
"""

from __future__ import annotations

from fastapi import APIRouter

from gateway.console import api, assets

router = APIRouter()
router.include_router(assets.router)
router.include_router(api.router)

__all__ = ["router"]
