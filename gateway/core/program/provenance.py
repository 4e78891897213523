"""Where a program's values come from, known before it runs.

Each expression gets the set of its sources (`gateway.core.program.sources`): which use
case's result, which field of it, and whether the data gave the value or only chose it. A
value with no source is *literal*: the program's text alone decides it (constants,
displays of literals, arithmetic, comparisons, f-strings and subscripts over literals, the
pure builtins of literals, methods of literal values, names bound only to literal values,
loop variables over literal collections).

The analysis is flow-insensitive and errs toward more sources:
- a name bound anywhere to a value has that value's sources everywhere; a name bound under
  a condition on data (an `if`, `while`, conditional expression or comprehension filter, a
  loop over data, a loop left by a `break` or `continue` under such a condition) has the
  condition's sources too, as *chosen*; so has every call made there, on every argument;
- a name bound inside a function, a lambda or a class is unknown; what runs there, in a
  `with`, or in a `try` past its first statement is chosen by anything;
- an object changed with data or under such a condition (a method other than a reading
  one, an item or attribute assigned or deleted, `+=`) gives every name that may share it
  the change's sources; a call may share its arguments' objects with one another, and
  every function shares the objects of every name it uses or is given.

Only a value that *is* a part of a use case's result keeps a field's precise sources
(`entry["counterparty"]` is the counterparty, a fact); whatever the program builds from it
carries every label of what it was built from.

It is solved as a monotone system: each atom's sources grow along the edges, each edge
transforming what passes; one propagation settles it, in time linear in the edges times
the (few) sources of a program.
"""

from __future__ import annotations

import ast
from collections import defaultdict, deque
from collections.abc import Collection, Iterable, Mapping

from application.labels import Tree
from gateway.core.program import sources as via
from gateway.core.program.sources import Source, Transform

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
# Builtins that give back the items of their first argument, in a new list.
_SAME_ITEMS = frozenset({"sorted", "list", "tuple", "reversed", "set", "frozenset"})
# Methods that never change the object they are called on: those of str, and the reading
# methods of list, dict and set. Any other method is taken to change its object.
READING_METHODS = frozenset(
    {name for name in dir(str) if not name.startswith("_")}
    | {"copy", "count", "get", "index", "items", "keys", "values"}
    | {"difference", "intersection", "isdisjoint", "issubset", "issuperset"}
    | {"symmetric_difference", "union"}
)

# An atom of the system: ("node", id) an expression's value, ("name", n) a name,
# ("objects", n) what changed the objects n may share, ("context", k) what a place runs
# under, ("loop", k) what may leave loop k early.
Atom = tuple[str, str]
ALWAYS: Atom = ("always", "")
# What runs inside a function, a `try` or a `with`: chosen by anything.
ANYWHERE: Atom = ("always", "chosen")
_NOTHING: frozenset[Atom] = frozenset()
_COMPUTED: frozenset[Atom] = frozenset({ANYWHERE})
_NO_VALUE = (ast.operator, ast.cmpop, ast.boolop, ast.unaryop, ast.expr_context)
# Functions, lambdas and classes, their parameters and the names they use or are given all
# share one set of objects: a function may keep, return or change any of them.
FUNCTIONS = "(functions)"


