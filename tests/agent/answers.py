"""Reading an answer's parts in tests: the assistant's voice, the code's facts, the quotes."""

from __future__ import annotations

from gateway.agent.answer_parts import Answer, AnswerPart


def parts(answer: Answer | None, kind: str) -> list[AnswerPart]:
    return [part for part in (answer.parts if answer else ()) if part.kind == kind]


def voice(answer: Answer | None) -> str:
    """All the answer says in the assistant's own voice."""
    return " ".join(part.text for part in parts(answer, "assistant"))


def facts(answer: Answer | None) -> str:
    """All the code says of the run, one line a part."""
    return "\n".join(part.text for part in parts(answer, "facts"))


def quoted(answer: Answer | None) -> list[tuple[str | None, str]]:
    """(author, text) of every quoted part."""
    return [(part.author, part.text) for part in parts(answer, "quoted")]
