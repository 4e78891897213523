"""What the agent's prompts say of the shop: its data and its requests, in its words."""

from __future__ import annotations

from application.domains import AgentWords

SHOP_WORDS = AgentWords(
    data="the shop's data",
    data_examples="products, stock, orders and results",
    reads="a question about products, stock or orders",
    call_example='place_order(order="o-1", customer="alice", sku="mug", quantity=1)',
    sheet_example="place_order",
    ask_when=(
        'the request does not say which product or how many (as in "Order some tea."): '
        "ask, never guess a product or a quantity"
    ),
    only_what=(
        "order with place_order; never pay, ship, cancel, refund or restock unless the "
        "user asks for exactly that"
    ),
    given="products, quantities, order ids and amounts",
    owned="customer ids",
    owns="; {name} orders as the customer {first} (customer ids it owns: {owned})",
    cannot="Give me a discount code.",
    shown="status, events, result",
    quotes="every note and name",
    ids="order ids and skus",
    repeated="notes or names",
    advice="give no advice to pay, order or refund",
    texts="notes, names, messages",
)
