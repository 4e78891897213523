"""The clients of the bank test: transfers between a few accounts, made directly or as
programs proposed then confirmed, each with a memo that names it in the log."""

from __future__ import annotations

import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import httpx

TELLER = {"Authorization": "Bearer sk-demo-teller"}
TIMEOUT = 15.0
# Answers after which the request certainly wrote nothing.
NOTHING_WRITTEN = frozenset({400, 403, 404, 409, 410, 422, 429})


@dataclass
class Op:
    """One transfer asked of one gateway, and what came back."""

    id: str
    kind: str  # "direct" or "program"
    node: int
    payer: str
    payee: str
    amount: Decimal
    started: float = 0.0
    ended: float = 0.0
    status: int | None = None  # None: no answer (the connection broke or timed out)
    detail: str = ""
    retry_after: bool = False
    first_status: int | None = None  # before a retry
    retried: bool = False

    @property
    def acknowledged(self) -> bool:
        return self.status == 200

    @property
    def memo(self) -> str:
        return f"op {self.id}"

    @property
    def arguments(self) -> dict[str, Any]:
        return {"payer": self.payer, "payee": self.payee, "amount": str(self.amount),
                "memo": self.memo}  # fmt: skip

    @property
    def program(self) -> str:
        return (
            f'transfer(payer="{self.payer}", payee="{self.payee}", amount={self.amount}, '
            f'memo="{self.memo}")'
        )


@dataclass
class Workload:
    bases: list[str]
    accounts: list[str]
    program_share: float = 0.3
    ops: list[Op] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def client(self, seed: int, stop: threading.Event) -> None:
        chance = random.Random(seed)
        clients = [httpx.Client(base_url=b, headers=TELLER, timeout=TIMEOUT) for b in self.bases]
        try:
            while not stop.is_set():
                node = chance.randrange(len(self.bases))
                payer, payee = chance.sample(self.accounts, 2)
                kind = "program" if chance.random() < self.program_share else "direct"
                op = Op(uuid.uuid4().hex[:12], kind, node, payer, payee,
                        Decimal(chance.randint(1, 20)))  # fmt: skip
                self.run(clients[node], op)
                with self._lock:
                    self.ops.append(op)
        finally:
            for client in clients:
                client.close()

    def run(self, client: httpx.Client, op: Op) -> None:
        op.started = time.monotonic()
        try:
            answer = self._direct(client, op) if op.kind == "direct" else self._program(client, op)
        except httpx.TransportError as error:
            op.status, op.detail = None, f"{type(error).__name__}: {error}"
        else:
            op.status = answer.status_code
            op.retry_after = "retry-after" in answer.headers
            op.detail = answer.text[:300]
        op.ended = time.monotonic()
        if not op.retried:
            op.first_status = op.status

    def retry(self, op: Op) -> None:
        """Ask a direct transfer again with the same Idempotency-Key: the answer kept with
        its effect, or a first run now. (A program would be proposed anew, as another run.)"""
        assert op.kind == "direct"
        op.retried, op.first_status = True, op.status
        with httpx.Client(base_url=self.bases[op.node], headers=TELLER, timeout=TIMEOUT) as c:
            self.run(c, op)

    @staticmethod
    def _direct(client: httpx.Client, op: Op) -> httpx.Response:
        return client.post(
            "/v1/use-cases/transfer", json=op.arguments, headers={"Idempotency-Key": op.id}
        )

    @staticmethod
    def _program(client: httpx.Client, op: Op) -> httpx.Response:
        proposed = client.post("/v1/programs", json={"language": "python", "source": op.program})
        if proposed.status_code != 201:
            return proposed
        proposal = proposed.json()
        confirmed = client.post(
            f"/v1/programs/{proposal['id']}/confirm",
            json={"preview_hash": proposal["preview_hash"]},
            headers={"Idempotency-Key": op.id},
        )
        fresh = confirmed.json().get("proposal") if confirmed.status_code == 409 else None
        if not fresh or fresh["status"] != "pending":
            return confirmed
        # Stale: the accounts moved since the preview. Confirm the fresh preview, once.
        return client.post(
            f"/v1/programs/{fresh['id']}/confirm",
            json={"preview_hash": fresh["preview_hash"]},
            headers={"Idempotency-Key": f"{op.id}-fresh"},
        )
