"""Products: added and restocked by staff, listed and read by everyone."""

from __future__ import annotations

from pydantic import Field

from application.permissions import EVERYONE, STAFF, Permission
from application.shop.results import ProductView
from application.shop.types import Note, Price, ProductName, Quantity, Sku, Supplier
from application.unit_of_work import UnitOfWork
from application.use_case import Example, UseCase
from domain.shop.catalogue import CATALOGUE, Catalogue
from domain.shop.errors import CatalogueNotFoundError
from domain.shop.product import Product


def catalogue_to_write(uow: UnitOfWork) -> Catalogue:
    """The catalogue, started with the first product."""
    try:
        return uow.get(Catalogue, CATALOGUE)
    except CatalogueNotFoundError:
        catalogue = Catalogue()
        uow.add(catalogue, CATALOGUE)
        return catalogue


class AddProduct(UseCase[ProductView]):
    """Add a product to the catalogue, with no stock yet.

    Refused if a product with that sku already exists.
    """

    name = "add_product"
    kind = "write"
    permission = Permission.of(*STAFF)
    max_calls = 20

    sku: Sku = Field(description="The new product's sku, e.g. tea-green.")
    title: ProductName = Field(description="The product's name, e.g. Green tea.")
    price: Price = Field(description="The unit price in euros.")

    examples = (
        Example(
            "Add green tea at 4.50 euros, sku tea-green.",
            'add_product(sku="tea-green", title="Green tea", price=4.50)',
            asked_by="staff",
        ),
    )

    def perform(self, uow: UnitOfWork) -> ProductView:
        product = Product.add(self.sku, self.title, self.price)
        uow.add(product, self.sku)  # refused before anything changes if the sku is taken
        catalogue_to_write(uow).list_sku(self.sku)
        return ProductView.of(product)


class Restock(UseCase[ProductView]):
    """Add units to a product's stock, with the note its supplier sent along.

    The note is the supplier's own words, kept as they wrote them.
    """

    name = "restock"
    kind = "write"
    permission = Permission.of(*STAFF)
    max_calls = 20

    sku: Sku = Field(description="The product restocked.")
    quantity: Quantity = Field(description="How many units arrived.")
    supplier: Supplier = Field(description="The supplier who delivered them, e.g. leafco.")
    note: Note = Field(default="", description="The supplier's delivery note, as written.")

    examples = (
        Example(
            "12 boxes of tea-green came in from leafco; their note says 'harvest of May'.",
            'restock(sku="tea-green", quantity=12, supplier="leafco", note="harvest of May")',
            asked_by="staff",
        ),
    )

    def perform(self, uow: UnitOfWork) -> ProductView:
        product = uow.get(Product, self.sku)
        product.restock(self.quantity, self.supplier, self.note)
        return ProductView.of(product)


class GetProduct(UseCase[ProductView]):
    """Show a product: its price, its stock and its last supplier's note."""

    name = "get_product"
    kind = "read"
    permission = Permission.of(*EVERYONE)

    sku: Sku = Field(description="The product's sku.")

    examples = (Example("How many tea-green are left?", 'get_product(sku="tea-green")["stock"]'),)

    def perform(self, uow: UnitOfWork) -> ProductView:
        return ProductView.of(uow.get(Product, self.sku))


class ListProducts(UseCase[list[ProductView]]):
    """List every product of the catalogue, in the order they were added."""

    name = "list_products"
    kind = "read"
    permission = Permission.of(*EVERYONE)

    examples = (Example("What do you sell?", "list_products()"),)

    def perform(self, uow: UnitOfWork) -> list[ProductView]:
        if not uow.has(Catalogue, CATALOGUE):
            return []
        skus = list(uow.get(Catalogue, CATALOGUE).skus)
        return [ProductView.of(uow.get(Product, sku)) for sku in skus]
