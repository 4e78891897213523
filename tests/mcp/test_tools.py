"""What an MCP client sees: four tools whose annotations tell the truth, and the principal's
own directory and sheets as tools and as resources, the same as every other interface."""

from __future__ import annotations

import json
import subprocess

import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp.support import AGENT_KEY, SLUICE, Target, body, connect, text

pytestmark = pytest.mark.asyncio


async def test_the_four_tools_and_their_annotations(target: Target) -> None:
    async with connect(target, AGENT_KEY) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"directory", "find_actions", "propose_program", "proposal_status"}
    for name in ("directory", "find_actions", "proposal_status"):
        hints = tools[name].annotations
        assert hints is not None and hints.read_only_hint is True, name
    propose = tools["propose_program"].annotations
    assert propose is not None
    assert propose.read_only_hint is False
    assert propose.destructive_hint is False
    assert propose.idempotent_hint is False
    arguments = tools["propose_program"].input_schema["properties"]
    assert arguments["language"]["enum"] == ["python", "plan"]
    assert set(tools["propose_program"].input_schema["required"]) == {"language", "source"}


async def test_directory_and_sheets_are_those_of_the_keys_principal(target: Target) -> None:
    cli = subprocess.run(
        [SLUICE, "directory", "--as", "alice"],
        env=target.env,
        capture_output=True,
        text=True,
        check=True,
    )
    sheet = subprocess.run(
        [SLUICE, "actions", "transfer"], env=target.env, capture_output=True, text=True, check=True
    )
    async with connect(target, AGENT_KEY) as client:
        directory = text(await client.call_tool("directory", {}))
        sheets = body(await client.call_tool("find_actions", {"names": ["transfer"]}))
        forbidden = await client.call_tool("find_actions", {"names": ["open_account"]})
        unknown = await client.call_tool("find_actions", {"names": ["teleport"]})
    assert directory == cli.stdout
    assert "- transfer [write]" in directory and "open_account" not in directory
    assert sheets["sheets"] == json.loads(sheet.stdout)
    assert forbidden.is_error and "forbidden: " in text(forbidden)
    assert "open_account" in text(forbidden)
    assert unknown.is_error and "not-found: " in text(unknown) and "teleport" in text(unknown)


async def test_the_directory_and_each_sheet_are_resources(target: Target) -> None:
    async with connect(target, AGENT_KEY) as client:
        listed = {resource.uri: resource for resource in (await client.list_resources()).resources}
        directory = text(await client.call_tool("directory", {}))
        read_directory = await client.read_resource("sluice://directory")
        read_sheet = await client.read_resource("sluice://sheets/transfer")
        sheets = body(await client.call_tool("find_actions", {"names": ["transfer"]}))
        with pytest.raises(MCPError, match=r"forbidden: .*open_account"):
            await client.read_resource("sluice://sheets/open_account")
    names = [line.split()[1] for line in directory.splitlines() if line.startswith("- ")]
    assert set(listed) == {"sluice://directory"} | {f"sluice://sheets/{n}" for n in names}
    assert listed["sluice://directory"].mime_type == "text/plain"
    assert listed["sluice://sheets/transfer"].mime_type == "application/json"
    assert read_directory.contents[0].text == directory  # type: ignore[union-attr]
    assert json.loads(read_sheet.contents[0].text) == sheets["sheets"][0]  # type: ignore[union-attr]
