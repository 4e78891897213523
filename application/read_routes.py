"""The read endpoints a domain derives from its read use cases (`Domain.read_routes`).

Each declaration names a read use case and how its answer is served as a resource under
/v1, a page at a time where it is a list; the gateway builds the routes from them and
answers each by calling the use case, under the same permissions, caps and read models as
any call. Nothing here names a domain's concepts:

- `Listing`: GET /v1/{name} lists what a use case without required arguments answers (a
  list of records), by `key`; GET /v1/{name}/{key} is one of them.
- `History`: GET /v1/{listing}/{id}/{name}: a record's entries, newest first, by version;
  read from the read models a page at a time by `rows`, or from the use case's answer.
- `Record`: GET /v1/{name}/{id}: what a use case answers of one record named by an argument.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, get_args, get_origin

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from application.read_models.store import ReadModelStore
    from application.use_case import UseCase

# The read models' rows of one record's history, newest first: (store, record id, how many,
# before this version or None).
HistoryRows = Callable[["ReadModelStore", str, int, "int | None"], Sequence[Any]]


def _no_problem(_: str) -> str | None:
    return None


@dataclass(frozen=True)
class Listing:
    """What `use_case` (a read without required arguments answering a list of records)
    lists: GET /v1/{name}, a page at a time by `key` (a field of each record, which orders
    them and names one), and GET /v1/{name}/{key}: one of them. Reading one is what calling
    `guard` on its id (as argument `guard_argument`) would be; `id_problem` says why a text
    is no id (404 before anything is read)."""

    name: str
    use_case: type[UseCase[Any]]
    key: str
    one: str  # one record, in words: `account`
    guard: type[UseCase[Any]] | None = None
    guard_argument: str = ""
    id_problem: Callable[[str], str | None] = _no_problem
    id_description: str = "A record's id."
    example: Mapping[str, Any] | None = None
    doc: str = ""
    default_limit: int = 100


@dataclass(frozen=True)
class History:
    """GET /v1/{of.name}/{id}/{name}: one record's entries, newest first, a page at a time
    by their `key` (an int that grows: a version). `use_case` reads them (its argument
    `argument` names the record, `probe` completes a call of it that checks the principal
    may); `rows` reads a page from the read models and `entry` makes each row an entry;
    without `rows`, the use case's own answer is paged."""

    name: str
    of: Listing
    use_case: type[UseCase[Any]]
    argument: str
    key: str = "version"
    probe: Mapping[str, Any] = field(default_factory=dict)
    rows: HistoryRows | None = None
    entry: Callable[[str, Any], BaseModel] | None = None
    example: Mapping[str, Any] | None = None
    doc: str = ""
    default_limit: int = 20
    operation_id: str = ""


@dataclass(frozen=True)
class Record:
    """GET /v1/{name}/{id}: what `use_case` answers of the record its argument `argument`
    names (`id_description` describes it)."""

    name: str
    use_case: type[UseCase[Any]]
    argument: str
    one: str
    id_description: str = "A record's id."
    example: Mapping[str, Any] | None = None
    doc: str = ""


ReadRoute = Listing | History | Record


def shown_model(model: type[BaseModel], example: Mapping[str, Any] | None, doc: str) -> type[Any]:
    """`model` as a resource shows it: its own name, with the route's example and text."""
    if example is None and not doc:
        return model
    namespace: dict[str, Any] = {"__doc__": doc or model.__doc__, "__module__": model.__module__}
    if example is not None:
        namespace["model_config"] = ConfigDict(json_schema_extra={"examples": [dict(example)]})
    return type(model.__name__, (model,), namespace)


def item_type(use_case: type[UseCase[Any]]) -> type[BaseModel]:
    """The record type of a use case answering `list[Record]`, or its result type."""
    result = use_case.result_type()
    if get_origin(result) is list:
        (result,) = get_args(result)
    if not (isinstance(result, type) and issubclass(result, BaseModel)):
        raise TypeError(f"{use_case.name}: a read route needs a result of records, not {result}")
    return result
