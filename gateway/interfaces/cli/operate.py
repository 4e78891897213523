"""Operators' commands: replay the read models, audit, tail and export the log."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import signal
import sys
import threading
import time
from datetime import datetime
from typing import Annotated, Any, NoReturn
from uuid import UUID

import typer
from eventsourcing.application import AggregateNotFoundError
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from application.audit import told
from application.audited import NotAuditedError
from application.inert_text import inert, inert_json
from application.read_models.replay import Comparison
from application.read_models.service import UnknownProjectionError
from application.results import RunStory
from application.store_config import redacted
from domain.errors import DomainError
from gateway.bootstrap import Sluice
from gateway.interfaces.cli.log_options import LogFormatOption, LogLevelOption, start_logging
from gateway.interfaces.cli.opening import open_sluice, read_settings
from gateway.interfaces.cli.render import PRINTED_TITLE, framed, said, shown
from gateway.interfaces.cli.run_ids import RunIdError, resolve_run_id
from gateway.logs.redact import redact
from gateway.settings import Settings

audit_app = typer.Typer(help="Answer: why did this change, who asked, who confirmed?")
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


def _open(*, whole_log: bool = False, settings: Settings | None = None) -> Sluice:
    """The system; `whole_log` for a command that reads or rewrites all of it (a rebuild, a
    swap, a verification, an export): its statements may take longer than a request's bound,
    so unless POSTGRES_STATEMENT_TIMEOUT is set, they have none."""
    if whole_log:
        os.environ.setdefault("POSTGRES_STATEMENT_TIMEOUT", "0")
    return open_sluice(settings=settings)


def _fail(message: str, code: int = 1) -> NoReturn:
    # The message may quote what was typed, or what the store holds: it is data.
    # An error of the store may quote its address, a password with it: never shown.
    Console(stderr=True).print(Text.assemble(("error:", "red"), " ", inert(redact(message))))
    raise typer.Exit(code)


def _json(value: Any, indent: int | None = None) -> str:
    """JSON for a terminal: any control character inside a string is an escape."""
    return inert_json(json.dumps(value, ensure_ascii=False, indent=indent))


def _print_json(value: Any) -> None:
    typer.echo(_json(value, indent=2))


def replay(
    projection: Annotated[
        list[str] | None,
        typer.Option(
            "--projection",
            help="A projection to rebuild: the domain's (the bank's balances, "
            "statement), or runs; every one by default.",
        ),
    ] = None,
    to: Annotated[int | None, typer.Option("--to", help="Stop at this log position.")] = None,
    from_scratch: Annotated[
        bool, typer.Option("--from-scratch", help="Forget an earlier rebuild and start over.")
    ] = False,
    swap: Annotated[
        bool,
        typer.Option(
            "--swap", help="Then put the rebuild in place of the live model, in one transaction."
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Rebuild read models from the log beside the live ones (resuming an interrupted rebuild;
    retrying every event set aside), check them against the live ones, and with --swap
    replace the live ones by the rebuild. Exit 0 when the live models are equal to the
    rebuild and hold no dead letter."""
    if swap and to is not None:
        _fail("--swap rebuilds to the log's head; leave out --to", 2)
    with _open(whole_log=True) as sluice:
        rebuild = sluice.operations.rebuild()
        with _bar(disable=as_json) as bar:
            tasks: dict[str, tuple[Any, float]] = {}

            def progress(name: str, position: int, target: int, events: int) -> None:
                if name not in tasks:
                    tasks[name] = bar.add_task(name, total=target, where=""), time.monotonic()
                task, started = tasks[name]
                where = f"position {position:,}/{target:,}"
                elapsed = time.monotonic() - started
                # A rate over a moment measures the clock, not the rebuild: none until then.
                if elapsed >= RATE_AFTER_SECONDS:
                    where += f"  {events / elapsed:,.0f} events/s"
                bar.update(task, completed=position, total=target, where=where)

            steps: list[Any] = []

            def step(what: str) -> None:
                for earlier in steps:  # one phase at a time: the one before is done
                    bar.update(earlier, total=1, completed=1)
                steps.append(bar.add_task(what, total=None, where=""))

            try:
                results = rebuild.run(
                    projection,
                    to=to,
                    from_scratch=from_scratch,
                    swap=swap,
                    progress=progress,
                    step=step,
                )
            except UnknownProjectionError as error:
                _fail(str(error), 2)
            for earlier in steps:
                bar.update(earlier, total=1, completed=1)
    if as_json:
        _print_json([r.to_json() for r in results])
    else:
        _print_replay(results)
    raise typer.Exit(0 if all(_sound(r, partial=to is not None) for r in results) else 1)


