"""/metrics: the Prometheus text format, for an admin's or auditor's key, with the requests
by route and status, their latency, proposals by state, the sandbox's runs and queue, the
read models' lag and dead letters. /health, /livez and /readyz answer anyone and tell
nothing about the business.

A real `sluice serve` process, driven over a socket; the text parsed by prometheus-client's
own parser."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.served import serving

SLUICE = str(Path(sys.executable).parent / "sluice")
KEYS = {name: f"sk-demo-{name}" for name in ("alice", "bob", "auditor", "admin")}
PAY_BOB = 'transfer(payer="alice", payee="bob", amount=2)'


def key(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name]}"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env["SLUICE_DATABASE_URL"] = f"sqlite:///{tmp_path / 'served.db'}"
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(
    found: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    return found[(name, frozenset(labels.items()))]


def activity(base: str) -> None:
    """Two proposals (one confirmed, one left pending), reads, and a refusal."""
    with httpx.Client(base_url=base, headers=key("alice"), timeout=30) as alice:
        for confirm in (True, False):
            proposal = alice.post("/v1/programs", json={"language": "python", "source": PAY_BOB})
            assert proposal.status_code == 201, proposal.text
            if confirm:
                answer = alice.post(
                    f"/v1/programs/{proposal.json()['id']}/confirm",
                    json={"preview_hash": proposal.json()["preview_hash"]},
                )
                assert answer.status_code == 200, answer.text
        assert alice.get("/v1/accounts/alice").status_code == 200
        assert alice.get("/v1/accounts/bob").status_code == 403


def test_metrics_count_requests_proposals_sandbox_runs_and_the_read_models(served: str) -> None:
    activity(served)
    # The read models brought up to the log's head: the store's figures are read now.
    consistent = {"consistent": "true"}
    httpx.get(f"{served}/v1/accounts", headers=key("admin"), params=consistent, timeout=30)
    answer = httpx.get(f"{served}/metrics", headers=key("auditor"), timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=")
    found = samples(answer.text)

    account = "/v1/accounts/{account}"  # the route's template, never the path sent
    assert (
        value(found, "sluice_http_requests_total", method="GET", route=account, status="200") == 1
    )
    assert (
        value(found, "sluice_http_requests_total", method="GET", route=account, status="403") == 1
    )
    assert (
        value(
            found, "sluice_http_requests_total", method="POST", route="/v1/programs", status="201"
        )
        == 2
    )
    assert (
        "sluice_http_requests_total",
        frozenset({("method", "GET"), ("route", "/v1/accounts/bob"), ("status", "403")}),
    ) not in found
    assert (
        value(
            found, "sluice_http_request_duration_seconds_count", method="POST", route="/v1/programs"
        )
        == 2
    )
    assert (
        value(
            found, "sluice_http_request_duration_seconds_sum", method="POST", route="/v1/programs"
        )
        > 0
    )

    assert value(found, "sluice_sandbox_runs_total", outcome="ok") >= 2  # previews, the commit
    assert value(found, "sluice_sandbox_programs_running") == 0
    assert value(found, "sluice_sandbox_programs_waiting") == 0

    assert value(found, "sluice_store_up") == 1
    assert value(found, "sluice_dead_letters") == 0
    assert value(found, "sluice_log_position") > 0
    for projection in ("balances", "statement", "runs"):
        assert value(found, "sluice_read_model_lag_events", projection=projection) >= 0
    proposals = {
        dict(labels)["state"]: count
        for (name, labels), count in found.items()
        if name == "sluice_proposals"
    }
    assert proposals == {"committed": 1, "pending": 1}


def test_metrics_need_an_admins_or_auditors_key(served: str) -> None:
    nobody = httpx.get(f"{served}/metrics", timeout=30)
    alice = httpx.get(f"{served}/metrics", headers=key("alice"), timeout=30)
    admin = httpx.get(f"{served}/metrics", headers=key("admin"), timeout=30)

    assert nobody.status_code == 401
    assert nobody.headers["content-type"].startswith("application/problem+json")
    assert alice.status_code == 403
    assert (
        alice.json()["detail"] == "/metrics may be read by auditors and admins, not principal alice"
    )
    assert admin.status_code == 200
    assert "sluice_" not in nobody.text + alice.text


@pytest.mark.parametrize("path", ["/health", "/livez", "/readyz"])
def test_the_unauthenticated_probes_tell_nothing_about_the_business(served: str, path: str) -> None:
    activity(served)
    answer = httpx.get(f"{served}{path}", timeout=30)
    assert answer.status_code == 200
    assert re.search(r"\d", answer.text) is None, answer.text  # no count, position, balance
    for word in ("alice", "bob", "dan", "position", "lag", "letter", "balance"):
        assert word not in answer.text
    assert answer.json()["status"] in {"ok", "ready"}
