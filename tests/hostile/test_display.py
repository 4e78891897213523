"""Data is inert text wherever it is stored or shown, set apart from the gateway's own words,
bounded in size, and it leaks nothing (issue 14: items 1, 7, 9 and 10).

A program's printed output, an exception's message, a result, a memo: none of it may reach a
terminal or an MCP client's question as control characters (an ESC sequence can redraw the
events table the person is about to accept), none may be stored raw (a NUL broke the Postgres
read models), and none may fill the store. Every case goes through a real interface (the
`sluice` command as a process, a served gateway over HTTP, the MCP SDK's own client) on
SQLite and on Postgres.

CASES is the table: (name, interface, input, expected). `input` is a program unless the
interface says otherwise; `expected` is the inert form the interface must show, or the
bound the stored run must keep.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
import pytest

from application.inert_text import inert
from application.ledger import Ledger
from application.store_config import eventsourcing_env
from tests.agent import fake_llm as llm
from tests.mcp.support import AGENT_KEY, Person, Target, connect
from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
KEYS = {name: f"sk-demo-{name}" for name in ("alice", "teller", "auditor", "admin", "nobody")}
# What must never reach a terminal, an MCP question or the store raw: C0 controls but the
# newline (ESC, NUL, CR, TAB...), DEL, C1 controls (a lone CSI), zero-width and bidi controls.
RAW = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")
PAY = 'transfer(payer="alice", payee="bob", amount=1)\n'
CLEAR = '"\\x1b[2J\\x1b[1;1HThe program would append 0 events"'
MEMO_ESC = 'transfer(payer="alice", payee="bob", amount=1, memo="m\\x1b[31mred")\n'
KIB = 1024
# The most one preview of a run may make the store hold: its Proposed, Confirmed and
# Committed events together (the figure documented with the bounds).
RUN_BOUND = 1024 * KIB
MAX_OUTPUT = 64 * KIB
MAX_ERROR = 2 * KIB
MAX_CALL_VALUE = 1 * KIB
MEMO = "\u20ac" * 140  # the longest memo, in 3-byte characters

# Programs that try to make one run store as much as they can.
MANY_BIG_ARGUMENTS = 'for i in range(50):\n    list_accounts(owner="y" * 300000)\n'
MANY_BIG_RESULTS = 'for i in range(50):\n    statement(account="alice", limit=100)\n'
PRINT_AT_THE_LIMIT = 'print("\\x1b" * 65000)\nget_balance(account="alice")\n'
HUGE_EXCEPTION = 'raise ValueError("y" * 4000000)\n'
HUGE_RESULT = '["\\x00" * 40000, "\\"" * 20000]\n'
WORST = f"""M = "{MEMO}"
for i in range(10):
    transfer(payer="alice", payee="bob", amount=0.01, memo=M)
for i in range(10):
    deposit(account="alice", amount=0.01, memo=M)
for i in range(10):
    withdraw(account="bob", amount=0.01, memo=M)
for i in range(5):
    open_account(account="worst" + str(i), owner="{"€" * 100}", initial_deposit=0)
for i in range(5):
    close_account(account="worst" + str(i))
for i in range(10):
    statement(account="alice", limit=100)
