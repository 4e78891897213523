"""The console in a real browser: Debian's Chromium driven by Playwright, against a real
`sluice serve` process on a SQLite file, a free port and the demo data.

Chromium comes from apt (Playwright's own browser download cannot work here). When it is
missing, the first browser test installs it; if that fails, the browser tests are skipped
with one notice, or fail under CI=true, where a missing browser must not pass unseen.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Generator, Iterator
from pathlib import Path
from uuid import uuid4

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, Playwright, expect, sync_playwright

from tests.served import serving

CHROMIUM = Path("/usr/bin/chromium")
INSTALL_LOCK = Path(tempfile.gettempdir()) / "sluice-tests-chromium.lock"
# Without the background-networking flags Chromium reaches for the network at start, and
# this machine's closed network refuses its connections.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SLUICE = str(Path(sys.executable).parent / "sluice")
ARTEFACTS = Path(__file__).resolve().parents[2] / "var" / "test-artefacts" / "console"
NO_BROWSER = "browser tests skipped"
KEYS = {name: f"sk-demo-{name}" for name in ("alice", "bob", "carla", "teller", "auditor", "admin")}
KEYS["alice-agent"] = "sk-agent-demo-alice"  # alice's agent: proposes, never confirms
# Several tests act as alice within a minute; the default caps would throttle the suite.
ROOMY_CAPS = {"SLUICE_CAP_PROGRAMS_PER_MINUTE": "1000", "SLUICE_CAP_REQUESTS_PER_MINUTE": "10000"}

expect.set_options(timeout=10_000)


def pytest_configure(config: pytest.Config) -> None:
    # The pytest section of pyproject.toml belongs to the whole suite; the marker is the
    # console's own, so it is registered here (needed under --strict-markers).
    config.addinivalue_line("markers", "browser: drives the web console in a real Chromium")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    # A skip raised in a fixture is reported at each test's own line; one shared location
    # folds the browser tests' skips into a single notice.
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and NO_BROWSER in longrepr[2]:
        report.longrepr = ("tests/console/conftest.py", 1, longrepr[2])
    return report


def _install_chromium() -> str | None:
    """None once /usr/bin/chromium exists; otherwise why it could not be installed."""
    if CHROMIUM.exists():
        return None
    if shutil.which("apt-get") is None:
        return "no /usr/bin/chromium and no apt-get to install it"
    # One installer at a time: each pytest-xdist worker gets here, and a second apt-get
    # fails at once on dpkg's lock instead of waiting for the first.
    with INSTALL_LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return None if CHROMIUM.exists() else _apt_install_chromium()


def _apt_install_chromium() -> str | None:
    wait = ["-o", "DPkg::Lock::Timeout=600"]  # another program's apt-get, if any
    steps = (
        ["apt-get", *wait, "update"],
        ["apt-get", *wait, "install", "-y", "chromium"],
    )
    for step in steps:
        try:
            done = subprocess.run(
                step,
                capture_output=True,
                text=True,
                check=False,
                env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
                timeout=900,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"`{' '.join(step)}` failed: {error}"
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
            return f"`{' '.join(step)}` failed: {' '.join(tail)}"
    return (
        None if CHROMIUM.exists() else "apt-get installed chromium but /usr/bin/chromium is absent"
    )


@pytest.fixture(scope="session")
def chromium() -> Path:
    problem = _install_chromium()
    if problem is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and the console's browser tests need Chromium: {problem}")
        pytest.skip(f"{NO_BROWSER}: {problem}")
    return CHROMIUM


@pytest.fixture(scope="session")
def artefacts() -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS


def serve(database: Path, extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """A `sluice serve --demo` process; yields its base URL, stops it afterwards."""
    # The server's environment is the test's: no model unless the test gives one.
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env |= ROOMY_CAPS | {"SLUICE_DATABASE_URL": f"sqlite:///{database}"} | (extra_env or {})
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base


@pytest.fixture(scope="package")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One gateway for the browser tests; each test reads the balances it starts from."""
    yield from serve(tmp_path_factory.mktemp("console") / "served.db")


@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="package")
def browser(
    playwright: Playwright, chromium: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BrowserContext]:
    """Chromium on a fresh profile; each test opens its own tab (so its own sessionStorage),
    signed out (the console's session cookie is the browser session's, shared by its tabs)."""
    context = playwright.chromium.launch_persistent_context(
        tmp_path_factory.mktemp("chromium-profile"),
        executable_path=str(chromium),
        args=CHROMIUM_ARGS,
        headless=True,
        viewport={"width": 1280, "height": 900},
    )
    yield context
    context.close()


@pytest.fixture
def page(browser: BrowserContext) -> Iterator[Page]:
    browser.clear_cookies()
    tab = browser.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    tab.close()
    assert not errors, f"the console raised in the browser: {errors}"


def api(base: str, who: str) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"Authorization": f"Bearer {KEYS[who]}"}, timeout=10)


def balance(base: str, account: str, who: str = "admin") -> str:
    with api(base, who) as client:
        answer = client.get(f"/v1/accounts/{account}", params={"consistent": "true"})
        answer.raise_for_status()
        value: str = answer.json()["balance"]
        return value


def open_account(base: str, prefix: str) -> str:
    """A new account, opened by the admin, that no one has paid yet."""
    name = f"{prefix}-{uuid4().hex[:8]}"
    with api(base, "admin") as admin:
        answer = admin.post("/v1/use-cases/open_account", json={"account": name, "owner": "Shop"})
        assert answer.status_code == 200, answer.text
    return name


def sign_in(page: Page, base: str, who: str) -> None:
    page.goto(f"{base}/")
    page.get_by_label("API key").fill(KEYS[who])
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Ask", exact=True)).to_be_visible()


def propose(page: Page, source: str, request: str = "") -> None:
    """Write a program in the editor and preview it: the review page opens."""
    page.get_by_label("Program", exact=True).fill(source)
    if request:
        page.get_by_label("What it is for").fill(request)
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("heading", name="Your decision")).to_be_visible()


def effect(page: Page, account: str) -> list[str]:
    """The cells of an account's row in the effects table."""
    name = page.get_by_role("cell", name=account, exact=True)
    row = page.locator("#effects tbody tr").filter(has=name)
    return [cell.strip() for cell in row.locator("td").all_inner_texts()]
