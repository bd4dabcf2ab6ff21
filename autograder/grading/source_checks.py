"""Static questions about a student's source: does a graded function, or anything it calls, reach an
API the assignment forbids? Runs in the trusted process; nothing from the submission is executed.

Where a rule can be enforced at run time it is (`calls.ForbiddenAPIGuard`, armed around every graded
call); this is the second layer, and the only one for rules that hold inside one function (no built-in
softmax inside `stable_softmax`, while the rest of the notebook may use it).

How the source is read, and why:
- Each cell is parsed on its own. A cell that does not parse never ran, so it defined nothing; the
  others still count. (Joining the cells first lets one broken cell blind the whole check, and lets two
  lone `\"\"\"` cells turn the code between them into a string.)
- Every binding of a name anywhere in the notebook counts, not only the last: a cell that raised before
  its `def` left the earlier definition in place, and the source cannot say which cells raised. Except
  (red-team round 57) the bindings before a last top-level `def` that surely runs, where nothing could have
  taken the earlier objects while they were bound (`_Notebook._superseded`: a first try rewritten below).
- From the graded function, the check follows every module-level name it reads (scoping as Python does
  it: parameters and locals are not followed): functions, lambdas, classes (all their methods), values
  assigned to the name, values stored into it (`ops["f"] = ...`, `ops.append(...)`) and values assigned
  to any attribute it reads (`torch.my_op = torch.softmax`).
- It reports a use when something it reaches reads an attribute whose name contains a forbidden name
  (`F.softmax`, `x.softmax`, `torch.nn.Softmax`, `torch.ops.aten._softmax`), imports one
  (`from torch import softmax as s`), or names one in a constant string given to `getattr`,
  `operator.attrgetter` or `methodcaller`.
- It fails closed (`SourceUnreadable`) when it cannot see what runs: no readable definition of the
  graded function, a name it reaches imported from a module it cannot read (anything but the
  standard library and the libraries in `READABLE_MODULES`; `os`, `subprocess`... run other code),
  `getattr` with a computed name, or anywhere in the notebook a tool
  that rewrites code or namespaces out of sight (`exec`, `eval`, `compile`, `globals()`, `setattr`,
  `__code__`, `sys.modules`, `importlib`, `pickle`, ...); not on the uses of those that reach nothing
  (HARMLESS_CALLS: `gc.collect()`, `SimpleNamespace(...)`; NAMESPACE_READS: `"Q" in globals()`)."""
from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import itertools
import re
import sys
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Callable, Collection, Iterable, Iterator, Sequence

from autograder.grading.pyparse import holds_name_text, parse, unparse

# Libraries whose code is not the student's (with the standard library): reading their attributes is
# checked by name. Anything imported from elsewhere (a file the notebook wrote, a relative import)
# cannot be read, nor can modules that run other programs (the forbidden call could sit in a string).
READABLE_MODULES = frozenset({"torch", "numpy", "einops", "scipy", "matplotlib", "otter"})
RUNS_OTHER_CODE = frozenset({"os", "subprocess", "multiprocessing", "concurrent", "pty", "posix",
                             "_posixsubprocess", "shlex"})

# Reading any of these anywhere in the notebook means code or namespaces can change out of sight.
DYNAMIC_NAMES = frozenset({"exec", "eval", "compile", "__import__", "globals", "locals", "vars",
                           "setattr", "delattr", "__builtins__"})
DYNAMIC_ATTRS = frozenset({"__code__", "__globals__", "__dict__", "__builtins__", "__setattr__",
                           "__closure__", "__defaults__", "__kwdefaults__", "f_globals", "f_locals",
                           "f_back", "_getframe",
                           # an object's live attribute dict without `__dict__`: SimpleNamespace().__reduce__()[2]
                           # is the instance's own dict (red-team round 57, where SimpleNamespace became readable)
                           "__reduce__", "__reduce_ex__", "__getstate__"})
DYNAMIC_MODULES = frozenset({"importlib", "builtins", "__main__", "ctypes", "types", "marshal",
                             "pickle", "dill", "cloudpickle", "inspect", "runpy", "code", "codeop",
                             "gc", "imp", "zipimport", "pkgutil",
                             # names resolved from strings: pydoc.locate, unittest.mock.patch (red-team round 46)
                             "pydoc", "unittest"})
# Red-team round 57: honest lines that named one of those modules or names failed both rules closed (`gc.collect()`,
# `SimpleNamespace(d_k=8)`, `if "Q" not in globals():`). What such a module hands out that cannot reach code is allowed,
# and only as written here: each load of a name bound to the module must be `module.f(...)` with f below, each load of
# a name imported from it (`from gc import collect as c`) a call `c(...)`; anything else (the module passed, aliased,
# read by getattr, `gc.get_referrers`, `types.FunctionType`, an import in a class body, `from gc import *`) still
# fails closed. gc's functions here count, switch or tune the collector and answer ints, bools and lists of dicts;
# SimpleNamespace, called, makes an object whose attributes are the keywords of that call (walked with the call when
# a name bound to it is followed); its class is never handed out, so `SimpleNamespace.__init__(torch, ...)` cannot
# be written (nor would run: the slot checks its self).
HARMLESS_CALLS = {"gc": frozenset({"collect", "disable", "enable", "isenabled", "get_count", "get_threshold",
                                   "set_threshold", "freeze", "unfreeze", "get_freeze_count", "get_stats",
                                   "is_tracked", "is_finalized"}),
                  "types": frozenset({"SimpleNamespace"})}
# A namespace read only for membership (`"Q" in globals()`, `not in`, one comparison, the call on its right) hands out
# nothing: dict.__contains__ hashes the key and compares it with the stored key strings; the dict itself goes nowhere.
# Any other use (a subscript, .get, .keys(), whose view's .mapping is the dict, .update, passing it, `in` chained)
# still fails closed.
NAMESPACE_READS = frozenset({"globals", "locals", "vars"})
# TorchScript compiles code from strings and runs it past the worker's guard (torch.jit.CompilationUnit, a trace made
# outside the graded call); typing evaluates string annotations; string.Formatter reads attributes named in a string
DYNAMIC_DOTTED = ("sys.modules", "sys._getframe", "torch.load", "torch.jit", "torch._C._jit", "torch.package",
                  "torch.utils.cpp_extension", "torch.library", "typing.get_type_hints", "typing.ForwardRef",
                  "typing._eval_type", "string.Formatter", "logging.config",
                  # torch's registries of its own functions and ops, searched by a string the rule never reads
                  # (get_overridable_functions() filtered by __name__, decomposition_table by str(op): red-team
                  # round 59); no homework needs them
                  "torch.overrides", "torch._decomp", "torch._refs", "torch._prims", "torch._ops",
                  "torch._C._dispatch",
                  # what widens torch.load(..., weights_only=True)'s allow-list to functions (add_safe_globals)
                  "torch.serialization")
MAX_SOURCE_CHARS = 2_000_000   # an honest notebook has well under 100 kB of code
STORED_ELSEWHERE = "a value stored through a parameter or a local"
MAX_FLOW_ROUNDS = 64           # stored_elsewhere: rounds of names bound to storing functions (an honest notebook: 2-3)
_GETATTR_LIKE = frozenset({"getattr", "attrgetter", "methodcaller", "__getattribute__", "__getattr__"})
# Red-team round 60: code the interpreter or a library runs with no name of the graded function leading to it. A
# finalizer (`__del__`, a generator's `finally`/`with` run when it is collected, a weakref callback) runs whenever a
# collection does, and the graded function's own allocations trigger one; a hook registered with the interpreter or a
# library (`sys.addaudithook`, `signal.signal`, `torch.nn.modules.module.register_module_forward_hook`, a class with
# `__torch_dispatch__`) runs inside the calls the graded function makes. All of it is walked from every graded
# function (`_Notebook.implicit`); the registrars handed around uncalled (`r = weakref.finalize`) fail closed.
HOOK_MODULES = frozenset({"weakref", "atexit", "signal", "codecs", "copyreg", "threading", "faulthandler", "readline"})
HOOK_REGISTRARS = frozenset({"weakref.ref", "weakref.finalize", "weakref.proxy", "weakref.WeakMethod",
                             "weakref.ReferenceType", "weakref.ProxyType", "weakref.CallableProxyType",
                             "atexit.register", "signal.signal", "codecs.register", "copyreg.pickle", "sys.addaudithook",
                             "sys.set_asyncgen_hooks", "threading.excepthook", "sys.breakpointhook", "sys.displayhook",
                             "sys.excepthook", "sys.unraisablehook", "sys.meta_path", "sys.path_hooks"})
IMPLICIT_DUNDERS = frozenset({"__del__", "__torch_dispatch__", "__torch_function__"})
# Red-team round 60: library functions that store what they are handed into another of their arguments
# (`operator.setitem(box, 'f', F.softmax)`, `heapq.heappush(ops, f)`, `list.append(ops, f)` unbound): their arguments
# go into stored_elsewhere's pool, as those of the notebook's own storing functions do.
STORING_MODULES = frozenset({"operator", "heapq", "bisect", "collections", "queue", "array", "copyreg", "contextlib",
                             "weakref", "shelve", "dbm", "functools.update_wrapper", "functools.wraps"})
STORING_TYPES = frozenset({"list", "dict", "set", "bytearray", "object", "type", "frozenset", "tuple", "super"})
IMPLICIT = "code run with no call leading to it (a finalizer or a hook)"

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPES = _FUNCS + _COMPS + (ast.ClassDef,)


class SourceUnreadable(Exception):
    """The source does not show what the graded function runs: the rule cannot be verified."""


@dataclass(frozen=True)
class Use:
    """The graded function reaches a forbidden API: `what`, through the helpers `via`."""
    function: str
    via: tuple[str, ...]
    what: str

    def describe(self) -> str:
        path = f" through {' -> '.join(f'`{v}`' for v in self.via)}" if self.via else ""
        return f"`{self.function}` uses {self.what}{path}"


# ---------------------------------------------------------------------------------------------------
# scopes
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Scope:
    kind: str                    # "function", "class" or "comprehension"
    locals: frozenset[str]
    declared_global: frozenset[str]


def _outer_parts(n: ast.AST) -> list[ast.AST]:
    """The parts of a scope-making node that are evaluated in the enclosing scope."""
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = n.args
        parts: list[ast.AST] = [*a.defaults, *(d for d in a.kw_defaults if d is not None)]
        if not isinstance(n, ast.Lambda):
            parts += n.decorator_list
            parts += [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                      if x is not None and x.annotation is not None]
            parts += [n.returns] if n.returns is not None else []
        return parts
    if isinstance(n, ast.ClassDef):
        return [*n.decorator_list, *n.bases, *(k.value for k in n.keywords)]
    if isinstance(n, _COMPS):
        return [n.generators[0].iter]
    return []


def _inner_parts(n: ast.AST) -> list[ast.AST]:
    """The parts of a scope-making node evaluated in its own scope."""
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return list(n.body)
    if isinstance(n, ast.Lambda):
        return [n.body]
    if isinstance(n, _COMPS):
        parts: list[ast.AST] = [n.key, n.value] if isinstance(n, ast.DictComp) else [n.elt]
        for i, g in enumerate(n.generators):
            parts += [g.target, *g.ifs] + ([g.iter] if i else [])
        return parts
    return []


