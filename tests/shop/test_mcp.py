"""The shop over MCP: the SDK's own client against `sluice mcp --domain shop` (stdio) and
/mcp of `sluice serve --domain shop --demo`, each on a SQLite store of its own. The tools
are the gateway's four; the directory and sheets are the shop's; a customer's order waits
for a person, who confirms it on the review page (or with `sluice confirm`); a program that
names what the principal may not do is refused before it runs."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.mcp.routes import confirm_on_review_page
from tests.mcp.support import (
    AGENT_KEY,
    ERAS,
    HUMAN_KEY,
    SLUICE,
    Person,
    Target,
    body,
    connect,
    store_env,
    text,
)
from tests.served import serving

pytestmark = pytest.mark.asyncio
SHOP = ("--domain", "shop")


@pytest.fixture(scope="module")
def stdio_shop(tmp_path_factory: pytest.TempPathFactory) -> Target:
    path = tmp_path_factory.mktemp("shop-mcp") / "stdio.db"
    # `sluice mcp` links to the console a `sluice serve` on the same store answers; the
    # operators' commands (`sluice confirm`) are told the domain by SLUICE_DOMAIN.
    env = store_env(f"sqlite:///{path}") | {
        "SLUICE_CONSOLE_URL": "http://127.0.0.1:8000/",
        "SLUICE_DOMAIN": "shop",
    }
    subprocess.run([SLUICE, *SHOP, "demo"], env=env, capture_output=True, text=True, check=True)
    return Target("stdio", env)


@pytest.fixture(scope="module")
def http_shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    env = store_env(f"sqlite:///{tmp_path_factory.mktemp('shop-mcp') / 'http.db'}")
    with serving([SLUICE, "serve", *SHOP, "--demo"], env) as base:
        yield Target("http", env, base)


@pytest.fixture(params=["stdio", "http"])
def shop(request: pytest.FixtureRequest) -> Target:
    chosen: Target = request.getfixturevalue(f"{request.param}_shop")
    return chosen


def extra(target: Target) -> tuple[str, ...]:
    return SHOP if target.transport == "stdio" else ()


async def propose(client: Any, source: str) -> Any:
    return await client.call_tool("propose_program", {"language": "python", "source": source})


async def stock(client: Any, sku: str) -> int:
    """Read through MCP itself: a read-only program completes at once, no one confirms."""
    done = body(await propose(client, f'get_product(sku="{sku}")["stock"]\n'))
    assert done["status"] == "committed" and done["outcome"]["changed"] == "nothing"
    found: int = done["preview"]["result"]
    return found


async def test_the_tools_are_the_gateways_and_the_directory_and_sheets_the_shops(
    shop: Target,
) -> None:
    async with connect(shop, AGENT_KEY, extra_args=extra(shop)) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        directory = text(await client.call_tool("directory", {}))
        sheets = body(await client.call_tool("find_actions", {"names": ["place_order"]}))
        forbidden = await client.call_tool("find_actions", {"names": ["restock"]})
        banks = await client.call_tool("find_actions", {"names": ["transfer"]})
    assert tools == {"directory", "find_actions", "propose_program", "proposal_status"}
    assert directory.startswith("You act on a shop's products and orders")
    assert "- place_order [write]" in directory and "- get_product [read]" in directory
    assert "transfer" not in directory and "restock" not in directory  # staff's
    [sheet] = sheets["sheets"]
    assert sheet["name"] == "place_order"
    assert set(sheet["parameters"]["properties"]) == {"order", "customer", "sku", "quantity"}
    assert forbidden.is_error and "forbidden: " in text(forbidden)
    assert banks.is_error and "not-found: " in text(banks)


async def test_a_read_completes_at_once_and_tells_the_suppliers_note_by_its_writer(
    shop: Target,
) -> None:
    async with connect(shop, AGENT_KEY, extra_args=extra(shop)) as client:
        done = body(await propose(client, 'get_product(sku="mug")\n'))
    assert done["status"] == "committed" and done["outcome"]["changed"] == "nothing"
    result = done["preview"]["result"]
    assert (result["sku"], result["price"]) == ("mug", "12.00")
    assert (result["note"], result["note_by"]) == ("handle glazed by hand", "claywork")


@pytest.mark.parametrize("mode", ERAS)
async def test_an_order_waits_for_a_person_who_confirms_it_on_the_review_page(
    shop: Target, mode: str
) -> None:
    order = f"m-{shop.transport}-{mode}"
    confirmed: list[tuple[int, object]] = []
    person = Person(
        "accept", visit=lambda url: confirmed.append(confirm_on_review_page(shop, url, HUMAN_KEY))
    )
    source = f'place_order(order="{order}", customer="alice", sku="tea-green", quantity=3)\n'
    async with connect(shop, AGENT_KEY, mode=mode, person=person, extra_args=extra(shop)) as client:
        before = await stock(client, "tea-green")
        done = body(await propose(client, source))
        after = await stock(client, "tea-green")
        status = body(await client.call_tool("proposal_status", {"id": done["id"]}))
    [(code, outcome)] = confirmed
    assert code in (200, 0), outcome
    # The person was shown the shop's events before deciding, by a link (never a form).
    [link] = person.links
    assert person.forms == []
    assert "would append 2 events, all or nothing" in link.message
    assert f"{order}: Placed" in link.message and "tea-green: Reserved" in link.message
    assert done["status"] == "committed" and done["confirmed_by"] == "alice"
    assert [e["type"] for e in done["outcome"]["events"]] == ["Placed", "Reserved"]
    assert status["status"] == "committed"
    assert after == before - 3


async def test_an_order_no_one_confirms_writes_nothing(shop: Target) -> None:
    person = Person("decline")
    source = 'place_order(order="m-declined", customer="alice", sku="mug", quantity=1)\n'
    async with connect(shop, AGENT_KEY, person=person, extra_args=extra(shop)) as client:
        before = await stock(client, "mug")
        done = body(await propose(client, source))
        after = await stock(client, "mug")
    assert done["status"] == "pending"
    assert after == before


@pytest.mark.parametrize(
    ("source", "says"),
    [
        # Another customer's order: alice owns the customer id alice only.
        ('place_order(order="m-bob", customer="bob", sku="mug", quantity=1)\n', "bob"),
        # Staff's use case: a customer's program may not name it.
        ('restock(sku="mug", quantity=5, supplier="claywork")\n', "restock"),
    ],
)
async def test_a_program_beyond_the_customers_reach_is_refused_and_writes_nothing(
    shop: Target, source: str, says: str
) -> None:
    async with connect(shop, AGENT_KEY, extra_args=extra(shop)) as client:
        before = await stock(client, "mug")
        refused = await propose(client, source)
        after = await stock(client, "mug")
    assert refused.is_error
    assert "forbidden" in text(refused) and says in text(refused)
    assert after == before
