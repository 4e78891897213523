"""Dependencies point inward: the layers of DESIGN.md, and inside the gateway its core apart
from the interfaces that drive it and from the agent, a client of the facade.

Read from the source with `ast`, so a new import that crosses a line fails here at once.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = ("domain", "application", "gateway", "infrastructure")
# Packages that only the outer layers may use.
WIRES = ("fastapi", "starlette", "uvicorn", "asyncpg", "openai", "mcp")
FRAMEWORKS = (*WIRES, "pydantic_monty")
CORE = "gateway.core"
INTERFACES = "gateway.interfaces"
# The CLI starts the servers and HTTP mounts MCP and the console: those are the entry points.
HTTP, CLI, MCP, CONSOLE = (f"{INTERFACES}.{name}" for name in ("http", "cli", "mcp", "console"))
# What each part may not import (a module, or any module under it).
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "domain": ("application", "gateway", "infrastructure", "pydantic", *FRAMEWORKS),
    "application": ("gateway", "infrastructure", *FRAMEWORKS),
    "infrastructure": ("gateway",),
    # The core runs the sandbox; it serves no protocol and calls no model or driver itself.
    CORE: (INTERFACES, "gateway.agent", "gateway.bootstrap", "gateway.demo", *WIRES),
    "gateway.agent": (INTERFACES,),
    MCP: (HTTP, CLI, CONSOLE),
    CONSOLE: (HTTP, CLI, MCP),
}


def modules() -> Iterator[tuple[str, Path]]:
    for package in OURS:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            yield name.removesuffix(".__init__"), path


def imported(path: Path) -> Iterator[tuple[str, int]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


@pytest.mark.parametrize("part", sorted(FORBIDDEN))
def test_each_part_imports_only_inward(part: str) -> None:
    crossings = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for name, path in modules()
        if within(name, part)
        for target, line in imported(path)
        if any(within(target, forbidden) for forbidden in FORBIDDEN[part])
    ]
    assert crossings == []


def test_the_rule_sees_every_part_it_names() -> None:
    names = [name for name, _ in modules()]
    for part in FORBIDDEN:
        assert any(within(name, part) for name in names), f"no module is {part}"
