"""Clients that keep a served gateway busy and note every answer: for the fault tests."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

TELLER = {"Authorization": "Bearer sk-demo-teller"}
ALICE = {"Authorization": "Bearer sk-demo-alice"}
# Funded at the start; the clients move money among them only, so their writes collide.
CONTENDED = ("alice", "bob")


@dataclass(frozen=True)
class Answer:
    what: str
    status: int  # 0: no answer at all (the connection to the gateway failed)
    seconds: float
    retry_after: str | None
    detail: str


@dataclass
class Load:
    """`clients` threads doing direct transfers and propose+confirm until stopped."""

    base: str
    clients: int = 6
    answers: list[Answer] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        for i in range(self.clients):
            work = self._direct if i % 2 == 0 else self._propose_and_confirm
            thread = threading.Thread(target=work, args=(random.Random(i),), daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def counts(self) -> Counter[int]:
        with self._lock:
            return Counter(a.status for a in self.answers)

    def _direct(self, chance: random.Random) -> None:
        with httpx.Client(base_url=self.base, headers=TELLER, timeout=60) as client:
            while not self._stop.is_set():
                payer, payee = chance.sample(CONTENDED, 2)
                self._ask(
                    client,
                    "transfer",
                    "POST",
                    "/v1/use-cases/transfer",
                    {"payer": payer, "payee": payee, "amount": 1},
                )

    def _propose_and_confirm(self, chance: random.Random) -> None:
        del chance
        source = 'transfer(payer="alice", payee="bob", amount=1)'
        with httpx.Client(base_url=self.base, headers=ALICE, timeout=60) as client:
            while not self._stop.is_set():
                proposal = self._ask(
                    client,
                    "propose",
                    "POST",
                    "/v1/programs",
                    {"language": "python", "source": source},
                )
                if proposal is None or "preview_hash" not in proposal:
                    continue
                self._ask(
                    client,
                    "confirm",
                    "POST",
                    f"/v1/programs/{proposal['id']}/confirm",
                    {"preview_hash": proposal["preview_hash"]},
                )

    def _ask(
        self, client: httpx.Client, what: str, method: str, path: str, body: dict[str, Any]
    ) -> dict[str, Any] | None:
        started = time.monotonic()
        try:
            response = client.request(method, path, json=body)
        except httpx.TransportError as error:
            self._note(Answer(what, 0, time.monotonic() - started, None, repr(error)))
            return None
        seconds = time.monotonic() - started
        try:
            data: Any = response.json()
        except ValueError:
            data = {"text": response.text}
        detail = str(data.get("detail", "")) if isinstance(data, dict) else ""
        self._note(
            Answer(what, response.status_code, seconds, response.headers.get("retry-after"), detail)
        )
        return data if isinstance(data, dict) else None

    def _note(self, answer: Answer) -> None:
        with self._lock:
            self.answers.append(answer)