def _own_nodes(parts: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node evaluated in the scope whose parts are `parts` (nested scopes contribute their outer
    parts, and the walrus targets of nested comprehensions, which bind here)."""
    stack = list(parts)
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _SCOPES):
            stack.extend(_outer_parts(n))
            if isinstance(n, _COMPS):
                stack.extend(w for p in _inner_parts(n) for w in _walrus_targets(p))
            continue
        stack.extend(ast.iter_child_nodes(n))


def _walrus_targets(n: ast.AST) -> Iterator[ast.AST]:
    stack = [n]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.NamedExpr):
            yield x.target
        if not isinstance(x, _FUNCS + (ast.ClassDef,)):
            stack.extend(ast.iter_child_nodes(x))


def _scope_of(n: ast.AST) -> _Scope:
    names: set[str] = set()
    declared: set[str] = set()
    if isinstance(n, _FUNCS):
        a = n.args
        names |= {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x}
        kind = "function"
    elif isinstance(n, _COMPS):
        kind = "comprehension"
        names |= {x.id for g in n.generators for x in ast.walk(g.target) if isinstance(x, ast.Name)}
        return _Scope(kind, frozenset(names), frozenset())
    else:
        kind = "class"
    for x in _own_nodes(_inner_parts(n)):
        if isinstance(x, ast.Name) and isinstance(x.ctx, (ast.Store, ast.Del)):
            names.add(x.id)
        elif isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and x is not n:
            names.add(x.name)
        elif isinstance(x, (ast.Import, ast.ImportFrom)):
            names |= {al.asname or al.name.split(".")[0] for al in x.names if al.name != "*"}
        elif isinstance(x, ast.ExceptHandler) and x.name:
            names.add(x.name)
        elif isinstance(x, (ast.MatchAs, ast.MatchStar)) and x.name:
            names.add(x.name)
        elif isinstance(x, ast.MatchMapping) and x.rest:
            names.add(x.rest)
        elif isinstance(x, ast.Nonlocal):
            names |= set(x.names)
        elif isinstance(x, ast.Global):
            declared |= set(x.names)
    return _Scope(kind, frozenset(names - declared), frozenset(declared))


Chain = tuple[_Scope, ...]   # innermost last; () is the module


def _is_global(name: str, chain: Chain) -> bool:
    for depth, scope in enumerate(reversed(chain)):
        if name in scope.declared_global:
            return True
        if depth and scope.kind == "class":   # a class body is not visible to the scopes inside it
            continue
        if name in scope.locals:
            return False
    return True


def _loads_weights_only(call: ast.Call, qualname: Callable[[ast.AST], str | None]) -> bool:
    """`torch.load(path, weights_only=True)` spelt so: its unpickler builds tensors and plain containers only, no
    code (a student's own checkpoint: red-team round 65 found it failed the rules closed). torch.serialization,
    whose add_safe_globals would widen what it builds, stays a dynamic use."""
    return (isinstance(call.func, ast.Attribute) and qualname(call.func) == "torch.load"
            and all(k.arg is not None for k in call.keywords)
            and any(k.arg == "weights_only" and isinstance(k.value, ast.Constant) and k.value.value is True
                    for k in call.keywords))


def _module_membership(node: ast.AST) -> ast.AST | None:
    """The `sys.modules` of `"google.colab" in sys.modules` (or `not in`, a string written as the left side): Colab's
    own test of where a notebook runs, which answers a bool and hands out no module. Red-team round 73: that line, in
    honest Colab notebooks, had a right notebook rejected as reaching into the grader (0 points). None otherwise."""
    if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
            and isinstance(node.comparators[0], ast.Attribute) and node.comparators[0].attr == "modules"):
        return node.comparators[0]
    return None


def _walk(node: ast.AST, chain: Chain) -> Iterator[tuple[ast.AST, Chain]]:
    """Every node under `node` with the scope chain it is evaluated in (parents before children)."""
    stack = [(node, chain)]
    while stack:
        n, ch = stack.pop()
        yield n, ch
        if isinstance(n, _SCOPES):
            stack.extend((p, ch) for p in _outer_parts(n))
            inner = ch + (_scope_of(n),)
            stack.extend((p, inner) for p in _inner_parts(n))
        else:
            stack.extend((c, ch) for c in ast.iter_child_nodes(n))


_BUILTIN_NAMES = frozenset(dir(builtins))


def _constant(n: ast.AST) -> bool:
    """A default that evaluates without raising or running code: a constant, a signed one, a tuple of them."""
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        return isinstance(n.operand, ast.Constant)
    if isinstance(n, ast.Tuple):
        return all(_constant(e) for e in n.elts)
    return isinstance(n, ast.Constant)


def _root_name(n: ast.AST) -> ast.Name | None:
    while isinstance(n, (ast.Attribute, ast.Subscript, ast.Starred)):
        n = n.value
    return n if isinstance(n, ast.Name) else None


def _calls_super(call: ast.Call) -> bool:
    """`super().m(...)`: the parent's method m."""
    f = call.func
    return (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name)
            and f.value.func.id == "super")


def _arguments(call: ast.Call) -> ast.Tuple:
    """A call's arguments, positional and keyword values, as one expression to walk."""
    return ast.Tuple(elts=[*call.args, *(k.value for k in call.keywords)], ctx=ast.Load())


_IMMUTABLE_CALLS = frozenset({"float", "int", "complex", "bool", "str"})


def _immutable(n: ast.AST, rebound: dict[str, list[int]]) -> bool:
    """A value that holds nothing stored later: a constant, a signed or computed one, a tuple of them, a builtin
    number or string made from them (`float('-inf')`, with float never rebound)."""
    if isinstance(n, ast.Constant):
        return True
    if isinstance(n, ast.UnaryOp):
        return _immutable(n.operand, rebound)
    if isinstance(n, ast.BinOp):
        return _immutable(n.left, rebound) and _immutable(n.right, rebound)
    if isinstance(n, ast.Tuple):
        return all(_immutable(e, rebound) for e in n.elts)
    return (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _IMMUTABLE_CALLS
            and n.func.id not in rebound and not n.keywords and all(_immutable(a, rebound) for a in n.args))


def _const_str(n: ast.AST | None) -> str | None:
    return n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) else None


# ---------------------------------------------------------------------------------------------------
# the notebook: every binding of every module-level name
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Binding:
    kind: str              # "code" (walk node in chain), "import", "mutation" (values stored into it)
    node: ast.AST | None = None
    chain: Chain = ()
    module: str = ""       # for "import": the module, and the imported name (None: the module itself)
    imported: str | None = None
    where: tuple[int, int, int] = (0, 0, 0)   # (code cell from 1, line, column) of the statement that binds


