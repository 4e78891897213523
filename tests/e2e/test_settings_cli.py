"""`sluice settings`, and the one settings object behind it (gateway/settings.py).

Every SLUICE_* variable is declared once, read once at start, and refused by name when
Sluice cannot use its value (exit 2, nothing changed); `sluice settings` prints the
effective values, one `NAME=value` a line, secrets as ***.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.interfaces.cli.app import app
from gateway.settings import Settings, load_settings, variable

SLUICE = str(Path(sys.executable).parent / "sluice")
ROOT = Path(__file__).resolve().parents[2]
# Every setting this process inherited is unset for the command, unless a test sets it.
UNSET: dict[str, str | None] = {
    name: None for name in os.environ if name.startswith("SLUICE_") or name == "OPENAI_API_KEY"
}
STATE_KEY = "0f" * 32


def settings_of(*args: str, **env: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["settings", *args], env=UNSET | env)
    return result.exit_code, result.stdout, result.stderr


def lines(output: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in output.splitlines())


def test_every_variable_is_declared_once_with_a_type_default_and_description() -> None:
    names = [variable(name) for name in Settings.model_fields]
    assert len(names) == len(set(names))
    assert all(name.startswith("SLUICE_") for name in names if name != "OPENAI_API_KEY")
    for name, field in Settings.model_fields.items():
        assert field.description, f"{variable(name)} says nothing of what it means"
        assert field.annotation is not None


def test_the_defaults_one_line_each(tmp_path: Path) -> None:
    code, out, _ = settings_of()

    assert code == 0
    shown = lines(out)
    assert list(shown) == [variable(name) for name in Settings.model_fields]
    assert shown["SLUICE_CAP_MAX_CALLS"] == "50"
    assert shown["SLUICE_CAP_MAX_AMOUNT_PER_PROGRAM"] == "10000.00"
    assert shown["SLUICE_READ_WAIT_SECONDS"] == "5.0"
    assert shown["SLUICE_SANDBOX_WORKERS"] == "2"
    assert shown["SLUICE_LLM_MAX_TOKENS"] == "1024"
    assert shown["SLUICE_MCP_ELICITATION"] == "on"
    assert shown["SLUICE_LLM_MODEL"] == ""
    # Unset, the store is ./var/sluice.db in the current folder: the URL it stands for.
    assert shown["SLUICE_DATABASE_URL"] == f"sqlite:///{Path.cwd() / 'var' / 'sluice.db'}"


def test_a_variable_set_is_shown_as_read() -> None:
    code, out, _ = settings_of(
        SLUICE_CAP_MAX_CALLS="20",
        SLUICE_CAP_MAX_CALLS_PER_USE_CASE="transfer=3",
        SLUICE_LLM_CATALOG="stubs",
        SLUICE_LOG_LEVEL="debug",
        SLUICE_MCP_TRUSTED_CLIENTS="teller, alice",
    )

    assert code == 0
    shown = lines(out)
    assert shown["SLUICE_CAP_MAX_CALLS"] == "20"
    assert shown["SLUICE_CAP_MAX_CALLS_PER_USE_CASE"] == "transfer=3"
    assert shown["SLUICE_LLM_CATALOG"] == "stubs"
    assert shown["SLUICE_LOG_LEVEL"] == "DEBUG"
    assert shown["SLUICE_MCP_TRUSTED_CLIENTS"] == "alice,teller"


SECRETS = {
    "SLUICE_API_KEY": "sk-apikey-0123456789",
    "SLUICE_LLM_API_KEY": "sk-llm-0123456789",
    "OPENAI_API_KEY": "sk-openai-0123456789",
    "SLUICE_NOTIFY_SECRET": "notify-secret-0123456789",
    "SLUICE_MCP_STATE_KEYS": STATE_KEY,
}


@pytest.mark.parametrize("json_output", [False, True])
def test_secrets_are_shown_as_stars(json_output: bool) -> None:
    env = SECRETS | {
        "SLUICE_NOTIFY_URL": "https://hooks.example/sluice",
        "SLUICE_DATABASE_URL": "postgresql://sluice:db-hunter2@db:5432/sluice",
        "SLUICE_READ_DATABASE_URL": "postgresql://reader:standby-hunter2@standby:5432/sluice",
    }
    code, out, _ = settings_of(*(["--json"] if json_output else []), **env)

    assert code == 0
    shown = json.loads(out) if json_output else lines(out)
    for name, secret in SECRETS.items():
        assert shown[name] == "***"
        assert secret not in out
    assert "hunter2" not in out
    assert shown["SLUICE_DATABASE_URL"] == "postgresql://sluice:***@db:5432/sluice"
    assert shown["SLUICE_READ_DATABASE_URL"] == "postgresql://reader:***@standby:5432/sluice"
    assert shown["SLUICE_NOTIFY_URL"] == "https://hooks.example/sluice"


def test_describe_says_what_each_setting_means() -> None:
    code, out, _ = settings_of("--describe")

    assert code == 0
    described = out.splitlines()
    assert len(described) == 2 * len(Settings.model_fields)
    assert all(line.startswith("# ") for line in described[::2])


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        # A whole number.
        ("SLUICE_CAP_MAX_CALLS", "many", "SLUICE_CAP_MAX_CALLS='many' is not a valid value"),
        ("SLUICE_SANDBOX_WORKERS", "1.5", "the number of sandbox workers must be a whole"),
        ("SLUICE_LLM_MAX_TOKENS", "2k", "'2k' is not a whole number of at least 1"),
        # A number.
        ("SLUICE_READ_WAIT_SECONDS", "soon", "the wait for the read models must be a number"),
        ("SLUICE_LLM_TIMEOUT_SECONDS", "-1", "'-1' is not a number of at least 0.001"),
        # One of a few words.
        ("SLUICE_LLM_CATALOG", "sheets", "'sheets' is not one of auto, directory, stubs"),
        ("SLUICE_LOG_FORMAT", "xml", "'xml' is not a log format; use plain or json"),
        ("SLUICE_MCP_ELICITATION", "maybe", "'maybe': use on or off"),
        ("SLUICE_CAP_COMPLETE_READS_AT_ONCE", "perhaps", "is not a valid value for this cap"),
        # A URL.
        ("SLUICE_DATABASE_URL", "mysql://db/x", "unsupported scheme 'mysql'"),
        ("SLUICE_NOTIFY_URL", "ftp://example.com/x", "must be an http:// or https:// URL"),
        # A list.
        ("SLUICE_MCP_TRUSTED_CLIENTS", "Alice", "'Alice' is not a principal name"),
    ],
)
def test_a_value_sluice_cannot_use_is_a_usage_error_naming_it(
    name: str, value: str, says: str
) -> None:
    env = {name: value}
    if name == "SLUICE_NOTIFY_URL":
        env["SLUICE_NOTIFY_SECRET"] = "s" * 16
    code, out, err = settings_of(**env)

    assert code == 2
    assert out == ""
    message = " ".join(err.split())
    assert message.startswith(f"error: {name}")
    assert says in message


def test_a_bad_setting_stops_a_command_before_it_changes_anything(tmp_path: Path) -> None:
    store = tmp_path / "never.db"
    env = {
        **os.environ,
        "SLUICE_DATABASE_URL": f"sqlite:///{store}",
        "SLUICE_CAP_MAX_RUN_SECONDS": "forever",
    }
    done = subprocess.run(
        [SLUICE, "demo"], env=env, capture_output=True, text=True, timeout=60, check=False
    )

    assert done.returncode == 2
    assert "SLUICE_CAP_MAX_RUN_SECONDS='forever'" in done.stderr
    assert not store.exists()


def test_a_mapping_and_the_process_environment_read_alike(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    given = {
        "SLUICE_CAP_MAX_CALLS": "7",
        "SLUICE_LLM_TEMPERATURE": "0.5",
        "OPENAI_API_KEY": "sk-fallback",
        "SLUICE_LLM_MODEL": "  ",  # blank: unset
    }
    for name in UNSET:
        monkeypatch.delenv(name)
    for name, value in given.items():
        monkeypatch.setenv(name, value)

    assert load_settings() == load_settings(given)
    assert load_settings().agent.api_key == "sk-fallback"
    assert load_settings().llm_model is None


# Reading the environment: os.environ / os.getenv, and typer's envvar=.
READERS = ("environ", "getenv", "envvar")


def test_no_module_but_the_settings_reads_a_sluice_variable() -> None:
    """Everything else is handed its settings: no other module reads SLUICE_* itself."""
    sources = [
        path
        for package in ("domain", "application", "gateway", "infrastructure")
        for path in (ROOT / package).rglob("*.py")
        if path != ROOT / "gateway" / "settings.py"
    ]
    constants = {
        target.id
        for path in sources
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Assign) and _sluice_text(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    readers = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sources
        for line in _reads(path.read_text(), constants)
    ]
    assert readers == []


def _sluice_text(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.startswith("SLUICE_")
    if isinstance(node, ast.JoinedStr) and node.values:
        return _sluice_text(node.values[0])
    if isinstance(node, ast.BinOp):
        return _sluice_text(node.left)
    return False


def _reads(source: str, constants: set[str]) -> list[int]:
    """The lines of a module that read the environment with a SLUICE_* name."""
    tree = ast.parse(source)
    touches = any(
        (isinstance(node, ast.Attribute) and node.attr in READERS)
        or (isinstance(node, ast.keyword) and node.arg in READERS)
        for node in ast.walk(tree)
    )
    if not touches:
        return []

    def named(node: ast.AST) -> bool:
        """A SLUICE_* name: written out, a constant holding one, or one of them + more."""
        if isinstance(node, ast.BinOp):
            return named(node.left)
        return _sluice_text(node) or (isinstance(node, ast.Name) and node.id in constants)

    found = []
    for node in ast.walk(tree):
        keys: list[ast.expr] = []
        if isinstance(node, ast.Call):
            keys = list(node.args[:1]) + [k.value for k in node.keywords if k.arg == "envvar"]
        elif isinstance(node, ast.Subscript):
            keys = [node.slice]
        elif isinstance(node, ast.Compare):
            keys = [node.left]
        if any(named(key) for key in keys) and isinstance(node, ast.expr):
            if isinstance(node, ast.Call) and not _is_lookup(node):
                continue
            found.append(node.lineno)
    return found


def _is_lookup(call: ast.Call) -> bool:
    """`x.get(NAME)`, `x.pop(NAME)`, `os.getenv(NAME)`, or anything given `envvar=NAME`."""
    if any(k.arg == "envvar" for k in call.keywords):
        return True
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "getenv", "setdefault")