class DataFlow:
    """The sources of the names and expressions of one program.

    `use_cases` gives each use case's result label tree (None when unknown: its result is
    then taken whole). Building it recurses through the statements and expressions, one
    frame a level: one nested deeper than Python's stack allows raises RecursionError (the
    sandbox itself refuses more than 200 levels)."""

    def __init__(
        self,
        tree: ast.Module,
        use_cases: Mapping[str, Tree | None] | Collection[str],
        bound: set[str] | None = None,
    ) -> None:
        self.trees: Mapping[str, Tree | None] = (
            use_cases if isinstance(use_cases, Mapping) else dict.fromkeys(use_cases)
        )
        self.use_cases = frozenset(self.trees)
        self.bound = bound_names(tree) if bound is None else bound
        # The names a lambda's parameters, a function's parameters and a comprehension's
        # variables give their own scope, by the id of each Name node that means them.
        self._scoped = _scopes(tree)
        self._parent: dict[str, str] = {}
        self._edges: list[tuple[Atom, Atom, Transform]] = []
        self._seeds: list[tuple[Atom, Source]] = [
            (ALWAYS, via.Unknown()),
            (ANYWHERE, via.Unknown(chosen=True)),
        ]
        self._count = 0
        # The use-case calls: the use case of each call's id, and the context each runs in.
        self.calls: dict[str, str] = {}
        self._call_context: dict[str, frozenset[Atom]] = {}
        # Each expression is an atom of its own, linked to its parts children first: the
        # system grows with the program, and nothing here recurses.
        for node in _children_first(tree):
            if isinstance(node, ast.expr | ast.comprehension | ast.keyword):
                self._link(node)
        self._visit_block(tree.body, _NOTHING, [])
        self._sources = self._solve()

    def sources(self, node: ast.AST) -> frozenset[Source]:
        """What the value of `node` may come from; empty for a literal."""
        return frozenset(self._sources.get(_atom(node), ()))

    def computed(self, node: ast.expr) -> bool:
        """Whether the value of `node` may depend on anything but the program's literals."""
        return bool(self._sources.get(_atom(node)))

    def argument_sources(self, call: ast.Call) -> dict[str, frozenset[Source]]:
        """Each keyword argument's sources, with what the call runs under (chosen)."""
        context: set[Source] = set()
        for atom in self._call_context.get(str(id(call)), _COMPUTED):
            context |= self._sources.get(atom, set())
        return {
            str(keyword.arg): self.sources(keyword.value) | context for keyword in call.keywords
        }

    def computed_arguments(self, call: ast.Call) -> frozenset[str]:
        """The names of a call's keyword arguments whose values are computed."""
        return frozenset(name for name, found in self.argument_sources(call).items() if found)

    def tree_of(self, call: str) -> Tree | None:
        """The label tree of the result of the use-case call with this id."""
        name = self.calls.get(call)
        return None if name is None else self.trees.get(name)

    # Each expression: what its value comes from, and what objects it may share.

    def _link(self, node: ast.expr | ast.comprehension | ast.keyword) -> None:
        atom, item = _atom(node), _item(node)
        parts = [child for child in ast.iter_child_nodes(node) if not isinstance(child, _NO_VALUE)]
        match node:
            case ast.Constant():
                return
            case ast.Name(id=name):
                if name in self.use_cases:
                    self._flow(atom, [ALWAYS])  # a use case as a value: the check refuses it
                elif name in self.bound:
                    name = self._scoped.get(id(node), name)
                    self._flow(atom, [("name", name)])
                    self._share(item, [name])
                return
            case ast.Call(func=function, args=arguments, keywords=keywords):
                self._link_call(node, function, arguments, keywords)
                return
            case ast.Lambda() | ast.Await() | ast.Yield() | ast.YieldFrom():
                self._flow(atom, [ALWAYS])
                self._share(item, [FUNCTIONS])
                return
            case _:
                self._link_value(atom, node, parts)
        self._share(item, _held(node, parts))

    def _link_value(
        self, atom: Atom, node: ast.expr | ast.comprehension | ast.keyword, parts: list[ast.AST]
    ) -> None:
        """What the value of an expression that is no name, call or constant comes from."""
        match node:
            case ast.Subscript(value=value, slice=index):
                self._subscript(atom, value, index)
            case ast.Attribute(value=value, attr=name):
                self._flow(atom, [_atom(value)], via.refine(name))
            case ast.IfExp(test=test, body=body, orelse=orelse):
                self._flow(atom, [_atom(body), _atom(orelse)])
                self._flow(atom, [_atom(test)], via.select)
            case ast.BoolOp(values=values):
                self._flow(atom, map(_atom, values))
                self._flow(atom, map(_atom, values[:-1]), via.select)
            case ast.NamedExpr(value=value) | ast.Starred(value=value) | ast.keyword(value=value):
                self._flow(atom, [_atom(value)])
            case ast.List() | ast.Tuple() | ast.Set():
                self._flow(atom, map(_atom, parts), via.wrap)
            case ast.ListComp() | ast.SetComp() | ast.GeneratorExp():
                self._flow(atom, [_atom(node.elt)], via.wrap)
                self._flow(atom, map(_atom, node.generators), via.select)
            case ast.comprehension(iter=iterable, ifs=conditions):
                self._flow(atom, [_atom(iterable)], via.then(via.shape, via.select))
                self._flow(atom, map(_atom, conditions), via.select)
            case _:
                self._flow(atom, map(_atom, parts), via.derive)

    def _subscript(self, atom: Atom, value: ast.expr, index: ast.expr) -> None:
        if isinstance(index, ast.Constant) and isinstance(index.value, str):
            self._flow(atom, [_atom(value)], via.refine(index.value))
        elif isinstance(index, ast.Slice):
            self._flow(atom, [_atom(value)])  # the same items, fewer of them
            self._flow(atom, [_atom(index)], via.select)
        else:
            self._flow(atom, [_atom(value)], via.element)
            self._flow(atom, [_atom(index)], via.select)

    def _link_call(
        self,
        call: ast.Call,
        function: ast.expr,
        arguments: list[ast.expr],
        keywords: list[ast.keyword],
    ) -> None:
        atom, item = _atom(call), _item(call)
        parts: list[ast.AST] = [*arguments, *keywords]
        match function:
            case ast.Name(id=name) if name in self.use_cases:
                # Data, in a fresh value; which data, the arguments chose.
                self.calls[str(id(call))] = name
                self._seeds.append((atom, via.At(str(id(call)), ())))
                self._flow(atom, map(_atom, parts), via.select)
            case ast.Name(id=name) if name in PURE_BUILTINS and name not in self.bound:
                self._builtin(atom, name, arguments, keywords)
                if name not in _FRESH_BUILTINS:
                    # `sorted(items, key=f)` holds the items, and gives them to f.
                    self._share(item, map(_item, parts))
            case ast.Attribute(value=receiver, attr=method):
                self._method(atom, receiver, method, arguments, keywords)
                self._share(item, map(_item, [receiver, *parts]))
            case _:
                self._flow(atom, [ALWAYS])
                self._share(item, [FUNCTIONS, _item(function), *map(_item, parts)])

    def _builtin(
        self, atom: Atom, name: str, arguments: list[ast.expr], keywords: list[ast.keyword]
    ) -> None:
        first, rest = (arguments[0], arguments[1:]) if arguments else (None, [])
        options = [keyword.value for keyword in keywords]
        if name == "len" and first is not None:
            self._flow(atom, [_atom(first)], via.shape)
            self._flow(atom, map(_atom, [*rest, *options]), via.derive)
        elif name in _SAME_ITEMS and first is not None:
            self._flow(atom, [_atom(first)])
            self._flow(atom, map(_atom, [*rest, *options]), via.select)
        elif name in ("max", "min") and len(arguments) == 1 and first is not None:
            # One of the items, chosen by all of them (and by the key).
            self._flow(atom, [_atom(first)], via.element)
            self._flow(atom, [_atom(first)], via.select)
            self._flow(atom, map(_atom, options), via.select)
        elif name in ("max", "min"):
            self._flow(atom, map(_atom, arguments))
            self._flow(atom, map(_atom, [*arguments, *options]), via.select)
        elif name == "enumerate" and first is not None:
            # Pairs (index, item): an item of a pair is one of the items.
            self._flow(atom, [_atom(first)], via.then(via.element, via.wrap, via.wrap))
            self._flow(atom, map(_atom, [*rest, *options]), via.select)
        elif name == "zip":
            self._flow(atom, map(_atom, arguments), via.then(via.element, via.wrap, via.wrap))
            self._flow(atom, map(_atom, options), via.select)
        elif name == "str":
            self._flow(atom, map(_atom, [*arguments, *options]))
        else:
            self._flow(atom, map(_atom, [*arguments, *options]), via.derive)

    def _method(
        self,
        atom: Atom,
        receiver: ast.expr,
        method: str,
        arguments: list[ast.expr],
        keywords: list[ast.keyword],
    ) -> None:
        given = [*arguments, *(keyword.value for keyword in keywords)]
        key = arguments[0] if arguments else None
        if method == "get" and isinstance(key, ast.Constant) and isinstance(key.value, str):
            self._flow(atom, [_atom(receiver)], via.refine(key.value))
            self._flow(atom, map(_atom, arguments[1:]))
        elif method == "copy":
            self._flow(atom, [_atom(receiver)])
        elif method in ("items", "values", "keys"):
            self._flow(atom, [_atom(receiver)], via.then(via.derive, via.wrap, via.wrap))
        else:
            # A method of a literal value: computed when it or an argument is.
            self._flow(atom, map(_atom, [receiver, *given]), via.derive)

    # Building the system, statement by statement. `context` is what the current place
    # runs under (atoms whose sources all only chose), `loops` the loops it may leave early.

    def _join(self, context: frozenset[Atom], more: Iterable[Atom]) -> frozenset[Atom]:
        """A place under `context` and the conditions `more`: one atom, so contexts stay
        small."""
        more = frozenset(more)
        if more <= context:
            return context
        self._count += 1
        joined: Atom = ("context", str(self._count))
        self._flow(joined, context | more, via.select)
        return frozenset({joined})

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
                inner = self._join(context, [_atom(test)])
                self._visit_block([*body, *orelse], inner, loops)
            case ast.For() | ast.AsyncFor() | ast.While():
                self._loop(node, context, loops)
            case ast.Break() | ast.Continue() if loops:
                self._flow(loops[-1], context, via.select)
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
                self._mutate(target.value, [*_index(target), *context])

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
        # Every pass, and what the loop leaves bound, depends on how many passes the head
        # makes (or its test) and on whether data made it stop early.
        counted: Atom = ("count", str(id(head)))
        self._flow(counted, [_atom(head)], via.shape if isinstance(node, ast.For) else via.derive)
        inner = self._join(context, [counted, left_early])
        if not isinstance(node, ast.While):
            self._bind(node.target, node.iter, inner, each=True)
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
        self._share(FUNCTIONS, {node.name} | self._names_in(node))
        self._flow(("name", node.name), [ALWAYS])
        if not isinstance(node, ast.ClassDef):
            for parameter in self._parameters(node):
                self._flow(("name", parameter), [ALWAYS])
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
                    bound_here = names_in(item.optional_vars)
                    self._share(FUNCTIONS, bound_here)
                    for name in bound_here:
                        self._flow(("name", name), [ALWAYS])
            self._visit_block(node.body, _COMPUTED, loops)
            return
        for handler in node.handlers:
            if handler.type is not None:
                self._expression(handler.type, context)
            if handler.name:
                self._share(FUNCTIONS, {handler.name})
                self._flow(("name", handler.name), [ALWAYS])
        # The body's first statement runs whenever the `try` does; what follows it may not
        # run, if anything before it raised.
        first, *rest = node.body
        self._visit(first, context, loops)
        for block in [rest, *(h.body for h in node.handlers), node.orelse, node.finalbody]:
            self._visit_block(block, _COMPUTED, loops)

    def _match(
        self,
        subject: ast.expr,
        cases: list[ast.match_case],
        context: frozenset[Atom],
        loops: list[Atom],
    ) -> None:
        self._expression(subject, context)
        inner = self._join(context, [_atom(subject)])
        for case in cases:
            if case.guard is not None:
                self._expression(case.guard, context)
                inner = self._join(inner, [_atom(case.guard)])
        for case in cases:
            captured = names_in(case.pattern)
            self._share(FUNCTIONS, captured | {_item(subject)})
            for name in captured:
                self._flow(("name", name), [ALWAYS])
            self._visit_block(case.body, inner, loops)

    def _expression(self, node: ast.expr, context: frozenset[Atom]) -> None:
        """What an expression binds (`:=`, comprehension variables) and changes (methods),
        and what each use-case call in it runs under."""
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
                inner = self._join(context, [_atom(test)])
                self._expression(body, inner)
                self._expression(orelse, inner)
            case ast.BoolOp(values=values):
                inner = context
                for value in values:
                    self._expression(value, inner)
                    inner = self._join(inner, [_atom(value)])
            case ast.Call(func=function, args=arguments, keywords=keywords):
                given = [*arguments, *(keyword.value for keyword in keywords)]
                if str(id(node)) in self.calls:
                    self._call_context[str(id(node))] = context
                for part in [function, *given]:
                    self._expression(part, context)
                self._call(function, given, context)
            case _:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.expr):
                        self._expression(child, context)

    def _lambda(self, node: ast.Lambda, context: frozenset[Atom]) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self._expression(default, context)
        self._share(FUNCTIONS, self._names_in(node))
        for parameter in self._parameters(node):
            self._flow(("name", parameter), [ALWAYS])
        self._expression(node.body, _COMPUTED)

    def _comprehension(
        self,
        node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
        context: frozenset[Atom],
    ) -> None:
        inner = context
        for generator in node.generators:
            self._expression(generator.iter, inner)
            counted: Atom = ("count", str(id(generator.iter)))
            self._flow(counted, [_atom(generator.iter)], via.shape)
            inner = self._join(inner, [counted])
            self._bind(generator.target, generator.iter, inner, each=True)
            for condition in generator.ifs:
                self._expression(condition, inner)
                inner = self._join(inner, [_atom(condition)])
        results = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for result in results:
            self._expression(result, inner)

    def _call(self, function: ast.expr, parts: list[ast.expr], context: frozenset[Atom]) -> None:
        # A method other than a reading one may change its object (what it shares, `_link`
        # has said); a function's body changes what it changes under a computed context.
        if isinstance(function, ast.Attribute) and function.attr not in READING_METHODS:
            self._mutate(function.value, [*map(_atom, parts), *context])

    def _bind(
        self,
        target: ast.expr,
        value: ast.expr,
        context: frozenset[Atom],
        *,
        in_place: bool = False,
        each: bool = False,
        unpacked: int = 0,
    ) -> None:
        """`target = value`, `target op= value` (`in_place`), or `for target in value`
        (`each`); a part of a tuple target takes an item of the value (`unpacked` deep)."""
        steps: list[Transform] = [via.element] * (unpacked + each)
        transform = via.then(*steps) if steps else via.identity
        match target:
            case ast.Name(id=name):
                name = self._scoped.get(id(target), name)
                self._share_all({_item(value), name})
                self._flow(("name", name), [_atom(value)], transform)
                self._flow(("name", name), context)
                if in_place:  # `items += more` changes the list `items` names
                    self._mutate(target, [_atom(value), *context])
            case ast.Tuple(elts=parts) | ast.List(elts=parts):
                for part in parts:
                    self._bind(
                        part, value, context, in_place=in_place, each=each, unpacked=unpacked + 1
                    )
            case ast.Starred(value=inner):
                # `first, *rest = items`: rest is a list of the items.
                self._bind(
                    inner, value, context, in_place=in_place, each=each, unpacked=unpacked - 1
                )
            case ast.Subscript(value=container) | ast.Attribute(value=container):
                self._expression(target, context)
                self._share_all({_item(value), _item(container)})
                self._mutate(container, [_atom(value), *_index(target), *context])
            case _:  # no other target parses; were there one, it would make all computed
                self._flow(("objects", FUNCTIONS), [ALWAYS])
                self._share_all(self.bound | {FUNCTIONS})

    def _names_in(self, node: ast.AST) -> set[str]:
        """The names a piece of the program binds or uses, each in its own scope."""
        found: set[str] = set()
        for child in ast.walk(node):
            if isinstance(child, ast.Name):
                found.add(self._scoped.get(id(child), child.id))
            else:
                found |= _own_names(child)
        return found

    def _parameters(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
        return {_scoped_name(name, node) for name in parameters_of(node)}

    def _mutate(self, container: ast.expr, depends: Iterable[Atom]) -> None:
        self._flow(("objects", _item(container)), depends, via.derive)

    # The system itself.

    def _flow(
        self, atom: Atom, depends: Iterable[Atom], transform: Transform = via.identity
    ) -> None:
        """`atom` has the sources of each of `depends`, through `transform`."""
        for depend in depends:
            self._edges.append((depend, atom, transform))

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

    def _solve(self) -> dict[Atom, set[Source]]:
        outgoing: defaultdict[Atom, list[tuple[Atom, Transform]]] = defaultdict(list)
        for depend, atom, transform in self._edges:
            outgoing[self._resolved(depend)].append((self._resolved(atom), transform))
        for name in self.bound | set(self._scoped.values()):
            # A name has what changed an object it may share.
            outgoing[("objects", self._root(name))].append((("name", name), via.identity))
        found: defaultdict[Atom, set[Source]] = defaultdict(set)
        queue = deque((self._resolved(atom), source) for atom, source in self._seeds)
        trees = self.tree_of
        while queue:
            atom, source = queue.popleft()
            if source in found[atom]:
                continue
            found[atom].add(source)
            for target, transform in outgoing[atom]:
                moved = transform(source, trees)
                if moved not in found[target]:
                    queue.append((target, moved))
        return found

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


def _index(target: ast.Subscript | ast.Attribute) -> list[Atom]:
    """What the place an item is stored at depends on: its index (`items[i]`)."""
    return [_atom(target.slice)] if isinstance(target, ast.Subscript) else []


def _scoped_name(name: str, scope: ast.AST) -> str:
    return f"{name}@{id(scope)}"


def _scopes(tree: ast.AST) -> dict[int, str]:
    """The scope of each Name node that means a parameter of its lambda or function, or a
    variable of its comprehension: `e` in `[e for e in s]` is not the `e` of a loop
    elsewhere. Inner scopes are walked after outer ones, so the innermost wins."""
    scoped: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
            own = parameters_of(node)
            inside: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else [*node.body]
        elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            own = {
                n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)
            }
            first, *rest = node.generators
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            # The first iterable is evaluated outside the comprehension.
            inside = [*parts, first.target, *first.ifs, *rest]
        else:
            continue
        for part in inside:
            for child in ast.walk(part):
                if isinstance(child, ast.Name) and child.id in own:
                    scoped[id(child)] = _scoped_name(child.id, node)
    return scoped


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