def _sound(result: Comparison, *, partial: bool) -> bool:
    """A rebuild to an earlier position (--to) cannot be compared with the live model, which
    is further on: it is sound when it set no event aside."""
    if partial and result.equal is None:
        return not result.rebuilt_dead_letters and not result.live_dead_letters
    return result.sound


def _print_replay(results: list[Comparison]) -> None:
    console = Console()
    verdict = {True: "[green]equal[/]", False: "[red]DIFFERENT[/]", None: "[yellow]not compared[/]"}
    for result in results:
        done = "swapped in, then brought to" if result.swapped else "rebuilt to"
        console.print(
            f"{result.projection}: {done} position {result.position}, {result.rows} rows, "
            f"{verdict[result.equal]} to the live model"
        )
        for difference in result.differences:
            console.print(shown(f"  {difference}"))
        for label, letters in (
            ("live", result.live_dead_letters),
            ("rebuilt", result.rebuilt_dead_letters),
        ):
            if letters:
                console.print(f"  {len(letters)} event(s) set aside in the {label} model:")
            for letter in letters[:20]:
                console.print(shown(f"    position {letter.position}: {letter.error}"))


def project(
    interval: Annotated[
        float, typer.Option("--interval", help="Seconds to wait when the log has nothing new.")
    ] = 0.1,
    log_level: LogLevelOption = None,
    log_format: LogFormatOption = None,
) -> None:
    """Keep the read models current, and nothing else: the projector as a service of its own
    (gateways then run `sluice serve --no-projector`). Any number may run: each window of
    the log is applied once. Stops on SIGTERM or Ctrl-C. Logs on stderr."""
    settings = read_settings()
    start_logging(log_level, log_format, settings)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with _open(settings=settings) as sluice:
        sluice.projector.interval = interval
        sluice.projector.start()
        typer.echo(f"Projecting {redacted(sluice.database_url)}")
        try:
            while not stop.wait(1.0):
                if not sluice.projector.running:
                    _fail("the projector stopped")
        except KeyboardInterrupt:
            pass


@audit_app.command("account")
def audit_account(account: str, as_json: JsonOption = False) -> None:
    """The timeline of an account: each event with its run, principal, confirmer, program."""
    _print_timeline("account", account, as_json)


@audit_app.command("record")
def audit_record(
    kind: Annotated[str, typer.Argument(help="The kind of record: an account, an order...")],
    key: Annotated[str, typer.Argument(help="Its id (an account's name, an order's id).")],
    as_json: JsonOption = False,
) -> None:
    """The timeline of one record of the domain: each event with its run, principal,
    confirmer, program (`audit record account bob` is `audit account bob`)."""
    _print_timeline(kind, key, as_json)


def _print_timeline(kind: str, key: str, as_json: bool) -> None:
    with _open() as sluice:
        try:
            timeline = sluice.operations.timeline(kind, key)
            audited = sluice.operations.audited(kind)
        except NotAuditedError as error:
            _fail(str(error), 2)
        except DomainError as error:
            _fail(str(error))
    if as_json:
        _print_json(timeline)
        return
    # Every column folds rather than pushing the table past the terminal's width: at 80
    # columns a long memo or program wraps within its cell, and the borders stay.
    table = Table(title=f"{kind} {key}", title_justify="left", collapse_padding=True)
    for column in ("pos", *audited.columns, "run", "by", "confirmed"):
        short = column in ("pos", "run")  # a position, and the 8 characters of a run id
        table.add_column(
            column, overflow="fold", no_wrap=short, min_width=8 if column == "run" else 3
        )
    table.add_column("program", overflow="fold", min_width=7)
    for item in timeline:
        run = item["run"] or {}
        table.add_row(*(shown(cell) for cell in (
            item["position"], *audited.row(item),
            (run.get("run_id") or "")[:8], run.get("principal") or "",
            run.get("confirmed_by") or "", _clipped(run.get("program_excerpt") or ""),
        )))  # fmt: skip
    Console().print(table)


def _clipped(program: str, width: int = 24) -> str:
    """A program's first line, cut to `width`: `audit run` shows the whole of it."""
    first = program.strip().splitlines()[0] if program.strip() else ""
    return first if len(first) <= width else first[: width - 1] + "…"


