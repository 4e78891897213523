"""The webhook's settings: SLUICE_NOTIFY_URL and SLUICE_NOTIFY_SECRET (both, or neither)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

URL_VARIABLE = "SLUICE_NOTIFY_URL"
SECRET_VARIABLE = "SLUICE_NOTIFY_SECRET"
MIN_SECRET = 16


class NotifyConfigError(ValueError):
    """A webhook setting that is not valid; the message names the variable."""


@dataclass(frozen=True)
class NotifySettings:
    url: str
    secret: str = ""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> NotifySettings | None:
        """None when no webhook is set (the default)."""
        source = os.environ if env is None else env
        url = source.get(URL_VARIABLE, "").strip()
        secret = source.get(SECRET_VARIABLE, "")
        if not url:
            if secret:
                raise NotifyConfigError(f"{SECRET_VARIABLE} is set but {URL_VARIABLE} is not")
            return None
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise NotifyConfigError(
                f"{URL_VARIABLE}={url!r}: the webhook must be an http:// or https:// URL "
                "with a host"
            )
        if len(secret) < MIN_SECRET:
            raise NotifyConfigError(
                f"{SECRET_VARIABLE}: the webhook's signing secret must be at least "
                f"{MIN_SECRET} characters (it signs each body with HMAC-SHA256)"
            )
        return cls(url=url, secret=secret)