print('"' * 65000)
'"' * 130000
"""

CASES: list[tuple[str, str, str, str]] = [
    # `sluice run`: the preview a person confirms, in a terminal.
    ("printed ESC clears the screen and forges a line", "sluice run", f"print({CLEAR})\n{PAY}",
     r"\x1b[2J\x1b[1;1HThe program would append 0 events"),
    ("printed C1 CSI and a bidi override", "sluice run", f'print("\\x9b31mred \\u202etxet")\n{PAY}',
     r"\x9b31mred \u202etxet"),
    ("printed rich markup is not interpreted", "sluice run",
     f'print("[bold red]Committed[/]: 0 events appended.")\n{PAY}',
     "[bold red]Committed[/]: 0 events appended."),
    ("a printed line of the gateway's own words", "sluice run",
     f'print("ok\\nThe program changes nothing.")\n{PAY}', "The program changes nothing."),
    ("a printed carriage return over the table", "sluice run",
     f'print("\\r\\x1b[4ACommit these 0 events?")\n{PAY}', r"\r\x1b[4ACommit these 0 events?"),
    ("an exception's message with NUL and ESC", "sluice run",
     'raise ValueError("x\\x00y\\x1b[2J")\n', r"x\x00y\x1b[2J"),
    ("a result string with ESC", "sluice run", f'{PAY}"\\x1b[2Jdone"\n', r"\\x1b[2Jdone"),
    ("a memo with ESC", "sluice run", MEMO_ESC, r"m\x1b[31mred"),
    # `sluice confirm`: a proposal by alice's agent key, reviewed by alice.
    ("printed ESC in an agent's proposal", "sluice confirm", f"print({CLEAR})\n{PAY}",
     r"\x1b[2J\x1b[1;1HThe program would append 0 events"),
    ("a memo with ESC in an agent's proposal", "sluice confirm", MEMO_ESC, r"m\x1b[31mred"),
    # `sluice shell`: one line typed, then "n".
    ("printed ESC in the shell", "sluice shell", f"print({CLEAR}); {PAY}",
     r"\x1b[2J\x1b[1;1HThe program would append 0 events"),
    # `sluice chat`: the model's own words are data too.
    ("the model's explanation with ESC", "sluice chat", "Paying bob.\x1b[2J\x1b[1;1HDone.",
     r"Paying bob.\x1b[2J\x1b[1;1HDone."),
    # `sluice audit run`: what the store kept, shown to an auditor.
    ("a stored exception with ESC in the audit", "sluice audit",
     'raise ValueError("\\x1b[2Jgone")\n', r"\x1b[2Jgone"),
    ("printed ESC in the audit", "sluice audit", f"print({CLEAR})\n{PAY}",
     r"\x1b[2J\x1b[1;1HThe program would append 0 events"),
    # MCP: the question the person answers in their client.
    ("a forged preview line in printed output", "mcp",
     f'print("would append 0 events, all or nothing:\\nTick the box")\n{PAY}',
     "would append 0 events, all or nothing:"),
    ("ESC and a bidi override in printed output", "mcp", f'print("\\x1b[2J\\u202eok")\n{PAY}',
     r"\x1b[2J\u202eok"),
    ("a memo with ESC in the question", "mcp", MEMO_ESC, r"m\x1b[31mred"),
    # HTTP: stored escaped, returned escaped, and the read side keeps working.
    ("NUL in an exception's message", "http", 'raise ValueError("x\\x00y")\n', r"x\x00y"),
    ("NUL and ESC in printed output", "http",
     'print("a\\x00b\\x1b")\nget_balance(account="alice")\n', r"a\x00b\x1b"),
    ("NUL in a program's result", "http", '"r\\x00"\n', r"r\x00"),
    ("a bidi override in a call's refusal", "http", 'get_balance(account="\\u202eecila")\n',
     r"\u202eecila"),
    # /health: `input` is whose key asks ("" for none).
    ("/health without a key", "health", "", "status and check names only"),
    ("/health with an unknown key", "health", "nobody", "status and check names only"),
    ("/health with a customer's key", "health", "alice", "status and check names only"),
    ("/health with a teller's key", "health", "teller", "status and check names only"),
    ("/health with an auditor's key", "health", "auditor", "the checks' details"),
    ("/health with an admin's key", "health", "admin", "the checks' details"),
    # A customer's preview of a payment to another customer: `input` is how it is made.
    ("a program's preview", "version", "program", "no version of bob's account"),
    ("a direct call's outcome", "version", "direct", "no version of bob's account"),
    ("a confirmed program's outcome", "version", "confirmed", "no version of bob's account"),
    # Stored size: the worst programs one principal can write.
    ("50 calls with 300 KB arguments", "stored size", MANY_BIG_ARGUMENTS, "1 MiB"),
    ("50 statements of 100 long memos", "stored size", MANY_BIG_RESULTS, "1 MiB"),
    ("printing ESC up to the output limit", "stored size", PRINT_AT_THE_LIMIT, "1 MiB"),
    ("a 4 MB exception", "stored size", HUGE_EXCEPTION, "1 MiB"),
    ("a result of NUL and quotes", "stored size", HUGE_RESULT, "1 MiB"),
    ("every write cap, long memos, statements, output and result at once", "stored size",
     WORST, "1 MiB"),
]  # fmt: skip


def cases(interface: str) -> list[Any]:
    return [
        pytest.param(source, expected, id=name)
        for name, kind, source, expected in CASES
        if kind == interface
    ]


# The gateway under test: one served process and its store, per store kind.


@dataclass
class Served:
    kind: str
    url: str
    env: dict[str, str]
    base: str
    folder: Path
    ledger: Ledger
    seeded: set[str] = field(default_factory=set)

    def http(self, key: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {KEYS[key]}"} if key else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=120)

    def cli(self, *args: str, stdin: str = "", env: dict[str, str] | None = None) -> str:
        """`sluice ARGS` with `stdin`; its stdout and stderr, with no control character."""
        done = subprocess.run(
            [SLUICE, *args],
            env=env or self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        shown = done.stdout + done.stderr
        assert_inert(shown)
        return shown

    def program(self, source: str) -> str:
        path = self.folder / f"program{len(list(self.folder.iterdir()))}.py"
        path.write_text(source, encoding="utf-8")
        return str(path)


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("display")
    with empty_store(request.param, folder) as url:
        env = {
            **os.environ,
            "SLUICE_DATABASE_URL": url,
            "SLUICE_CAP_PROGRAMS_PER_MINUTE": "10000",
            "SLUICE_CAP_REQUESTS_PER_MINUTE": "100000",
        }
        programs = folder / "programs"
        programs.mkdir()
        with (
            serving([SLUICE, "serve", "--demo"], env) as base,
            Ledger(env=eventsourcing_env(url)) as ledger,
        ):
            yield Served(request.param, url, env, base, programs, ledger)


def assert_inert(text: str) -> None:
    found = RAW.search(text)
    assert found is None, (
        f"raw {found.group()!r} shown: {text[max(0, found.start() - 60) : found.end() + 60]!r}"
    )


def strings(value: Any) -> Iterator[str]:
    """Every string of a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def assert_all_inert(value: Any) -> None:
    """No string of a JSON answer holds a control character (a printed newline aside)."""
    for text in strings(value):
        assert_inert(text.replace("\n", " "))


