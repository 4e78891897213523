"""`sluice chat`: talk to the agent; it writes programs, you read their previews and confirm.

The agent proposes; only this terminal's answer confirms. The answer after a decided run
is shown part by part, each labelled with whose it is: `sluice>` the code's facts of the run,
quoted data with its author (`memo by mallory: “…”`), `agent>` the model's words that the
code let stand; what it withheld is counted, with the reasons, never shown as the answer.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from application.principals import PrincipalView
from application.results import Proposal
from application.store_config import redacted
from gateway.agent import Agent, AgentConfig
from gateway.agent.answer_parts import Answer
from gateway.agent.turns import AgentTurn
from gateway.bootstrap import Sluice
from gateway.core.errors import GatewayError, StaleProposalError
from gateway.core.policy.decisions import may_decide
from gateway.interfaces.cli.flow import QUESTION, decision
from gateway.interfaces.cli.render import (
    framed,
    said,
    show_handoff,
    show_outcome,
    show_preview,
    shown,
)
from gateway.interfaces.cli.report import RunReport

GREETING = """Sluice agent, acting as {principal} ({role}). Store: {where}
Ask in plain words. Every change is shown first and waits for your `y`.
Ctrl-D (or `quit`) leaves.
"""
ReadLine = Callable[[str], str]


def interactive_chat(
    sluice: Sluice,
    principal: PrincipalView,
    *,
    console: Console,
    agent: Agent | None = None,
    read_line: ReadLine | None = None,
) -> int:
    """Run the chat until the user leaves; the exit status (1 when the agent is unavailable)."""
    agent = agent or Agent(
        sluice.gateway,
        AgentConfig.from_settings(sluice.settings),
        domain=sluice.domain,
    )
    read = read_line or console.input
    if agent.unavailable is not None:
        console.print(Text.assemble(("error:", "red"), " ", shown(agent.unavailable)))
        return 1
    greeting = GREETING.format(
        principal=principal.name, role=principal.role, where=redacted(sluice.database_url)
    )
    console.print(greeting, markup=False, highlight=False)
    conversation_id: str | None = None
    while True:
        try:
            line = read("[bold cyan]you>[/] ").strip()
        except EOFError:
            line = "quit"
        if line == "quit":
            console.print("Bye.")
            return 0
        if not line:
            continue
        try:
            turn = agent.message(principal, line, conversation_id)
        except GatewayError as refused:
            console.print(shown(refused, "red"), highlight=False)
            continue
        conversation_id = turn.conversation_id
        _show_turn(sluice, agent, principal, turn, conversation_id, console=console, read=read)


def _show_turn(
    sluice: Sluice,
    agent: Agent,
    principal: PrincipalView,
    turn: AgentTurn,
    conversation_id: str,
    *,
    console: Console,
    read: ReadLine,
) -> None:
    kind = turn.kind
    if kind == "answer" and turn.answer:
        _show_parts(turn.answer, console)
        return
    if kind in ("question", "answer"):
        _say(console, turn.text or "")
        return
    if kind == "refused":
        unusable = any(a.get("stage") == "reply" for a in turn.attempts[-1:])
        said = " gave no usable reply" if unusable else "'s programs failed their checks"
        console.print(f"[bold red]The agent{said}; nothing ran:[/]")
        for error in turn.errors:
            console.print(Text("  ").append(shown(error)), highlight=False)
        return
    _say(console, turn.explanation or "Here is a program.")
    assert turn.program is not None and turn.proposal is not None  # a program turn's
    console.print(framed("The agent's program", turn.program.source or ""))
    proposal = turn.proposal
    if proposal.status == "pending":
        _decide(sluice, principal, proposal, console=console, read=read)
        conversation = agent.conversation(principal, conversation_id)
        turn = conversation.turns[turn.turn - 1]
    elif proposal.status == "committed":
        show_preview(console, proposal.preview)
    _show_answer(turn, console)


def _decide(
    sluice: Sluice,
    principal: PrincipalView,
    proposal: Proposal,
    *,
    console: Console,
    read: ReadLine,
) -> None:
    """Show the preview and ask; a stale preview comes back fresh and is asked again."""
    gateway = sluice.gateway
    if not may_decide(principal):
        show_handoff(console, proposal)
        return
    while True:
        show_preview(console, proposal.preview)
        question = escape(QUESTION.format(count=len(proposal.preview.events))) + " (n): "
        try:
            chosen = decision(read(question))
        except EOFError:
            chosen = "keep"
        if chosen is None:
            console.print("Answer y, n or r.")
            continue
        try:
            if chosen == "keep":
                return
            if chosen == "reject":
                gateway.reject(principal, proposal.id)
                return
            gateway.confirm(principal, proposal.id, proposal.preview_hash)
            return
        except StaleProposalError as stale:
            console.print(shown(stale, "yellow"), highlight=False)
            if stale.fresh is None:
                return
            proposal = stale.fresh
        except GatewayError as refused:
            console.print(shown(refused, "yellow"), highlight=False)
            return


def _show_answer(turn: AgentTurn, console: Console) -> None:
    if turn.answer:
        _show_parts(turn.answer, console)  # its facts state the outcome, in the code's words
        return
    outcome = turn.outcome
    if outcome:
        show_outcome(console, RunReport.of(outcome, run_id=outcome.run_id))
    if turn.answer_error:
        console.print(shown(f"(no reply from the model: {turn.answer_error})", "yellow"))


def _show_parts(answer: Answer, console: Console) -> None:
    """Each part beside the label of whose it is; quoted data set in the label's column."""
    for part in answer.parts:
        if part.kind == "facts":
            console.print(said("sluice>", "bold green", part.text), highlight=False)
        elif part.kind == "quoted":
            label = f"  {part.what} by {part.author}:"
            console.print(said(label, "dim", f"“{part.text}”", "italic"), highlight=False)
        else:
            _say(console, part.text)
    withheld = answer.withheld
    if withheld:
        count = f"{len(withheld)} sentence{'s' if len(withheld) > 1 else ''}"
        reasons = "; ".join(dict.fromkeys(item.reason for item in withheld))
        note = f"(Sluice withheld {count} of the model's reply: {reasons}.)"
        console.print(shown(note, "yellow"), highlight=False)


def _say(console: Console, text: str) -> None:
    """The model's words: data, beside their label; every line of them, wrapped or not,
    starts in the label's column, never where the gateway's own words do."""
    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(Text("agent>", style="bold magenta"), shown(text, lines=True))
    console.print(grid, highlight=False)
