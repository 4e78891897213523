"""How long a read waits for the read models to reach the `min_position` it was given."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

READ_WAIT_VARIABLE = "SLUICE_READ_WAIT_SECONDS"
# The projector keeps the read models about 0.1 s behind the log: a few seconds is ample,
# and short enough that a client hears why instead of hanging.
DEFAULT_READ_WAIT_SECONDS = 5.0


class ReadWaitConfigError(ValueError):
    """SLUICE_READ_WAIT_SECONDS is not a valid value; the message names it."""


def read_wait_seconds(env: Mapping[str, str] | None = None) -> float:
    raw = (os.environ if env is None else env).get(READ_WAIT_VARIABLE)
    if raw is None:
        return DEFAULT_READ_WAIT_SECONDS
    try:
        seconds = float(raw.strip())
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or not 0 < seconds <= 60:
        raise ReadWaitConfigError(
            f"{READ_WAIT_VARIABLE}={raw!r}: the wait for the read models must be a number of "
            "seconds above 0 and at most 60 (e.g. 5)"
        )
    return seconds
