"""Money of any domain (`domain.amounts`) and the money parameters built on it
(`application.money_types.MoneyRules`): one check, each domain's bound and refusal."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

import pytest
from pydantic import BaseModel, ValidationError

from application.money_types import MoneyRules
from domain import amounts, money
from domain.errors import DomainError, InvalidAmountError
from domain.shop import money as shop_money
from domain.shop.errors import InvalidPriceError


class FeeError(DomainError):
    """A domain of its own: its refusal, its maximum."""


def fee(value: Decimal | int | str) -> Decimal:
    return amounts.bounded(value, Decimal("50.00"), FeeError)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("50.01", "amount 50.01 is over the maximum of 50.00"),
        ("0", "amount must be positive, got 0"),
        ("-1", "amount must be positive, got -1"),
        ("1.005", "amount 1.005 has more than 2 decimal places"),
        ("NaN", "amount NaN is not a finite number"),
        ("ten", "amount ten is not a number"),
        (
            "1" + "0" * 5000,
            "amount 10000000000000000000... (5001 digits) is over the maximum of 50.00",
        ),
    ],
)
def test_an_amount_is_judged_against_the_maximum_and_refused_with_the_error_given(
    value: Decimal | int | str, reason: str
) -> None:
    with pytest.raises(FeeError) as refused:
        fee(value)

    assert str(refused.value) == reason


@pytest.mark.parametrize(("value", "kept"), [("50", "50.00"), ("0.1", "0.10"), ("2.500", "2.50")])
def test_an_amount_within_the_maximum_is_kept_to_the_cent(value: str, kept: str) -> None:
    assert str(fee(value)) == kept


def test_each_domain_bounds_its_money_by_the_generic_bounds() -> None:
    assert money.MAX_AMOUNT == shop_money.MAX_PRICE == amounts.MAX_AMOUNT == Decimal(10**12)
    assert money.MAX_BALANCE == amounts.MAX_SUM == Decimal(10**15)
    with pytest.raises(InvalidAmountError, match=r"over the maximum of 1000000000000\.00"):
        money.amount("1000000000000.01")
    with pytest.raises(InvalidPriceError, match=r"over the maximum of 1000000000000\.00"):
        shop_money.price("1000000000000.01")


def test_the_shop_keeps_its_own_words_for_an_amount_that_is_not_positive() -> None:
    with pytest.raises(InvalidPriceError, match=r"^an amount is positive, not -3$"):
        shop_money.price("-3")
    with pytest.raises(InvalidAmountError, match=r"^amount must be positive, got -3$"):
        money.amount("-3")


def test_a_long_number_is_quoted_by_its_head_and_its_length() -> None:
    assert amounts.shown(Decimal("12.50")) == "12.50"
    assert amounts.shown(10**5000) == "10000000000000000000... (5001 digits)"
    assert amounts.shown("9" * 30) == "99999999999999999999... (30 digits)"
    assert amounts.fmt(Decimal(7)) == "7.00"


class Fees(BaseModel):
    fee: Annotated[Decimal, MoneyRules(fee, FeeError, Decimal("50.00"))]
    tip: Annotated[Decimal, MoneyRules(fee, FeeError, Decimal("50.00"), zero=True)] = Decimal(0)


def test_a_money_parameter_is_refused_with_its_domains_message() -> None:
    with pytest.raises(ValidationError) as refused:
        Fees(fee=Decimal("50.01"))

    [error] = refused.value.errors()
    assert (error["loc"], error["msg"]) == (
        ("fee",),
        "Value error, amount 50.01 is over the maximum of 50.00",
    )


def test_a_float_is_judged_by_its_true_digits_and_zero_may_be_none() -> None:
    with pytest.raises(ValidationError, match=r"amount 0\.30000000000000004 has more than 2"):
        Fees.model_validate({"fee": 0.1 + 0.2})

    fees = Fees.model_validate({"fee": 0.5, "tip": 0})
    assert (str(fees.fee), str(fees.tip)) == ("0.50", "0.00")
    with pytest.raises(ValidationError, match="amount must be positive, got -1"):
        Fees.model_validate({"fee": 1, "tip": -1})


def test_the_schema_states_the_bound() -> None:
    properties = Fees.model_json_schema()["properties"]
    bounds = ("type", "exclusiveMinimum", "minimum", "maximum")

    fee, tip = ({k: v for k, v in properties[n].items() if k in bounds} for n in ("fee", "tip"))
    assert fee == {"type": "number", "exclusiveMinimum": 0, "maximum": 50}
    assert tip == {"type": "number", "minimum": 0, "maximum": 50}
