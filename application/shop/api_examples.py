"""The shop's examples in the OpenAPI document (application/api_examples.py): each is what
the served shop demo takes or answers (tests/shop/test_served.py compares)."""

from __future__ import annotations

from application.api_examples import ApiExamples

SHOP_EXAMPLES = ApiExamples(
    program='place_order(order="o-1001", customer="alice", sku="tea-green", quantity=2)',
    use_case="place_order",
    plan='{"steps": [{"tool": "get_product", "args": {"sku": "tea-green"}}]}',
    result={
        "order": "o-1001",
        "customer": "alice",
        "lines": [{"sku": "tea-green", "quantity": 2, "price": "4.50"}],
        "total": "9.00",
        "paid": "0.00",
        "status": "placed",
    },
    event={
        "account": "o-1001",
        "type": "Placed",
        "data": {
            "order": "o-1001",
            "customer": "alice",
            "lines": [{"sku": "tea-green", "quantity": 2, "price": "4.50"}],
            "total": "9.00",
        },
    },
    not_yours="get_order: customer bob is not one of principal alice's customers",
    refused="place_order: no product tea-black",
    refusal="product-not-found",
    directory=(
        "- place_order [write] Place an order of one product for a customer, reserving its stock."
    ),
)
