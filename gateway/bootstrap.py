"""The composition root: one place wires the store, the catalog and the sandbox."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from application import domains
from application.domains import Domain
from application.ledger import Ledger
from application.rate_counter import RateCounter, open_rate_counter
from application.read_models.projector import Projector
from application.read_models.queries import ReadModelQueries
from application.read_models.routing import ReplayingStore
from application.read_models.service import (
    LIVE,
    ReadModels,
    open_read_model_store,
    open_standby_store,
)
from application.read_models.store import ReadModelStore
from application.store_config import default_database_url, eventsourcing_env, standby_env
from gateway.core.catalog import Catalog
from gateway.core.facade import Gateway
from gateway.core.key_admin import KeyAdmin
from gateway.core.operations import Operations
from gateway.core.policy.caps import Caps
from gateway.core.policy.rate import REQUESTS
from gateway.core.program.pool_settings import PoolSettings
from gateway.core.program.runner import ProgramRunner
from gateway.core.program.sandbox import Sandbox
from gateway.core.proposals import Clock, utc_now
from gateway.notify.webhook import WebhookNotifier
from gateway.settings import Settings, load_settings


class Sluice:
    """The running system: a ledger on its store, a domain's catalog, a sandbox on demand.

    Wired from `settings` (read from the environment when none are given: a command reads
    them once at start and hands them here); an argument given wins over its setting, so
    `domain` wins over SLUICE_DOMAIN. A setting Sluice cannot use is a SettingsError naming
    it."""

    def __init__(
        self,
        database_url: str | None = None,
        caps: Caps | None = None,
        *,
        sandbox: Sandbox | None = None,
        pool: PoolSettings | None = None,
        clock: Clock = utc_now,
        trusted_clients: frozenset[str] | None = None,
        read_database_url: str | None = None,
        domain: Domain | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.settings = settings = load_settings() if settings is None else settings
        # The business it serves: its use cases, its directory's header, its demo data.
        self.domain = domains.load(settings.domain) if domain is None else domain
        self.database_url = database_url or settings.database_url or _default_url()
        # A hot standby that the read endpoints read (optional), checked before anything opens.
        self.read_database_url = read_database_url or settings.read_database_url
        self.standby_env = (
            None
            if self.read_database_url is None
            else standby_env(self.read_database_url, self.database_url)
        )
        self.catalog = Catalog(
            self.domain.directory_header, self.domain.use_cases, self.domain.owned_words
        )
        self.caps = caps or settings.caps(use_cases=self.catalog.names)
        self.pool = pool or settings.pool
        # Whose MCP clients may confirm by a form (SLUICE_MCP_TRUSTED_CLIENTS).
        self.trusted_clients = (
            settings.mcp_trusted_clients if trusted_clients is None else trusted_clients
        )
        self.clock = clock
        # A sandbox given from outside (a test's shared pool) is its owner's to close.
        self._own_sandbox = sandbox is None
        if sandbox is not None:
            self.__dict__["sandbox"] = sandbox
        self.limits = self.caps.program_limits()
        self.ledger = Ledger(env=eventsourcing_env(self.database_url))
        # True when another process (`sluice project`) keeps the read models current.
        self.projected_elsewhere = False
        # How long a read waits for its min_position (SLUICE_READ_WAIT_SECONDS).
        self.read_wait_seconds = settings.read_wait_seconds
        # The webhook told of proposals waiting for a person (SLUICE_NOTIFY_URL), if any.
        self.notify = settings.notify

    @cached_property
    def sandbox(self) -> Sandbox:
        return Sandbox(self.limits, workers=self.pool.workers, wait_seconds=self.pool.wait_seconds)

    @cached_property
    def runner(self) -> ProgramRunner:
        return ProgramRunner(self.ledger, self.catalog, self.sandbox, self.limits)

    @cached_property
    def read_models(self) -> ReadModels:
        view = open_read_model_store(self.ledger, LIVE)
        return ReadModels(self.ledger, view, declared=self.domain.read_models)

    @cached_property
    def standby(self) -> ReadModelStore | None:
        """The read models on the standby of SLUICE_READ_DATABASE_URL; None without one."""
        if self.standby_env is None:
            return None
        return open_standby_store(self.ledger, self.standby_env, LIVE)

    @cached_property
    def projector(self) -> Projector:
        return Projector(self.read_models)

    @cached_property
    def gateway(self) -> Gateway:
        gateway = Gateway(
            self.ledger,
            self.catalog,
            self.runner,
            self.caps,
            clock=self.clock,
            trusted_clients=self.trusted_clients,
            money_moves=self.domain.money_moves,
        )
        # The operator's questions in the served domain's terms (its audited records, books).
        gateway.operations = self.operations
        # Without a running projector, each direct read brings the views up to date first.
        gateway.queries = ReadModelQueries(
            self.read_models,
            is_fresh=lambda: self.projected_elsewhere or self.projector.running,
            standby=self.standby,
            wait_seconds=self.read_wait_seconds,
        )
        if self.notify is not None:
            gateway.notifier = self.notifier
        return gateway

    # The facade's operator commands, also without the rest of it (a sandbox, read models)
    # for a command that needs no more.
    @cached_property
    def operations(self) -> Operations:
        return Operations.of(self.ledger, self.domain)

    @cached_property
    def key_admin(self) -> KeyAdmin:
        return KeyAdmin(self.ledger)

    @cached_property
    def notifier(self) -> WebhookNotifier:
        assert self.notify is not None, "SLUICE_NOTIFY_URL is not set"
        return WebhookNotifier(self.notify, console_url=self.settings.console_url)

    @cached_property
    def request_counter(self) -> RateCounter:
        """Counts requests_per_minute in the store: the HTTP API and /mcp of every process."""
        return open_rate_counter(self.ledger, REQUESTS)

    def close(self) -> None:
        if "projector" in self.__dict__:
            self.projector.stop()
        if "notifier" in self.__dict__:
            self.notifier.close()
        if "request_counter" in self.__dict__:
            self.request_counter.close()
        if "gateway" in self.__dict__:
            self.gateway.rate.close()
        if self._own_sandbox and "sandbox" in self.__dict__:
            self.sandbox.close()
        if isinstance(self.__dict__.get("standby"), ReplayingStore):
            self.__dict__["standby"].close()
        self.ledger.close()

    def __enter__(self) -> Sluice:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _default_url() -> str:
    Path("var").mkdir(exist_ok=True)
    return default_database_url()
