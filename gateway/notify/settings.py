"""The webhook's settings: SLUICE_NOTIFY_URL and SLUICE_NOTIFY_SECRET (both, or neither)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from application.settings_error import SettingsError

URL_VARIABLE = "SLUICE_NOTIFY_URL"
SECRET_VARIABLE = "SLUICE_NOTIFY_SECRET"
MIN_SECRET = 16


@dataclass(frozen=True)
class NotifySettings:
    url: str
    secret: str = ""

    @classmethod
    def checked(cls, url: str | None, secret: str | None) -> NotifySettings | None:
        """The webhook of SLUICE_NOTIFY_URL and SLUICE_NOTIFY_SECRET, None when no webhook is
        set (the default), or a SettingsError naming the variable at fault."""
        url = (url or "").strip()
        secret = secret or ""
        if not url:
            if secret:
                raise SettingsError(f"{SECRET_VARIABLE} is set but {URL_VARIABLE} is not")
            return None
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SettingsError(
                f"{URL_VARIABLE}={url!r}: the webhook must be an http:// or https:// URL "
                "with a host"
            )
        if len(secret) < MIN_SECRET:
            raise SettingsError(
                f"{SECRET_VARIABLE}: the webhook's signing secret must be at least "
                f"{MIN_SECRET} characters (it signs each body with HMAC-SHA256)"
            )
        return cls(url=url, secret=secret)
