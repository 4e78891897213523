"""The set of products, versioned: one event per product added.

A program that lists the products decides on the whole set; the version of this aggregate
guards its commit, so a product added since the preview makes the commit a conflict.
"""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.errors import DomainError
from domain.shop.errors import CatalogueExistsError, CatalogueNotFoundError

# The one catalogue's business key.
CATALOGUE = "catalogue"
CATALOGUE_ID = uuid5(NAMESPACE_URL, "sluice:shop:catalogue")


class Catalogue(Aggregate):
    class Started(Aggregate.Created):
        pass

    class Listed(Aggregate.Event):
        sku: str

    @staticmethod
    def id_for(key: str) -> UUID:
        return CATALOGUE_ID

    @staticmethod
    def not_found(key: str) -> DomainError:
        return CatalogueNotFoundError()

    @staticmethod
    def already_exists(key: str) -> DomainError:
        return CatalogueExistsError()

    @staticmethod
    def create_id() -> UUID:
        return CATALOGUE_ID

    @event(Started)
    def __init__(self) -> None:
        # Every sku listed, in the order the products were added.
        self.skus: list[str] = []

    def list_sku(self, sku: str) -> None:
        self._listed(sku)

    @event(Listed)
    def _listed(self, sku: str) -> None:
        self.skus.append(sku)
