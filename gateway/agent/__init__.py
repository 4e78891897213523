"""The LLM agent: a planner that never sees data, proposals through the gateway, a checked answer.

`Agent(gateway, AgentConfig.from_settings(settings))` is all the HTTP layer and the CLI need.
"""

from __future__ import annotations

from gateway.agent.agent import Agent
from gateway.agent.config import AgentConfig

__all__ = ["Agent", "AgentConfig"]