class _Notebook:
    def __init__(self, cells: Sequence[str]) -> None:
        self.bindings: dict[str, list[_Binding]] = {}
        self.attr_stores: dict[str, list[tuple[ast.AST, Chain]]] = {}
        self.module_aliases: dict[str, set[str]] = {}
        self.star_modules: set[str] = set()
        self.star_imports: list[tuple[str, tuple[int, int, int]]] = []   # (module, where) of each `*` import
        self.dynamic: list[str] = []
        self.weights_only_loads: set[int] = set()   # torch.load(..., weights_only=True): its func node ids
        self.membership_tests: set[int] = set()     # `"google.colab" in sys.modules`: its `sys.modules` node ids
        self.unparsed = 0
        self.getattr_aliases: dict[str, str] = {}   # `from operator import attrgetter as ag`: ag -> attrgetter
        self.trees: list[tuple[int, ast.AST]] = []   # (code cell number from 1, its tree): reaches_into_grader
        # names bound to a module of HARMLESS_CALLS, or to a function imported from one: {name: {(module, f or None)}}
        self.harmless: dict[str, set[tuple[str, str | None]]] = {}
        self._at: tuple[int, int, int] = (0, 0, 0)
        self.unparsed_cells: list[int] = []
        self.too_deep: list[int] = []   # cells whose parse ran out of stack or memory here (cells_too_deep)
        self._live: dict[str, list[_Binding]] = {}
        self._idle: dict[tuple[str, tuple[int, int, int]], frozenset[int]] = {}
        # red-team round 59: stores whose root is no global name (`o['f'] = v`, `o.append(v)`, `o += [v]` with o a
        # parameter or local): their values, and every call and function of the notebook, for `stored_elsewhere`
        self.local_stores: list[tuple[ast.AST, Chain]] = []
        self.calls: list[tuple[ast.Call, Chain]] = []
        self.functions: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, Chain]] = []
        # red-team round 60: the cells' text (compiled where a superseding def needs its cell to run), stores into what
        # a global name holds (`sys.breakpointhook = f`: kept to find stores into modules), and the code walked from
        # every graded function (finalizers and hooks, _judge_implicit)
        self.sources: dict[int, str] = {}
        self._compiles: dict[int, bool] = {}
        self.rooted_stores: list[tuple[str, ast.AST, Chain]] = []
        self.implicit: list[tuple[ast.AST, Chain]] = []
        for number, cell in enumerate(cells, start=1):
            try:
                tree = parse(cell)
            except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
                self.unparsed += 1    # never ran: it defined nothing
                self.unparsed_cells.append(number)
                if isinstance(e, (RecursionError, MemoryError)):
                    self.too_deep.append(number)   # it may well run: the worker's limit is the student's
                continue
            self.trees.append((number, tree))
            self.sources[number] = cell
            self._scan(tree, number)
        self._judge_relaxed()
        self._judge_implicit()

    @functools.cached_property
    def nodes(self) -> list[tuple[int, list[ast.AST]]]:
        """Each parsed cell's nodes, ast.walk's order, listed once: the checks that read every node of every
        cell (reaches_into_grader twice, on every grade) iterate a list instead of walking the trees again."""
        return [(number, list(ast.walk(tree))) for number, tree in self.trees]

    @functools.cached_property
    def global_stores(self) -> dict[str, list[int]]:
        """name -> the code cells (indexes from 0) whose module-level code stores it (cells_assigning_globally),
        for every name at once: one walk per notebook, not one per name asked (red-team round 53: 63 questions a
        grade, each walking a 460 KB cell, cost 20 s of the grader's CPU)."""
        return _stores_by_name((number, _module_level(tree)) for number, tree in self.trees)

    @functools.cached_property
    def any_stores(self) -> dict[str, list[int]]:
        """name -> the code cells (indexes from 0) whose code stores it anywhere (cells_assigning), one walk."""
        return _stores_by_name(self.nodes)

    def _bind(self, name: str, b: _Binding) -> None:
        self.bindings.setdefault(name, []).append(replace(b, where=self._at))

    def _bind_targets(self, target: ast.AST, value: ast.AST | None, chain: Chain) -> None:
        for t in ast.walk(target):
            if value is not None and ((isinstance(t, ast.Name) and t.id in IMPLICIT_DUNDERS) or (
                    isinstance(t, ast.Attribute) and t.attr in IMPLICIT_DUNDERS)):
                self.implicit.append((value, chain))     # `__del__ = lambda self: ...`, `C.__del__ = f`
            if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store) and _is_global(t.id, chain):
                if value is not None:
                    self._bind(t.id, _Binding("code", value, chain))
            elif isinstance(t, (ast.Attribute, ast.Subscript)) and isinstance(t.ctx, ast.Store):
                if isinstance(t, ast.Attribute) and value is not None:
                    self.attr_stores.setdefault(t.attr, []).append((value, chain))
                root = _root_name(t)
                if root is not None and value is not None and _is_global(root.id, chain):
                    self._bind(root.id, _Binding("mutation", value, chain))
                    self.rooted_stores.append((root.id, value, chain))
                elif value is not None:     # stored through a parameter or a local: `o['f'] = v`, `o.a = v`
                    self.local_stores.append((value, chain))
                    if root is not None:    # `import sys` in a function, then `sys.breakpointhook = f`
                        self.rooted_stores.append((root.id, value, chain))

    def _scan(self, tree: ast.Module, number: int) -> None:
        for n, ch in _walk(tree, ()):
            if isinstance(n, ast.stmt):
                self._at = (number, n.lineno, n.col_offset)
            self._note_flow(n, ch)
            if (tested := _module_membership(n)) is not None:
                self.membership_tests.add(id(tested))    # its Attribute, walked after it
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    self._bind_targets(t, n.value, ch)
            elif isinstance(n, (ast.For, ast.AsyncFor)):
                self._bind_targets(n.target, n.iter, ch)
            elif isinstance(n, (ast.With, ast.AsyncWith)):
                for item in n.items:
                    if item.optional_vars is not None:
                        self._bind_targets(item.optional_vars, item.context_expr, ch)
            elif isinstance(n, ast.NamedExpr):
                # a walrus in a comprehension binds in the enclosing scope
                inner = ch[:-1] if ch and ch[-1].kind == "comprehension" else ch
                self._bind_targets(n.target, n.value, inner)
            elif isinstance(n, ast.Match):
                # red-team round 60: capture patterns bind names (`case stable_softmax:`, `case [*rest]`, `case {**r}`,
                # `case _ as f`) to the subject or a part of it: each such binding is the subject, walked when followed
                for case in n.cases:
                    for p in ast.walk(case.pattern):
                        bound = (p.name if isinstance(p, (ast.MatchAs, ast.MatchStar))
                                 else p.rest if isinstance(p, ast.MatchMapping) else None)
                        if bound and _is_global(bound, ch):
                            self._bind(bound, _Binding("code", n.subject, ch))
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if _is_global(n.name, ch):
                    self._bind(n.name, _Binding("code", n, ch))
            elif isinstance(n, ast.Import):
                for al in n.names:
                    bound = al.asname or al.name.split(".")[0]
                    if al.name in HARMLESS_CALLS and not (ch and ch[-1].kind == "class"):
                        self.harmless.setdefault(bound, set()).add((al.name, None))   # judged by its uses
                    else:
                        self._note_module(al.name)
                    module = al.name if al.asname else al.name.split(".")[0]
                    self.module_aliases.setdefault(bound, set()).add(module)
                    if _is_global(bound, ch):
                        self._bind(bound, _Binding("import", module=module))
            elif isinstance(n, ast.ImportFrom):
                module = "." * n.level + (n.module or "")
                calls = HARMLESS_CALLS.get(module, frozenset())
                in_class = bool(ch) and ch[-1].kind == "class"
                if not (calls and not in_class and all(al.name in calls for al in n.names)):
                    self._note_module(module)
                for al in n.names:
                    if al.name == "*":
                        self.star_modules.add(module)
                        self.star_imports.append((module, self._at))
                        continue
                    bound = al.asname or al.name
                    if al.name in calls and not in_class:
                        self.harmless.setdefault(bound, set()).add((module, al.name))   # judged by its uses
                    else:
                        self._note_module(f"{module}.{al.name}")
                    if al.name in _GETATTR_LIKE:
                        self.getattr_aliases[bound] = al.name
                    self.module_aliases.setdefault(bound, set()).add(f"{module}.{al.name}")
                    if _is_global(bound, ch):
                        self._bind(bound, _Binding("import", module=module, imported=al.name))
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                # `ops.append(f)`, `ops.update(f=f)`: values stored into a module-level object
                root = _root_name(n.func.value)
                if root is not None and _is_global(root.id, ch) and (n.args or n.keywords):
                    self._bind(root.id, _Binding("mutation", ast.Tuple(
                        elts=[*n.args, *(k.value for k in n.keywords)], ctx=ast.Load()), ch))
                elif n.args or n.keywords:
                    # `o.append(v)`, `o.set(v)` with o a parameter or local (or no name): the method may store v
                    self.local_stores.append((_arguments(n), ch))
            if isinstance(n, ast.MatchClass) and (n.kwd_attrs or n.patterns):
                # `case object(softmax=f)` reads torch.softmax with no attribute node, and positional parts
                # read what the class's __match_args__ names, which may be computed (red-team round 45)
                self.dynamic.append(f"a class pattern `case {unparse(n.cls)[:40]}(...)`")
            elif (isinstance(n, ast.Name) and n.id in DYNAMIC_NAMES and isinstance(n.ctx, ast.Load)
                    and n.id not in NAMESPACE_READS):     # those: _judge_relaxed, once every cell is read
                self.dynamic.append(f"`{n.id}`")
            elif isinstance(n, ast.Attribute) and n.attr in DYNAMIC_ATTRS:
                self.dynamic.append(f"`.{n.attr}`")
            elif (isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in IMPLICIT_DUNDERS) or (
                    isinstance(n, ast.keyword) and n.arg in IMPLICIT_DUNDERS):
                # `type("C", (), {"__del__": f})`, `dict(__del__=f)`: a finalizer or hook made out of sight
                self.dynamic.append(f"`{n.arg if isinstance(n, ast.keyword) else str(n.value)}` named in a string")
            elif isinstance(n, ast.Attribute):
                dotted = self.qualname(n)
                if (dotted and dotted.startswith(DYNAMIC_DOTTED) and id(n) not in self.weights_only_loads
                        and not (dotted == "sys.modules" and id(n) in self.membership_tests)):
                    self.dynamic.append(f"`{dotted}`")
            if isinstance(n, ast.Call) and _loads_weights_only(n, self.qualname):
                self.weights_only_loads.add(id(n.func))   # its func, an Attribute, is walked after it

    def _dotted(self, n: ast.AST) -> str | None:
        """`weakref.finalize` (or a name imported from a module: `from weakref import finalize as fz`, `fz`) as the
        dotted name of what the module hands out; None for anything not rooted at a name bound by an import."""
        root = _root_name(n) if isinstance(n, ast.Attribute) else n
        if not isinstance(root, ast.Name) or root.id not in self.module_aliases:
            return None
        if isinstance(n, ast.Name):
            return sorted(self.module_aliases[n.id])[0]
        return self.qualname(n)

    def _judge_implicit(self) -> None:
        """Red-team round 60: the notebook's code that runs with no call of the graded function leading to it, put in
        `implicit` (walked from every graded function): every `__del__`, `__torch_dispatch__` or `__torch_function__`
        (defined or assigned); every generator or coroutine function with a `try` or `with` (closing it when it is
        collected runs their `finally`, `except` and `__exit__`); the arguments of calls that register a callback with
        the interpreter or a library (HOOK_MODULES, HOOK_REGISTRARS, a module function whose name has `hook` or
        `register`: `torch.nn.modules.module.register_module_forward_hook(h)`); every value stored into what an
        import binds (`sys.breakpointhook = h`, `torch.nn.modules.module._global_forward_hooks[0] = h`). A registrar
        read but not called (`r = weakref.finalize`, `m = weakref`, `hooks = sys.meta_path`) fails closed."""
        for fn, ch in self.functions:
            if isinstance(fn, ast.Lambda):
                continue
            if fn.name in IMPLICIT_DUNDERS:
                self.implicit.append((fn, ch))
                continue
            own = list(_own_nodes(_inner_parts(fn)))
            if (isinstance(fn, ast.AsyncFunctionDef) or any(isinstance(x, (ast.Yield, ast.YieldFrom)) for x in own)) \
                    and any(isinstance(x, (ast.Try, ast.TryStar, ast.With, ast.AsyncWith)) for x in own):
                self.implicit.append((fn, ch))
        for call, ch in self.calls:
            dotted = self._dotted(call.func) if (call.args or call.keywords) else None
            if dotted is None:
                continue
            last = dotted.rsplit(".", 1)[-1].lower()
            if (dotted.split(".")[0] in HOOK_MODULES or "hook" in dotted.lower() or "register" in last
                    or any(dotted == r or dotted.startswith(r + ".") for r in HOOK_REGISTRARS)):
                self.implicit.append((_arguments(call), ch))
        for root, value, ch in self.rooted_stores:
            if root in self.module_aliases:
                self.implicit.append((value, ch))
        called: set[int] = set()
        inner: set[int] = set()       # the values of attribute reads: `weakref` in `weakref.ref`
        for _number, nodes in self.nodes:
            for n in nodes:
                if isinstance(n, ast.Call):
                    called.add(id(n.func))
                elif isinstance(n, ast.Attribute):
                    inner.add(id(n.value))
        for _number, nodes in self.nodes:
            for n in nodes:
                if not isinstance(n, (ast.Name, ast.Attribute)) or id(n) in called or (
                        isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)):
                    continue
                dotted = self._dotted(n)
                if dotted is None:
                    continue
                if dotted in HOOK_REGISTRARS or (isinstance(n, ast.Name) and id(n) not in inner
                                                 and dotted.split(".")[0] in HOOK_MODULES):
                    self.dynamic.append(f"`{dotted}` handed on uncalled (a registrar of callbacks)")

    def _note_flow(self, n: ast.AST, ch: Chain) -> None:
        """What `stored_elsewhere` needs, noted as the cells are read: every call and function, and `o += v` on a name
        that is a parameter or local (a list's += extends it in place)."""
        if isinstance(n, ast.Call):
            self.calls.append((n, ch))
        elif isinstance(n, _FUNCS):
            self.functions.append((n, ch))
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and not _is_global(n.target.id, ch):
            self.local_stores.append((n.value, ch))

    @functools.cached_property
    def stored_elsewhere(self) -> list[tuple[ast.AST, Chain]]:
        """Red-team round 59: every value the notebook may have stored into an object it reached through a parameter
        or a local (`def put(o): o['f'] = F.softmax`, `put(box)`), which a global binding does not show. The POOL:
        - the values of stores whose root is a parameter, a local or no name (`o[k] = v`, `o.a = v`, `o += v`, the
          arguments of `o.m(v)`, any method, since it may store v);
        - the arguments of every call that may run a STORING function (one whose code, nested functions included,
          stores into an attribute or an item, declares a global or nonlocal, calls a method with arguments on
          anything but a module, or makes such a call itself), since what it stores may be its parameters: a call
          by the name of a storing function or class (`put(C, F.softmax)`, `C(F.softmax)` for an __init__), of a
          storing method by its name (`o.set(F.softmax)`, `super().__init__(f)`), of anything the source cannot name
          (a parameter, a local, a global bound to data such as `p = put`, a decorated def, `fs[0](...)`,
          `partial(put, C)(...)`), and a call that is handed a storing function uncalled (`map(put, ...)`). Calls of
          library functions, of the notebook's other functions and classes by name, and of builtins are not: their
          arguments stay where they are (`torch.allclose(mine(x), torch.softmax(x, -1))`).
        Operators run methods too: a storing dunder (not __init__, __new__, __post_init__, __call__, __setitem__)
        whose stored values read one of its parameters but self cannot be followed: SourceUnreadable.
        find_use walks the pool where the graded function may read such an object (`_holds_state`)."""
        modules = set(self.module_aliases)

        def stores(fn: ast.AST) -> bool:
            for x in ast.walk(fn):
                if isinstance(x, (ast.Attribute, ast.Subscript)) and isinstance(x.ctx, (ast.Store, ast.Del)):
                    return True
                if isinstance(x, (ast.Global, ast.Nonlocal)):
                    return True
                if isinstance(x, ast.AugAssign) and isinstance(x.target, ast.Name):
                    return True        # a list's += extends it in place
                if isinstance(x, ast.Call) and (x.args or x.keywords):
                    if isinstance(x.func, ast.Attribute):
                        root = _root_name(x.func.value)
                        if not _calls_super(x) and (root is None or root.id not in modules):
                            return True     # `super().m(...)`: the parent's m, storing if a storing method is named m
                    elif not isinstance(x.func, ast.Name):
                        return True
            return False

        names: set[str] = set()        # storing functions and classes, and the names bound to them
        methods: set[str] = set()      # storing methods, called by attribute
        lambdas = {id(fn) for fn, _ch in self.functions if isinstance(fn, ast.Lambda) and stores(fn)}
        defs = [(fn, ch, [c for c in ast.walk(fn) if isinstance(c, ast.Call)]) for fn, ch in self.functions
                if not isinstance(fn, ast.Lambda)]

        def mark(fn: ast.FunctionDef | ast.AsyncFunctionDef, ch: Chain) -> None:
            names.add(fn.name)
            if ch and ch[-1].kind == "class":
                methods.add(fn.name)

        for fn, ch, _calls in defs:
            if stores(fn):
                mark(fn, ch)
        classes = [x for _number, nodes in self.nodes for x in nodes if isinstance(x, ast.ClassDef)]

        def mentions(n: ast.AST) -> bool:
            """`n` hands on a storing function (`map(put, ...)`, `partial(put, C)`, `map(operator.setitem, ...)`), not
            only calls one."""
            called = {id(x.func) for x in ast.walk(n) if isinstance(x, ast.Call)}
            return any(id(x) not in called and ((isinstance(x, ast.Name) and x.id in names) or id(x) in lambdas
                                                 or (isinstance(x, ast.Attribute) and x.attr in methods)
                                                 or self._library_stores(x))
                       for x in ast.walk(n))

        chains = {id(c): ch for c, ch in self.calls}
        for rounds in range(MAX_FLOW_ROUNDS + 1):   # aliases, subclasses and callers of storing functions store too
            if rounds == MAX_FLOW_ROUNDS:
                raise SourceUnreadable("the notebook hands its functions on through too many names and calls to follow")
            before = len(names) + len(methods)
            for x in classes:
                if x.name not in names and (any(mentions(b) for b in x.bases) or any(
                        isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name in methods for m in x.body)):
                    names.add(x.name)
            for fn, ch, calls in defs:
                if fn.name not in names and any(
                        self._may_store(c, chains.get(id(c), ()), names, methods, mentions) for c in calls):
                    mark(fn, ch)
            if len(names) + len(methods) == before:
                break
        for fn, ch, calls in defs:
            if fn.name in methods and ch and ch[-1].kind == "class":
                self._check_dunder(fn, [c for c in calls if self._may_store(c, chains.get(id(c), ()), names, methods,
                                                                            mentions)])
        pool = list(self.local_stores)
        for call, ch in self.calls:
            if (call.args or call.keywords) and (self._library_stores(call.func)
                                                 or self._may_store(call, ch, names, methods, mentions)):
                pool.append((_arguments(call), ch))
        return pool

    def _library_stores(self, f: ast.AST) -> bool:
        """Red-team round 60: `f` is a library function that may store one argument into another: from a module of
        STORING_MODULES (`operator.setitem`, `heapq.heappush`, `bisect.insort`, `collections.deque.append`,
        `functools.update_wrapper`), or a builtin type's method read unbound (`list.append(ops, v)`,
        `dict.update(d, f=v)`; rebound or not: what it stores is walked either way)."""
        if not isinstance(f, (ast.Name, ast.Attribute)):
            return False
        dotted = self._dotted(f)
        if dotted is not None:
            return any(dotted == m or dotted.startswith(m + ".") for m in STORING_MODULES)
        root = _root_name(f)
        return isinstance(f, ast.Attribute) and root is not None and root.id in STORING_TYPES

    def _may_store(self, call: ast.Call, ch: Chain, names: set[str], methods: set[str],
                   mentions: Callable[[ast.AST], bool]) -> bool:
        """Whether `call` may run a storing function (stored_elsewhere)."""
        f = call.func
        if isinstance(f, ast.Name):
            if f.id in names:
                return True
            if not _is_global(f.id, ch):
                return True            # a parameter or a local: anything
            bound = self.bindings.get(f.id, [])
            if not bound and f.id not in _BUILTIN_NAMES:
                return True
            if any(b.kind == "mutation" or (b.kind == "code" and not isinstance(b.node, (ast.FunctionDef,
                   ast.AsyncFunctionDef, ast.ClassDef))) for b in bound):
                return True            # a global bound to data: `p = put`, `fs = [put]; f = fs[0]`
            if any(b.kind == "code" and getattr(b.node, "decorator_list", None) for b in bound):
                return True            # a decorator may hand back anything
        elif isinstance(f, ast.Attribute):
            if f.attr in methods or f.attr in names:
                return True
        else:
            return True                # `partial(put, C)(...)`, `fs[0](...)`, `(lambda ...)(...)`
        return any(mentions(a) for a in (*call.args, *(k.value for k in call.keywords)))

    def _check_dunder(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, storing_calls: list[ast.Call]) -> None:
        """A storing dunder runs on operators (`c + v`, `v in c`, `with c:`), whose operands the pool does not hold:
        one that stores what a parameter other than self (or a local) may hold cannot be followed."""
        if not (fn.name.startswith("__") and fn.name.endswith("__")) or fn.name in (
                "__init__", "__new__", "__post_init__", "__call__", "__setitem__", "__init_subclass__"):
            return
        a = fn.args
        params = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None]
        if len(params) < 2:
            return
        values: list[ast.AST] = [_arguments(c) for c in storing_calls]
        for x in ast.walk(fn):
            if isinstance(x, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and x.value is not None and any(
                    not isinstance(t, ast.Name) or isinstance(x, ast.AugAssign)
                    for t in (x.targets if isinstance(x, ast.Assign) else [x.target])):
                values.append(x.value)
            elif (isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and (x.args or x.keywords)
                  and not _calls_super(x)):
                root = _root_name(x.func.value)
                if root is None or root.id not in self.module_aliases:
                    values.append(_arguments(x))
        for v in values:
            read = {y.id for y in ast.walk(v) if isinstance(y, ast.Name)}
            if read & set(params[1:]) or read - set(params) - self.bindings.keys() - _BUILTIN_NAMES:
                raise SourceUnreadable(f"method `{fn.name}` stores what its arguments hold, and operators call it "
                                       "where the grader cannot see what they pass")

    def holds_state(self, b: _Binding, is_module: bool) -> bool:
        """Whether the object a binding of a followed name gives may hold values stored into it elsewhere (walked from
        stored_elsewhere): a class, a container or instance, anything stored into; a function made inside another
        (its closure) or with a default that is not a constant (`_store=[]`). Not a module (its calls store nothing
        into it: `torch.manual_seed(0)`), a top-level def with constant defaults (what it keeps is its globals, each
        followed by name, or its attributes, walked by name), a constant (`NEG_INF = float('-inf')`)."""
        if b.kind == "import" or b.node is None:
            return False
        if b.kind == "mutation":
            return not is_module
        node = b.node
        if isinstance(node, ast.ClassDef):
            return True
        if isinstance(node, _FUNCS):
            defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            return bool(b.chain) or not all(_immutable(d, self.any_stores) for d in defaults)
        return not _immutable(node, self.any_stores)

    def _judge_relaxed(self) -> None:
        """The uses HARMLESS_CALLS and NAMESPACE_READS allow, judged once every cell is read (an import may follow its
        use): any other load of such a name makes the notebook dynamic, as a use of the module or name would."""
        called: set[int] = set()             # names called: `c(...)`
        called_attr: dict[int, str] = {}     # names whose attribute is called: `gc.collect(...)` -> "collect"
        membership: set[int] = set()         # `globals` in `"Q" in globals()`
        for _number, nodes in self.nodes:
            for n in nodes:
                if isinstance(n, ast.Call):
                    if isinstance(n.func, ast.Name):
                        called.add(id(n.func))
                    elif isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name):
                        called_attr[id(n.func.value)] = n.func.attr
                elif (isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.In, ast.NotIn))
                      and isinstance(n.comparators[0], ast.Call) and isinstance(n.comparators[0].func, ast.Name)
                      and not n.comparators[0].args and not n.comparators[0].keywords):
                    membership.add(id(n.comparators[0].func))
        for _number, nodes in self.nodes:
            for n in nodes:
                if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)):
                    continue
                if n.id in NAMESPACE_READS and id(n) not in membership:
                    self.dynamic.append(f"`{n.id}`")
                for module, imported in sorted(self.harmless.get(n.id, ()), key=str):
                    if imported is None:
                        fine = called_attr.get(id(n)) in HARMLESS_CALLS[module]
                    else:
                        fine = id(n) in called
                    if not fine:
                        self.dynamic.append(f"module `{module}`")

    def live_bindings(self, name: str) -> list[_Binding]:
        """The bindings of `name` that can hold its value when the graded call runs: all of them, but those a
        superseding def leaves behind (_superseded). Cached."""
        if name not in self._live:
            every = self.bindings.get(name, [])
            gone = self._superseded(name, every)
            self._live[name] = [b for b in every if id(b) not in gone]
        return self._live[name]

    def _superseded(self, name: str, every: list[_Binding]) -> set[int]:
        """The bindings (ids) of `name` that a later unconditional top-level `def name` replaces for good (red-team
        round 57: a first try left in an earlier cell cost the rule point). Python binds a module-level name to one
        object at a time, so the earlier objects reach the graded call only through what took them while they were
        bound: a load of the name then. None are dropped unless all of this holds, where P is the notebook's last
        `def name` directly in a cell's body:
        - every cell up to P's parses (where one does not, what is read here and what ran may differ: two lone
          triple-quote cells around a first try, tests/test_source_checks.py);
        - P runs: no decorator, defaults that are constants, no annotation but a string or a builtin's name the
          notebook never rebinds; and every statement before P in its cell is a docstring, `pass` or a def of that
          kind (a cell that raised before P would leave the old binding in place);
        - every earlier binding is at module level (a `global name` store in a function runs whenever it is called,
          so it is kept, as are all bindings after P) and is an undecorated def whose defaults and annotations read
          only names, attributes and constants, or an import: nothing else saw the object as it was made;
        - no load of the name comes before P but inside the body of a top-level undecorated def that nothing loads
          before P outside such bodies (so neither runs before P). A call inside another def resolves the name when
          it is called, after P; a top-level `old = name`, a default, a decorator, a lambda, a class body, a call at
          the top level, `globals()` beyond a membership test: any of them keeps every binding."""
        if len(every) < 2:
            return set()
        last: tuple[int, ast.FunctionDef | ast.AsyncFunctionDef, ast.AST] | None = None
        for number, tree in self.trees:
            for stmt in getattr(tree, "body", []):
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                    last = (number, stmt, tree)
        if last is None:
            return set()
        number, final, tree = last
        at = (number, final.lineno, final.col_offset)
        if any(u < number for u in self.unparsed_cells) or not self._runs_for_sure(final) or not self.compiles(number):
            return set()
        for stmt in getattr(tree, "body", []):
            if stmt is final:
                break
            if not (isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
                    or (isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._runs_for_sure(stmt))):
                return set()
        earlier = [b for b in every if b.where < at]
        for b in earlier:
            if b.chain:
                return set()
            if b.kind == "code" and isinstance(b.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if b.node.decorator_list or not all(self._inert(p) for p in _outer_parts(b.node)):
                    return set()
            elif b.kind != "import":
                return set()
        if any(where < at for where, _node in self._loads.get(name, [])
               if id(_node) not in self._idle_bodies(at)):
            return set()
        return {id(b) for b in earlier}

    def compiles(self, number: int) -> bool:
        """Whether code cell `number` (one that parses) compiles as the worker compiles it (worker.exec_cells: `compile`
        of the text, with the future flags of its module, which are this module's), with no warning: a notebook that
        turned warnings into errors (`warnings.simplefilter("error")`) makes a cell that warns fail to compile there.
        A cell that does not compile never ran (red-team round 60: a stray `return`, `def f(a, a)`, `nonlocal x` at the
        top level, `break`, `yield`, `from __future__ import braces`): its def supersedes nothing. Its bindings are
        still followed (this interpreter may not be the worker's). Compiling runs none of the student's code; the cell
        is bounded by MAX_SOURCE_CHARS (find_use) and compiled only where a superseding def is judged, once. Cached."""
        if number not in self._compiles:
            from autograder.grading.crash_words import _REPLAY_LOCK     # catch_warnings swaps process-wide state
            ok = False
            with _REPLAY_LOCK, warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    compile(self.sources[number], "<cell>", "exec")
                    ok = not caught
                except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError, SystemError):
                    ok = False
            self._compiles[number] = ok
        return self._compiles[number]

    def _inert(self, n: ast.AST) -> bool:
        """An expression that stores nothing and runs none of the notebook's code: constants, names, and attributes of
        names bound only by imports (`torch.Tensor`)."""
        for x in ast.walk(n):
            if isinstance(x, ast.Attribute):
                root = _root_name(x)
                if root is None or not self.bindings.get(root.id) or any(
                        b.kind != "import" for b in self.bindings[root.id]):
                    return False
            elif not isinstance(x, (ast.Name, ast.Constant, ast.Tuple, ast.UnaryOp, ast.unaryop, ast.expr_context)):
                return False
        return True

    def _runs_for_sure(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Executing this def statement cannot raise: no decorator, constant defaults, harmless annotations."""
        a = fn.args
        annotations = [x.annotation for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg)
                       if x is not None and x.annotation is not None] + ([fn.returns] if fn.returns else [])
        return (not fn.decorator_list
                and all(_constant(d) for d in [*a.defaults, *(d for d in a.kw_defaults if d is not None)])
                and all(_constant(x) or (isinstance(x, ast.Name) and x.id in _BUILTIN_NAMES
                                         and x.id not in self.any_stores) for x in annotations))

    @functools.cached_property
    def _loads(self) -> dict[str, list[tuple[tuple[int, int, int], ast.AST]]]:
        """name -> every load of it, anywhere, with its place (code cell from 1, line, column)."""
        found: dict[str, list[tuple[tuple[int, int, int], ast.AST]]] = {}
        for number, nodes in self.nodes:
            for n in nodes:
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    found.setdefault(n.id, []).append(((number, n.lineno, n.col_offset), n))
        return found

    def _idle_bodies(self, at: tuple[int, int, int]) -> frozenset[int]:
        """The nodes (ids) inside the bodies of the top-level undecorated defs before `at` that cannot run before
        it: none of their names is loaded before `at` outside those bodies (a fixpoint: defs that call only each
        other stay idle)."""
        key = ("idle", at)
        cached = self._idle.get(key)
        if cached is not None:
            return cached
        defs = [(stmt, frozenset(id(x) for s in stmt.body for x in ast.walk(s)))
                for number, tree in self.trees for stmt in getattr(tree, "body", [])
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and not stmt.decorator_list
                and (number, stmt.lineno, stmt.col_offset) < at]
        changed = True
        while changed:
            inside = frozenset().union(*(body for _stmt, body in defs))
            kept = [(stmt, body) for stmt, body in defs
                    if not any(where < at and id(n) not in inside for where, n in self._loads.get(stmt.name, []))]
            changed = len(kept) != len(defs)
            defs = kept
        idle = frozenset().union(*(body for _stmt, body in defs))
        self._idle[key] = idle
        return idle

    def _note_module(self, module: str) -> None:
        if module.split(".")[0] in DYNAMIC_MODULES:
            self.dynamic.append(f"module `{module.split('.')[0]}`")
        elif module.startswith(DYNAMIC_DOTTED):     # `from torch.jit import CompilationUnit`
            self.dynamic.append(f"`{module}`")

    def own_class_member(self, n: ast.Attribute, chain: Chain) -> bool:
        """`Ops.stable_softmax` (or `Ops().stable_softmax`) where `Ops` is bound once, at module level, to a plain class
        of the notebook (no bases, keywords or decorators: no metaclass or base class answers the lookup) whose own
        body binds that attribute. Red-team round 81: a right solution wrapped in a class (`stable_softmax =
        Ops.stable_softmax`) failed the no-built-in-softmax rule, its own method's name read as torch's. The name is
        then not a use: the walk follows `Ops` and reads the whole class body (every method, every class attribute),
        and a store into the attribute elsewhere is walked as before."""
        base = n.value.func if isinstance(n.value, ast.Call) and not (n.value.args or n.value.keywords) else n.value
        if not isinstance(base, ast.Name) or not _is_global(base.id, chain):
            return False
        cls = self._only_binding(base.id)
        if isinstance(cls, ast.Call) and isinstance(cls.func, ast.Name) and not (cls.args or cls.keywords):
            # red-team round 93: `OPS = Ops()` bound once, then `OPS.softmax(x)`: the instance's lookup is the class's
            # (a store into `OPS.softmax` is walked as attr_stores, as for the class)
            cls = self._only_binding(cls.func.id)
        # red-team round 93: `object` as the one base is no base (the class's lookup is its own body's, then object's)
        plain_bases = all(isinstance(b, ast.Name) and b.id == "object" for b in getattr(cls, "bases", ())) \
            and "object" not in self.any_stores
        if not isinstance(cls, ast.ClassDef) or not plain_bases or cls.keywords or cls.decorator_list:
            return False
        # red-team round 84: a `__new__` makes `Ops()` any object (`return torch`), whose attribute the class body never
        # binds: `Ops().softmax` was torch's with the rule point kept. A class that binds one anywhere keeps the old reading
        if any(_binds_new(n) for n in ast.walk(cls)):
            return False
        for stmt in cls.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == n.attr:
                return True
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == n.attr for t in stmt.targets):
                return True
        return False

    def _only_binding(self, name: str) -> ast.AST | None:
        """The node `name` is bound to at module level when that is its one binding, values stored into it aside.
        Red-team round 93: `Ops.softmax(x, dim)` (a call with arguments) is also read as a possible store into `Ops`
        (a "mutation" binding: `ops.append(f)`), and a right class called so lost the rule point its
        `stable_softmax = Ops.softmax` kept. Such stores still reach the walk: `follow` walks each mutation's values,
        and a store into the attribute itself is walked through attr_stores."""
        bound = [b for b in self.live_bindings(name) if b.kind != "mutation"]
        # red-team round 96: a `*` import binds the names it exports, which no binding records (`class Tensor` with its
        # own softmax, then `from torch import *`: `Tensor.softmax` was torch's, read as the class's): no one binding for such a name
        if len(bound) != 1 or bound[0].kind != "code" or bound[0].chain or self.star_may_rebind(name):
            return None
        return bound[0].node

    def star_may_rebind(self, name: str) -> bool:
        """Whether a `*` import that runs after `name`'s last binding (values stored into it aside) may bind it (red-team
        round 96). Cells run once, in order, and a `*` import stands only at module level, so one written before the
        last binding is undone by it: `from matplotlib.pyplot import *` in the imports cell, above a right `def
        stable_softmax`, had cost the rule point (matplotlib is not loaded in the grader, so read as exporting
        everything)."""
        last = max((b.where for b in self.live_bindings(name) if b.kind != "mutation"), default=(0, 0, 0))
        return any(at > last and _star_exports(module, name) for module, at in self.star_imports)

    def qualname(self, n: ast.AST) -> str | None:
        """`F.softmax` -> `torch.nn.functional.softmax` when F is an imported module (first alias)."""
        parts = []
        while isinstance(n, ast.Attribute):
            parts.append(n.attr)
            n = n.value
        if not isinstance(n, ast.Name):
            return None
        modules = sorted(self.module_aliases.get(n.id, ()))
        head = modules[0] if modules else n.id
        return ".".join([head, *reversed(parts)])


# ---------------------------------------------------------------------------------------------------
# the question
# ---------------------------------------------------------------------------------------------------

def _star_exports(module: str, name: str) -> bool:
    """Whether `from module import *` may bind `name`, read off the module as THIS process has it loaded (the rule
    tests run in the trusted grader, which never runs the notebook, and never import a module for it: importing runs
    its code, and the stdlib holds `antigravity`). torch and numpy are loaded here, so their star imports are read
    exactly; one not loaded here (matplotlib.pyplot, scipy.special) is taken to export everything: fail closed, so a
    notebook's own helper whose name holds a forbidden word, beside such a star import, is charged with a message that
    names the star import (remove it, or import the names it uses)."""
    loaded = sys.modules.get(module)
    if loaded is None:
        return True
    exported = getattr(loaded, "__all__", None)
    if isinstance(exported, (list, tuple)):
        return name in exported
    return not name.startswith("_") and hasattr(loaded, name)


def _readable(module: str) -> bool:
    top = module.split(".")[0]
    if module.startswith(".") or top in RUNS_OTHER_CODE or top in DYNAMIC_MODULES:
        return False
    return top in READABLE_MODULES or top in sys.stdlib_module_names


@functools.lru_cache(maxsize=2)
def _parsed(cells: tuple[str, ...]) -> _Notebook:
    """One parse per notebook (read-only once built): a submission's rule tests each read the same
    cells, one after the other (profiled, a full-marks sdpa notebook's rule tests took 150 ms of the
    grader's CPU, 16 ms with one parse)."""
    return _Notebook(cells)


def find_use(cells: Sequence[str], func_name: str, names: str | Iterable[str],
             skip: Collection[int] = ()) -> Use | None:
    """Does `func_name`, or anything it reaches, use an attribute whose name contains one of `names`?

    Returns the first use found, or None. `skip`: ids of the notebook's own Attribute or Name nodes (from
    `notebook_calls`, same parse) whose match does not count (a call shown harmless by its arguments). Raises
    SourceUnreadable when the source cannot show it."""
    targets = tuple(t.lower() for t in ([names] if isinstance(names, str) else names))

    def matches(name: str) -> bool:
        return any(t in name.lower() for t in targets)

    if sum(len(c) for c in cells) > MAX_SOURCE_CHARS:
        raise SourceUnreadable(f"the notebook has more than {MAX_SOURCE_CHARS:,} characters of code")
    nb = _parsed(tuple(cells))
    if nb.dynamic:
        shown = ", ".join(dict.fromkeys(nb.dynamic[:20]))
        raise SourceUnreadable(f"the notebook uses {shown}, which can change code out of sight")
    if not any(b.kind != "mutation" for b in nb.bindings.get(func_name, [])):
        broken = f" ({nb.unparsed} cell(s) do not parse)" if nb.unparsed else ""
        raise SourceUnreadable(f"no readable definition of `{func_name}` (a plain `def` in a code "
                               f"cell){broken}")
    for module in nb.star_modules:
        if not _readable(module):
            raise SourceUnreadable(f"`from {module} import *` brings in names the grader cannot read")

    seen: set[int] = set()
    # (what to walk, its scope chain, the helper names followed to get here)
    work: list[tuple[ast.AST, Chain, tuple[str, ...]]] = []

    pooled: list[bool] = []

    def walk_pool(via: tuple[str, ...]) -> None:
        """The graded function may read an object the notebook stored into through a parameter or a local (red-team
        round 59): walk every such value (_Notebook.stored_elsewhere), once."""
        if pooled:
            return
        pooled.append(True)
        for value, vch in nb.stored_elsewhere:
            if id(value) not in seen:
                seen.add(id(value))
                work.append((value, vch, via + (STORED_ELSEWHERE,)))

    def follow(name: str, via: tuple[str, ...]) -> Use | None:
        bindings = nb.live_bindings(name)
        # red-team round 96: a `*` import rebinds the names its module exports, recorded as no binding: `def
        # gumbel_softmax` of the notebook's own, then `from torch.nn.functional import *`, was walked as the def
        if bindings and matches(name) and nb.star_may_rebind(name):
            return Use(func_name, via[1:], f"`{name}` (a `*` import may replace the notebook's own)")
        is_module = any(b.kind == "import" for b in bindings)
        if any(nb.holds_state(b, is_module) for b in bindings):
            walk_pool(via)
        for b in bindings:
            if b.kind == "import":
                vetted = b.module in HARMLESS_CALLS and (b.imported is None or b.imported in HARMLESS_CALLS[b.module])
                if not (_readable(b.module) or vetted):    # vetted: every use of it is a harmless call (_judge_relaxed)
                    raise SourceUnreadable(f"`{name}` comes from module `{b.module or '.'}`, which the "
                                           "grader cannot read")
                if b.imported is not None and matches(b.imported):
                    alias = "" if b.imported == name else f" (imported as `{name}`)"
                    return Use(func_name, via[1:-1], f"`{b.module}.{b.imported}`{alias}")
            elif b.kind == "mutation" and is_module:
                continue   # `torch.manual_seed(0)` stores nothing into torch
            elif b.node is not None and id(b.node) not in seen:
                seen.add(id(b.node))
                work.append((b.node, b.chain, via))
        if not bindings and nb.star_modules and matches(name):
            return Use(func_name, via[1:], f"`{name}` (from a `*` import)")
        return None

    found = follow(func_name, (func_name,))
    implicit = []       # finalizers and hooks: they run inside the graded call (red-team round 60); walked last
    for value, vch in nb.implicit:
        if id(value) not in seen:
            seen.add(id(value))
            implicit.append((value, vch, (func_name, IMPLICIT)))
    work[:0] = implicit
    while found is None and work:
        node, chain, via = work.pop()
        handled: set[int] = set()
        for n, ch in _walk(node, chain):
            if isinstance(n, ast.Call):
                f = n.func
                fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if isinstance(f, ast.Name):
                    fname = nb.getattr_aliases.get(fname, fname)    # an alias reads its arguments as the original
                if fname in _GETATTR_LIKE:
                    handled.add(id(f))
                    consts = n.args[1:2] if fname == "getattr" else n.args[:1] if fname in (
                        "methodcaller", "__getattribute__", "__getattr__") else n.args
                    for a in consts:
                        s = _const_str(a)
                        if s is None:
                            raise SourceUnreadable(f"`{via[-1]}` calls {fname} with a computed name")
                        if matches(s):
                            return Use(func_name, via[1:], f"{fname}(..., {s!r})")
            elif isinstance(n, ast.ImportFrom):
                # an import inside the function binds a local name, which the walk does not follow: the
                # imported name is read here (`from torch.nn.functional import softmax as s`, red-team round 45)
                module = "." * n.level + (n.module or "")
                for al in n.names:
                    if al.name == "*" or not _readable(module):
                        raise SourceUnreadable(f"`{via[-1]}` imports from module `{module or '.'}`, which the "
                                               "grader cannot read")
                    if matches(al.name):
                        alias = f" (imported as `{al.asname}`)" if al.asname else ""
                        return Use(func_name, via[1:], f"`{module}.{al.name}`{alias}")
            elif isinstance(n, ast.Attribute):
                if n.attr in _GETATTR_LIKE and id(n) not in handled:
                    # `map(torch.__getattribute__, names)`, `ag = operator.attrgetter`: the lookup passed around
                    raise SourceUnreadable(f"`{via[-1]}` passes .{n.attr} around")
                if matches(n.attr) and id(n) not in skip and not nb.own_class_member(n, ch):
                    return Use(func_name, via[1:], f"`{nb.qualname(n) or n.attr}`")
                stored = nb.attr_stores.get(n.attr, [])
                if any(not _immutable(value, nb.any_stores) for value, _vch in stored):
                    walk_pool(via)
                for value, vch in stored:
                    if id(value) not in seen:
                        seen.add(id(value))
                        work.append((value, vch, via + (f".{n.attr}",)))
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and _is_global(n.id, ch) and id(n) not in skip:
                if (n.id in _GETATTR_LIKE or n.id in nb.getattr_aliases) and id(n) not in handled:
                    raise SourceUnreadable(f"`{via[-1]}` passes {n.id} around")
                found = follow(n.id, via + (n.id,) if n.id != via[-1] else via)
                if found is not None:
                    return found
    return found


def notebook_calls(cells: Sequence[str]) -> list[ast.Call]:
    """Every call in the notebook's code cells, from the parse find_use walks (so that a call's node id can be
    passed to its `skip`)."""
    return [call for call, _chain in _parsed(tuple(cells)).calls]


def imported_names(cells: Sequence[str], name: str) -> set[str]:
    """What a cell-level `import` binds `name` to, dotted (`from torch.nn.functional import dropout as d`:
    "torch.nn.functional.dropout"; `import torch.nn.functional as F`: "torch.nn.functional"); empty where the
    notebook also binds `name` to code (a store into an attribute of it, a "mutation", leaves it the module)."""
    bindings = [b for b in _parsed(tuple(cells)).bindings.get(name, []) if b.kind != "mutation"]
    if not bindings or any(b.kind != "import" for b in bindings):
        return set()
    return {f"{b.module}.{b.imported}" if b.imported else b.module for b in bindings}


def bound_values(cells: Sequence[str], name: str) -> list[ast.AST]:
    """The values a cell-level `name = value` binds (`drop = F.dropout`); empty where the notebook also binds
    `name` otherwise (an import, a def, a store into it)."""
    bindings = _parsed(tuple(cells)).bindings.get(name, [])
    if not bindings or any(b.kind != "code" or b.node is None or isinstance(
            b.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) for b in bindings):
        return []
    return [b.node for b in bindings if b.node is not None]


def class_stores(cells: Sequence[str], class_name: str, attr: str) -> list[ast.AST] | None:
    """The values the methods of the notebook's one cell-level `class class_name` store into `self.attr` (or any
    `x.attr`); None where `class_name` is not bound to one class only."""
    bindings = _parsed(tuple(cells)).bindings.get(class_name, [])
    if len(bindings) != 1 or not isinstance(bindings[0].node, ast.ClassDef):
        return None
    return [n.value for n in itertools.islice(ast.walk(bindings[0].node), 100_000)
            if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
            and any(isinstance(t, ast.Attribute) and t.attr == attr
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]


def bound_to_value(cells: Sequence[str], name: str) -> bool:
    """`name` is bound at cell level, and only to values (`proj = nn.Linear(4, 4)`), never to a def, lambda or
    class: what it holds was made once, when its line ran."""
    bindings = _parsed(tuple(cells)).bindings.get(name, [])
    return bool(bindings) and not any(
        isinstance(b.node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) for b in bindings)


def stored_values(cells: Sequence[str], attr: str) -> list[ast.AST]:
    """The values the notebook stores into an attribute named `attr` (`self.dropout = nn.Dropout(p)`)."""
    return [value for value, _chain in _parsed(tuple(cells)).attr_stores.get(attr, [])]


def function_uses_attribute(source: str | Sequence[str], func_name: str,
                            attr: str | Iterable[str]) -> bool:
    """True if `func_name` (or anything it calls) uses the attribute `attr` (or one of several).
    `source`: the notebook's code cells (a single string counts as one cell). Raises SourceUnreadable."""
    cells = [source] if isinstance(source, str) else list(source)
    return find_use(cells, func_name, attr) is not None


def cells_of(submission: object) -> list[str]:
    """The submission's code cells, one string each, as the worker ran them (`cells`, filled by the
    grader from intake); without them, the joined `source` as a single cell."""
    cells = getattr(submission, "cells", None)
    if cells:
        return [str(c) for c in cells]
    source = str(getattr(submission, "source", "") or "")
    return [source] if source.strip() else []


# ---------------------------------------------------------------------------------------------------
# reaching into the grader
# ---------------------------------------------------------------------------------------------------
# The worker's own code (the in-place check, the forbidden-API guard, the timed calls) runs in the
# student's interpreter, so what it reports is only as honest as that interpreter: a cell that imports
# `autograder` and replaces `calls._same_tensor` made every in-place write pass (red-team round 25).
# No honest homework reaches the grader's package or walks the interpreter's objects and frames to
# find it; a notebook that does is graded 0 with the spelling named (grader.Grader.grade). The
# spellings are those of the tools, not of one attack: the package by name, the module table, the
# garbage collector's object lists, class and function internals, and stack frames.
GRADER_PACKAGE = "autograder"
REACHING_ATTRS = frozenset({"get_objects", "get_referrers", "get_referents", "__subclasses__", "__globals__",
                            "f_back", "f_globals", "f_locals", "f_builtins", "_getframe", "tb_frame",
                            "gi_frame", "cr_frame", "ag_frame", "walk_stack", "extract_stack", "_current_frames",
                            "__closure__", "__code__",
                            # torch's stack of function modes, where the forbidden-API guard sits: popped, it
                            # lets the fused kernel run unseen at run time (red-team round 45)
                            "_pop_torch_function_stack", "_push_on_torch_function_stack",
                            "_len_torch_function_stack", "_get_function_stack_at", "DisableTorchFunction",
                            "DisableTorchFunctionSubclass", "_EnableTorchFunction", "_set_torch_function_state",
                            "_get_current_function_mode_stack", "_pop_mode", "_pop_mode_temporarily",
                            "_disable_current_modes", "_set_skip_next_torch_function",
                            "_skip_one_hop_torch_function",
                            # TorchScript compiled from a string runs its ops past the guard, which sees Python
                            # calls only (red-team round 46); a TorchScript of a def is read as the def
                            "CompilationUnit", "_jit_script_compile", "_jit_script_class_compile",
                            # an op sent into the dispatcher with its keys named: below every Python mode, so the
                            # guard never sees the fused kernel it runs (OpOverload.redispatch: red-team round 59)
                            "redispatch", "redispatch_boxed", "call_boxed", "_handle", "_op_dk", "DispatchKeySet",
                            "_dispatch_keys", "_dispatch_tls_local_exclude_set", "_ExcludeDispatchKeyGuard",
                            "_AutoDispatchBelowAutograd"})
REACHING_NAMES = frozenset({"__import__", "__builtins__"})
# modules that hand out any module or object named in a string (pydoc.locate, pkgutil.resolve_name,
# unittest.mock.patch, logging.config's resolve) or evaluate a string (typing's annotations): no homework needs them,
# and `pydoc.locate("auto" + "grader.sandbox.calls")` brought round 25's forgery back (red-team round 46)
# doctest too (red-team round 73): DocTestFinder(exclude_empty=False).find(f)[0].globs is a copy of the globals of f's
# module, the worker's own for a stand-in such as get_ipython, and run_docstring_examples runs code written in a string
REACHING_MODULES = frozenset({"pydoc", "pkgutil", "unittest", "logging.config", "doctest"})
REACHING_STRING_EVAL = frozenset({"get_type_hints", "ForwardRef", "_eval_type", "evaluate_forward_ref"})
# functions of the standard library that hand out frames, modules or every object, by module
REACHING_FUNCTIONS = {"sys": frozenset({"modules", "_getframe", "_current_frames", "settrace", "setprofile"}),
                      "inspect": frozenset({"stack", "currentframe", "getouterframes", "getinnerframes", "trace"}),
                      "traceback": frozenset({"extract_stack", "walk_stack", "print_stack", "format_stack"}),
                      "gc": frozenset({"get_objects", "get_referrers", "get_referents"}),
                      "threading": frozenset({"settrace", "setprofile"}),
                      "importlib": frozenset({"import_module", "__import__"})}


def added_parameters(cells: Sequence[str], func_name: str, known: Iterable[str]) -> list[tuple[str, object]]:
    """The parameters of the notebook's last top-level `def func_name` that the notebook's own signature
    (`known`) lacks and whose default is a plain constant (None, a bool, a number, a short string), with that
    default, in order; [] where there is none or no such def. Student text: parsed, never run."""
    found: list[tuple[str, object]] = []
    known = set(known)
    for _, tree in _parsed(tuple(cells)).trees:
        for n in getattr(tree, "body", []):
            if isinstance(n, ast.FunctionDef) and n.name == func_name:
                a = n.args
                params = [*a.posonlyargs, *a.args]
                pairs = list(zip(params[len(params) - len(a.defaults):], a.defaults))
                pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
                found = []
                for param, default in pairs:
                    value = default.operand if isinstance(default, ast.UnaryOp) else default
                    if param.arg in known or not isinstance(value, ast.Constant):
                        continue
                    if not isinstance(value.value, (type(None), bool, int, float, str)) or len(repr(value.value)) > 40:
                        continue
                    found.append((param.arg, ast.literal_eval(default)))
    return found


def assigned_attribute(cells: Sequence[str], name: str) -> str | None:
    """`attr` where the notebook's last module-level assignment to `name` is a bare attribute read,
    `name = <expr>.attr` (not called): `attn_entries = W.size`, a NumPy habit. None otherwise."""
    found = [b for b in _parsed(tuple(cells)).bindings.get(name, []) if b.kind == "code" and not b.chain]
    value = found[-1].node if found else None
    return value.attr if isinstance(value, ast.Attribute) else None


def cells_assigning_globally(cells: Sequence[str], name: str) -> list[int]:
    """The code cells (indexes from 0) whose module-level code stores `name` (an assignment, a def, an import,
    a loop or with target, also inside a module-level if/for/with/try; never inside a def, class or lambda,
    whose names are their own): where a global the notebook uses is made. One cached parse (_parsed)."""
    return list(_parsed(tuple(cells)).global_stores.get(name, []))


def assigned_from_string_index(cells: Sequence[str], name: str) -> bool:
    """Whether the last cell that stores `name` at module level assigns it, at its top level, one entry of a
    string written out (`q5_answer = "ABCD"[3]`): a letter picked by its position. One cached parse (_parsed)."""
    made = cells_assigning_globally(cells, name)
    tree = dict(_parsed(tuple(cells)).trees).get(made[-1] + 1) if made else None
    return any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
               and isinstance(n.value, ast.Subscript) and isinstance(n.value.value, ast.Constant)
               and isinstance(n.value.value.value, str) for n in getattr(tree, "body", []))


def _module_level(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a cell's module-level code (inside a module-level if/for/with/try too; never inside a def,
    class, lambda or comprehension, whose names are their own)."""
    todo: list[ast.AST] = list(getattr(tree, "body", []))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
                              ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            todo.extend(ast.iter_child_nodes(n))


def _binds_new(n: ast.AST) -> bool:
    """Whether `n` binds or names `__new__` (a def, a store, an import's alias, a string): what a class's call answers."""
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return n.name == "__new__"
    if isinstance(n, ast.Name):
        return n.id == "__new__"
    if isinstance(n, ast.alias):
        return "__new__" in (n.asname, n.name)
    return isinstance(n, ast.Constant) and isinstance(n.value, str) and "__new__" in n.value


def _stub(fn: ast.AST) -> bool:
    """A def whose body is what the template leaves: a docstring, `...`, `pass`, `raise NotImplementedError`."""
    return isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        or (isinstance(s, ast.Raise) and _names_not_implemented(s.exc)) for s in fn.body)


def _names_not_implemented(exc: ast.AST | None) -> bool:
    """`NotImplementedError` or `NotImplementedError(...)`, as the template's stub raises it."""
    called = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(called, ast.Name) and called.id == "NotImplementedError"


def stub_replaces(cells: Sequence[str], name: str) -> tuple[int, int] | None:
    """(index of the cell, from 0, of the notebook's last top-level `def name`, index of an earlier one's) where the
    last is the template's empty stub and the earlier one is not: a stub cell duplicated or left below the answer
    (red-team round 81: told only "None: not answered yet" beside a right def). None otherwise. One cached parse."""
    defs = [(number - 1, stmt) for number, tree in _parsed(tuple(cells)).trees for stmt in getattr(tree, "body", [])
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name]
    if len(defs) < 2 or not _stub(defs[-1][1]):
        return None
    answered = [index for index, fn in defs[:-1] if not _stub(fn)]
    return (defs[-1][0], answered[-1]) if answered else None


def defined_below(cells: Sequence[str], index: int) -> tuple[str, int] | None:
    """(name, index of the last cell that defines it) for the first name code cell `index` (from 0) reads at module
    level that a later cell defines with a top-level `def` or `class` and no cell up to it does but as the template's
    empty stub, or None. A cell that stopped with such a name
    was run, in the notebook's editor, after a cell below it (red-team round 81: a solution written under the
    template's stub, or a helper defined further down, worked out of order and was told only as the crash, e.g.
    None @ Tensor from the stub). One cached parse (_parsed)."""
    trees = dict(_parsed(tuple(cells)).trees)
    tree = trees.get(index + 1)
    if tree is None:
        return None
    later: dict[str, int] = {}
    answered_above: set[str] = set()     # a def above that is not the template's stub: the order is not the cause
    for number, other in sorted(trees.items()):
        for stmt in getattr(other, "body", []):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if number > index + 1:
                    later[stmt.name] = number - 1
                elif not _stub(stmt):
                    answered_above.add(stmt.name)
    for name in answered_above:
        later.pop(name, None)
    if not later:
        return None
    read = sorted((n.lineno, n.col_offset, n.id) for n in _module_level(tree)
                  if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in later)
    return (read[0][2], later[read[0][2]]) if read else None


def unbound_answer(cells: Sequence[str], name: str) -> tuple[str, str] | None:
    """Why the global `name` is unbound where the source shows it: ("annotated", the statement) for
    `name: value` (an annotation binds nothing), ("compared", the statement) for `name == value` as a
    statement, ("arrow", the line) for R's `name <- value` (the comparison name < -value), ("local", the def and
    its binding) where only a function's body binds it (no `global`),
    ("misspelled", the other name) where one module-level name, and only one, is spelt nearly as
    `name` (difflib ratio 0.85; names that differ only in digits are other questions': q7_answer is not a slip
    of q5_answer). None where a statement binds it (why that did not hold is another question), or nothing
    shows. One cached parse (_parsed)."""
    import difflib
    bound: set[str] = set()
    said: tuple[str, str] | None = None
    annotated_only: set[int] = set()     # the targets of annotations without a value: Stores that bind nothing
    for _number, tree in _parsed(tuple(cells)).trees:
        for n in _module_level(tree):
            if isinstance(n, ast.AnnAssign) and n.value is None:
                annotated_only.add(id(n.target))
                if said is None and isinstance(n.target, ast.Name) and n.target.id == name:
                    said = ("annotated", unparse(n)[:60])
                continue
            if said is None and (arrow := _r_arrow(n, name, cells, _number)) is not None:
                said = ("arrow", arrow)
            if said is None and _compares(n, name):
                said = ("compared", unparse(n)[:60])
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in annotated_only:
                bound.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                bound.update((al.asname or al.name.split(".")[0]) for al in n.names)
    if name in bound:
        return None
    if said is not None:
        return said
    local = _bound_only_in_function(cells, name)
    if local is not None:
        return ("local", local)
    digits = re.compile(r"\d+")
    near = [n for n in difflib.get_close_matches(name, sorted(b for b in bound if not b.startswith("_")), n=3,
                                                 cutoff=0.85)
            if digits.sub("", n) != digits.sub("", name)]
    return ("misspelled", near[0][:60]) if len(near) == 1 else None


def _compares(n: ast.AST, name: str) -> bool:
    """`name == value` as a statement: a comparison whose result is dropped, where `name = value` was meant."""
    return (isinstance(n, ast.Expr) and isinstance(n.value, ast.Compare) and isinstance(n.value.left, ast.Name)
            and n.value.left.id == name and len(n.value.ops) == 1 and isinstance(n.value.ops[0], ast.Eq))


def _r_arrow(n: ast.AST, name: str, cells: Sequence[str], number: int) -> str | None:
    """`name <- value` as a statement (R's assignment arrow, which Python reads as the comparison name < -value):
    the line as the student wrote it (cut to 60 characters), where `<` and `-` stand side by side; else None."""
    if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Compare) and isinstance(n.value.left, ast.Name)
            and n.value.left.id == name and len(n.value.ops) == 1 and isinstance(n.value.ops[0], ast.Lt)
            and isinstance(n.value.comparators[0], ast.UnaryOp) and isinstance(n.value.comparators[0].op, ast.USub)):
        return None
    left, right = n.value.left, n.value.comparators[0]
    if not 1 <= number <= len(cells) or left.end_lineno != right.lineno or left.end_col_offset is None:
        return None
    lines = cells[number - 1].splitlines()
    line = lines[right.lineno - 1].encode() if right.lineno <= len(lines) else b""   # ast's offsets are bytes
    if line[left.end_col_offset:right.col_offset].strip() != b"<" or not line[:right.col_offset].endswith(b"<"):
        return None
    said = line[n.col_offset:n.end_col_offset if n.end_lineno == right.lineno else None]
    return " ".join(said.decode(errors="replace").split())[:60]


