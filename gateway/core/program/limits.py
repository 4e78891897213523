"""The bounds every program runs within (P6)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProgramLimits:
    max_source_bytes: int = 20_000
    max_calls: int = 50
    # The sandbox's clock: the time the program itself executes. Waiting for a worker, the
    # type check, and the host's answers to its calls (the store) are not counted.
    wall_seconds: float = 2.0
    max_memory_bytes: int = 32 * 2**20
    max_recursion_depth: int = 200
    # Printing more fails the program; what it printed is kept inert, cut to this size.
    max_output_bytes: int = 64 * 2**10
    # A larger result fails the program (measured as ASCII JSON, after it is made inert).
    max_result_bytes: int = 256 * 2**10
    # Each call's text arguments and its result, as the preview records them: a longer one
    # is kept as the start of its JSON text, the cut marked (the program itself got it all).
    max_call_value_bytes: int = 2**10

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if value <= 0:
                raise ValueError(f"program limit {name} must be positive, got {value}")
