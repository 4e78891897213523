"""The shop as a domain Sluice serves: registered as `shop` in pyproject.toml."""

from __future__ import annotations

from typing import TYPE_CHECKING

from application.domains import Domain, OwnedWords
from application.shop import DIRECTORY_HEADER, SHOP_USE_CASES
from application.shop.agent_words import SHOP_WORDS
from application.shop.api_examples import SHOP_EXAMPLES
from application.shop.audited import ORDERS, PRODUCTS
from application.shop.demo import SHOP_DEMO
from application.shop.money_moves import money_moves
from application.shop.read_models import SHOP_READ_MODELS
from application.shop.read_routes import SHOP_READ_ROUTES
from application.shop.telling import SHOP_TELLING
from domain.shop.order import Order

if TYPE_CHECKING:
    from application.ledger import Ledger


def _customer_of(record: object) -> str | None:
    """The customer an order belongs to: its events are that customer's to see whole."""
    return record.customer if isinstance(record, Order) else None


def _any_customer(ledger: Ledger, customer: str) -> bool:
    """A customer id needs no record of its own: any well-formed one may be owned."""
    del ledger, customer
    return True


SHOP = Domain(
    name="shop",
    title="The shop: products, stock and customers' orders",
    use_cases=SHOP_USE_CASES,
    directory_header=DIRECTORY_HEADER,
    demo=SHOP_DEMO,
    ownable=_any_customer,
    agent_words=SHOP_WORDS,
    telling=SHOP_TELLING,
    api_examples=SHOP_EXAMPLES,
    money_moves=money_moves,
    read_routes=SHOP_READ_ROUTES,
    read_models=SHOP_READ_MODELS,
    # A customer principal owns customer ids: the ones it may order as.
    owned_words=OwnedWords(
        many="customers",
        not_owned="is not one of principal {principal}'s customers",
        an_id="a customer id",
        records="orders and products",
        record="order",
        owner_of=_customer_of,
    ),
    # `sluice --domain shop audit record order o-1001`, `... product mug`.
    audited=(ORDERS, PRODUCTS),
)
