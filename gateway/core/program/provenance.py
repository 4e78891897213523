"""Where a program's values come from, known before it runs.

A value is *literal* when the program's text alone decides it: constants, displays of
literals, arithmetic, comparisons, f-strings and subscripts over literals, the pure builtins
of literals (`range`, `len`, `sorted`, ...), methods of literal values, names bound only to
literal values, loop variables over literal collections. Anything else is *computed*: a use
case's result, a function's parameter or result, an exception, and whatever such a value
flows into, including through the choice of a branch or a loop that depends on one.

The analysis is flow-insensitive and errs toward computed:
- a name bound anywhere to a computed value, or anywhere under a condition on one (an `if`,
  `while`, conditional expression or comprehension filter over data, a loop over data, a
  loop left by a `break` or `continue` under such a condition), is computed everywhere;
- a name bound inside a function, a lambda, a class, a `try` or a `with` is computed;
- an object changed with a computed value or under such a condition (a method other than
  a reading one, an item or attribute assigned or deleted, `+=`) makes computed every name
  that may share it; a call may share its arguments' objects with one another, and every
  function shares the objects of every name it uses or is given.

It is solved as a monotone system: each fact holds when any fact it depends on holds, so
one propagation over the dependency graph settles it, in time linear in the facts.
"""

from __future__ import annotations

import ast
from collections import defaultdict, deque
from collections.abc import Callable, Collection, Iterable

# Builtins whose result depends on their arguments alone.
PURE_BUILTINS = frozenset(
    {
        "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "float", "format",
        "frozenset", "int", "isinstance", "len", "list", "max", "min", "range", "repr",
        "reversed", "round", "set", "sorted", "str", "sum", "tuple", "zip",
    }
)  # fmt: skip
# Of those, the ones whose result holds none of their arguments' objects.
_FRESH_BUILTINS = frozenset(
    {
        "abs", "all", "any", "bool", "divmod", "float", "format", "int", "isinstance",
        "len", "range", "repr", "round", "str",
    }
)  # fmt: skip
# Methods that never change the object they are called on: those of str, and the reading
# methods of list, dict and set. Any other method is taken to change its object.
READING_METHODS = frozenset(
    {name for name in dir(str) if not name.startswith("_")}
    | {"copy", "count", "get", "index", "items", "keys", "values"}
    | {"difference", "intersection", "isdisjoint", "issubset", "issuperset"}
    | {"symmetric_difference", "union"}
)

# A fact of the system: ("name", n) n is computed; ("objects", n) the objects n may share
# were changed by data; ("loop", k) loop k may be left early because of data.
Atom = tuple[str, str]
ALWAYS: Atom = ("always", "")
_NOTHING: frozenset[Atom] = frozenset()
_COMPUTED: frozenset[Atom] = frozenset({ALWAYS})
_NO_VALUE = (ast.operator, ast.cmpop, ast.boolop, ast.unaryop, ast.expr_context)
# Functions, lambdas and classes, their parameters and the names they use or are given all
# share one set of objects: a function may keep, return or change any of them.
FUNCTIONS = "(functions)"