def arrow_answer(cells: Sequence[str], name: str) -> str | None:
    """The first module-level statement `name <- value` (R's arrow, as written), else None: for an answer still the
    template's `...` (the comparison ... < -value raised), the line where the student meant to assign it."""
    for number, tree in _parsed(tuple(cells)).trees:
        for n in _module_level(tree):
            if (arrow := _r_arrow(n, name, cells, number)) is not None:
                return arrow
    return None


def compared_answer(cells: Sequence[str], name: str) -> str | None:
    """The first module-level statement `name == value` (shortened), else None: for an answer still the template's
    `...` (or None), the line where the student meant to write it. One cached parse (_parsed)."""
    for _number, tree in _parsed(tuple(cells)).trees:
        for n in _module_level(tree):
            if _compares(n, name):
                return _cut_line(n)
    return None


def _cut_line(n: ast.AST, limit: int = 60) -> str:
    try:
        text = " ".join(unparse(n).split())
    except RecursionError:     # an expression nested hundreds deep: its start says enough
        return "..."
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _bound_only_in_function(cells: Sequence[str], name: str) -> str | None:
    """`def f(): ... name = ...` without `global name` (the caller knows no module-level statement binds it): the
    function's header and the binding, shortened, as the student wrote them. A name in a def is that function's
    local variable, gone when it returns (and a function never called binds nothing), whatever it holds."""
    for _number, tree in _parsed(tuple(cells)).trees:
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if any(isinstance(g, (ast.Global, ast.Nonlocal)) and name in g.names for g in ast.walk(fn)):
                continue
            for stmt in ast.walk(fn):
                if (isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                        and any(_stores(t, name) for t in ast.walk(stmt))):
                    try:
                        line = unparse(stmt).splitlines()[0]
                    except RecursionError:   # nested hundreds deep: the function's name says enough
                        line = f"{name} = ..."
                    return f"def {fn.name}(...): {line if len(line) <= 50 else line[:47] + '...'}"
    return None


