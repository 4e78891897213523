"""The refusals of the shop: each message names the thing and the reason."""

from __future__ import annotations

from domain.errors import DomainError


class ProductNotFoundError(DomainError):
    def __init__(self, sku: str) -> None:
        super().__init__(f"no product {sku}")
        self.sku = sku


class ProductExistsError(DomainError):
    def __init__(self, sku: str) -> None:
        super().__init__(f"product {sku} already exists")
        self.sku = sku


class OutOfStockError(DomainError):
    def __init__(self, sku: str, stock: int, wanted: int) -> None:
        super().__init__(f"product {sku} has only {stock} in stock, not {wanted}")
        self.sku = sku


class InvalidQuantityError(DomainError):
    def __init__(self, quantity: int) -> None:
        super().__init__(f"a quantity is a whole number from 1, not {quantity}")


class InvalidPriceError(DomainError):
    """A price or an amount that is not a positive number of cents within the maximum."""


class OrderNotFoundError(DomainError):
    def __init__(self, order: str) -> None:
        super().__init__(f"no order {order}")
        self.order = order


class OrderExistsError(DomainError):
    def __init__(self, order: str) -> None:
        super().__init__(f"order {order} already exists")
        self.order = order


class OrderStatusError(DomainError):
    def __init__(self, order: str, status: str, action: str) -> None:
        super().__init__(f"order {order} is {status}; it cannot be {action}")
        self.order = order


class PaymentMismatchError(DomainError):
    def __init__(self, order: str, expected: str, given: str, what: str = "payment") -> None:
        super().__init__(f"the {what} of order {order} is {expected}, not {given}")
        self.order = order


class CatalogueNotFoundError(DomainError):
    def __init__(self) -> None:
        super().__init__("the catalogue is empty: no product was added yet")


class CatalogueExistsError(DomainError):
    def __init__(self) -> None:
        super().__init__("the catalogue already exists")
