"""The LLM agent: a planner that never sees data, proposals through the gateway, a checked answer.

`Agent(gateway, AgentConfig.from_settings(settings))` is all the HTTP layer and the CLI need.
`Agent` (with the openai client under it) is imported when it is first asked for: every
`sluice` process reads the settings, which import this package, and most never talk to a
model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gateway.agent.config import AgentConfig

if TYPE_CHECKING:
    from gateway.agent.agent import Agent

__all__ = ["Agent", "AgentConfig"]


def __getattr__(name: str) -> Any:
    if name == "Agent":
        from gateway.agent.agent import Agent

        return Agent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