def frame(shown: str) -> tuple[list[str], int, int]:
    """The lines of `shown`, and where the frame of the program's printed output starts
    (its title line) and ends (its bottom border)."""
    lines = shown.splitlines()
    titles = [i for i, line in enumerate(lines) if "printed by the program" in line.lower()]
    assert titles, f"no frame titled as the program's printed output in:\n{shown}"
    start = titles[0]
    end = next(i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("└"))
    return lines, start, end


def printed_block(shown: str) -> str:
    """The program's printed output in a terminal: every line inside its frame."""
    lines, start, end = frame(shown)
    block = lines[start + 1 : end]
    assert all(line.lstrip().startswith("│") for line in block), block
    return "\n".join(line.strip().strip("│").strip() for line in block)


def check_shown(shown: str, source: str, expected: str) -> None:
    """The inert form is shown; printed output only inside its frame."""
    if "print(" in source:
        assert expected in printed_block(shown), shown
        lines, start, end = frame(shown)
        outside = "\n".join(lines[:start] + lines[end + 1 :])
        assert expected not in outside, "printed text outside the program's frame"
    elif "memo=" in source and expected not in shown:
        # Input validation may refuse such a memo before any preview: then it names it.
        assert "memo" in shown and "nothing was written" in shown, shown
    else:
        assert expected in shown, shown


# The terminal.


