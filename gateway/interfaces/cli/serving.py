"""`sluice serve` and `sluice mcp`: the commands that serve, and what they say at start."""

from __future__ import annotations

import contextlib
import errno
import logging
import shutil
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from application import principals
from application.domains import Demo
from application.store_config import redacted
from gateway.core.errors import GatewayError
from gateway.demo import demo_agent_keys, demo_keys, seed
from gateway.interfaces.cli.log_options import LogFormatOption, LogLevelOption, start_logging
from gateway.interfaces.cli.opening import error, read_settings, usage_error
from gateway.interfaces.cli.opening import open_sluice as _open
from gateway.interfaces.cli.store_check import store_note

STARTUP_FAILURE = 3  # as uvicorn's own


def print_demo_keys(demo: Demo | None = None) -> None:
    typer.echo("Demo keys (DEMO ONLY, well known, never use them for real money):")
    agent_keys = demo_agent_keys(demo)
    for name, demo_key in demo_keys(demo).items():
        typer.echo(f"  {name:<8} {demo_key:<18} agent key (proposes only): {agent_keys[name]}")


def port_taken(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on (taken, say), or None. Asked before anything
    is printed, so that no `Serving ...` line precedes the failure."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As uvicorn binds: a port left in TIME_WAIT by a server just stopped is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as refused:
            if refused.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is taken (another `sluice serve`, or another "
                    f"program): serve on another with --port {port + 1} (make run "
                    f"PORT={port + 1}), or stop what listens there"
                )
            return f"cannot listen on {host}:{port}: {refused.strerror or refused}"
    return None


def cli_hint() -> list[str]:
    """How to reach `sluice` from another terminal: it is on PATH already, or activate the
    environment it is installed in (`source .venv/bin/activate` after `make run`)."""
    here = Path(sys.argv[0]).resolve().parent
    on_path = shutil.which("sluice")
    if on_path is not None and Path(on_path).resolve().parent == here:
        return ["The CLI, in another terminal: `sluice --help` (it is on your PATH)."]
    activate = here / "activate"
    if not activate.exists():
        return [f"The CLI, in another terminal: {here / 'sluice'} --help"]
    with contextlib.suppress(ValueError):
        activate = activate.relative_to(Path.cwd())
    return [
        "The CLI, in another terminal, from this folder:",
        f"  source {activate}    # puts `sluice` on your PATH",
        "  sluice proposals --as alice",
    ]


def _say_how_to_start(host: str, port: int, demo: Demo) -> None:
    base = f"http://{host}:{port}"
    customers = [p.name for p in demo.principals if p.role == "customer"]
    key = principals.demo_key(customers[0] if customers else "alice")
    if demo.try_read is None:
        call = f"{base}/v1/accounts"
    else:
        call = f"-X POST -H 'Content-Type: application/json' -d '{{}}' {base}/v1/use-cases/"
        call += demo.try_read
    lines = [
        "",
        f"The web console: {base}/ (sign in with a key above, e.g. {key})",
        *cli_hint(),
        "The API:",
        f"  curl -s -H 'Authorization: Bearer {key}' {call}",
        "",
    ]
    typer.echo("\n".join(lines))


def serve(  # noqa: PLR0917 (typer maps each parameter to an option)
    host: Annotated[str, typer.Option("--host", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    with_demo: Annotated[
        bool, typer.Option("--demo", help="Seed the demo data first and print its keys.")
    ] = False,
    projector: Annotated[
        bool,
        typer.Option(
            "--projector/--no-projector",
            help="Keep the read models current in this process, or leave it to `sluice project`.",
        ),
    ] = True,
    log_level: LogLevelOption = None,
    log_format: LogFormatOption = None,
    cpu: Annotated[
        int | None,
        typer.Option(
            "--cpu",
            help="Run this process, its threads and its sandbox workers on this CPU only: "
            "its threads hand Python's one lock to each other cheaply there, and it serves "
            "more. For more CPUs, run one process per CPU. SLUICE_SERVE_CPU otherwise.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve the HTTP API (uvicorn). Logs on stderr: one access line per request at INFO."""
    from gateway.interfaces.http.server import http_server
    from gateway.interfaces.process_cpu import bind_to_cpu

    settings = read_settings()
    cpu = settings.serve_cpu if cpu is None else cpu
    # Before any thread or sandbox worker starts: they inherit it.
    if cpu is not None and (refused := bind_to_cpu(cpu)) is not None:
        usage_error(refused)
    # From the start: opening the store may log already.
    level = start_logging(log_level, log_format, settings)
    if (taken := port_taken(host, port)) is not None:
        error(taken)
        raise typer.Exit(STARTUP_FAILURE)
    with _open(expect_data=False, settings=settings) as sluice:
        sluice.projected_elsewhere = not projector
        server = http_server(
            sluice, host=host, port=port, projector=projector, log_level=level, demo=with_demo
        )
        if with_demo:
            seed(sluice.gateway, sluice.domain.demo, ownable=sluice.domain.ownable)
            print_demo_keys(sluice.domain.demo)
            _say_how_to_start(host, port, sluice.domain.demo)
        typer.echo(
            f"Serving {redacted(sluice.database_url)} on http://{host}:{port}/ "
            "(the web console at /, the API docs at /docs, MCP at /mcp)"
        )
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: uvicorn has shut down
            server.run()
    if not server.started:  # it could not listen after all (taken meanwhile): uvicorn said why
        raise typer.Exit(STARTUP_FAILURE)


def mcp(
    console_url: Annotated[
        str | None,
        typer.Option(
            "--console-url",
            help="Where people review proposals: the web console of `sluice serve`, e.g. "
            "http://127.0.0.1:8000/; SLUICE_CONSOLE_URL otherwise. Without it, proposals "
            "carry no review link and are confirmed with `sluice confirm`.",
            show_default=False,
        ),
    ] = None,
    elicitation: Annotated[
        bool,
        typer.Option(
            "--elicitation/--no-elicitation",
            help="Send the person the web console's review page of each proposal through "
            "the MCP client (a form, on a client SLUICE_MCP_TRUSTED_CLIENTS names); without "
            "it, they find it there or use `sluice confirm`.",
        ),
    ] = True,
    log_level: LogLevelOption = None,
    log_format: LogFormatOption = None,
) -> None:
    """Serve MCP on stdin/stdout as the principal of SLUICE_API_KEY (for a desktop client).
    Logs on stderr, at WARNING unless asked."""
    from gateway.interfaces.mcp.stdio import stdio_server

    settings = read_settings()
    key = settings.api_key
    if not key:
        usage_error("SLUICE_API_KEY is not set: `sluice mcp` acts as the principal of that key")
    # Its log is the desktop client's: requests are not logged one by one unless asked.
    level = start_logging(log_level, log_format, settings, default=logging.WARNING)
    with _open(settings=settings) as sluice:
        try:
            server = stdio_server(
                sluice.gateway,
                key,
                console_url=settings.console_url if console_url is None else console_url,
                elicit=elicitation,
                log_level=level,
                state_keys=settings.mcp_state_keys,
            )
            server.run("stdio")
        except GatewayError as refused:
            usage_error(f"SLUICE_API_KEY: {refused} ({store_note(sluice)})")