@audit_app.command("run")
def audit_run(
    run_id: Annotated[str, typer.Argument(help="The run's id, or its start (8 characters, say).")],
    as_json: JsonOption = False,
) -> None:
    """The whole story of one run: request, program, preview, confirmation, events."""
    with _open() as sluice:
        try:
            run_id = resolve_run_id(sluice, run_id)
        except RunIdError as error:
            _fail(str(error))
        try:
            story = sluice.operations.run_story(UUID(run_id))
        except (ValueError, LookupError, AggregateNotFoundError):
            _fail(f"no run {run_id}")
    if as_json:
        _print_json(_story_json(story))
        return
    console = Console()
    via = story.proposed_via
    key = " ".join(part for part in (via.scope, "key", via.key_id) if part) if via else ""
    over = f", over {via.interface}" if via and via.interface else ""
    who = (
        f"{story.principal} ({story.kind}; {key}{over})"
        if via
        else f"{story.principal} ({story.kind})"
    )
    console.print(shown(f"Run {story.id} by {who}: {story.status}", "bold"))
    console.print(said("Request:", "", story.request or "(none)"))
    console.print(shown(f"Program ({story.language}, sha256 {_sha256(story.source)[:12]}):"))
    console.print(framed("The program as proposed", story.source))
    if story.preview.output:
        console.print(framed(PRINTED_TITLE, story.preview.output))
    console.print(shown(f"Preview hash: {story.preview_hash}"))
    for step in _story_json(story)["history"]:
        extra = {k: v for k, v in step.items() if k not in ("event", "timestamp")}
        console.print(said(f"  {step['timestamp']}  {step['event']} ", "", extra or ""))
    for event in story.committed_events:
        console.print(
            shown(f"  committed {event['type']} on {event['account']} (version {event['version']})")
        )


def _story_json(story: RunStory) -> dict[str, Any]:
    """`sluice audit run --json`: the run's story under the names this command prints, each
    step of its history with what decided it."""
    decided: dict[str, dict[str, Any]] = {
        "Confirmed": {"by": story.confirmed_by},
        "Rejected": {"by": story.decided_by},
        "Failed": {"error": story.error},
        "Committed": {"events": len(story.committed_events)},
    }
    return {
        "run_id": story.id,
        "principal": story.principal,
        # The key's scope, the interface and the key's id; None for a run recorded before.
        "proposed_via": story.proposed_via and story.proposed_via.model_dump(mode="json"),
        "kind": story.kind,
        "status": story.status,
        "request": story.request,
        "language": story.language,
        "program": story.source,
        "program_sha256": _sha256(story.source),
        "preview": story.preview.to_json(),
        "preview_hash": story.preview_hash,
        "confirmed_by": story.confirmed_by,
        "confirmed_at": story.confirmed_at,
        "decided_at": story.decided_at,
        "error": story.error,
        "history": [
            {"event": step.type, "timestamp": step.timestamp, **decided.get(step.type, {})}
            for step in story.history
        ],
        "committed_events": story.committed_events,
    }


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@audit_app.command("event")
def audit_event(position: int, as_json: JsonOption = False) -> None:
    """One event of the log, with the run behind it."""
    with _open() as sluice:
        found = sluice.operations.event_at(position)
    if found is None:
        _fail(f"no event at position {position}")
    if as_json:
        _print_json(found)
        return
    console = Console()
    on = found["account"] or found["aggregate_id"]
    console.print(
        shown(f"Event {found['position']}: {found['type']} on {on}, version {found['version']}, "
              f"at {found['timestamp']}", "bold")
    )  # fmt: skip
    for name, value in found["data"].items():
        console.print(said(f"  {name}:", "", value if isinstance(value, str) else _json(value)))
    run = found["run"]
    if run is None:
        console.print("No run committed this event (it is not an account's event).")
        return
    console.print(shown(f"Committed by run {run['run_id']} ({run['kind']}, {run['language']})"))
    for label, key in (("proposed by", "principal"), ("confirmed by", "confirmed_by"),
                       ("confirmed at", "confirmed_at"), ("request", "request"),
                       ("program", "program_excerpt")):  # fmt: skip
        console.print(said(f"  {label}:", "", run.get(key) or "(none)"))


