"""The other ways to decide a proposal: the HTTP API (the web console's route) for a served
gateway, and `sluice confirm` for a store on disk."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import httpx

from tests.mcp.support import SLUICE, Target


def confirm_elsewhere(target: Target, run_id: str, preview_hash: str, key: str) -> tuple[int, Any]:
    """(status, answer): HTTP status for a served gateway, exit code for the CLI."""
    if target.transport == "http":
        answer = httpx.post(
            f"{target.base}/v1/programs/{run_id}/confirm",
            json={"preview_hash": preview_hash},
            headers={"Authorization": f"Bearer {key}"},
        )
        return answer.status_code, answer.json()
    done = subprocess.run(
        [SLUICE, "confirm", run_id, "--key", key, "--yes", "--json"],
        env=target.env,
        capture_output=True,
        text=True,
        check=False,
    )
    # rich folds long lines of stderr; the message is compared as words.
    return done.returncode, json.loads(done.stdout) if done.stdout else " ".join(
        done.stderr.split()
    )


def confirm_on_review_page(target: Target, url: str, key: str) -> tuple[int, Any]:
    """What a person does on the console's review page a link opened: sign in with their
    own key, read the proposal and confirm the preview shown (the HTTP API, as the page
    does); for `sluice mcp`, whose console is elsewhere, `sluice confirm` on its store."""
    run_id = url.rpartition("#/proposals/")[2]
    assert run_id, url
    if target.transport == "http":
        assert url.startswith(f"{target.base}/#/proposals/"), url
        shown = httpx.get(
            f"{target.base}/v1/programs/{run_id}", headers={"Authorization": f"Bearer {key}"}
        )
        assert shown.status_code == 200, shown.text
        return confirm_elsewhere(target, run_id, shown.json()["preview_hash"], key)
    return confirm_elsewhere(target, run_id, "", key)


def run_cli(target: Target, *args: str) -> subprocess.CompletedProcess[str]:
    """`sluice ARGS` on the target's own store (the served gateway's SQLite file, too)."""
    return subprocess.run(
        [SLUICE, *args], env=target.env, capture_output=True, text=True, timeout=60, check=False
    )
