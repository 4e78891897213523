"""The webhook told of a proposal waiting for a person, against a real local HTTP receiver:
signed bodies, background delivery, bounded retries, and a failing receiver that never
fails or holds up the proposal."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from application.principals import PrincipalView
from gateway.core.facade import Gateway
from gateway.notify.settings import NotifySettings
from gateway.notify.webhook import SIGNATURE_HEADER, WebhookNotifier
from gateway.settings import SettingsError, load_settings
from tests.served import free_port, serving

SECRET = "a-secret-of-some-length"
SLUICE = str(Path(sys.executable).parent / "sluice")
PAY = 'transfer(payer="alice", payee="bob", amount=5)'


@dataclass
class Receiver:
    """A local HTTP server that records each POST and answers with the statuses given."""

    url: str
    answers: list[int] = field(default_factory=list)
    received: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    hold: threading.Event | None = None  # while set to an unset Event, requests wait on it
    arrived: threading.Event = field(default_factory=threading.Event)

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(body) for _, body in self.received]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    found = Receiver(url=f"http://127.0.0.1:{server.server_address[1]}/hooks/sluice")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            found.received.append((dict(self.headers.items()), body))
            found.arrived.set()
            if found.hold is not None:
                found.hold.wait(30)
            status = found.answers.pop(0) if found.answers else 204
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server.RequestHandlerClass = Handler
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield found
    if found.hold is not None:
        found.hold.set()
    server.shutdown()
    server.server_close()


def _notifier(url: str, **options: Any) -> WebhookNotifier:
    chosen: dict[str, Any] = {"backoff": (0.01,), "timeout": 2.0} | options
    return WebhookNotifier(NotifySettings(url=url, secret=SECRET), **chosen)


def _delivered(notifier: WebhookNotifier) -> None:
    """Every queued notice has been tried to the end (the notifier's thread is done)."""
    notifier.close(wait=30)


def test_a_pending_proposal_is_posted_signed_to_the_webhook(
    gateway: Gateway, who: Callable[[str], PrincipalView], receiver: Receiver
) -> None:
    notifier = _notifier(receiver.url, console_url="http://console.example/")
    gateway.notifier = notifier
    proposal = gateway.propose(who("alice"), "python", PAY, request="pay bob")
    _delivered(notifier)

    [(headers, body)] = receiver.received
    expected = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    assert headers[SIGNATURE_HEADER] == expected
    assert headers["Content-Type"] == "application/json"
    notice = json.loads(body)
    assert notice["type"] == "proposal.pending"
    assert notice["proposal"]["id"] == proposal.id
    assert notice["proposal"]["principal"] == "alice"
    assert notice["proposal"]["request"] == "pay bob"
    assert notice["proposal"]["expires_at"] == proposal.expires_at
    assert notice["review_url"] == f"http://console.example/#/proposals/{proposal.id}"
    # The program and its preview stay in Sluice: the notice says only that something waits.
    assert PAY not in body.decode()


def test_only_proposals_that_wait_for_a_person_are_notified(
    gateway: Gateway, who: Callable[[str], PrincipalView], receiver: Receiver
) -> None:
    notifier = _notifier(receiver.url)
    gateway.notifier = notifier
    alice = who("alice")
    gateway.propose(alice, "python", 'get_balance(account="alice")')  # completes at once
    with pytest.raises(Exception, match="no account dan"):
        gateway.propose(alice, "python", 'transfer(payer="alice", payee="dan", amount=1)')
    waiting = gateway.propose(alice, "python", PAY)
    _delivered(notifier)

    assert [n["proposal"]["id"] for n in receiver.bodies()] == [waiting.id]


def test_a_failing_webhook_is_tried_again_a_bounded_number_of_times(
    gateway: Gateway, who: Callable[[str], PrincipalView], receiver: Receiver
) -> None:
    receiver.answers = [500, 503]  # then 204
    notifier = _notifier(receiver.url, attempts=3)
    gateway.notifier = notifier
    proposal = gateway.propose(who("alice"), "python", PAY)
    _delivered(notifier)

    assert [n["proposal"]["id"] for n in receiver.bodies()] == [proposal.id] * 3
    # One notice, tried three times: the same delivery id, so a receiver can tell.
    assert len({n["delivery"] for n in receiver.bodies()}) == 1


def test_a_webhook_that_keeps_failing_is_logged_and_the_proposal_stands(
    gateway: Gateway,
    who: Callable[[str], PrincipalView],
    receiver: Receiver,
    caplog: pytest.LogCaptureFixture,
) -> None:
    receiver.answers = [500, 500, 500]
    notifier = _notifier(receiver.url, attempts=3)
    gateway.notifier = notifier
    alice = who("alice")
    with caplog.at_level(logging.WARNING, logger="sluice.notify"):
        proposal = gateway.propose(alice, "python", PAY)
        _delivered(notifier)

    assert len(receiver.received) == 3
    [record] = [r for r in caplog.records if r.name == "sluice.notify"]
    assert proposal.id in record.getMessage()
    assert "not delivered after 3 attempt(s): it answered 500" in record.getMessage()
    # The webhook's credentials or path are not logged, only where it is.
    assert "/hooks/sluice" not in record.getMessage()
    assert gateway.proposal(alice, proposal.id).status == "pending"
    outcome = gateway.confirm(alice, proposal.id, proposal.preview_hash)
    assert outcome.status == "committed"


def test_a_webhook_that_cannot_be_reached_is_logged_and_changes_nothing(
    gateway: Gateway, who: Callable[[str], PrincipalView], caplog: pytest.LogCaptureFixture
) -> None:
    nowhere = f"http://127.0.0.1:{free_port()}/hook"  # nothing listens there
    notifier = _notifier(nowhere, attempts=2)
    gateway.notifier = notifier
    with caplog.at_level(logging.WARNING, logger="sluice.notify"):
        proposal = gateway.propose(who("alice"), "python", PAY)
        _delivered(notifier)

    assert proposal.status == "pending"
    [record] = [r for r in caplog.records if r.name == "sluice.notify"]
    assert "not delivered after 2 attempt(s): ConnectError" in record.getMessage()


def test_the_proposal_is_answered_while_the_webhook_still_holds_its_notice(
    gateway: Gateway, who: Callable[[str], PrincipalView], receiver: Receiver
) -> None:
    receiver.hold = threading.Event()  # the receiver answers only when the test says so
    notifier = _notifier(receiver.url, timeout=30.0)
    gateway.notifier = notifier
    alice = who("alice")

    first = gateway.propose(alice, "python", PAY)
    assert receiver.arrived.wait(10)  # the receiver has the first notice, and holds it
    second = gateway.propose(alice, "python", PAY)  # answered all the same
    assert (first.status, second.status) == ("pending", "pending")
    assert len(receiver.received) == 1  # nothing was answered yet

    receiver.hold.set()
    _delivered(notifier)
    assert [n["proposal"]["id"] for n in receiver.bodies()] == [first.id, second.id]


def test_a_full_queue_drops_the_notice_logged_and_the_proposal_stands(
    gateway: Gateway,
    who: Callable[[str], PrincipalView],
    receiver: Receiver,
    caplog: pytest.LogCaptureFixture,
) -> None:
    receiver.hold = threading.Event()
    notifier = _notifier(receiver.url, queue_size=1, timeout=30.0)
    gateway.notifier = notifier
    alice = who("alice")
    with caplog.at_level(logging.WARNING, logger="sluice.notify"):
        gateway.propose(alice, "python", PAY)
        assert receiver.arrived.wait(10)  # in delivery, held
        gateway.propose(alice, "python", PAY)  # queued
        dropped = gateway.propose(alice, "python", PAY)  # no room
    receiver.hold.set()
    _delivered(notifier)

    assert dropped.status == "pending"
    assert any(dropped.id in r.getMessage() and "dropped" in r.getMessage() for r in caplog.records)
    assert len(receiver.received) == 2


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"SLUICE_NOTIFY_URL": "ftp://example.com/x", "SLUICE_NOTIFY_SECRET": SECRET},
         "SLUICE_NOTIFY_URL='ftp://example.com/x': the webhook must be an http:// or https://"),
        ({"SLUICE_NOTIFY_URL": "https://example.com/x"},
         "SLUICE_NOTIFY_SECRET: the webhook's signing secret must be at least 16 characters"),
        ({"SLUICE_NOTIFY_URL": "https://example.com/x", "SLUICE_NOTIFY_SECRET": "short"},
         "SLUICE_NOTIFY_SECRET: the webhook's signing secret must be at least 16 characters"),
        ({"SLUICE_NOTIFY_SECRET": SECRET}, "SLUICE_NOTIFY_SECRET is set but SLUICE_NOTIFY_URL"),
    ],
)  # fmt: skip
def test_a_malformed_webhook_setting_is_refused_naming_it(env: dict[str, str], named: str) -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings(env)
    assert named in str(refused.value)


def test_no_webhook_is_the_default() -> None:
    assert load_settings({}).notify is None


def test_a_served_gateway_notifies_the_webhook_its_settings_name(
    receiver: Receiver, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")} | {
        "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'served.db'}",
        "SLUICE_NOTIFY_URL": receiver.url,
        "SLUICE_NOTIFY_SECRET": SECRET,
        "SLUICE_CONSOLE_URL": "http://127.0.0.1:9/",
    }
    agent = {"Authorization": "Bearer sk-agent-demo-alice"}
    with serving([SLUICE, "serve", "--demo"], env) as base:
        answer = httpx.post(
            f"{base}/v1/programs",
            json={"language": "python", "source": PAY, "request": "pay bob"},
            headers=agent,
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
        assert receiver.arrived.wait(10)

    [(headers, body)] = receiver.received
    assert (
        headers[SIGNATURE_HEADER]
        == "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    )
    notice = json.loads(body)
    assert notice["proposal"]["id"] == answer.json()["id"]
    assert notice["review_url"] == f"http://127.0.0.1:9/#/proposals/{answer.json()['id']}"