@audit_app.command("as-of")
def audit_as_of(
    key: Annotated[str, typer.Argument(metavar="ID", help="The record's id.")],
    at: Annotated[str, typer.Option("--at", help="A log position, or an ISO 8601 time.")],
    kind: Annotated[
        str | None,
        typer.Option("--kind", help="The kind of record; the domain's first (an account)."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """A record's state at a point of the log: an account's, unless --kind says."""
    position, moment = _point(at)
    with _open() as sluice:
        try:
            kind = kind or sluice.operations.first_kind()
            state = sluice.operations.as_of(kind, key, position=position, at=moment)
            audited = sluice.operations.audited(kind)
        except NotAuditedError as error:
            _fail(str(error), 2)
        except DomainError as error:
            _fail(str(error))
    if as_json:
        _print_json(state)
    elif not state["exists"]:
        Console().print(shown(f"{kind} {key} did not exist yet at {at}"))
    else:
        Console().print(
            shown(
                f"{kind} {key} at {at}: {told(audited, state)}, version {state['version']} "
                f"(last event at position {state['last_event_position']})"
            )
        )


@audit_app.command("verify")
def audit_verify(as_json: JsonOption = False) -> None:
    """Recompute the read models from the log and check the books (each run's events, and
    the domain's own check: the bank's balances); exit 1 on any failure."""
    with _open(whole_log=True) as sluice, _bar(disable=as_json) as bar:
        catching_up: dict[str, Any] = {}

        def caught_up(name: str, position: int, target: int, _events: int) -> None:
            if name not in catching_up:
                catching_up[name] = bar.add_task(f"bringing {name} up to date", where="")
            where = f"position {position:,}/{target:,}"
            bar.update(catching_up[name], completed=position, total=target, where=where)

        sluice.read_models.catch_up(progress=caught_up)
        reading = bar.add_task("recomputing from the log", total=None, where="")

        def read(position: int, target: int) -> None:
            where = f"position {position:,}/{target:,}"
            bar.update(reading, completed=position, total=target, where=where)

        position, checks = sluice.operations.verify(sluice.read_models, progress=read)
    ok = all(check.ok for check in checks)
    if as_json:
        _print_json({"ok": ok, "position": position, "checks": [c.to_json() for c in checks]})
    else:
        console = Console()
        console.print(f"Verified the log up to position {position}:")
        for check in checks:
            console.print(f"  {'[green]ok[/]' if check.ok else '[red]FAILED[/]'}  {check.name}")
            for detail in check.details[:20]:
                console.print(shown(f"      {detail}"))
    raise typer.Exit(0 if ok else 1)


def events(
    after: Annotated[int, typer.Option("--after", help="Print events after this position.")] = 0,
    follow_log: Annotated[bool, typer.Option("--follow", help="Wait for new events.")] = False,
) -> None:
    """Print the log as JSON lines; with --follow, keep printing as events commit."""
    with _open() as sluice:
        if not follow_log:
            while batch := sluice.operations.read_log(after, 1000):
                for item in batch:
                    typer.echo(_json(item))
                after = batch[-1]["position"]
            return
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            for item in sluice.operations.follow(after, stop):
                typer.echo(_json(item))
                sys.stdout.flush()
        except KeyboardInterrupt:
            stop.set()


def export(
    output_format: Annotated[str, typer.Option("--format", help="jsonl or csv.")] = "jsonl",
) -> None:
    """Export the whole log to standard output."""
    if output_format not in ("jsonl", "csv"):
        _fail(f"--format {output_format!r}: use jsonl or csv", 2)
    columns = ["position", "aggregate_id", "account", "version", "type", "timestamp", "data"]
    writer = csv.DictWriter(sys.stdout, columns) if output_format == "csv" else None
    if writer:
        writer.writeheader()
    after = 0
    with _open(whole_log=True) as sluice:
        while batch := sluice.operations.read_log(after, 1000):
            for item in batch:
                if writer:
                    writer.writerow(item | {"data": _json(item["data"])})
                else:
                    typer.echo(_json(item))
            after = batch[-1]["position"]


# A rebuild's rate is shown once it has run this long, so that it is a measure.
RATE_AFTER_SECONDS = 1.0


def _bar(*, disable: bool) -> Progress:
    """Progress on stderr, by log position: what is being done, how far, for how long."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[where]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=disable,
    )


def _point(at: str) -> tuple[int | None, datetime | None]:
    if at.isdigit():
        return int(at), None
    try:
        moment = datetime.fromisoformat(at)
    except ValueError:
        _fail(f"--at {at!r}: give a log position (a number) or an ISO 8601 time", 2)
    if moment.tzinfo is None:
        _fail(f"--at {at!r}: give the time zone, e.g. {at}+00:00", 2)
    return None, moment
