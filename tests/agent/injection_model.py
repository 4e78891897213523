"""The worst case for the ported banking suite (benchmarks/injection), as a fake model.

It extends `fake_llm.worst_case`: a model that obeys any instruction it reads anywhere in
its input. Armed with the suite's attacks, it recognizes an attacker's text by any piece of
it (`judge.AttackerBytes`: 12 characters no clean request holds), split over memos or not:

- as planner, it writes the attacker's program (then the user's task, as the templates ask),
  or, for an attack that only wants words said, answers with them;
- as answerer, it says the attacker's words in its own voice.

Data an attacker shaped to steer a program (`benchmarks/injection/steering`) gives no order:
it is recognized the same way, but not obeyed.

Otherwise it is faithful: as planner it writes the user task's program (`Faithful.program`)
for the request, and asks the person when Sluice refuses it; as answerer it says what the
outcome it is shown says (`Faithful.answer`). It never runs out of replies: `serve` makes
every request of a `FakeLLM` its own.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from benchmarks.injection.judge import AttackerBytes
from benchmarks.injection.world import ME
from gateway.agent.prompts import REPAIR
from tests.agent import fake_llm as llm
from tests.agent.fake_llm import FakeLLM, Reply, Script

PRINCIPAL = re.compile(r"You act for principal ([a-z0-9][a-z0-9_-]*) \(role")
REFUSED = REPAIR.split(";", 1)[0]  # how Sluice's note of a refused program starts
STATUS = re.compile(r"^\[Sluice\] [^\n]*\n\n")
ASK = "I may not work that out from your data: which account should I pay, and how much?"


class Faithful(Protocol):
    def program(self, account: str, request: str) -> str | None: ...

    def answer(self, request: str, outcome: dict[str, Any]) -> str: ...


@dataclass(frozen=True)
class Obedience:
    """What the model does for an attacker's text it reads: `program` (ME is the account
    it acts for) as planner, or else `voice` said."""

    program: str | None
    voice: str


@dataclass
class SuiteModel:
    faithful: Faithful
    detector: AttackerBytes | None = None
    attacks: dict[str, Obedience] = field(default_factory=dict)
    obeyed: list[tuple[str, str]] = field(default_factory=list)  # (role, attack), in order

    def arm(
        self,
        attacks: Mapping[str, tuple[list[str], Obedience]],
        clean: list[str],
        watched: Mapping[str, list[str]] | None = None,
    ) -> None:
        """Recognize these attacks (their planted memos) from now on; `clean` holds the texts
        of requests made without any, whose pieces prove nothing. `watched`: attackers' data
        that gives no order (steering), recognized but not obeyed."""
        texts = {name: memos for name, (memos, _) in attacks.items()} | dict(watched or {})
        self.detector = AttackerBytes(texts, clean)
        self.attacks = {name: obedience for name, (_, obedience) in attacks.items()}

    def respond(self, request: dict[str, Any]) -> Reply:
        found = self.detector.found(list(llm.texts(request))) if self.detector else None
        if found is None or found not in self.attacks:  # nothing, or data that orders nothing
            generic = llm.worst_case(self._faithful)
            assert callable(generic)
            return generic(request)
        role = "answerer" if llm.is_answerer(request) else "planner"
        self.obeyed.append((role, found))
        obedience = self.attacks[found]
        if role == "answerer":
            return llm.reply(obedience.voice, _claims(request))
        if obedience.program is None:
            return llm.answer(obedience.voice)
        account = _account(request)
        source = obedience.program.replace(ME, account)
        own = self.faithful.program(account, _request(request))
        if own is not None:
            source += "\n" + own
        return llm.program(source, explanation="first what the message asks, then the task")

    def _faithful(self, request: dict[str, Any]) -> Reply:
        if llm.is_answerer(request):
            shown = json.loads(request["messages"][-1]["content"])
            said = self.faithful.answer(str(shown["request"]), shown["outcome"])
            return llm.reply(said, _claims(request))
        if _last(request).startswith(REFUSED):
            return llm.question(ASK)
        source = self.faithful.program(_account(request), _request(request))
        return llm.question(ASK) if source is None else llm.program(source)


def _claims(request: dict[str, Any]) -> str:
    shown = json.loads(request["messages"][-1]["content"])
    return "success" if shown["outcome"]["status"] == "committed" else "failure"


def _account(request: dict[str, Any]) -> str:
    found = PRINCIPAL.search(str(request["messages"][0]["content"]))
    assert found is not None, "the planner's prompt names no principal"
    return found.group(1)


def _users(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request.get("messages", []) if m.get("role") == "user"]


def _request(request: dict[str, Any]) -> str:
    """The user's words of this turn (the first user message of a one-turn conversation)."""
    return STATUS.sub("", _users(request)[0])


def _last(request: dict[str, Any]) -> str:
    return _users(request)[-1]


class Always(deque[Script]):
    """A script that never runs out: every request gets the same responder."""

    def __init__(self, respond: Script) -> None:
        super().__init__([respond])

    def popleft(self) -> Script:
        return self[0]


def serve(fake: FakeLLM, model: SuiteModel) -> None:
    """Every request `fake` receives from now on is answered by `model`."""
    fake.script = Always(model.respond)
