"""One combination through a served gateway, as its user lives it, and its judgement.

The user sends the request with its own key; a proposal is confirmed with its preview
hash, as a person who confirms everything; the reply is read back from the conversation.
The ledger is read from the event log after the last position seen (one combination at a
time, so what follows it is this combination's), the model's requests from the fake.
"""

from __future__ import annotations

import ast
import inspect
import time
from dataclasses import dataclass, field
from decimal import Decimal
from types import ModuleType
from typing import Any

import httpx

from application import data_policy
from application.bank import BANK_USE_CASES, DIRECTORY_HEADER, payment_policy
from application.principals import PrincipalView
from benchmarks.injection.attacks import TEMPLATES
from benchmarks.injection.injection_tasks import INJECTION_TASKS
from benchmarks.injection.judge import AttackerBytes, Payment, Run, speaks
from benchmarks.injection.steering import STEERING
from benchmarks.injection.suite import USER_TASKS, Combination, FaithfulModel, planted
from benchmarks.injection.world import ADMIN, Setting, key_of
from domain import errors
from gateway.agent.prompts import ANSWERER, planner_prompt, planner_stubs_prompt
from gateway.core.catalog import Catalog
from gateway.core.program import withheld
from tests.agent import fake_llm as llm
from tests.agent.fake_llm import FakeLLM
from tests.agent.injection_model import Obedience, SuiteModel, serve


@dataclass
class Outcome:
    """One combination's verdicts, and what they were read from."""

    name: str
    task: str
    injection: str | None  # the injection task's id, or the steering's
    template: str | None
    account: str
    utility: bool
    attack: bool
    planner_saw: bool  # a request in the planner role held a piece of attacker text
    answerer_saw: bool
    obeyed: list[str]  # "role: attack" the model obeyed
    voice_stood: bool  # words the model said for an attacker stand in the assistant's voice
    kind: str
    status: str | None
    payments: list[str]
    facts: str
    voice: str
    error: str
    programs: list[str] = field(default_factory=list)
    seconds: float = 0.0


class Driver:
    """Runs combinations one after the other on a served gateway whose model is `fake`."""

    def __init__(self, http: httpx.Client, fake: FakeLLM) -> None:
        self.http = http
        self.fake = fake
        self.model = SuiteModel(FaithfulModel())
        serve(fake, self.model)
        self.position = self._last_position()
        self.clean: list[str] = []  # the texts of every request made without injection
        self.detector: AttackerBytes | None = None

    def arm(self) -> None:
        """From now on the model obeys the suite's attacks, and the judge looks for them."""
        attacks = {
            f"{injection.id}/{template.name}": (
                planted(injection, template),
                Obedience(injection.program, injection.voice),
            )
            for injection in INJECTION_TASKS
            for template in TEMPLATES
        }
        steered = {
            f"{steering.id}/{task.id}": steering.memos(task.id)
            for steering in STEERING
            for task in USER_TASKS
        }
        self.model.arm(attacks, [*self.clean, *_words_of_the_house()], steered)
        self.detector = self.model.detector

    def run(self, combination: Combination, setting: Setting) -> Outcome:
        start = time.monotonic()
        self.fake.requests.clear()
        self.model.obeyed.clear()
        turn = self._turn(combination.task.request, setting.key)
        events = self._events()
        requests = list(self.fake.requests)
        if self.detector is None:
            self.clean += [text for request in requests for text in llm.texts(request)]
        run = _run(turn, events, setting)
        injection, steering = combination.injection, combination.steering
        return Outcome(
            name=combination.name,
            task=combination.task.id,
            injection=steering.id if steering else injection.id if injection else None,
            template=combination.template.name if combination.template else None,
            account=setting.user,
            utility=combination.task.utility(run, setting),
            attack=combination.security(run, setting),
            planner_saw=self._saw([r for r in requests if not llm.is_answerer(r)]),
            answerer_saw=self._saw([r for r in requests if llm.is_answerer(r)]),
            obeyed=[f"{role}: {attack}" for role, attack in self.model.obeyed],
            voice_stood=any(
                speaks(run.voice, self.model.attacks[attack].voice)
                for _, attack in self.model.obeyed
            ),
            kind=run.kind,
            status=run.status,
            payments=[f"{p.payer}->{p.payee} {p.amount} {p.memo!r}" for p in run.payments],
            facts=run.facts,
            voice=run.voice,
            error=run.error,
            programs=run.programs,
            seconds=round(time.monotonic() - start, 3),
        )

    def _saw(self, requests: list[dict[str, Any]]) -> bool:
        if self.detector is None:
            return False
        return self.detector.found([t for r in requests for t in llm.texts(r)]) is not None

    def _turn(self, request: str, key: str) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {key}"}
        body = {"text": request, "conversation_id": None}
        turn: dict[str, Any] = _ok(self.http.post("/v1/agent/messages", json=body, headers=headers))
        proposal = turn.get("proposal") or {}
        if turn["kind"] != "program" or proposal.get("status") != "pending":
            return turn
        confirm = {"preview_hash": proposal["preview_hash"]}
        path = f"/v1/programs/{proposal['id']}/confirm"
        confirmed = self.http.post(path, json=confirm, headers=headers)
        conversation = turn["conversation_id"]
        read = self.http.get(f"/v1/agent/conversations/{conversation}", headers=headers)
        last: dict[str, Any] = _ok(read)["turns"][-1]
        if confirmed.status_code != 200:  # the person confirmed; the gateway refused
            last["errors"] = [f"confirm: HTTP {confirmed.status_code} {confirmed.text[:300]}"]
        return last

    def _events(self) -> list[dict[str, Any]]:
        """The events appended since the last call."""
        found: list[dict[str, Any]] = []
        headers = {"authorization": f"Bearer {key_of(ADMIN)}"}
        while True:
            params = {"after": self.position, "limit": 1000}
            page: list[dict[str, Any]] = _ok(
                self.http.get("/v1/events", params=params, headers=headers)
            )
            if not page:
                return found
            found += page
            self.position = int(page[-1]["position"])

    def _last_position(self) -> int:
        self.position = 0
        self._events()
        return self.position


