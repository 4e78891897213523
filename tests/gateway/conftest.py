"""A real gateway on each embedded store, the demo seeded through it, with a clock tests move."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest

from application import principals
from application.ledger import Ledger
from application.principals import PrincipalView
from domain.account import Account
from gateway.core.catalog import Catalog
from gateway.core.facade import Gateway
from gateway.core.policy.caps import Caps
from gateway.core.program.runner import ProgramRunner
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from tests.conftest import TEST_CAPS, Clock


def make_gateway(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock, caps: Caps = TEST_CAPS
) -> Gateway:
    runner = ProgramRunner(ledger, catalog, sandbox, caps.program_limits())
    return Gateway(ledger, catalog, runner, caps, clock=clock)


@pytest.fixture
def gateway(ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock) -> Gateway:
    """The demo ledger and principals, seeded through the gateway itself."""
    built = make_gateway(ledger, catalog, sandbox, clock)
    seed(built)
    return built


@pytest.fixture
def who(gateway: Gateway) -> Callable[[str], PrincipalView]:
    def principal(name: str) -> PrincipalView:
        found = principals.find(gateway.ledger, name)
        assert found is not None, name
        return found

    return principal


def accounts_state(ledger: Ledger) -> dict[str, tuple[Decimal, int]]:
    """Every account's balance and version: what 'nothing was appended' must leave alone."""
    state = {}
    for name in ledger.keys_in_log(Account):
        account = ledger.load_keyed(Account, name)
        assert isinstance(account, Account)
        state[name] = (account.balance, account.version)
    return state
