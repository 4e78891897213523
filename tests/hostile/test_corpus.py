"""The hostile corpus as a whole: large enough, and through every interface a caller has.

Its cases live in two tables, each run on SQLite and on Postgres against a served gateway:
`test_inputs.CASES` (input that must be refused clearly and change nothing) and
`test_display.CASES` (data that must be stored, returned and shown inert and bounded). Each
table ends with a check of the books: consistent reads answer, and `sluice audit verify`
(balances recomputed from the events, money conserved) passes.
"""

from __future__ import annotations

from tests.hostile import test_display, test_inputs

# Which interface each table's `interface` column goes through.
THROUGH = {
    "http": {"call", "call-body", "program", "plan", "agent", "get", "http", "health", "version",
             "stored size"},
    "/mcp": {"mcp"},
    "sluice mcp": {"mcp-stdio"},
    "cli": {"cli-run", "cli-call", "cli-admin", "sluice run", "sluice confirm", "sluice shell",
            "sluice chat", "sluice audit"},
}  # fmt: skip


def interfaces() -> list[str]:
    return [case[1] for case in test_inputs.CASES] + [case[1] for case in test_display.CASES]


def test_the_corpus_holds_at_least_100_named_cases() -> None:
    names = [case[0] for case in test_inputs.CASES] + [case[0] for case in test_display.CASES]
    assert len(names) >= 100, len(names)
    assert len(set(names)) == len(names), "two cases share a name"


def test_every_case_goes_through_a_real_interface_and_every_interface_is_tried() -> None:
    known = set().union(*THROUGH.values())
    used = interfaces()
    assert set(used) <= known, set(used) - known
    for interface, kinds in THROUGH.items():
        assert any(kind in kinds for kind in used), f"no case goes through {interface}"
