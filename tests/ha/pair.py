"""A PostgreSQL primary and its streaming standby, made from the machine's own binaries for a
test or a benchmark: `initdb`, `pg_basebackup -R`, `pg_ctl` (found with `pg_config
--bindir`), run as the `postgres` OS user when this runs as root, in a temporary folder of
that user's, on spare ports. The machine's own cluster is never touched.

The recipe is the one docker-compose.yml follows: a primary that streams its WAL (trust
for replication from 127.0.0.1, as initdb's default pg_hba.conf gives), and a standby made
by `pg_basebackup -R` naming itself `standby` (its application_name), which the primary's
`synchronous_standby_names` waits for when `synchronous` is asked. The standby is
configured with no synchronous standby of its own: promoted, it must not wait for one.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from tests.served import free_port

OS_USER = "postgres"
STANDBY_NAME = "standby"
START_SECONDS = 60


class PairUnavailableError(RuntimeError):
    """The machine has no PostgreSQL binaries (or no `postgres` user) to make a pair."""


def bindir() -> Path:
    try:
        found = subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as error:
        raise PairUnavailableError(f"pg_config --bindir did not answer: {error}") from None
    folder = Path(found)
    missing = [p for p in ("initdb", "pg_ctl", "pg_basebackup") if not (folder / p).exists()]
    if missing:
        raise PairUnavailableError(f"{folder} has no {', '.join(missing)}")
    return folder


@dataclass
class Server:
    name: str
    data: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
            autocommit=True, connect_timeout=5, application_name="sluice-pair",
        )  # fmt: skip

    def query(self, sql: str, *args: object) -> object:
        """The first column of the first row (None for a statement that returns none)."""
        with self.connect() as conn:
            cursor = conn.execute(sql, args or None)
            row = cursor.fetchone() if cursor.description else None
        return None if row is None else row[0]

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])


@dataclass
class Pair:
    root: Path
    bindir: Path
    synchronous: bool
    primary: Server = field(init=False)
    standby: Server = field(init=False)

    def __post_init__(self) -> None:
        self.primary = Server("primary", self.root / "primary", free_port())
        self.standby = Server("standby", self.root / "standby", free_port())

    @property
    def url(self) -> str:
        """Both servers, the one that accepts writes chosen: what gateways are given."""
        return (
            f"postgresql://postgres@127.0.0.1:{self.primary.port},127.0.0.1:{self.standby.port}"
            "/postgres?target_session_attrs=read-write"
        )

    # Making it.

    def start(self) -> None:
        self._run("initdb", "-D", self.primary.data, "-U", "postgres", "-A", "trust",
                  "-E", "UTF8", "--locale=C.UTF-8", "-N")  # fmt: skip
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.primary.port),
            "unix_socket_directories": f"'{self.root}'",
            "max_connections": "60",
            "shared_buffers": "32MB",
            "wal_level": "replica",
            "max_wal_senders": "4",
            "hot_standby": "on",
            "hot_standby_feedback": "on",
            # The tests kill processes, never the machine: the page cache outlives them.
            "fsync": "off",
            "synchronous_commit": "on",
            "synchronous_standby_names": f"'{STANDBY_NAME}'" if self.synchronous else "''",
        }
        _append(self.primary.data / "postgresql.conf", settings)
        self._pg_ctl(self.primary, "start")
        self._run(
            "pg_basebackup", "-D", self.standby.data, "-R", "-X", "stream", "-c", "fast", "-N",
            "-d", f"host=127.0.0.1 port={self.primary.port} user=postgres "
            f"application_name={STANDBY_NAME}",
        )  # fmt: skip
        # After the copied postgresql.conf: its own port, and no synchronous standby of its
        # own (promoted, it would wait for one forever).
        _append(
            self.standby.data / "postgresql.auto.conf",
            {"port": str(self.standby.port), "synchronous_standby_names": "''"},
        )
        self._pg_ctl(self.standby, "start")
        self.wait_streaming()

    def wait_streaming(self, timeout: float = START_SECONDS) -> None:
        """Until the primary streams to the standby (synchronously when asked)."""
        wanted = "sync" if self.synchronous else "async"
        deadline = time.monotonic() + timeout
        while True:
            state = self.primary.query(
                "SELECT sync_state FROM pg_stat_replication "
                "WHERE application_name = %s AND state = 'streaming'",
                STANDBY_NAME,
            )
            if state == wanted:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the standby did not stream ({state}): {self.logs()}")
            time.sleep(0.05)

    # What happens to it.

    def kill_primary(self) -> None:
        """SIGKILL the primary's postmaster and every process of it, as a lost machine."""
        pid = self.primary.postmaster_pid()
        family = [pid, *_children(pid)]
        for member in family:
            with contextlib.suppress(ProcessLookupError):
                os.kill(member, signal.SIGKILL)
        deadline = time.monotonic() + START_SECONDS
        while any(_alive(member) for member in family):
            if time.monotonic() > deadline:
                raise AssertionError(f"the primary's processes outlived SIGKILL: {family}")
            time.sleep(0.01)

    def promote(self) -> None:
        """`pg_ctl promote`: the standby accepts writes once it returns."""
        self._run("pg_ctl", "-D", self.standby.data, "-w", "-t", str(START_SECONDS), "promote")

    def pause_replay(self) -> None:
        self.standby.query("SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        self.standby.query("SELECT pg_wal_replay_resume()")

    def stop_standby(self) -> None:
        self._run("pg_ctl", "-D", self.standby.data, "-m", "fast", "stop")

    def start_standby(self) -> None:
        self._pg_ctl(self.standby, "start")

    def stop(self) -> None:
        for server in (self.standby, self.primary):
            if (server.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", server.data, "-m", "immediate", "stop", check=False)

    def logs(self) -> str:
        return "\n".join(
            f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}"
            for log in sorted(self.root.glob("*.log"))
        )

    # As the postgres user.

    def _pg_ctl(self, server: Server, action: str) -> None:
        self._run("pg_ctl", "-D", server.data, "-l", self.root / f"{server.name}.log",
                  "-w", "-t", str(START_SECONDS), action)  # fmt: skip

    def _run(self, program: str, *args: object, check: bool = True) -> None:
        argv = [str(self.bindir / program), *(str(a) for a in args)]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", OS_USER, "--", *argv]
        done = subprocess.run(
            argv, capture_output=True, text=True, cwd=self.root, timeout=120, check=False
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
                f"\n{self.logs()}"
            )


@contextmanager
def postgres_pair(*, synchronous: bool = True) -> Iterator[Pair]:
    """A started primary and standby; both stopped and their folder removed afterwards."""
    folder = bindir()
    root = Path(tempfile.mkdtemp(prefix="sluice-pair-"))
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam(OS_USER)
        except KeyError:
            shutil.rmtree(root)
            raise PairUnavailableError(f"no {OS_USER} user to run PostgreSQL as") from None
        os.chown(root, user.pw_uid, user.pw_gid)
    root.chmod(0o700)
    pair = Pair(root, folder, synchronous)
    try:
        pair.start()
        yield pair
    finally:
        pair.stop()
        shutil.rmtree(root, ignore_errors=True)


def _append(conf: Path, settings: dict[str, str]) -> None:
    with conf.open("a") as file:
        file.write("\n" + "".join(f"{key} = {value}\n" for key, value in settings.items()))


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                # The fields after the command's name (which may hold spaces): state, ppid.
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie has ended; only its parent's wait is left