def left_none(cells: Sequence[str], name: str) -> str | None:
    """The statement, where the notebook's last module-level binding of `name` is `name = None` (an answer the
    student left as the template's None, or put None in to come back to), else None. One cached parse (_parsed)."""
    last = _last_binding(cells, name)
    if (isinstance(last, (ast.Assign, ast.AnnAssign)) and isinstance(last.value, ast.Constant)
            and last.value.value is None):
        return unparse(last)[:60]
    return None


# string methods that change a literal's case or spaces only: "c".upper() is still the letter the student wrote
_STRING_FOLDS = {"upper", "lower", "strip", "lstrip", "rstrip", "capitalize", "title", "casefold"}


def overwritten_bindings(cells: Sequence[str], name: str) -> list[tuple[str, str]]:
    """(the statement, shortened, and the string it binds) of each module-level `name = "..."` the notebook runs
    before its last binding of `name`, where that last one is a string literal too: the earlier answers a later
    line replaced (`q = "C"` then, further down, `q = "A"  # first guess`). Empty otherwise. One cached parse."""
    bindings: list[tuple[str, str] | None] = []        # None: a binding of another kind (a call, a loop...)
    try:
        for _number, tree in _parsed(tuple(cells)).trees:
            for n in getattr(tree, "body", []):
                if not any(_stores(t, name) for t in ast.walk(n)):
                    continue
                literal = (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                           and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str))
                bindings.append((_cut_line(n, 60), n.value.value) if literal else None)  # type: ignore[attr-defined]
    except RecursionError:
        return []
    if not bindings or bindings[-1] is None:
        return []
    return [b for b in bindings[:-1] if b is not None]


