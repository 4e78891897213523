"""One door: the interfaces and the agent reach the write side only through the facade.

`gateway.core.facade.Gateway` (and the command handlers it holds: `Operations`, `KeyAdmin`)
is what HTTP, the CLI, MCP, the console and the agent ask; none of them reads a `ledger`
attribute (of a Sluice, a Gateway, anything) to go round it. Read from the source with
`ast`, so a new way past the door fails here at once, naming where.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = ("gateway/interfaces", "gateway/agent")


def modules() -> Iterator[Path]:
    for folder in OUTSIDE:
        yield from sorted((ROOT / folder).rglob("*.py"))


def ledger_reads(path: Path) -> Iterator[int]:
    """The lines where the module reads an attribute named `ledger`."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "ledger":
            yield node.lineno


def test_the_scan_reads_the_interfaces_and_the_agent() -> None:
    found = {path.relative_to(ROOT).as_posix() for path in modules()}
    assert "gateway/interfaces/cli/operate.py" in found
    assert "gateway/interfaces/http/routes/health.py" in found
    assert "gateway/agent/agent.py" in found


def test_the_scan_sees_a_ledger_read(tmp_path: Path) -> None:
    module = tmp_path / "around.py"
    module.write_text("def f(sluice):\n    return sluice.gateway.ledger.save\n")
    assert list(ledger_reads(module)) == [2]


def test_no_interface_nor_the_agent_reads_the_ledger_past_the_facade() -> None:
    past = [
        f"{path.relative_to(ROOT)}:{line} reads .ledger; ask the facade (gateway.core.facade)"
        for path in modules()
        for line in sorted(ledger_reads(path))
    ]
    assert not past, "\n".join(past)
