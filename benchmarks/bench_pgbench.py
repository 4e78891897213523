"""`make bench-pgbench`: where Postgres itself is the limit of the store's transfers.

A transfer through infrastructure.postgres is three statements: the events of the payer,
the events of the payee (an account is replayed from them), and one call of the insert
function (the table lock, the read-set check, two events, the notify, the commit). Here the
same three statements, with the same text, run three ways side by side in one run, on one
schema of 10,000 accounts, at 1 and 8 clients:

- pgbench: PostgreSQL's own C client sends them (`pgbench -f`, prepared statements), so
  what it reaches is what this server does with these statements on this machine;
- recorder: the store's recorder sends them from Python threads (`select_events` twice,
  `insert_events`), without building aggregates;
- application: a whole transfer through an eventsourcing Application on the store (load
  both accounts, debit and credit, save), as `make bench-store` measures it.

Each client works on accounts of its own, so that pgbench (which stops a client at its
first error) never meets a concurrent insert of the same version.

    python -m benchmarks.bench_pgbench [--seconds 10] [--clients 1,8] [--url URL]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from uuid import UUID

import psycopg
from eventsourcing.persistence import StoredEvent

from benchmarks.bench_store import (
    OURS,
    Bank,
    Options,
    fresh_schema,
    open_bank,
    seed_accounts,
    server_env,
)
from domain.account import Account
from infrastructure.postgres import AsyncpgApplicationRecorder

ACCOUNTS = 10_000
AMOUNT = Decimal("1.00")
TOPIC = "domain.account:Account.TransferDebited"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url",
        default=os.environ.get(
            "SLUICE_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
        ),
    )
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", default="1,8")
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",")]
    options = Options(
        url=args.url,
        accounts=ACCOUNTS,
        transfers=0,
        warmup=0,
        rounds=1,
        clients=clients,
        notifications=0,
        page_size=0,
        read_rounds=0,
        profile=None,
    )
    with fresh_schema(args.url, OURS) as schema:
        bank = open_bank(options, OURS, schema)
        ids = seed_accounts(bank, ACCOUNTS, prefix="pg")
        recorder = bank.recorder
        assert isinstance(recorder, AsyncpgApplicationRecorder)
        state = _a_stored_debit(bank, ids[0], ids[1])
        _write_ids(args.url, schema, ids)
        print(f"{ACCOUNTS} accounts, {args.seconds:.0f} s per case; transfers per second\n")
        print(f"{'clients':>7}  {'pgbench':>8}  {'recorder':>8}  {'application':>11}  ratios")
        for count in clients:
            native = _pgbench(
                args.url,
                schema,
                recorder=recorder,
                state=state,
                clients=count,
                seconds=args.seconds,
            )
            python = _threads(count, args.seconds, ids, lambda a, b: _raw(recorder, a, b, state))
            whole = _threads(count, args.seconds, ids, lambda a, b: _transfer(bank, a, b))
            print(
                f"{count:>7}  {native:>8.0f}  {python:>8.0f}  {whole:>11.0f}  "
                f"recorder/pgbench {python / native:.2f}, application/pgbench "
                f"{whole / native:.2f}"
            )
        bank.close()
    return 0


def _a_stored_debit(bank: Bank, payer: UUID, payee: UUID) -> bytes:
    """A real debit's stored bytes: what every way writes (rows of one size, which the
    application replays like its own)."""
    _transfer(bank, payer, payee)
    last = bank.recorder.select_events(payer)[-1]
    assert last.topic == TOPIC, last.topic
    return bytes(last.state)


def _write_ids(url: str, schema: str, ids: list[UUID]) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE TABLE "{schema}".bench_ids (n int PRIMARY KEY, id uuid NOT NULL)')
        with conn.cursor().copy(f'COPY "{schema}".bench_ids (n, id) FROM STDIN') as copy:
            for n, account in enumerate(ids):
                copy.write_row((n, account))


def _pgbench_script(schema: str, recorder: AsyncpgApplicationRecorder, clients: int) -> str:
    sql = recorder.events_sql
    select = sql.select_events(gt=False, lte=False, desc=False, limit=False)
    share = ACCOUNTS // clients
    lines = [
        # The payer and the payee, two of this client's own accounts.
        f"\\set a :client_id * {share} + random(0, {share - 1})",
        f"\\set b :client_id * {share} + ((:a - :client_id * {share} + random(1, {share - 1}))"
        f" % {share})",
        f'SELECT id AS a_id FROM "{schema}".bench_ids WHERE n = :a \\gset',
        f'SELECT id AS b_id FROM "{schema}".bench_ids WHERE n = :b \\gset',
        # The recorder's own statement; \aset keeps the last row: the highest version.
        select.replace("$1", ":a_id") + " \\aset a_",
        select.replace("$1", ":b_id") + " \\aset b_",
        "\\set va :a_originator_version + 1",
        "\\set vb :b_originator_version + 1",
        f"SELECT * FROM {sql.qualified_function}("
        "ARRAY[:a_id, :b_id]::uuid[], ARRAY[:va, :vb]::bigint[], "
        # As variables (-D): pgbench would read the topic's ":Account" as one.
        "ARRAY[:topic, :topic]::text[], ARRAY[:state, :state]::bytea[], "
        "'{}'::uuid[], '{}'::bigint[]);",
    ]
    return "\n".join(lines) + "\n"


def _pgbench(
    url: str,
    schema: str,
    *,
    recorder: AsyncpgApplicationRecorder,
    state: bytes,
    clients: int,
    seconds: float,
) -> float:
    env = server_env(url)
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "transfer.sql"
        script.write_text(_pgbench_script(schema, recorder, clients))
        done = subprocess.run(
            [
                "pgbench", "-n", "-M", "prepared", "-f", str(script),
                "-D", f"topic={TOPIC}", "-D", f"state=\\x{state.hex()}",
                "-c", str(clients), "-j", str(min(clients, os.cpu_count() or 1)),
                "-T", str(round(seconds)),
                "-h", env["POSTGRES_HOST"], "-p", env["POSTGRES_PORT"],
                "-U", env["POSTGRES_USER"], env["POSTGRES_DBNAME"],
            ],
            capture_output=True, text=True, check=False,
            env={**os.environ, "PGPASSWORD": env["POSTGRES_PASSWORD"]},
        )  # fmt: skip
    found = re.search(r"tps = ([\d.]+) \(without initial connection time\)", done.stdout)
    failed = re.search(r"number of failed transactions: (\d+)", done.stdout)
    if done.returncode != 0 or found is None or (failed and failed.group(1) != "0"):
        raise SystemExit(f"pgbench failed:\n{done.stdout}\n{done.stderr}")
    return float(found.group(1))


def _raw(recorder: AsyncpgApplicationRecorder, payer: UUID, payee: UUID, state: bytes) -> None:
    versions = [recorder.select_events(payer)[-1], recorder.select_events(payee)[-1]]
    recorder.insert_events(
        [
            StoredEvent(account, last.originator_version + 1, TOPIC, state)
            for account, last in zip((payer, payee), versions, strict=True)
        ]
    )


def _transfer(bank: Bank, payer_id: UUID, payee_id: UUID) -> None:
    payer: Account = bank.repository.get(payer_id)
    payee: Account = bank.repository.get(payee_id)
    payer.debit_transfer(AMOUNT, payee.account, "bench")
    payee.credit_transfer(AMOUNT, payer.account, "bench")
    bank.save(payer, payee)


def _threads(
    clients: int, seconds: float, ids: list[UUID], transfer: Callable[[UUID, UUID], None]
) -> float:
    """Transfers per second from `clients` threads, each on accounts of its own."""
    share = len(ids) // clients
    counts = [0] * clients
    barrier = threading.Barrier(clients + 1)
    stop = [0.0]

    def client(n: int) -> None:
        mine = ids[n * share : (n + 1) * share]
        rng = random.Random(n)
        barrier.wait()
        while time.perf_counter() < stop[0]:
            payer, payee = rng.sample(mine, 2)
            transfer(payer, payee)
            counts[n] += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    stop[0] = began + seconds
    barrier.wait()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.perf_counter() - began)


if __name__ == "__main__":
    raise SystemExit(main())