def computed_answer(cells: Sequence[str], name: str) -> str | None:
    """The notebook's last module-level statement binding `name` (shortened, as written), where what it binds is
    worked out by the code rather than written by the student: an if/else, a loop, a try or with around the
    assignment; a call (a function of the notebook, max/min/sorted, a probe); a condition or a truth value; an
    index that is not a constant. None where the binding is a string or number literal (case or spaces folded,
    or through names bound to literals), or nothing binds it at the top level. A letter the code computed says
    which option the computation picked, not what the student believes (issue 21: a probe that measures the
    wrong thing, a check with swapped branches, max where min was meant). One cached parse (_parsed)."""
    try:
        return _computed_answer(cells, name)
    except RecursionError:     # an expression nested hundreds deep: nothing the student reads is said of it
        return None


def _computed_answer(cells: Sequence[str], name: str) -> str | None:
    last = _last_binding(cells, name)
    if isinstance(last, (ast.FunctionDef, ast.AsyncFunctionDef)):
        # a function that binds it through `global` (called elsewhere): its code picks the letter
        declared = any(isinstance(g, ast.Global) and name in g.names for g in ast.walk(last))
        return f"def {last.name}(...): global {name}" if declared else None
    worked_out = (ast.If, ast.For, ast.While, ast.Try, ast.With, ast.Match, ast.AsyncFor, ast.AsyncWith,
                  ast.Expr, ast.AugAssign)      # a statement around it, a walrus, `+=`
    if isinstance(last, (ast.Assign, ast.AnnAssign)) and last.value is not None:
        if _literal_value(last.value, _literal_names(cells)):
            return None
    elif not isinstance(last, worked_out):
        return None                             # nothing bound at the top level, an import, a bare annotation
    shown = unparse(last).splitlines()
    text = " ".join(line.strip() for line in shown[:3]) + (" ..." if len(shown) > 3 else "")
    return text if len(text) <= 70 else text[:67] + "..."


# methods called for what they do, not for a value: named without () as a statement, they do nothing
ACTION_METHODS = frozenset({"backward", "zero_", "zero_grad", "step", "retain_grad", "requires_grad_", "manual_seed",
                            "append", "extend", "sort", "reverse", "update", "clear", "insert", "shuffle",
                            "add_", "sub_", "mul_", "div_", "fill_", "copy_", "clamp_", "normal_", "uniform_"})


