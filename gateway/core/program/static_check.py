"""Checks made on a program's text before anything runs.

The sandbox already denies imports, files and dunders; refusing them here as well gives
the author one clear line with its place, and yields the set of use cases the program
names (what a permission check needs) without running it.

A use case is only ever called by its name, and an argument its use case guards with a
policy (`application.data_policy`) may come from data only as the policy allows: the
gateway's data flow (`gateway.core.program.provenance`) tells where each argument may come
from, and the policy refuses what it can before anything runs (the rest, at each call).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import re
import sys
import tokenize
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from application.data_policy import ArgumentOrigins, ArgumentPolicy
from application.labels import Tree
from gateway.core.program.errors import ProgramError
from gateway.core.program.limits import ProgramLimits
from gateway.core.program.origins import CallSite, resolve
from gateway.core.program.provenance import DataFlow, bound_names
from gateway.core.program.sources import Source

SAFE_BUILTINS = frozenset(
    {
        "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float",
        "format", "frozenset", "int", "isinstance", "len", "list", "map", "max", "min",
        "print", "range", "repr", "reversed", "round", "set", "sorted", "str", "sum",
        "tuple", "zip", "True", "False", "None",
        "Exception", "ValueError", "KeyError", "IndexError", "TypeError", "RuntimeError",
        "ZeroDivisionError", "ArithmeticError", "LookupError", "AssertionError",
    }
)  # fmt: skip


@dataclass(frozen=True)
class ProgramRules:
    """What the check needs of each use case: its result's labels, its guarded arguments."""

    labels: Mapping[str, Tree | None]
    guarded: Mapping[str, Mapping[str, ArgumentPolicy]] = field(default_factory=dict)

    @property
    def names(self) -> Collection[str]:
        return self.labels.keys()


@dataclass(frozen=True)
class LiteralCall:
    """A use-case call as written: the arguments given as literals, those computed from
    anything but the program's literals, with their sources
    (`gateway.core.program.provenance`), and its place."""

    name: str
    literals: dict[str, Any]
    line: int
    column: int
    computed: frozenset[str]
    sources: dict[str, frozenset[Source]] = field(default_factory=dict)


@dataclass
class ProgramShape:
    """What can be known of a program without running it."""

    named: set[str] = field(default_factory=set)
    calls: list[LiteralCall] = field(default_factory=list)
    # Each use-case call by its id in the data flow: what its sources are resolved against.
    sites: dict[str, CallSite] = field(default_factory=dict)

    def at(self, line: int, column: int) -> LiteralCall | None:
        """The call at this place, or None if none is there."""
        for call in self.calls:
            if (call.line, call.column) == (line, column):
                return call
        return None

    def computed_at(self, line: int, column: int) -> frozenset[str] | None:
        """The computed arguments of the call at this place, or None if none is there."""
        call = self.at(line, column)
        return None if call is None else call.computed


def check_program(source: str, rules: ProgramRules, limits: ProgramLimits) -> ProgramShape:
    """The use cases the program names and calls, or a ProgramError at the first problem."""
    use_cases = rules.names
    size = len(source.encode())
    if size > limits.max_source_bytes:
        raise ProgramError(
            "limit", f"program size: {size} bytes is over the limit of {limits.max_source_bytes}"
        )
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as error:
        raise _syntax_error(source, error) from None
    except (RecursionError, MemoryError):
        # CPython builds the tree recursively (about 3000 levels) and its parser's stack
        # overflows as a MemoryError: a chain of 3000 unary minuses, terms or attributes
        # fits in the size limit. The sandbox itself parses at most about 200 levels.
        raise _too_deep(source) from None
    defined = bound_names(tree)
    callees = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    named: set[str] = set()
    calls: list[tuple[ast.Call, str]] = []
    with _placed(source):
        for node in ast.walk(tree):
            _check_node(node, use_cases, defined=defined, callees=callees, named=named, calls=calls)
    try:
        flow = DataFlow(tree, rules.labels, defined)
    except (RecursionError, MemoryError):
        raise _too_deep(source) from None
    sites = {
        str(id(node)): CallSite(
            name,
            node.lineno,
            _character_column(source, node.lineno, node.col_offset + 1),
            rules.labels.get(name),
        )
        for node, name in calls
    }
    with _placed(source):
        _check_policies(calls, flow, sites, rules.guarded)
    shape = ProgramShape(
        named, [_literal_call(source, node, name, flow) for node, name in calls], sites
    )
    shape.calls.sort(key=lambda call: (call.line, call.column))
    return shape


@contextlib.contextmanager
def _placed(source: str) -> Iterator[None]:
    """A refusal's column in characters: ast counts UTF-8 bytes."""
    try:
        yield
    except ProgramError as refusal:
        refusal.column = _character_column(source, refusal.line or 1, refusal.column or 1)
        raise


def _too_deep(source: str) -> ProgramError:
    line, column = _most_operators(source)
    return ProgramError(
        "syntax", "syntax error: expressions nested too deeply to check", line, column
    )


_DIGITS_LIMIT = re.compile(r"Exceeds the limit \((\d+) digits\)")
# Tokens that make an expression one level deeper when chained.
_NESTING_WORDS = frozenset({"not", "and", "or", "if", "else", "lambda", "await", "in", "is"})
_FLAT = frozenset({",", ";", ":", ")", "]", "}"})


def _syntax_error(source: str, error: SyntaxError) -> ProgramError:
    limit = _DIGITS_LIMIT.search(error.msg or "")
    if limit:
        # Python's message names sys.set_int_max_str_digits, which no program may call.
        return _long_integer(source, int(limit.group(1)))
    line, column = error.lineno or 1, error.offset or 1
    return ProgramError("syntax", f"syntax error: {error.msg}", line, column)