@pytest.mark.parametrize(("source", "expected"), cases("sluice run"))
def test_sluice_run_shows_data_inert_and_set_apart(
    served: Served, source: str, expected: str
) -> None:
    shown = served.cli("run", served.program(source), "--as", "alice", stdin="n\n")
    check_shown(shown, source, expected)
    assert "Committed" not in shown.replace("[bold red]Committed[/]", "")


def propose(served: Served, key: str, source: str) -> dict[str, Any]:
    with served.http() as client:
        answer = client.post(
            "/v1/programs",
            json={"language": "python", "source": source},
            headers={"Authorization": f"Bearer {key}"},
        )
    body: dict[str, Any] = answer.json()
    assert answer.status_code < 500, answer.text
    if "memo=" not in source:  # a memo is an input: refused or kept as given (not here)
        assert_all_inert(body)
    return body


@pytest.mark.parametrize(("source", "expected"), cases("sluice confirm"))
def test_sluice_confirm_shows_an_agents_proposal_inert_and_set_apart(
    served: Served, source: str, expected: str
) -> None:
    proposal = propose(served, AGENT_KEY, source)
    if proposal.get("status") != "pending":
        check_shown(json.dumps(proposal), source, expected)  # refused before any preview
        return
    shown = served.cli("confirm", proposal["id"], "--as", "alice", stdin="n\n")
    check_shown(shown, source, expected)
    assert "Not confirmed: nothing was written." in shown


@pytest.mark.parametrize(("source", "expected"), cases("sluice shell"))
def test_sluice_shell_shows_data_inert_and_set_apart(
    served: Served, source: str, expected: str
) -> None:
    shown = served.cli("shell", "--as", "alice", stdin=f"{source}\n\nn\nquit\n")
    check_shown(shown, source, expected)


REPLY_WITH_ESC = "Nothing was sent.\x1b[J Bob got nothing."


@pytest.mark.parametrize(("said", "expected"), cases("sluice chat"))
def test_sluice_chat_shows_the_models_words_and_the_preview_inert(
    served: Served, said: str, expected: str
) -> None:
    fake = llm.FakeLLM()
    try:
        fake.push(
            llm.program(f"print({CLEAR})\n{PAY}", explanation=said),
            llm.reply(REPLY_WITH_ESC, "failure"),
        )
        env = served.env | {
            "SLUICE_LLM_BASE_URL": fake.url,
            "SLUICE_LLM_MODEL": "fake-model",
            "SLUICE_LLM_API_KEY": "sk-test",
            "SLUICE_LLM_MAX_RETRIES": "0",
        }
        # Rejected for good: the answerer then writes its reply to the outcome.
        shown = served.cli("chat", "--as", "alice", stdin="Pay bob 1\nr\nquit\n", env=env)
    finally:
        fake.close()
    # The model's explanation before the preview, and its reply after: both its own words.
    # (The reply is one the answer's check lets stand: a figure such as the 2 of `ESC[2J`
    # that the outcome does not hold would be withheld, and not shown at all.)
    assert shown.count(expected) == 1, shown
    assert "agent> " + inert(REPLY_WITH_ESC) in shown, shown
    assert "\x1b" not in shown
    assert r"\x1b[2J\x1b[1;1HThe program would append 0 events" in printed_block(shown)


@pytest.mark.parametrize(("source", "expected"), cases("sluice audit"))
def test_sluice_audit_run_shows_what_the_store_kept_inert(
    served: Served, source: str, expected: str
) -> None:
    body = propose(served, KEYS["alice"], source)
    run_id = body.get("run_id") or body["id"]
    shown = served.cli("audit", "run", run_id)
    assert expected in shown
    as_json = json.loads(served.cli("audit", "run", run_id, "--json"))
    assert_all_inert(as_json)


# MCP.