class DataFlow:
    """Which names and expressions of one program are computed rather than literal.

    Building it recurses through the statements and expressions, one frame a level: one
    nested deeper than Python's stack allows raises RecursionError (the sandbox itself
    refuses more than 200 levels)."""

    def __init__(
        self, tree: ast.Module, use_cases: Collection[str], bound: set[str] | None = None
    ) -> None:
        self.use_cases = frozenset(use_cases)
        self.bound = bound_names(tree) if bound is None else bound
        self._parent: dict[str, str] = {}
        self._facts: list[tuple[Atom, frozenset[Atom]]] = []
        self._count = 0
        # Each expression is an atom of its own, linked to its parts children first: the
        # system grows with the program, and nothing here recurses.
        for node in _children_first(tree):
            if isinstance(node, ast.expr | ast.comprehension | ast.keyword):
                self._link(node)
        self._visit_block(tree.body, _NOTHING, [])
        self._true = self._solve()

    def computed(self, node: ast.expr) -> bool:
        """Whether the value of `node` may depend on anything but the program's literals."""
        return _atom(node) in self._true

    def computed_arguments(self, call: ast.Call) -> frozenset[str]:
        """The names of a call's keyword arguments whose values are computed."""
        return frozenset(
            str(keyword.arg) for keyword in call.keywords if self.computed(keyword.value)
        )

    # Each expression: what its value depends on, and what objects it may share.

    def _link(self, node: ast.expr | ast.comprehension | ast.keyword) -> None:
        atom, item = _atom(node), _item(node)
        parts = [child for child in ast.iter_child_nodes(node) if not isinstance(child, _NO_VALUE)]
        match node:
            case ast.Constant():
                return
            case ast.Name(id=name):
                if name in self.use_cases:
                    self._fact(atom, _COMPUTED)  # a use case as a value: the check refuses it
                elif name in self.bound:
                    self._fact(atom, frozenset({("name", name)}))
                    self._share(item, [name])
                return
            case ast.Call(func=function):
                self._link_call(node, function, parts[1:])
                return
            case ast.Lambda() | ast.Await() | ast.Yield() | ast.YieldFrom():
                self._fact(atom, _COMPUTED)
                self._share(item, [FUNCTIONS])
                return
        self._from(atom, parts)
        self._share(item, _held(node, parts))

    def _link_call(self, call: ast.Call, function: ast.expr, parts: list[ast.AST]) -> None:
        atom, item = _atom(call), _item(call)
        match function:
            case ast.Name(id=name) if name in self.use_cases:
                self._fact(atom, _COMPUTED)  # data, in a fresh value
            case ast.Name(id=name) if name in PURE_BUILTINS and name not in self.bound:
                self._from(atom, parts)
                if name not in _FRESH_BUILTINS:
                    # `sorted(items, key=f)` holds the items, and gives them to f.
                    self._share(item, map(_item, parts))
            case ast.Attribute(value=receiver):
                # A method of a literal value: computed when it or an argument is.
                self._from(atom, [receiver, *parts])
                self._share(item, map(_item, [receiver, *parts]))
            case _:
                self._fact(atom, _COMPUTED)
                self._share(item, [FUNCTIONS, _item(function), *map(_item, parts)])

    def _from(self, atom: Atom, parts: Iterable[ast.AST]) -> None:
        """`atom` is computed when any of its parts is."""
        for part in parts:
            known = isinstance(part, ast.expr | ast.comprehension | ast.keyword)
            self._fact(atom, frozenset({_atom(part)}) if known else _COMPUTED)

    def _depends(self, node: ast.AST) -> frozenset[Atom]:
        return frozenset({_atom(node)})

    def _shares(self, node: ast.AST) -> set[str]:
        return {_item(node)}

    def _join(self, context: frozenset[Atom], more: frozenset[Atom]) -> frozenset[Atom]:
        """A place under `context` and `more`: one atom, so contexts stay small."""
        if more <= context:
            return context
        self._count += 1
        joined: Atom = ("context", str(self._count))
        self._fact(joined, context | more)
        return frozenset({joined})

    # Building the system, statement by statement. `context` is what the current place
    # depends on (the conditions it runs under), `loops` the loops it may leave early.

    def _visit_block(
        self, body: Iterable[ast.stmt], context: frozenset[Atom], loops: list[Atom]
    ) -> None:
        for statement in body:
            self._visit(statement, context, loops)

    def _visit(self, node: ast.stmt, context: frozenset[Atom], loops: list[Atom]) -> None:
        match node:
            case ast.Assign() | ast.AnnAssign() | ast.AugAssign():
                self._assignment(node, context)
            case ast.If(test=test, body=body, orelse=orelse):
                self._expression(test, context)
                inner = self._join(context, self._depends(test))
                self._visit_block([*body, *orelse], inner, loops)
            case ast.For() | ast.AsyncFor() | ast.While():
                self._loop(node, context, loops)
            case ast.Break() | ast.Continue() if loops:
                self._fact(loops[-1], context)
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.ClassDef():
                self._definition(node, context)
            case ast.Try() | ast.TryStar() | ast.With() | ast.AsyncWith():
                self._opaque(node, context, loops)
            case ast.Match(subject=subject, cases=cases):
                self._match(subject, cases, context, loops)
            case ast.Delete(targets=targets):
                self._delete(targets, context)
            case _:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.expr):
                        self._expression(child, context)

    def _delete(self, targets: list[ast.expr], context: frozenset[Atom]) -> None:
        for target in targets:
            self._expression(target, context)
            if isinstance(target, ast.Subscript | ast.Attribute):
                self._mutate(target.value, _index(target, self._depends) | context)

    def _assignment(
        self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, context: frozenset[Atom]
    ) -> None:
        if node.value is None:
            return  # `name: int` binds nothing
        self._expression(node.value, context)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind(target, node.value, context)
        else:
            in_place = isinstance(node, ast.AugAssign)
            self._bind(node.target, node.value, context, in_place=in_place)

    def _loop(
        self, node: ast.For | ast.AsyncFor | ast.While, context: frozenset[Atom], loops: list[Atom]
    ) -> None:
        self._count += 1
        left_early: Atom = ("loop", str(self._count))
        head = node.test if isinstance(node, ast.While) else node.iter
        self._expression(head, context)
        # Every pass, and what the loop leaves bound, depends on its head and on whether
        # data made it stop early.
        inner = self._join(context, self._depends(head) | {left_early})
        if not isinstance(node, ast.While):
            self._bind(node.target, node.iter, inner)
        self._visit_block(node.body, inner, [*loops, left_early])
        self._visit_block(node.orelse, inner, loops)

    def _definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, context: frozenset[Atom]
    ) -> None:
        outside: list[ast.expr] = list(node.decorator_list)
        if isinstance(node, ast.ClassDef):
            outside += [*node.bases, *(keyword.value for keyword in node.keywords)]
        else:
            outside += [d for d in [*node.args.defaults, *node.args.kw_defaults] if d]
        for expression in outside:
            self._expression(expression, context)
        self._share(FUNCTIONS, {node.name} | names_in(node))
        self._fact(("name", node.name), _COMPUTED)
        if not isinstance(node, ast.ClassDef):
            for parameter in parameters_of(node):
                self._fact(("name", parameter), _COMPUTED)
        self._visit_block(node.body, _COMPUTED, [])

    def _opaque(
        self,
        node: ast.Try | ast.TryStar | ast.With | ast.AsyncWith,
        context: frozenset[Atom],
        loops: list[Atom],
    ) -> None:
        # What runs and what is bound may depend on which exception was raised, or on what
        # a context manager swallowed: all of it is computed.
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                self._expression(item.context_expr, context)
                if item.optional_vars is not None:
                    self._share(FUNCTIONS, names_in(item.optional_vars))
                    self._bind(item.optional_vars, item.context_expr, _COMPUTED)
            self._visit_block(node.body, _COMPUTED, loops)
            return
        for handler in node.handlers:
            if handler.type is not None:
                self._expression(handler.type, context)
            if handler.name:
                self._share(FUNCTIONS, {handler.name})
                self._fact(("name", handler.name), _COMPUTED)
        for block in [node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody]:
            self._visit_block(block, _COMPUTED, loops)

    def _match(
        self,
        subject: ast.expr,
        cases: list[ast.match_case],
        context: frozenset[Atom],
        loops: list[Atom],
    ) -> None:
        self._expression(subject, context)
        inner = self._join(context, self._depends(subject))
        for case in cases:
            if case.guard is not None:
                self._expression(case.guard, context)
                inner = self._join(inner, self._depends(case.guard))
        for case in cases:
            captured = names_in(case.pattern)
            self._share(FUNCTIONS, captured | self._shares(subject))
            for name in captured:
                self._fact(("name", name), _COMPUTED)
            self._visit_block(case.body, inner, loops)

    def _expression(self, node: ast.expr, context: frozenset[Atom]) -> None:
        """What an expression binds (`:=`, comprehension variables) and changes (methods)."""
        match node:
            case ast.NamedExpr(target=target, value=value):
                self._expression(value, context)
                self._bind(target, value, context)
            case ast.Lambda():
                self._lambda(node, context)
            case ast.ListComp() | ast.SetComp() | ast.GeneratorExp() | ast.DictComp():
                self._comprehension(node, context)
            case ast.IfExp(test=test, body=body, orelse=orelse):
                self._expression(test, context)
                inner = self._join(context, self._depends(test))
                self._expression(body, inner)
                self._expression(orelse, inner)
            case ast.BoolOp(values=values):
                inner = context
                for value in values:
                    self._expression(value, inner)
                    inner = self._join(inner, self._depends(value))
            case ast.Call(func=function, args=arguments, keywords=keywords):
                parts = [*arguments, *(keyword.value for keyword in keywords)]
                for part in [function, *parts]:
                    self._expression(part, context)
                self._call(function, parts, context)
            case _:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.expr):
                        self._expression(child, context)

    def _lambda(self, node: ast.Lambda, context: frozenset[Atom]) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self._expression(default, context)
        self._share(FUNCTIONS, names_in(node))
        for parameter in parameters_of(node):
            self._fact(("name", parameter), _COMPUTED)
        self._expression(node.body, _COMPUTED)

    def _comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        context: frozenset[Atom],
    ) -> None:
        inner = context
        for generator in node.generators:
            self._expression(generator.iter, inner)
            inner = self._join(inner, self._depends(generator.iter))
            self._bind(generator.target, generator.iter, inner)
            for condition in generator.ifs:
                self._expression(condition, inner)
                inner = self._join(inner, self._depends(condition))
        results = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for result in results:
            self._expression(result, inner)

    def _call(self, function: ast.expr, parts: list[ast.expr], context: frozenset[Atom]) -> None:
        # A method other than a reading one may change its object (what it shares, `_link`
        # has said); a function's body changes what it changes under a computed context.
        if isinstance(function, ast.Attribute) and function.attr not in READING_METHODS:
            self._mutate(function.value, _union(map(self._depends, parts)) | context)

    def _bind(
        self,
        target: ast.expr,
        value: ast.expr,
        context: frozenset[Atom],
        *,
        in_place: bool = False,
    ) -> None:
        """`target = value`, `target op= value` (`in_place`), or `for target in value`."""
        depends = self._depends(value) | context
        shared = self._shares(value)
        match target:
            case ast.Name(id=name):
                self._share_all(shared | {name})
                self._fact(("name", name), depends)
                if in_place:  # `items += more` changes the list `items` names
                    self._mutate(target, depends)
            case ast.Tuple(elts=parts) | ast.List(elts=parts):
                for part in parts:
                    self._bind(part, value, context, in_place=in_place)
            case ast.Starred(value=inner):
                self._bind(inner, value, context, in_place=in_place)
            case ast.Subscript(value=container) | ast.Attribute(value=container):
                self._expression(target, context)
                self._share_all(shared | self._shares(container))
                self._mutate(container, depends | _index(target, self._depends))
            case _:  # no other target parses; were there one, it would make all computed
                self._fact(("objects", FUNCTIONS), _COMPUTED)
                self._share_all(self.bound | {FUNCTIONS})

    def _mutate(self, container: ast.expr, depends: frozenset[Atom]) -> None:
        for name in self._shares(container):
            self._fact(("objects", name), depends)

    # The system itself.

    def _fact(self, atom: Atom, depends: frozenset[Atom]) -> None:
        """`atom` holds when any of `depends` holds."""
        self._facts.append((atom, depends))

    def _share(self, name: str, others: Iterable[str]) -> None:
        for other in others:
            first, second = self._root(name), self._root(other)
            if first != second:
                self._parent[second] = first

    def _share_all(self, names: set[str]) -> None:
        if names:
            self._share(next(iter(names)), names)

    def _root(self, name: str) -> str:
        root = name
        while root in self._parent:
            root = self._parent[root]
        while name != root:
            self._parent[name], name = root, self._parent[name]
        return root

    def _solve(self) -> set[Atom]:
        dependents: defaultdict[Atom, list[Atom]] = defaultdict(list)
        for atom, depends in self._facts:
            for depend in depends:
                dependents[self._resolved(depend)].append(self._resolved(atom))
        for name in self.bound:
            # A name is computed when data changed an object it may share.
            dependents[("objects", self._root(name))].append(("name", name))
        true: set[Atom] = set()
        queue = deque([ALWAYS])
        while queue:
            atom = queue.popleft()
            if atom not in true:
                true.add(atom)
                queue.extend(dependents[atom])
        return true

    def _resolved(self, atom: Atom) -> Atom:
        return ("objects", self._root(atom[1])) if atom[0] == "objects" else atom


