"""`sluice demo` run once per worker and environment, its SQLite file copied for each test.

A test that starts from the demo data gets a store of its own, a copy of what `sluice demo`
wrote, not a `sluice demo` process of its own (a second or two each on a busy machine)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

SLUICE = str(Path(sys.executable).parent / "sluice")
URL = "SLUICE_DATABASE_URL"


@dataclass
class DemoStores:
    """What `sluice demo` wrote into a fresh SQLite file, once per environment."""

    folder: Path
    seeded: dict[tuple[tuple[str, str], ...], tuple[Path, str]] = field(default_factory=dict)

    def copy(self, env: dict[str, str]) -> str:
        """Make env's SQLite store (not there yet) the demo data; `sluice demo`'s output."""
        target = Path(env[URL].removeprefix("sqlite:///"))
        assert env[URL].startswith("sqlite:///") and not target.exists(), env[URL]
        # What the demo writes depends on the settings (the domain, say), not on the file.
        key = tuple(sorted((k, v) for k, v in env.items() if k.startswith("SLUICE_") and k != URL))
        if key not in self.seeded:
            source = self.folder / f"demo-{len(self.seeded)}.db"
            done = subprocess.run(
                [SLUICE, "demo"], env={**env, URL: f"sqlite:///{source}"},
                capture_output=True, text=True, timeout=120, check=True,
            )  # fmt: skip
            self.seeded[key] = (source, done.stdout)
        source, said = self.seeded[key]
        for part in source.parent.glob(f"{source.name}*"):  # with its -wal, if any
            shutil.copyfile(part, target.parent / part.name.replace(source.name, target.name))
        return said