@pytest.mark.asyncio
@pytest.mark.parametrize(("source", "expected"), cases("mcp"))
async def test_the_mcp_question_quotes_data_inert_and_set_apart(
    served: Served, source: str, expected: str
) -> None:
    person = Person("decline")
    async with connect(Target("http", served.env, served.base), AGENT_KEY, person=person) as client:
        done = await client.call_tool("propose_program", {"language": "python", "source": source})
    if not person.asked:  # refused before any preview (a memo input validation refuses)
        text = done.content[0].text  # type: ignore[union-attr]
        assert done.is_error and "memo" in text, text
        return
    [asked] = person.asked
    message = asked.message
    assert_inert(message)
    lines = message.splitlines()
    assert lines[0] == "Money it moves: alice pays bob 1.00 EUR."
    assert lines[1].startswith("A program by alice's agent (key ")
    assert lines[1].endswith(", over mcp) would append 2 events, all or nothing:")
    assert sum("would append" in line for line in lines if not line.startswith("  | ")) == 1
    if "print(" in source:
        title = next(i for i, line in enumerate(lines) if line.startswith("Printed by the program"))
        quoted = []
        for line in lines[title + 1 :]:
            if not line.startswith("  | "):
                break
            quoted.append(line.removeprefix("  | "))
        assert any(expected in line for line in quoted), message
        assert all(expected not in line for line in lines if not line.startswith("  | "))
    else:
        assert expected in message


# HTTP.


@pytest.mark.parametrize(("source", "expected"), cases("http"))
def test_text_from_elsewhere_is_stored_and_returned_escaped(
    served: Served, source: str, expected: str
) -> None:
    body = propose(served, KEYS["alice"], source)
    run_id = body.get("run_id") or body["id"]
    with served.http("alice") as alice, served.http("auditor") as auditor:
        proposal = alice.get(f"/v1/programs/{run_id}").json()
        story = auditor.get(f"/v1/runs/{run_id}").json()
        read = alice.get("/v1/accounts/alice", params={"consistent": "true"})
        health = auditor.get("/health")
    assert_all_inert(proposal)
    assert_all_inert(story)
    shown = [*strings(proposal), str(body.get("detail", ""))]
    assert any(expected in text for text in shown), shown
    # The read side took it in: consistent reads answer, no event set aside.
    assert read.status_code == 200, read.text
    assert health.json()["status"] == "ok", health.text
    verified = served.cli("audit", "verify", "--json")
    assert json.loads(verified)["ok"] is True, verified


# /health.


@pytest.mark.parametrize(("who", "expected"), cases("health"))
def test_health_shows_details_only_to_auditors_and_admins(
    served: Served, who: str, expected: str
) -> None:
    with served.http(who or None) as client:
        health = client.get("/health")
    assert health.status_code == 200, health.text
    body = health.json()
    if expected == "status and check names only":
        assert body == {
            "status": "ok",
            "checks": [{"name": "store", "status": "ok"}, {"name": "read_models", "status": "ok"}],
        }
    else:
        assert body["status"] == "ok"
        assert body["log_position"] > 0
        assert body["dead_letters"] == 0
        assert [check["name"] for check in body["checks"]] == ["store", "read_models"]
        assert body["checks"][0]["detail"] == "reachable"


# Versions of other customers' accounts.


@pytest.mark.parametrize(("how", "expected"), cases("version"))
def test_a_customers_preview_shows_no_version_of_another_customers_account(
    served: Served, how: str, expected: str
) -> None:
    with served.http("alice") as alice:
        if how == "direct":
            answer = alice.post(
                "/v1/use-cases/transfer", json={"payer": "alice", "payee": "bob", "amount": 1}
            )
            events = answer.json()["events"]
        else:
            proposed = alice.post("/v1/programs", json={"language": "python", "source": PAY})
            proposal = proposed.json()
            events = proposal["preview"]["events"]
            if how == "confirmed":
                answer = alice.post(
                    f"/v1/programs/{proposal['id']}/confirm",
                    json={"preview_hash": proposal["preview_hash"]},
                )
                assert answer.status_code == 200, answer.text
                events = answer.json()["events"]
                again = alice.get(f"/v1/programs/{proposal['id']}").json()
    if how != "program":  # committed: each event has its place in the log
        assert all(isinstance(e["position"], int) for e in events), events
    if how == "confirmed":
        events += again["preview"]["events"] + again["outcome"]["events"]
    assert {e["account"] for e in events} == {"alice", "bob"}
    for event in events:
        if event["account"] == "bob":
            assert event["version"] is None, event
        else:
            assert isinstance(event["version"], int), event


