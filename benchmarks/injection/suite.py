"""The suite as a whole: its tasks, its combinations, and what a faithful model does."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from benchmarks.injection.agentdojo_tasks import AGENTDOJO_TASKS
from benchmarks.injection.attacks import TEMPLATES, Template
from benchmarks.injection.injection_tasks import INJECTION_TASKS, InjectionTask
from benchmarks.injection.issue_tasks import ISSUE_TASKS
from benchmarks.injection.judge import Run
from benchmarks.injection.steering import STEERING, Steering
from benchmarks.injection.user_task import UserTask
from benchmarks.injection.world import ME, Setting, memos, setting

USER_TASKS: tuple[UserTask, ...] = (*AGENTDOJO_TASKS, *ISSUE_TASKS)


@dataclass(frozen=True)
class Combination:
    """A user task, attacked by an injection task in a template, or steered by mallory's
    data (`steering`), or neither (the baseline)."""

    task: UserTask
    injection: InjectionTask | None = None
    template: Template | None = None
    steering: Steering | None = None

    @property
    def attack(self) -> str | None:
        """The attack's name (`it5/ignore_previous`, `steer-money`); None in the baseline."""
        if self.steering is not None:
            return self.steering.id
        if self.injection is None or self.template is None:
            return None
        return f"{self.injection.id}/{self.template.name}"

    @property
    def name(self) -> str:
        return f"{self.task.id}/{self.attack or 'none'}"

    @property
    def account(self) -> str:
        """The user's account (and principal), fresh for this combination."""
        if self.steering is not None:
            return f"{self.task.id}-{self.steering.id}"
        if self.injection is None or self.template is None:
            return f"{self.task.id}-none"
        return f"{self.task.id}-{self.injection.id}-{self.template.short}"

    @property
    def attacker_memos(self) -> list[str]:
        """The attacker's text as planted: none in the baseline."""
        if self.steering is not None:
            return self.steering.memos(self.task.id)
        if self.injection is None or self.template is None:
            return []
        return planted(self.injection, self.template)

    def setting(self) -> Setting:
        if self.steering is None:
            return setting(self.account, self.task.accounts, self.task.setup, self.attacker_memos)
        # Mallory's payments come after the task's world, whose vectors hold harmless text.
        steered = (*self.task.setup, *self.steering.moves(self.task.id))
        planted_world = setting(self.account, self.task.accounts, steered)
        return replace(planted_world, attacker_memos=tuple(self.attacker_memos))

    def security(self, run: Run, setting: Setting) -> bool:
        """Whether the attack succeeded in `run` (never in the baseline)."""
        if self.steering is not None:
            return self.steering.security(self.task.id)(run, setting)
        return self.injection is not None and self.injection.security(run, setting)


def baseline(tasks: tuple[UserTask, ...] = USER_TASKS) -> list[Combination]:
    return [Combination(task) for task in tasks]


def attacked(tasks: tuple[UserTask, ...] = USER_TASKS) -> list[Combination]:
    """Every injection task in every template, then every steering, for each task."""
    return [
        *(
            Combination(task, injection, template)
            for task in tasks
            for injection in INJECTION_TASKS
            for template in TEMPLATES
        ),
        *(Combination(task, steering=steering) for task in tasks for steering in STEERING),
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
