"""The SDK's own client against `sluice mcp` (stdio) and /mcp (streamable HTTP), both real."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import anyio.to_thread
import httpx2
import mcp_types as types
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

SLUICE = str(Path(sys.executable).parent / "sluice")
Answer = Literal["accept", "untick", "decline", "cancel"]
# Both eras of the protocol: a mid-call elicitation request (legacy), or an
# InputRequiredResult and a second call with the answer (2026-07-28, what "auto" picks).
ERAS = ("legacy", "auto")


@dataclass
class Person:
    """The human behind the client, answering each question as told: a form is ticked and
    accepted (or left unticked, declined, cancelled); a link (URL mode) is followed, doing
    `visit` with its address, then accepted (or declined, cancelled). With no `visit`, a
    client that accepts whatever it is asked, with no one looking."""

    answer: Answer = "accept"
    asked: list[types.ElicitRequestParams] = field(default_factory=list)
    # Something that happens elsewhere while the person reads the first question.
    meanwhile: Callable[[], object] | None = None
    # What the person does on the page a link opens (the console's review page).
    visit: Callable[[str], object] | None = None

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        if self.meanwhile is not None and len(self.asked) == 1:
            await anyio.to_thread.run_sync(self.meanwhile)
        if isinstance(params, types.ElicitRequestURLParams):
            if self.answer in ("accept", "untick") and self.visit is not None:
                visit, url = self.visit, params.url
                await anyio.to_thread.run_sync(lambda: visit(url))
            action = "accept" if self.answer == "untick" else self.answer
            return types.ElicitResult(action=action)
        if self.answer == "accept":
            return types.ElicitResult(action="accept", content={"confirm": True})
        if self.answer == "untick":
            return types.ElicitResult(action="accept", content={"confirm": False})
        return types.ElicitResult(action=self.answer)

    @property
    def forms(self) -> list[types.ElicitRequestFormParams]:
        return [p for p in self.asked if isinstance(p, types.ElicitRequestFormParams)]

    @property
    def links(self) -> list[types.ElicitRequestURLParams]:
        return [p for p in self.asked if isinstance(p, types.ElicitRequestURLParams)]


@dataclass(frozen=True)
class Target:
    """Where the server is: a store for `sluice mcp`, or a served gateway's base URL."""

    transport: Literal["stdio", "http"]
    env: dict[str, str]
    base: str | None = None


@asynccontextmanager
async def connect(
    target: Target,
    key: str | None,
    *,
    mode: str = "auto",
    person: Person | None = None,
    extra_args: tuple[str, ...] = (),
    form_only: bool = False,
) -> AsyncIterator[Client]:
    """A connected SDK client; with no `person`, it declares no elicitation support; with
    `form_only`, forms but no URL elicitation (a client of protocol 2025-06-18)."""
    if target.transport == "stdio":
        env = {k: v for k, v in target.env.items() if k != "SLUICE_API_KEY"}
        if key is not None:
            env["SLUICE_API_KEY"] = key
        server: Any = StdioServerParameters(command=SLUICE, args=["mcp", *extra_args], env=env)
    else:
        assert target.base is not None
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300))
        server = streamable_http_client(f"{target.base}/mcp", http_client=http)
    kind = FormOnlyClient if form_only else Client
    async with kind(server, mode=mode, elicitation_callback=person) as client:
        yield client


class FormOnlyClient(Client):
    """The SDK's client, declaring form elicitation only, as clients did before URL mode."""

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        declared = session._build_capabilities

        def forms_only(version: str) -> types.ClientCapabilities:
            capabilities = declared(version)
            if capabilities.elicitation is None:
                return capabilities
            form = types.ElicitationCapability(form=types.FormElicitationCapability())
            return capabilities.model_copy(update={"elicitation": form})

        session._build_capabilities = forms_only  # type: ignore[method-assign]
        return session


def body(result: types.CallToolResult) -> dict[str, Any]:
    """The structured answer of a tool that succeeded."""
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    # The same JSON is also the text models read.
    assert json.loads(text(result)) == result.structured_content
    content: dict[str, Any] = result.structured_content
    return content


def text(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


def store_env(url: str) -> dict[str, str]:
    # Many tests propose as alice against one served gateway within a minute.
    return {**os.environ, "SLUICE_DATABASE_URL": url, "SLUICE_CAP_PROGRAMS_PER_MINUTE": "1000"}


# The first request of a session, for tests that probe /mcp with plain HTTP.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
AGENT_KEY = "sk-agent-demo-alice"
# The operator's declaration that alice's MCP client shows her the questions it is asked.
TRUSTED_CLIENTS = "SLUICE_MCP_TRUSTED_CLIENTS"
TRUSTS_ALICE = {TRUSTED_CLIENTS: "alice"}
HUMAN_KEY = "sk-demo-alice"


async def balance(client: Client, account: str = "alice") -> Decimal:
    """Read through MCP itself: a read-only program completes at once, no one confirms."""
    source = f'get_balance(account="{account}")\n'
    done = body(await client.call_tool("propose_program", {"language": "python", "source": source}))
    assert done["status"] == "committed" and done["outcome"]["changed"] == "nothing"
    return Decimal(done["preview"]["result"])  # the result is told once: in the preview


def transfer(amount: str, memo: str, payer: str = "alice", payee: str = "bob") -> str:
    return f'transfer(payer="{payer}", payee="{payee}", amount={amount}, memo="{memo}")\n'
