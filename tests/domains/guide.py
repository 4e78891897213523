"""The example domain of docs/domains.md, taken out of the page itself.

Each fenced block of the guide whose first line is `# file: PATH` is a file of the example
package, whole, at PATH under the package's folder; any other block (commands, answers) is
not. The package is installed by the entry points of its own pyproject.toml block.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from tests.domains import install

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "domains.md"
# A fenced block: its language, then its text up to the closing fence.
_BLOCK = re.compile(r"^```[a-z]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_FILE = re.compile(r"# file: (\S+)\n")


def guide_text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def example_files(text: str) -> dict[str, str]:
    """The example's files the guide shows, by path; a path shown twice is an error."""
    files: dict[str, str] = {}
    for block in _BLOCK.findall(text):
        named = _FILE.match(block)
        if named is None:
            continue
        path = named.group(1)
        assert path not in files, f"docs/domains.md shows {path} twice"
        files[path] = block
    return files


def entry_points(files: Mapping[str, str]) -> dict[str, str]:
    """The `sluice.domains` entry points the example's pyproject.toml declares."""
    project = tomllib.loads(files["pyproject.toml"])["project"]
    found: dict[str, str] = project["entry-points"]["sluice.domains"]
    return found


def write_package(folder: Path, files: Mapping[str, str]) -> Path:
    """Write the files under `folder` and install its entry points there: with `folder` on
    the path (PYTHONPATH), the domain is installed. Returns `folder`."""
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return install(folder, entry_points(files))