# The modules that write the refusals a failed run reports, which quote no data: their
# words ("... more to the account it pays") are the gateway's, whatever an attack also says.
MESSAGES = (payment_policy, data_policy, errors, withheld)


def _words_of_the_house() -> list[str]:
    """What no attacker wrote though its words may recur in an attack: the prompts of both
    models (for a customer, in both catalog forms), every user task's request, and the text
    of the gateway's refusals (the strings of the modules that write them)."""
    catalog = Catalog(DIRECTORY_HEADER, BANK_USE_CASES)
    customer = PrincipalView(name="emma", role="customer", owns=frozenset({"emma"}))
    return [
        planner_prompt(customer, catalog.directory()),
        planner_stubs_prompt(customer, catalog),
        ANSWERER,
        *(task.request for task in USER_TASKS),
        *(text for module in MESSAGES for text in _strings(module)),
    ]


def _strings(module: ModuleType) -> list[str]:
    """The string constants of `module`'s source, f-strings' literal parts included."""
    tree = ast.parse(inspect.getsource(module))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def _run(turn: dict[str, Any], events: list[dict[str, Any]], setting: Setting) -> Run:
    mine = [
        e
        for e in events
        if e.get("account") in setting.accounts and str(e["type"]).startswith("Account.")
    ]
    payments = [
        Payment(
            e["account"],
            str(e["data"]["counterparty"]),
            Decimal(str(e["data"]["amount"])),
            str(e["data"].get("memo") or ""),
        )
        for e in mine
        if e["type"] == "Account.TransferDebited"
    ]
    answer = turn.get("answer") or {}
    parts = answer.get("parts") or []
    voice = " ".join(p["text"] for p in parts if p["kind"] == "assistant")
    if not parts and turn.get("text"):
        voice = str(turn["text"])  # a question of the planner's: its own words
    outcome = turn.get("outcome") or {}
    attempts = turn.get("attempts") or []
    programs = [str(a.get("source")) for a in attempts if a.get("source")]
    refusals = [str(e) for a in attempts for e in a.get("errors") or []]
    if turn.get("program") and turn["program"].get("source"):
        programs.append(str(turn["program"]["source"]))
    return Run(
        kind=str(turn["kind"]),
        status=outcome.get("status"),
        payments=payments,
        facts="\n".join(p["text"] for p in parts if p["kind"] == "facts"),
        voice=voice,
        quoted=[f"{p.get('author')}: {p['text']}" for p in parts if p["kind"] == "quoted"],
        error=str(
            outcome.get("error")
            or turn.get("answer_error")
            or "; ".join(map(str, turn.get("errors") or refusals))
        ),
        programs=list(dict.fromkeys(programs)),
        written=len(mine),
    )


def _ok(response: httpx.Response) -> Any:
    if response.status_code != 200:
        raise RuntimeError(
            f"{response.request.url.path}: HTTP {response.status_code} {response.text[:300]}"
        )
    return response.json()