# What an expression's value may hold of its parts' objects, by the kind of expression.
_NEW_VALUES = (
    ast.Compare, ast.UnaryOp, ast.JoinedStr, ast.FormattedValue, ast.Slice, ast.comprehension,
)  # fmt: skip
_HOLDS_ITS_PARTS = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.BinOp, ast.BoolOp, ast.keyword)
_HOLDS: dict[type[ast.AST], tuple[str, ...]] = {
    ast.IfExp: ("body", "orelse"),
    ast.ListComp: ("elt",),
    ast.SetComp: ("elt",),
    ast.GeneratorExp: ("elt",),
    ast.DictComp: ("key", "value"),
    ast.NamedExpr: ("value",),
    ast.Subscript: ("value",),
    ast.Attribute: ("value",),
    ast.Starred: ("value",),
}


def _held(node: ast.AST, parts: list[ast.AST]) -> list[str]:
    """The items whose objects the value of `node` may hold (a comparison holds none, a
    list holds its items); an expression not known here may hold anything."""
    if isinstance(node, _NEW_VALUES):
        return []
    if isinstance(node, _HOLDS_ITS_PARTS):
        return [_item(part) for part in parts]
    fields = _HOLDS.get(type(node))
    if fields is not None:
        return [_item(getattr(node, name)) for name in fields]
    return [FUNCTIONS, *map(_item, parts)]


