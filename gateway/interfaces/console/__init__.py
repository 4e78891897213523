"""The web console: pages served by the gateway itself at `/`. The few reads
only they need are HTTP routes (`gateway/interfaces/http/routes/console.py`).

Everything the browser loads ships in this package (no CDN, no build step); the pages talk
to the same HTTP API as any other client, with the API key the person signs in with.
"""

from __future__ import annotations

from fastapi import APIRouter

from gateway.interfaces.console import assets

router = APIRouter()
router.include_router(assets.router)

__all__ = ["router"]