def _long_integer(source: str, limit: int) -> ProgramError:
    for token in _tokens(source):
        digits = sum(char.isdigit() for char in token.string)
        if token.type == tokenize.NUMBER and digits > limit:
            line, column = token.start
            return ProgramError(
                "syntax",
                f"syntax error: an integer literal of {digits} digits is over the limit of {limit}",
                line,
                column + 1,
            )
    limit_now = sys.get_int_max_str_digits()
    return ProgramError("syntax", f"syntax error: an integer literal is over {limit_now} digits")


def _most_operators(source: str) -> tuple[int, int]:
    """Where the statement with the most operators starts: the one nested too deeply."""
    best, count, start = 0, 0, (1, 0)
    first: tuple[int, int] | None = None
    for token in _tokens(source):
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if first is not None and count > best:
                best, start = count, first
            count, first = 0, None
        elif token.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            first = first or token.start
            operator = token.type == tokenize.OP and token.string not in _FLAT
            count += operator or (token.type == tokenize.NAME and token.string in _NESTING_WORDS)
    line, column = start
    return line, column + 1


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    """The program's tokens (tokenize is iterative), as many as can be read."""
    tokens: list[tokenize.TokenInfo] = []
    with contextlib.suppress(tokenize.TokenError, SyntaxError):
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            tokens.append(token)
    return tokens


def _character_column(source: str, line: int, byte_column: int) -> int:
    """ast counts columns in UTF-8 bytes; people count characters."""
    text = source.splitlines()[line - 1] if source.splitlines() else ""
    return len(text.encode()[: byte_column - 1].decode(errors="ignore")) + 1


def _check_node(
    node: ast.AST,
    use_cases: Collection[str],
    *,
    defined: set[str],
    callees: set[int],
    named: set[str],
    calls: list[tuple[ast.Call, str]],
) -> None:
    if isinstance(node, ast.Import | ast.ImportFrom):
        raise _refuse(node, "import is not allowed: a program can only call the use cases")
    if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
        raise _refuse(node, f"access to attribute {node.attr} is not allowed")
    if isinstance(node, ast.Global | ast.Nonlocal):
        raise _refuse(node, "global and nonlocal are not allowed")
    definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    if isinstance(node, definition) and node.name in use_cases:
        raise _refuse(node, f"{node.name} is a use case and cannot be redefined")
    if isinstance(node, ast.Name):
        _check_name(node, use_cases, defined, callees, named)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in use_cases:
        _check_use_case_call(node, node.func.id)
        calls.append((node, node.func.id))


def _check_name(
    node: ast.Name,
    use_cases: Collection[str],
    defined: set[str],
    callees: set[int],
    named: set[str],
) -> None:
    name = node.id
    if name.startswith("__"):
        raise _refuse(node, f"{name} is not allowed")
    if name in use_cases:
        if isinstance(node.ctx, ast.Store | ast.Del):
            raise _refuse(node, f"{name} is a use case and cannot be reassigned")
        if id(node) not in callees:
            # Called under another name, a use case would escape the checks of its calls.
            raise _refuse(node, f"{name} is a use case: it can only be called, as in {name}(...)")
        named.add(name)
        return
    if name in defined or name in SAFE_BUILTINS:
        return
    if hasattr(builtins, name):
        raise _refuse(node, f"{name} is not allowed in a program")
    raise _refuse(node, f"unknown function or name {name}")


def _check_use_case_call(node: ast.Call, name: str) -> None:
    if node.args:
        raise _refuse(node, f"{name}: arguments must be given by name, as in name=value")
    if any(keyword.arg is None for keyword in node.keywords):
        raise _refuse(node, f"{name}: arguments must be written out, not unpacked with **")


def _check_policies(
    calls: list[tuple[ast.Call, str]],
    flow: DataFlow,
    sites: Mapping[str, CallSite],
    guarded: Mapping[str, Mapping[str, ArgumentPolicy]],
) -> None:
    """Ask each guarded argument's policy what it refuses of the program as written; the
    first refusal in the program's order is raised at its argument."""
    refused: list[tuple[ast.expr, str]] = []
    for node, name in calls:
        policies = guarded.get(name, {})
        if not policies:
            continue
        found = flow.argument_sources(node)
        values = {str(keyword.arg): keyword.value for keyword in node.keywords}
        by_policy: dict[int, tuple[ArgumentPolicy, dict[str, ArgumentOrigins]]] = {}
        for argument, policy in policies.items():
            if found.get(argument):
                origins = resolve(found[argument], sites)
                by_policy.setdefault(id(policy), (policy, {}))[1][argument] = origins
        for policy, arguments in by_policy.values():
            refusal = policy.before_run(name, arguments)
            if refusal is not None:
                refused.append((values.get(refusal.argument, node), refusal.message))
    if refused:
        place, message = min(refused, key=lambda found: _position(found[0]))
        raise _refuse(place, message)


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 1), getattr(node, "col_offset", 0)


def _literal_call(source: str, node: ast.Call, name: str, flow: DataFlow) -> LiteralCall:
    literals = {}
    for keyword in node.keywords:
        try:
            literals[str(keyword.arg)] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue  # computed when the program runs; checked then
    column = _character_column(source, node.lineno, node.col_offset + 1)
    found = flow.argument_sources(node)
    computed = frozenset(argument for argument, sources in found.items() if sources)
    return LiteralCall(name, literals, node.lineno, column, computed, found)


def _refuse(node: ast.AST, message: str) -> ProgramError:
    line = getattr(node, "lineno", 1)
    column = getattr(node, "col_offset", 0) + 1
    return ProgramError("check", message, line, column)
