"""Reading an answer's parts in tests: the assistant's voice, the code's facts, the quotes."""

from __future__ import annotations

from typing import Any


def parts(answer: dict[str, Any] | None, kind: str) -> list[dict[str, Any]]:
    return [part for part in (answer or {"parts": []})["parts"] if part["kind"] == kind]


def voice(answer: dict[str, Any] | None) -> str:
    """All the answer says in the assistant's own voice."""
    return " ".join(part["text"] for part in parts(answer, "assistant"))


def facts(answer: dict[str, Any] | None) -> str:
    """All the code says of the run, one line a part."""
    return "\n".join(part["text"] for part in parts(answer, "facts"))


def quoted(answer: dict[str, Any] | None) -> list[tuple[str | None, str]]:
    """(author, text) of every quoted part."""
    return [(part["author"], part["text"]) for part in parts(answer, "quoted")]