def _atom(node: ast.AST) -> Atom:
    return ("node", str(id(node)))


def _item(node: ast.AST) -> str:
    """The node's value among the names that may share objects (no name starts with #)."""
    return f"#{id(node)}"


def _children_first(tree: ast.AST) -> list[ast.AST]:
    """Every node of the tree, each after all of its children."""
    ordered: list[ast.AST] = []
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            ordered.append(node)
        else:
            stack.append((node, True))
            stack.extend((child, False) for child in ast.iter_child_nodes(node))
    return ordered


def bound_names(tree: ast.AST) -> set[str]:
    """Names the program binds itself; any other name is a builtin or a use case."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                bound.add(node.id)
        else:
            bound |= _own_names(node)
    return bound


def names_in(node: ast.AST) -> set[str]:
    """Every name a piece of the program binds or uses."""
    found: set[str] = set()
    for child in ast.walk(node):
        found |= {child.id} if isinstance(child, ast.Name) else _own_names(child)
    return found


def parameters_of(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    return {argument.arg for argument in ast.walk(node.args) if isinstance(argument, ast.arg)}


def _own_names(node: ast.AST) -> set[str]:
    """The names a node binds other than through an `ast.Name`."""
    match node:
        case ast.arg(arg=name):
            return {name}
        case ast.FunctionDef(name=name) | ast.AsyncFunctionDef(name=name) | ast.ClassDef(name=name):
            return {name}
        case ast.ExceptHandler(name=str(name)) | ast.MatchAs(name=str(name)):
            return {name}
        case ast.MatchStar(name=str(name)) | ast.MatchMapping(rest=str(name)):
            return {name}
    return set()


def _index(
    target: ast.Subscript | ast.Attribute, depends: Callable[[ast.AST], frozenset[Atom]]
) -> frozenset[Atom]:
    """What the place an item is stored at depends on: its index (`items[i]`)."""
    return depends(target.slice) if isinstance(target, ast.Subscript) else _NOTHING


def _union(parts: Iterable[frozenset[Atom]]) -> frozenset[Atom]:
    return _NOTHING.union(*parts)