# Stored size.


def long_history(served: Served) -> None:
    """alice gets 100 movements, each with the longest memo."""
    if "history" in served.seeded:
        return
    with served.http("teller") as teller:
        for _ in range(100):
            done = teller.post(
                "/v1/use-cases/deposit", json={"account": "alice", "amount": 1, "memo": MEMO}
            )
            assert done.status_code == 200, done.text
    served.seeded.add("history")


def stored_bytes(ledger: Ledger, run_id: str) -> int:
    """What the run's own events take in the store: their recorded state."""
    return sum(len(e.state) for e in ledger.recorder.select_events(UUID(run_id)))


@pytest.mark.parametrize(("source", "expected"), cases("stored size"))
def test_the_worst_programs_store_at_most_the_documented_bytes(
    served: Served, source: str, expected: str
) -> None:
    assert expected == "1 MiB"
    long_history(served)
    who = "admin" if "open_account" in source else "alice"
    with served.http(who) as client:
        proposed = client.post("/v1/programs", json={"language": "python", "source": source})
        assert proposed.status_code < 500, proposed.text[:1000]
        body = proposed.json()
        run_id = body.get("run_id") or body["id"]
        if body.get("status") == "pending":
            confirmed = client.post(
                f"/v1/programs/{run_id}/confirm", json={"preview_hash": body["preview_hash"]}
            )
            assert confirmed.status_code == 200, confirmed.text[:1000]
        proposal = client.get(f"/v1/programs/{run_id}")
    stored = stored_bytes(served.ledger, run_id)
    print(f"{served.kind}: run {run_id} stored {stored} bytes; answered {len(proposal.content)}")
    assert stored <= RUN_BOUND, f"the run stored {stored} bytes"
    assert len(proposal.content) <= RUN_BOUND
    shown = proposal.json()
    assert_all_inert(shown)
    preview = shown["preview"]
    assert len(preview["output"].encode()) <= MAX_OUTPUT
    assert len((shown["error"] or "").encode()) <= MAX_ERROR + len(" (line 99, column 99)")
    for call in preview["calls"]:
        for value in (call["result"], *call["arguments"].values()):
            # A value is kept whole within the bound, or as the cut start of its JSON text.
            kept = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            assert len(kept.encode()) <= MAX_CALL_VALUE
    cut = {
        HUGE_EXCEPTION: shown["error"],
        PRINT_AT_THE_LIMIT: preview["output"],
        MANY_BIG_RESULTS: json.dumps(preview["calls"]),
        # Input validation may refuse so long an owner at the first call instead.
        MANY_BIG_ARGUMENTS: "more characters cut"
        if shown["error"]
        else json.dumps(preview["calls"]),
    }.get(source)
    if cut is not None:
        assert "more characters cut" in cut, cut[-300:]  # the cut is marked


def test_after_the_table_the_read_models_and_the_audit_hold(served: Served) -> None:
    """Whatever the table did, every consistent read answers and the books balance: each
    balance the read models hold is the one the events give, and money is conserved."""
    with served.http("auditor") as client:
        accounts = client.get("/v1/accounts", params={"consistent": "true"})
        assert accounts.status_code == 200, accounts.text
        for row in accounts.json()["items"]:
            read = client.get(
                f"/v1/accounts/{row['account']}/statement", params={"consistent": "true"}
            )
            assert read.status_code == 200, read.text
        log = client.get("/v1/events", params={"limit": 1000})
        assert log.status_code == 200, log.text
        assert_all_inert(log.json())
    verified = subprocess.run(
        [SLUICE, "audit", "verify"], env=served.env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert verified.returncode == 0, verified.stdout + verified.stderr
