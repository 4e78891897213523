"""A signed webhook, called when a proposal waits for a person.

Delivery never holds up a proposal: `proposal_pending` puts the notice on a bounded queue and
returns; one thread of its own posts it. Each notice is tried `attempts` times (by default 3,
waiting 1 s, then 4 s), each try bounded by `timeout` seconds; a 2xx answer delivers it.
After the last try, or when the queue is full (a receiver far behind), the notice is dropped
and logged (`sluice.notify`, WARNING), never raised: the proposal stands, and the inbox
(`GET /v1/programs`) still lists it.

The body is JSON; `X-Sluice-Signature: sha256=<hex>` is HMAC-SHA256 of the exact body bytes
with SLUICE_NOTIFY_SECRET. The body holds a delivery id and the time it was sent, so that a
receiver can refuse a replayed notice. It names the proposal, its principal, the request it
answers and its expiry, not the program or its preview: the receiver learns that something
waits, and the person reads it in the console.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import queue
import threading
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from application.results import Proposal
from gateway.notify.settings import NotifySettings

SIGNATURE_HEADER = "X-Sluice-Signature"
EVENT = "proposal.pending"
QUEUE_SIZE = 1000
log = logging.getLogger("sluice.notify")


def signature(secret: str, body: bytes) -> str:
    """The header's value for this body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class WebhookNotifier:
    def __init__(
        self,
        settings: NotifySettings,
        *,
        console_url: str | None = None,
        attempts: int = 3,
        timeout: float = 5.0,
        backoff: Sequence[float] = (1.0, 4.0),
        queue_size: int = QUEUE_SIZE,
    ) -> None:
        self.settings = settings
        self.console_url = console_url
        self.attempts = attempts
        self.timeout = timeout
        self.backoff = tuple(backoff)
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=queue_size)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._deliver_all, name="sluice-notify", daemon=True)
        self._thread.start()
        # Where notices go, as logs may show it: the URL without credentials, path or query.
        parts = urlsplit(settings.url)
        self.shown_url = f"{parts.scheme}://{parts.hostname}" + (
            f":{parts.port}" if parts.port else ""
        )

    def proposal_pending(self, proposal: Proposal) -> None:
        """Queue the notice and return at once; a full queue drops it, logged."""
        body = self._body(proposal)
        try:
            self._queue.put_nowait(body)
        except queue.Full:
            log.warning(
                "webhook %s: %d notices wait already; the notice of proposal %s is dropped",
                self.shown_url,
                self._queue.qsize(),
                proposal.id,
            )

    def close(self, wait: float = 5.0) -> None:
        """Stop after the notices queued so far are tried, waiting at most about `wait`
        seconds; past that, the tries left are given up (and logged)."""
        with contextlib.suppress(queue.Full):
            self._queue.put(None, timeout=wait)
        self._thread.join(wait)
        self._stopping.set()
        self._thread.join(self.timeout + 1)

    # Inside.

    def _body(self, proposal: Proposal) -> bytes:
        review = f"{self.console_url}#/proposals/{proposal.id}" if self.console_url else None
        notice: dict[str, Any] = {
            "type": EVENT,
            "delivery": str(uuid.uuid4()),
            "sent_at": datetime.now(UTC).isoformat(),
            "proposal": {
                "id": proposal.id,
                "principal": proposal.principal,
                "kind": proposal.kind,
                "language": proposal.language,
                "request": proposal.request,
                "events": len(proposal.preview.events),
                "preview_hash": proposal.preview_hash,
                "created_at": proposal.created_at,
                "expires_at": proposal.expires_at,
            },
            "review_url": review,
            "api_url": f"/v1/programs/{proposal.id}",
        }
        return json.dumps(notice, separators=(",", ":")).encode()

    def _deliver_all(self) -> None:
        with httpx.Client(timeout=self.timeout, follow_redirects=False) as client:
            while True:
                body = self._queue.get()
                if body is None:
                    return
                self._deliver(client, body)

    def _deliver(self, client: httpx.Client, body: bytes) -> None:
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "sluice-webhook",
            "X-Sluice-Event": EVENT,
            SIGNATURE_HEADER: signature(self.settings.secret, body),
        }
        why = ""
        for attempt in range(1, self.attempts + 1):
            try:
                answer = client.post(self.settings.url, content=body, headers=headers)
            except httpx.HTTPError as error:
                why = f"{type(error).__name__}: {error}"
            else:
                if answer.is_success:
                    return
                why = f"it answered {answer.status_code}"
            if attempt < self.attempts:
                pause = self.backoff[min(attempt - 1, len(self.backoff) - 1)] if self.backoff else 0
                if self._stopping.wait(pause):
                    break  # closing: no more waiting
        log.warning(
            "webhook %s: the notice of proposal %s was not delivered after %d attempt(s): %s",
            self.shown_url,
            json.loads(body)["proposal"]["id"],
            self.attempts,
            why,
        )
