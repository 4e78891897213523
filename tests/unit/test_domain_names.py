"""No generic module names the bank's aggregates, events or use cases.

`test_domain_layers` holds that no module of the gateway, the adapters or the application
(outside the domains' own packages) imports the bank. A module could still branch on the
bank's words without importing it (`if event.type == "TransferDebited"`): this test reads
every such module and fails on any name, attribute or string that is exactly one of the
bank's aggregates, events, use cases or their tool names, as the bank declares them today.

Some words are the gateway's own as well: an event name its own aggregates use too
(`Principal.Registered`), eventsourcing's (`Event`, `Created`), and `statement`, which the
stores also use for an SQL statement. Strings inside an `examples` entry (the OpenAPI
document's examples) are documentation, not code, and are not read.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from eventsourcing.domain import Aggregate

import domain.account
import domain.conversation
import domain.idempotency
import domain.principal
import domain.registry
import domain.run
from application.bank.domain import BANK
from tests.unit.test_domain_layers import _application_modules, _modules

BANK_AGGREGATES = (domain.account, domain.registry)
GATEWAY_AGGREGATES = (domain.principal, domain.run, domain.conversation, domain.idempotency)
SQL_WORDS = frozenset({"statement"})


def _aggregate_names(modules: tuple[ModuleType, ...]) -> set[str]:
    """The aggregates defined in these modules, and their events."""
    names: set[str] = set()
    for module in modules:
        for name, kind in vars(module).items():
            if inspect.isclass(kind) and issubclass(kind, Aggregate):
                if kind.__module__ != module.__name__:
                    continue
                names.add(name)
                names |= {
                    event
                    for event, value in vars(kind).items()
                    if inspect.isclass(value) and issubclass(value, Aggregate.Event)
                }
    return names


def bank_names() -> frozenset[str]:
    names = _aggregate_names(BANK_AGGREGATES)
    for use_case in BANK.use_cases:
        names |= {use_case.__name__, use_case.name}
    shared = _aggregate_names(GATEWAY_AGGREGATES) | set(dir(Aggregate))
    return frozenset(names - shared - SQL_WORDS)


def _documentation(tree: ast.AST) -> set[int]:
    """The ids of the nodes inside an `examples` entry of a dict."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "examples":
                    inside |= {id(child) for child in ast.walk(value)}
    return inside


def _names(path: Path) -> Iterator[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = _documentation(tree)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute):
            yield node.lineno, node.attr
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.lineno, node.name


def test_the_bank_names_are_found() -> None:
    """The test reads what it should: the bank's events and use cases, by their names."""
    names = bank_names()
    assert {"Account", "TransferDebited", "Deposited", "GetBalance", "transfer"} <= names
    assert "Registered" not in names  # the gateway's principals are registered too


def test_no_generic_module_names_the_bank() -> None:
    names = bank_names()
    found = [
        f"{module}:{line}: {name}"
        for module, path in (*_modules(), *_application_modules())
        for line, name in _names(path)
        if name in names
    ]
    assert found == [], "generic modules name the bank's concepts:\n" + "\n".join(found)


def test_a_module_that_names_the_bank_is_caught(tmp_path: Path) -> None:
    """The reading catches a branch on an event's name, and skips an OpenAPI example."""
    module = tmp_path / "branching.py"
    module.write_text(
        "EXAMPLE = {'examples': [{'type': 'Withdrawn'}]}\n"
        "def told(event):\n"
        "    return event.type == 'TransferDebited'\n",
        encoding="utf-8",
    )
    assert [name for _, name in _names(module) if name in bank_names()] == ["TransferDebited"]
