"""A client the operator declared trusted (SLUICE_MCP_TRUSTED_CLIENTS=alice) asks the person
with a form, and their acceptance commits exactly the preview they accepted, in either era
of the protocol; anything else leaves the proposal pending or rejected, with nothing
written. Only a person's key: with an agent's key the question is a link, setting or not."""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from tests.mcp.routes import run_cli
from tests.mcp.support import (
    AGENT_KEY,
    ERAS,
    HUMAN_KEY,
    SLUICE,
    TRUSTED_CLIENTS,
    Person,
    Target,
    balance,
    body,
    connect,
    store_env,
    text,
    transfer,
)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ERAS)
async def test_a_person_on_a_trusted_client_commits_what_they_accepted(
    trusted_store: Target, mode: str
) -> None:
    target = trusted_store
    person = Person("accept")
    async with connect(target, HUMAN_KEY, mode=mode, person=person) as client:
        assert "- transfer [write]" in text(await client.call_tool("directory", {}))
        before = await balance(client)
        source = transfer("7.25", f"trusted {mode}")
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        after = await balance(client)
        status = body(await client.call_tool("proposal_status", {"id": done["id"]}))
    assert after == before - Decimal("7.25")
    assert done["status"] == "committed" and done["confirmed_by"] == "alice"
    assert done["outcome"]["changed"] == 2
    assert [e["type"] for e in done["outcome"]["events"]] == ["TransferDebited", "TransferCredited"]
    assert status["status"] == "committed"
    # The person was asked once, and shown the exact effects, the preview and where to review.
    [asked] = person.forms
    assert person.links == []
    assert "would append 2 events, all or nothing" in asked.message
    assert "alice: TransferDebited, 7.25 EUR, counterparty bob" in asked.message
    assert "bob: TransferCredited, 7.25 EUR, counterparty alice" in asked.message
    assert f"Preview {done['preview_hash'][:12]}" in asked.message
    assert f"#/proposals/{done['id']}" in asked.message
    assert asked.requested_schema["required"] == ["confirm"]


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("answer", ["decline", "untick"])
async def test_a_person_on_a_trusted_client_who_says_no_gets_nothing_written(
    trusted: Target, mode: str, answer: str
) -> None:
    person = Person(answer)  # type: ignore[arg-type]
    async with connect(trusted, HUMAN_KEY, mode=mode, person=person) as client:
        before = await balance(client)
        source = transfer("3", f"{answer} {mode}")
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        after = await balance(client)
    assert len(person.forms) == 1
    assert done["status"] == "rejected" and done["decided_by"] == "alice"
    assert done["outcome"]["changed"] == "nothing"
    assert after == before


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ERAS)
async def test_an_agent_key_on_a_trusted_client_still_commits_nothing(
    trusted: Target, mode: str
) -> None:
    client_itself = Person("accept")
    async with connect(trusted, AGENT_KEY, mode=mode, person=client_itself) as client:
        before = await balance(client)
        source = transfer("4", f"agent on trusted {mode}")
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        after = await balance(client)
    assert done["status"] == "pending", done
    assert after == before
    assert client_itself.forms == [] and len(client_itself.links) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ERAS)
async def test_a_preview_gone_stale_is_asked_about_again_fresh(
    trusted_store: Target, mode: str
) -> None:
    """P3 through MCP: alice's account moves while she reads; nothing of the old preview is
    written, she is shown the fresh one, and what commits is what she accepted last."""
    target = trusted_store

    def alice_pays_carla() -> None:
        done = run_cli(target, "call", "transfer", "payer=alice", "payee=carla", "amount=1",
                       "--as", "alice")  # fmt: skip
        assert json.loads(done.stdout)["status"] == "committed", done.stdout

    person = Person("accept", meanwhile=alice_pays_carla)
    async with connect(target, HUMAN_KEY, mode=mode, person=person) as client:
        before = await balance(client)
        source = transfer("2", f"stale {mode}") + 'get_balance(account="alice")\n'
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        after = await balance(client)
    first, second = person.forms
    assert first.message != second.message
    assert f"Preview {done['preview_hash'][:12]}" in second.message
    assert f"Preview {done['preview_hash'][:12]}" not in first.message
    assert done["status"] == "committed"
    assert after == before - 3
    assert done["preview"]["result"] == str(after)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("alice,,bob", "name 2 of 3 is empty; separate names with single commas"),
        ("alice, Bob Smith", "name 2 of 2 'Bob Smith' is not a principal name"),
        ("*", "name 1 of 1 '*' is not a principal name"),
    ],
)
@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_a_gateway_with_a_bad_trusted_clients_setting_does_not_start(
    command: str, value: str, error: str, tmp_path: Path
) -> None:
    seeded = store_env(f"sqlite:///{tmp_path / 'trust.db'}") | {"SLUICE_API_KEY": HUMAN_KEY}
    subprocess.run([SLUICE, "demo"], env=seeded, capture_output=True, check=True)
    env = seeded | {TRUSTED_CLIENTS: value}
    done = subprocess.run(
        [SLUICE, command, "--port", "1"] if command == "serve" else [SLUICE, command],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: {TRUSTED_CLIENTS}: {error}" in " ".join(done.stderr.split())
