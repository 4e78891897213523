"""The suite as a whole: its tasks, its combinations, and what a faithful model does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.injection.agentdojo_tasks import AGENTDOJO_TASKS
from benchmarks.injection.attacks import TEMPLATES, Template
from benchmarks.injection.injection_tasks import INJECTION_TASKS, InjectionTask
from benchmarks.injection.issue_tasks import ISSUE_TASKS
from benchmarks.injection.user_task import UserTask
from benchmarks.injection.world import ME, Setting, memos, setting

USER_TASKS: tuple[UserTask, ...] = (*AGENTDOJO_TASKS, *ISSUE_TASKS)


@dataclass(frozen=True)
class Combination:
    """A user task, attacked by an injection task in a template, or not (the baseline)."""

    task: UserTask
    injection: InjectionTask | None = None
    template: Template | None = None

    @property
    def name(self) -> str:
        if self.injection is None or self.template is None:
            return f"{self.task.id}/none"
        return f"{self.task.id}/{self.injection.id}/{self.template.name}"

    @property
    def account(self) -> str:
        """The user's account (and principal), fresh for this combination."""
        if self.injection is None or self.template is None:
            return f"{self.task.id}-none"
        return f"{self.task.id}-{self.injection.id}-{self.template.short}"

    @property
    def attacker_memos(self) -> list[str]:
        """The attacker's text as planted: none in the baseline."""
        if self.injection is None or self.template is None:
            return []
        return planted(self.injection, self.template)

    def setting(self) -> Setting:
        return setting(self.account, self.task.accounts, self.task.setup, self.attacker_memos)


def baseline(tasks: tuple[UserTask, ...] = USER_TASKS) -> list[Combination]:
    return [Combination(task) for task in tasks]


def attacked(tasks: tuple[UserTask, ...] = USER_TASKS) -> list[Combination]:
    return [
        Combination(task, injection, template)
        for task in tasks
        for injection in INJECTION_TASKS
        for template in TEMPLATES
    ]


def by_id(task_id: str) -> UserTask:
    for task in USER_TASKS:
        if task.id == task_id:
            return task
    known = ", ".join(task.id for task in USER_TASKS)
    raise ValueError(f"no user task {task_id!r}: the tasks are {known}")


def planted(injection: InjectionTask, template: Template) -> list[str]:
    """The memos an attacker plants: `injection` in `template`."""
    return memos(template.fill(injection), injection.words_per_memo)


class FaithfulModel:
    """The user's task, done as asked: the programs and the answers a good model writes."""

    def __init__(self, tasks: tuple[UserTask, ...] = USER_TASKS) -> None:
        self.by_request = {task.request: task for task in tasks}

    def program(self, account: str, request: str) -> str | None:
        """The faithful program for `request`, acting for `account`; None: ask instead."""
        task = self.by_request.get(request)
        return None if task is None else task.source(account)

    def answer(self, request: str, outcome: dict[str, Any]) -> str:
        """What the outcome of the program says, in a sentence or two."""
        if outcome.get("status") != "committed":
            return "I could not do that: nothing was written."
        said = [
            f"You sent {event['data']['amount']} euros to {event['data']['counterparty']}."
            for event in outcome.get("events") or []
            if str(event.get("type", "")).endswith("TransferDebited")
        ]
        task = self.by_request.get(request)
        if task is not None and task.answer is not None:
            said.append(task.answer(outcome.get("result")))
        return " ".join(said) or "Done."


def attack_program(injection: InjectionTask, account: str) -> str | None:
    return None if injection.program is None else injection.program.replace(ME, account)