def uncalled_actions(cells: Sequence[str], name: str) -> list[str]:
    """Module-level statements of the last cell that stores `name` which name an action method without calling it
    (`loss.backward`, `opt.step`): an expression statement that does nothing, where the student meant the call. A
    bare attribute of any other name (`x.shape` at a cell's end, shown by Jupyter) is not one; another cell's is
    another answer's. As written, shortened; one cached parse."""
    nb = _parsed(tuple(cells))
    made = set(nb.global_stores.get(name, []))
    own = [tree for number, tree in nb.trees if number - 1 in made]
    found = []
    for tree in own[-1:]:
        for n in _module_level(tree):
            if (isinstance(n, ast.Expr) and isinstance(n.value, ast.Attribute)
                    and n.value.attr in ACTION_METHODS):
                found.append(_cut_line(n))
    return found


# a comment or name in an answer's cell that says where its letter came from: a lesson's quiz, slides, a key
CITES_LESSON = re.compile(r"\blesson\b|\bquiz\b|survives\s+elimination|check\s+your\s+understanding|answer\s+key"
                           r"|\bslides?\b|\bdeck\b|\blecture\b", re.IGNORECASE)


def lesson_cited(cells: Sequence[str], name: str) -> str | None:
    """The first word citing a lesson or its quiz ("lesson", "quiz", "check your understanding", "slides"...) in a
    cell that assigns `name` at a line's start (`name = ...`), as written; None where none does. For a letter that is
    the one a lesson's own quiz gives, with its options in another order."""
    # spaces and tabs, not \s: a run of newlines under MULTILINE made every line start rescan the rest of the cell
    # (a cell of 450,000 blank lines took minutes, red-team round 48)
    assigns = re.compile(rf"^[ \t]*{re.escape(name)}[ \t]*=", re.MULTILINE)
    for cell in cells:
        if assigns.search(cell) and (m := CITES_LESSON.search(cell)):
            return m.group(0)
    return None


def picked_from_literal_list(cells: Sequence[str], name: str) -> tuple[str, int, list[str]] | None:
    """(the statement, shortened, the position n, the list's strings) where the notebook's last module-level binding
    of `name` is `items[n]`, `items` a list or tuple of string constants written out or bound once to one (`_MC =
    ["b", "c", "b", "d", "c"]; ans = _MC[4]`: a list of one's answers, indexed from 1); None otherwise."""
    try:
        last = _last_binding(cells, name)
        if not isinstance(last, (ast.Assign, ast.AnnAssign)) or last.value is None:
            return None
        node = last.value
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                and type(node.slice.value) is int and node.slice.value >= 0):
            return None
        base: ast.AST | None = node.value
        if isinstance(base, ast.Name):
            bound = _last_binding(cells, base.id)
            base = bound.value if isinstance(bound, ast.Assign) and len(bound.targets) == 1 else None
        if not (isinstance(base, (ast.List, ast.Tuple))
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in base.elts)):
            return None
        return _cut_line(last, 70), node.slice.value, [str(e.value) for e in base.elts]  # type: ignore[attr-defined]
    except RecursionError:
        return None


def positional_answer(cells: Sequence[str], name: str) -> tuple[str, int] | None:
    """(the statement, shortened, and the position n) where the notebook's last module-level binding of `name` picks a
    letter by its position from constants: chr(ord("a") + n), "abcd"[n], string.ascii_lowercase[n], options[n] with
    `options` bound only to literals (a case or space fold around any of these too); None for anything else, a
    negative or computed n among them. The letter is then what the count gave, which may not be what the student
    meant (the third option is chr(ord("a") + 2)): issue 21's blind32 and blind42 letters counted from 1."""
    try:
        last = _last_binding(cells, name)
        if not isinstance(last, (ast.Assign, ast.AnnAssign)) or last.value is None:
            return None
        n = _position_of(last.value, _literal_names(cells))
        return None if n is None else (_cut_line(last, 70), n)
    except RecursionError:
        return None


_LETTER_RUNS = {"ascii_lowercase", "ascii_uppercase", "ascii_letters"}


def _position_of(node: ast.AST, literals: set[str]) -> int | None:
    while (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_FOLDS
           and not node.args and not node.keywords):
        node = node.func.value
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
        base = node.value
        letters = ((isinstance(base, ast.Constant) and isinstance(base.value, str))
                   or (isinstance(base, ast.Attribute) and base.attr in _LETTER_RUNS)
                   or (isinstance(base, (ast.List, ast.Tuple)) and _literal_value(base, literals))
                   or (isinstance(base, ast.Name) and base.id in literals))
        return node.slice.value if letters and node.slice.value >= 0 else None
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "chr" and len(node.args) == 1
            and not node.keywords):
        arg = node.args[0]
        if (isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add) and isinstance(arg.right, ast.Constant)
                and type(arg.right.value) is int and arg.right.value >= 0 and isinstance(arg.left, ast.Call)
                and isinstance(arg.left.func, ast.Name) and arg.left.func.id == "ord" and len(arg.left.args) == 1
                and isinstance(arg.left.args[0], ast.Constant) and arg.left.args[0].value in ("a", "A")):
            return arg.right.value
    return None


def _literal_names(cells: Sequence[str]) -> set[str]:
    """Module-level names bound only ever to literals (ans = "C", options = ["A", "B"]): reading one is reading
    what the student wrote."""
    bound: dict[str, bool] = {}
    simple: set[int] = set()              # the targets of `name = value`, judged by their value
    for _number, tree in _parsed(tuple(cells)).trees:
        for n in _module_level(tree):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                name = n.targets[0].id
                simple.add(id(n.targets[0]))
                bound[name] = bound.get(name, True) and _literal_value(n.value, set())
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in simple:
                bound[n.id] = False          # a loop variable, a tuple target, a with ... as: not a literal
    return {k for k, plain in bound.items() if plain}


# what turns written constants into a letter without deciding anything: chr(ord("A") + 2), str(...), int(...)
_CONSTANT_CALLS = {"chr", "ord", "str", "int", "float", "len"}


def _literal_value(node: ast.AST | None, literals: set[str]) -> bool:
    """What the student wrote, worked out from constants alone: a constant, a name bound only to literals, a
    container of literals (a letter in a container is its own slip), arithmetic on them, chr/ord/str/int of
    them, a string method that folds case or spaces, an index by a constant into any of these ("ABCD"[2],
    options[1]: a choice by position is still the student's choice). A comparison, a condition, any other call
    or an index by a computed value decides something: not a literal."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) or (isinstance(node, ast.Name) and node.id in literals):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_literal_value(e, literals) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _literal_value(k, literals) for k in node.keys) and all(
            _literal_value(v, literals) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _literal_value(node.operand, literals)
    if isinstance(node, ast.BinOp):
        return _literal_value(node.left, literals) and _literal_value(node.right, literals)
    if isinstance(node, ast.BoolOp):   # "C" and "D": a hedge written out, whose value Python picks (its own slip)
        return all(_literal_value(v, literals) for v in node.values)
    if isinstance(node, ast.Subscript):
        return _literal_value(node.value, literals) and _literal_value(node.slice, literals)
    if isinstance(node, ast.Call) and not node.keywords:
        if isinstance(node.func, ast.Name) and node.func.id in _CONSTANT_CALLS:
            return all(_literal_value(a, literals) for a in node.args)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_FOLDS and not node.args:
            return _literal_value(node.func.value, literals)
    return False


# calls that do their work and give back None: an answer bound to one is None whatever it printed or changed
NONE_RETURNING = {"print", "append", "extend", "sort", "reverse", "shuffle", "update", "insert", "clear", "display"}


def _last_binding(cells: Sequence[str], name: str) -> ast.AST | None:
    """The notebook's last module-level statement that binds `name` (a Run All leaves its value). One cached parse."""
    last: ast.AST | None = None
    for _number, tree in _parsed(tuple(cells)).trees:
        for n in getattr(tree, "body", []):
            if any(_stores(t, name) for t in ast.walk(n)):
                last = n
    return last


def last_function_def(cells: Sequence[str], name: str, max_chars: int = 0) -> ast.FunctionDef | None:
    """The notebook's last top-level `def name` (the one a Run All leaves in place), parsed; None where there is
    none readable (or, with `max_chars`, none in a cell that short). Student text: parsed, never run."""
    for cell in reversed(cells):
        if not holds_name_text(cell, "def", name) or (max_chars and len(cell) > max_chars):
            continue
        if name not in _top_level_defs(cell):
            continue
        try:
            tree = parse(cell)     # a fresh tree each time: a caller may change what it is given
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
        found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
        if found:
            return found[-1]
    return None


def read_twice_on_one_path(node: ast.AST, names: Iterable[str]) -> set[str]:
    """Those of `names` that `node` reads twice where both reads can run in one call: two loads that are not in the
    two arms of one `if` / `... if ... else ...` (or two cases of one `match`). A generator read once in each
    branch (`if scaled: list(dots) ... else: list(dots)`) is read once a call (red-team round 134: that was told "a
    generator read twice" where a one-edit fix of the variance's axis was the answer).

    One post-order walk without recursion: each subtree's most reads of a name on one path (0, 1, or 2 for two or
    more), summed over a node's children, and the larger of an if's two arms (a match's cases) taken instead of
    their sum; a child's counts are passed up as they are, and the smaller of two merged into the larger, so the
    work grows with the source, not with the reads' pairs times their depth (red-team round 135: the pairwise
    test compared every two reads' ancestor paths, 64 exclusive reads of 40 generators at the end of a 2,000-term
    sum, a 19 KB def, spent 27 s of the trusted process's CPU)."""
    wanted = set(names)
    twice: set[str] = set()
    counts: dict[int, dict[str, int]] = {}

    def combined(parts: list[dict[str, int]], both: bool) -> dict[str, int] | None:
        parts = [p for p in parts if p]
        if not parts:
            return None
        parts.sort(key=len)
        into = parts.pop()
        for part in parts:
            for name, k in part.items():
                into[name] = min(2, into.get(name, 0) + k) if both else max(into.get(name, 0), k)
                if into[name] >= 2:
                    twice.add(name)
        return into

    def taken(kids: Iterable[ast.AST]) -> list[dict[str, int]]:
        return [counts.pop(id(kid), {}) for kid in kids]

    def ends(block: list[ast.stmt]) -> bool:
        return bool(block) and isinstance(block[-1], (ast.Return, ast.Raise))

    def in_order(block: list[ast.stmt]) -> dict[str, int]:
        """A block's statements one after another; after an `if` whose one arm ends in return / raise, the rest of
        the block runs only with the other arm (red-team round 135: `if scaled: return f(list(dots))` then
        `return g(list(dots))` was a generator read twice, where the same code with `else:` was not)."""
        rest: dict[str, int] = {}
        for st in reversed(block):
            own, split = counts.pop(id(st), {}), arms.pop(id(st), None)
            if split is None or not rest:
                rest = combined([own, rest], True) or {}
                continue
            test, body, orelse = split
            if ends(st.body):     # type: ignore[attr-defined]
                orelse = combined([orelse, rest], True) or {}
            else:
                body = combined([body, rest], True) or {}
            rest = combined([test, combined([body, orelse], False) or {}], True) or {}
        return rest

    arms: dict[int, tuple[dict[str, int], dict[str, int], dict[str, int]]] = {}
    stack: list[tuple[ast.AST, bool]] = [(node, False)]
    while stack:
        n, visited = stack.pop()
        if isinstance(n, ast.Name):
            if n.id in wanted and isinstance(n.ctx, ast.Load):
                counts[id(n)] = {n.id: 1}
            continue
        if not visited:
            stack.append((n, True))
            stack.extend((kid, False) for kid in ast.iter_child_nodes(n))
            continue
        if isinstance(n, ast.If):
            test, body, orelse = combined(taken([n.test]), True) or {}, in_order(n.body), in_order(n.orelse)
            if ends(n.body) != ends(n.orelse):
                arms[id(n)] = (dict(test), dict(body), dict(orelse))
            got = combined([test, combined([body, orelse], False) or {}], True)
        elif isinstance(n, ast.IfExp):
            arms_ = [combined(taken([n.body]), True) or {}, combined(taken([n.orelse]), True) or {}]
            got = combined(taken([n.test]) + [combined(arms_, False) or {}], True)
        elif isinstance(n, ast.Match):
            got = combined(taken([n.subject]) + [combined(taken(n.cases), False) or {}], True)
        else:
            parts: list[dict[str, int]] = []
            for _field, value in ast.iter_fields(n):
                if isinstance(value, list) and value and all(isinstance(v, ast.stmt) for v in value):
                    parts.append(in_order(value))
                elif isinstance(value, list):
                    parts.extend(taken(v for v in value if isinstance(v, ast.AST)))
                elif isinstance(value, ast.AST):
                    parts.extend(taken([value]))
            got = combined(parts, True)
        if got:
            counts[id(n)] = got
    return twice


_DEFS_KEPT = 256
_defs_by_digest: OrderedDict[bytes, frozenset[str]] = OrderedDict()
_defs_lock = threading.Lock()


