"""The gateway, the adapters and the application are generic: none imports the bank's package.

A domain is handed to the gateway (`application.domains`, SLUICE_DOMAIN); the gateway must
not reach past it into the bank's use cases, aggregates or money. `STILL_BANKED` lists the
modules that still do today. It only shrinks: a module that no longer imports the bank must
leave the list, so the list never hides a new one. The application's modules outside the
domains' own packages (`application/bank`, `application/shop`) take the bank's specifics
from the `Domain` too; `APP_STILL_BANKED` lists those that do not yet, and only shrinks.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERIC_PACKAGES = ("gateway", "infrastructure")
# The bank's own modules: its use cases and read results, its aggregates, its money.
BANK_MODULES = ("application.bank", "domain.account", "domain.registry", "domain.money")
# domain.errors holds the base of every domain's errors beside the bank's own.
SHARED_ERRORS = "domain.errors"
SHARED_NAMES = frozenset({"DomainError"})

# Empty: no module of the gateway or the adapters imports the bank. It stays so.
STILL_BANKED: frozenset[str] = frozenset()


# The application's own modules are generic too, but for the domains' packages in it.
DOMAIN_PACKAGES = ("application.bank", "application.shop")
# The application's modules that still import the bank today. It only shrinks, as
# STILL_BANKED does.
# Empty: no module of the application outside the domains' packages imports the bank.
APP_STILL_BANKED: frozenset[str] = frozenset()


def _modules(packages: tuple[str, ...] = GENERIC_PACKAGES) -> Iterator[tuple[str, Path]]:
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


def _application_modules() -> Iterator[tuple[str, Path]]:
    """The application's modules, but the domains' own packages."""
    for module, path in _modules(("application",)):
        if not any(module == own or module.startswith(own + ".") for own in DOMAIN_PACKAGES):
            yield module, path


def _is_bank(name: str) -> bool:
    return any(name == bank or name.startswith(bank + ".") for bank in BANK_MODULES)


def _imports_bank(module: str, name: str) -> bool:
    if module == SHARED_ERRORS:
        return name not in SHARED_NAMES
    return _is_bank(module) or _is_bank(f"{module}.{name}")


def bank_imports(path: Path) -> list[str]:
    """What the module at `path` imports of the bank, anywhere in it (TYPE_CHECKING too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _is_bank(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [
                f"{node.module}.{alias.name}"
                for alias in node.names
                if _imports_bank(node.module, alias.name)
            ]
    return found


def test_no_new_module_of_the_gateway_or_the_adapters_imports_the_bank() -> None:
    banked = {module: bank_imports(path) for module, path in _modules()}
    newly = {module for module, names in banked.items() if names} - STILL_BANKED

    assert not newly, (
        "these modules import the bank's package; take what they need from the domain "
        f"handed to the gateway instead: {sorted(newly)}"
    )


def test_each_module_still_banked_still_imports_the_bank() -> None:
    banked = {module for module, path in _modules() if bank_imports(path)}

    freed = STILL_BANKED - banked
    assert not freed, (
        f"these modules import the bank no more: strike them off STILL_BANKED: {sorted(freed)}"
    )


def test_no_new_module_of_the_application_imports_the_bank() -> None:
    banked = {module: bank_imports(path) for module, path in _application_modules()}
    newly = {module for module, names in banked.items() if names} - APP_STILL_BANKED

    assert not newly, (
        "these modules of the application import the bank's package; take what they need "
        f"from the domain (application/domains.py) instead: {sorted(newly)}"
    )


def test_each_module_of_the_application_still_banked_still_imports_the_bank() -> None:
    banked = {module for module, path in _application_modules() if bank_imports(path)}

    freed = APP_STILL_BANKED - banked
    assert not freed, (
        f"these modules import the bank no more: strike them off APP_STILL_BANKED: {sorted(freed)}"
    )


def test_the_application_check_leaves_out_only_the_domains_packages() -> None:
    checked = {module for module, _ in _application_modules()}

    assert {"application.audit", "application.verify", "application.log"} <= checked
    assert "application.principals" in checked and "application.read_models.queries" in checked
    assert not {m for m in checked if m.startswith(("application.bank", "application.shop"))}
    # The bank's own package does import the bank: left out, it would be listed.
    assert bank_imports(ROOT / "application" / "bank" / "domain.py")


def test_the_bootstrap_and_the_settings_take_the_domain_they_are_given() -> None:
    modules = dict(_modules())

    for generic in ("gateway.bootstrap", "gateway.settings", "gateway.demo"):
        assert bank_imports(modules[generic]) == []
        assert generic not in STILL_BANKED


def test_the_check_sees_every_form_of_import(tmp_path: Path) -> None:
    module = tmp_path / "banked.py"
    module.write_text(
        "import domain.account\n"
        "from application import bank\n"
        "from application.bank.queries import GetBalance\n"
        "from domain.errors import DomainError, AccountNotFoundError\n"
        "def late():\n    from domain.money import amount\n",
        encoding="utf-8",
    )

    assert bank_imports(module) == [
        "domain.account",
        "application.bank",
        "application.bank.queries.GetBalance",
        "domain.errors.AccountNotFoundError",
        "domain.money.amount",
    ]


# The shop's own modules: no generic module may import them, and none is allowed to.
SHOP_MODULES = ("application.shop", "domain.shop")


def _shop_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found += [n for n in names if any(n == s or n.startswith(s + ".") for s in SHOP_MODULES)]
    return found


def test_no_module_of_the_gateway_or_the_adapters_imports_the_shop() -> None:
    shopped = {module: _shop_imports(path) for module, path in _modules()}

    assert {module: names for module, names in shopped.items() if names} == {}


def test_the_shop_check_sees_an_import_of_the_shop(tmp_path: Path) -> None:
    module = tmp_path / "shopped.py"
    module.write_text(
        "import domain.shop.order\nfrom application import shop\n"
        "from application.shop.orders import PlaceOrder\n",
        encoding="utf-8",
    )

    assert _shop_imports(module) == [
        "domain.shop.order",
        "application.shop",
        "application.shop.orders.PlaceOrder",
    ]