def _top_level_defs(cell: str) -> frozenset[str]:
    """The names of a cell's top-level defs (none where it does not parse). Cached per cell's text: the readers of
    a grade ask `last_function_def` again and again, and every cell that only mentions `def name` (a comment, a
    string) was parsed again on each ask (red-team round 133: twenty 19,000-character decoy cells cost a wrong
    notebook 7.8 s of the grader's CPU against 3.7 s without them). The cache is keyed by the text's digest, not
    the text (red-team round 134: an lru_cache on the text kept the last 256 cells themselves, a class's 480 KB
    decoy cells 117 MB of the grader's memory for as long as it runs)."""
    key = hashlib.blake2b(cell.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    with _defs_lock:
        kept = _defs_by_digest.get(key)
        if kept is not None:
            _defs_by_digest.move_to_end(key)
            return kept
    try:
        tree = parse(cell)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        names: frozenset[str] = frozenset()
    else:
        names = frozenset(n.name for n in tree.body if isinstance(n, ast.FunctionDef))
    with _defs_lock:
        _defs_by_digest[key] = names
        while len(_defs_by_digest) > _DEFS_KEPT:
            _defs_by_digest.popitem(last=False)
    return names


def left_none_call(cells: Sequence[str], name: str) -> tuple[str, str] | None:
    """(the statement, the call's name) where the notebook's last module-level binding of `name` is the result of
    a call that returns None (`q7_answer = print("D")`, `shapes = shapes.append(x)`), else None."""
    last = _last_binding(cells, name)
    value = last.value if isinstance(last, (ast.Assign, ast.AnnAssign)) else None
    if last is not None and isinstance(value, ast.Call):
        called = value.func.id if isinstance(value.func, ast.Name) else (
            value.func.attr if isinstance(value.func, ast.Attribute) else "")
        if called in NONE_RETURNING and (called != "print" or isinstance(value.func, ast.Name)):
            return unparse(last)[:60], called
    return None


def left_none_lookup(cells: Sequence[str], name: str) -> str | None:
    """The statement where the notebook's last module-level binding of `name` is a dict look-up with .get(key) and
    no default (`q6_answer = letters.get("softmax-weighted average")`), which gives None where the key is missing;
    else None."""
    last = _last_binding(cells, name)
    value = last.value if isinstance(last, (ast.Assign, ast.AnnAssign)) else None
    if (last is not None and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "get" and len(value.args) == 1 and not value.keywords):
        text = unparse(last)
        return text if len(text) <= 90 else text[:87] + "..."
    return None


def chr_of_number(cells: Sequence[str], name: str) -> tuple[str, int] | None:
    """(the statement, the number) where the notebook's last module-level binding of `name` is chr of a whole-number
    literal (`q7_answer = chr(44)`), else None."""
    last = _last_binding(cells, name)
    value = last.value if isinstance(last, (ast.Assign, ast.AnnAssign)) else None
    if (last is not None and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "chr"
            and len(value.args) == 1 and not value.keywords and isinstance(value.args[0], ast.Constant)
            and type(value.args[0].value) is int):
        text = unparse(last)
        return (text if len(text) <= 70 else text[:67] + "..."), value.args[0].value
    return None


def copied_from(cells: Sequence[str], name: str) -> str | None:
    """The other name whose value `name` takes where the notebook's last module-level binding of `name` is that
    name alone (`q7_answer = q6_answer`, `ans_scale = ans_rank`), else None."""
    last = _last_binding(cells, name)
    value = last.value if isinstance(last, (ast.Assign, ast.AnnAssign)) else None
    if isinstance(value, ast.Name) and value.id != name:
        return value.id
    return None


def _stored_names(n: ast.AST) -> Iterator[str]:
    """The names `n` itself binds (as _stores reads them)."""
    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
        yield n.id
    elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield n.name
    elif isinstance(n, (ast.Import, ast.ImportFrom)):
        yield from (al.asname or al.name.split(".")[0] for al in n.names)


def _stores(n: ast.AST, name: str) -> bool:
    """`n` binds `name`: an assignment or loop/with target, a def or class of that name, an import of it."""
    return name in _stored_names(n)


def _stores_by_name(cells_nodes: Iterable[tuple[int, Iterable[ast.AST]]]) -> dict[str, list[int]]:
    """name -> the cells (indexes from 0; `cells_nodes` numbers them from 1) whose given nodes store it."""
    found: dict[str, list[int]] = {}
    for number, nodes in cells_nodes:
        for name in dict.fromkeys(name for n in nodes for name in _stored_names(n)):
            found.setdefault(name, []).append(number - 1)
    return found


def cells_assigning(cells: Sequence[str], name: str) -> list[int]:
    """The code cells (indexes from 0) whose code stores `name` anywhere (an assignment, a def, an import, a
    loop or with target): where a missing answer was to be defined. One cached parse (_parsed)."""
    return list(_parsed(tuple(cells)).any_stores.get(name, []))


def cells_too_deep(cells: Sequence[str]) -> list[int]:
    """The code cells (numbered from 1) that the grader's parse could not read for lack of stack or memory, which the
    worker may still run: whether a deep expression parses depends on the recursion limit, and the notebook sets the
    worker's (`sys.setrecursionlimit(30000)` and a 6000-term sum at the top of a cell hid `sys.modules` and a popped
    forbidden-API guard from every static rule: red-team round 69). The grader rejects such a notebook."""
    return list(_parsed(tuple(cells)).too_deep)


def reaches_into_grader(cells: Sequence[str]) -> str | None:
    """Where the notebook reaches for the grader's own code or the interpreter's internals that lead to
    it ("`sys.modules` in code cell 3"), or None. Cells that do not parse never ran: not read. A module
    of REACHING_FUNCTIONS imported under another name is followed (`import inspect as i; i.stack()`).
    The parse is the one the rule tests read later (`_parsed`, cached per notebook)."""
    nb = _parsed(tuple(cells))
    cells_nodes = nb.nodes
    aliases = {name: name for name in REACHING_FUNCTIONS}
    for _number, nodes in cells_nodes:
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in REACHING_FUNCTIONS and alias.asname:
                        aliases[alias.asname] = alias.name
    rebound = {n.id for _number, nodes in cells_nodes for n in nodes
               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    lookups = set(_GETATTR_LIKE) | set(nb.getattr_aliases)
    # each name bound to a module, with the top-level module(s) it stands for (`import json as j`, `from json import
    # encoder`): a store through it is a store into that module
    modules = {bound: {m.split(".")[0] for m in found} for bound, found in nb.module_aliases.items()}
    for number, nodes in cells_nodes:
        for node in nodes:
            # `"google.colab" in sys.modules` answers a bool: no module is handed out (red-team round 73)
            what = ((_reaching(node, aliases) if id(node) not in nb.membership_tests else None)
                    or _reaching_by_pattern(node, rebound)
                    or _reaching_by_lookup(node, lookups) or _reaching_the_channel(node, modules))
            if what is not None:
                return f"{what} in code cell {number}"
    return None


# A builtin class's positional pattern (`case int(n)`) matches the subject itself; any other class's reads the
# attributes its __match_args__ names, which a notebook may compute and a metaclass may let any subject match.
_MATCH_SELF_TYPES = frozenset({"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set",
                               "str", "tuple"})
_REACHING_BY_NAME = REACHING_ATTRS | {GRADER_PACKAGE} | frozenset().union(*REACHING_FUNCTIONS.values())
# a name in a string looked up: only those no tensor code has (`getattr(torch, "stack")` is not inspect.stack)
_REACHING_BY_LOOKUP = REACHING_ATTRS | {GRADER_PACKAGE} | REACHING_FUNCTIONS["sys"] | REACHING_FUNCTIONS["gc"]


# The worker's channel to the grader (red-team round 47): a notebook that found its socket in /proc/self/fd and
# served the grader's requests itself, or replaced json.dumps/json.loads, which the worker's frames go through, wrote
# every report the worker makes (the guard's, the in-place check's). The plain spellings are refused: the process's
# table of descriptors, a socket object made from a descriptor, a store into a module the protocol uses. (A number
# guessed for the descriptor is not: docs/security.md, known limits. Raw os.write and new sockets stay for the
# sandbox to meet at run time, where the red-team suite tries them.)
CHANNEL_PATHS = ("/proc/self/fd", "/proc/thread-self/fd", "/dev/fd", "/proc/self/fdinfo")
PROTOCOL_MODULES = frozenset({"json", "socket", "struct", "base64", "safetensors", "io", "select", "selectors",
                              "codecs"})


def _reaching_the_channel(node: ast.AST, modules: dict[str, set[str]]) -> str | None:
    """The worker's own channel to the grader, named plainly: the path of the process's descriptors, a socket made
    from a descriptor (`socket.socket(fileno=...)`, `socket.fromfd`), a store into a module the protocol uses."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if any(p in node.value for p in CHANNEL_PATHS):
            return f"the path '{node.value.strip()[:40]}'"
    elif isinstance(node, ast.Call) and any(k.arg == "fileno" for k in node.keywords):
        return "a socket made from a file descriptor (`fileno=`)"
    elif isinstance(node, ast.Attribute) and node.attr in ("fromfd", "socketpair", "send_fds", "recv_fds"):
        return f"`.{node.attr}`"
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
        root: ast.expr = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        into = sorted(modules.get(root.id, set()) & PROTOCOL_MODULES) if isinstance(root, ast.Name) else []
        if into:
            return f"a store into `{into[0]}`'s attributes (`{unparse(node)[:40]} = ...`)"
    return None


def _reaching_by_lookup(node: ast.AST, lookups: set[str]) -> str | None:
    """A lookup by a name written as a string that names a reaching attribute: `getattr(sys, "modules")`,
    `attrgetter("modules")(sys)`, under any name it was imported as (red-team round 46)."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    if name not in lookups:
        return None
    for arg in node.args:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            for part in arg.value.split("."):
                if part in _REACHING_BY_LOOKUP:
                    return f"`{name}(..., {part!r})`"
    return None


def _reaching_by_pattern(node: ast.AST, rebound: set[str]) -> str | None:
    """A `match` class pattern that reads a reaching attribute by keyword (`case object(modules=m)` on sys),
    or reads attributes by position through a class other than an unshadowed builtin (red-team round 45)."""
    if not isinstance(node, ast.MatchClass):
        return None
    cls = unparse(node.cls)[:40]
    for attr in node.kwd_attrs:
        if attr in _REACHING_BY_NAME:
            return f"`case {cls}({attr}=...)`"
    if node.patterns and not (isinstance(node.cls, ast.Name) and node.cls.id in _MATCH_SELF_TYPES
                              and node.cls.id not in rebound):
        return f"`case {cls}(...)` with positional parts (attributes named by the class at run time)"
    return None


def _reaching_module(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in REACHING_MODULES)


def _reaching(node: ast.AST, aliases: dict[str, str]) -> str | None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] == GRADER_PACKAGE or _reaching_module(alias.name):
                return f"`import {alias.name}`"
    elif isinstance(node, ast.ImportFrom) and node.module:
        if node.module.split(".")[0] == GRADER_PACKAGE or _reaching_module(node.module):
            return f"`from {node.module} import ...`"
        if any(alias.name in REACHING_STRING_EVAL or alias.name in REACHING_ATTRS for alias in node.names):
            return f"`from {node.module} import {', '.join(a.name for a in node.names)[:60]}`"
        for alias in node.names:
            if alias.name in REACHING_FUNCTIONS.get(node.module, ()) or (
                    alias.name == "*" and node.module in REACHING_FUNCTIONS):
                return f"`from {node.module} import {alias.name}`"
    elif isinstance(node, ast.Name) and (node.id in REACHING_NAMES or node.id == GRADER_PACKAGE):
        return f"`{node.id}`"
    elif isinstance(node, ast.Attribute):
        if node.attr in REACHING_ATTRS or node.attr in REACHING_STRING_EVAL or node.attr == GRADER_PACKAGE:
            return f"`.{node.attr}`"
        module = aliases.get(node.value.id) if isinstance(node.value, ast.Name) else None
        if module is not None and node.attr in REACHING_FUNCTIONS[module]:
            return f"`{module}.{node.attr}`"
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (
            node.value.strip() == GRADER_PACKAGE or node.value.strip().startswith(GRADER_PACKAGE + ".")):
        return f"the string '{node.value.strip()[:60]}'"
    return None


RETURN_LOOP_DEFS = 4          # the defs a value's binding calls that return_inside_loop reads
RETURN_LOOP_NODES = 2000      # nodes of that binding walked for its calls, at most


def _last_def(cells: Sequence[str], name: str) -> ast.FunctionDef | None:
    """The notebook's last top-level `def name` (one cached parse), None where there is none."""
    found = None
    for _number, tree in _parsed(tuple(cells)).trees:
        for n in getattr(tree, "body", []):
            if isinstance(n, ast.FunctionDef) and n.name == name:
                found = n
    return found


def return_inside_loop(cells: Sequence[str], name: str) -> tuple[str, str] | None:
    """A `return` indented into a loop (naming round 57, sdpa-from-scratch blind57): the function `name` (its last
    def), or one a module-level value `name` is made by (the defs its last binding calls by name, at most
    RETURN_LOOP_DEFS), whose body ends with a for or while loop (no else) whose own body ends with `return`: the
    function returns during the loop's first pass, and nothing after the loop was ever meant to run. (the def's
    name, the return as written, cut to 60 characters); None where none. A `return` inside an if in the loop (a
    search that stops at a hit) is not this. Student text: parsed (one cached parse), never run."""
    last = _last_binding(cells, name)
    if isinstance(last, ast.FunctionDef) and last.name == name:
        defs: list[ast.FunctionDef] = [last]
    elif last is not None:
        called: list[str] = []
        for k, n in enumerate(ast.walk(last)):
            if k > RETURN_LOOP_NODES or len(called) >= RETURN_LOOP_DEFS:
                break
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id not in called:
                called.append(n.func.id)
        defs = [d for c in called if (d := _last_def(cells, c)) is not None]
    else:
        return None
    for fn in defs:
        loop = fn.body[-1] if fn.body else None
        if (isinstance(loop, (ast.For, ast.While)) and not loop.orelse and loop.body
                and isinstance(loop.body[-1], ast.Return)):
            return fn.name, _cut_line(loop.body[-1])
    return None


def linear_bias_kept(node: ast.AST) -> bool | None:
    """For a call that builds a Linear layer (`nn.Linear(...)`, `torch.nn.Linear(...)`, `Linear(...)`): whether it
    keeps the default bias, a randomly initialised one (bias= absent or the constant True, a third positional
    argument absent or True, nothing unpacked with * or ** that could carry bias=False). None for any other node."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) != "Linear":
        return None
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return False
    flags = [k.value for k in node.keywords if k.arg == "bias"] + node.args[2:3]
    return all(isinstance(f, ast.Constant) and f.value is True for f in flags)


def stacks_as_columns_call(node: ast.AST) -> bool:
    """Whether `node` is a call that lays its pieces down as columns: stack(...) (torch.stack, np.stack, a bare
    stack) along dim (or axis, or its second positional argument) 1 or -1, column_stack(...) or hstack(...)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name in ("column_stack", "hstack"):
        return True
    if name != "stack" or not node.args:
        return False
    axis = node.args[1] if len(node.args) > 1 else next(
        (k.value for k in node.keywords if k.arg in ("dim", "axis")), None)
    if isinstance(axis, ast.UnaryOp) and isinstance(axis.op, ast.USub):
        axis = axis.operand
    return isinstance(axis, ast.Constant) and type(axis.value) is int and axis.value == 1
