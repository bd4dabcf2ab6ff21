"""A function that reads a notebook global instead of its own parameter or loop variable (issue 21, blind65).

A failed test that names nothing, whose graded function (or one of the few helpers of the notebook it calls) reads a
module-level name the notebook binds to DATA (a tensor, a number, a list: never a def, a class, an import, a lambda),
is named `reads_global_not_parameter` where the function's own source shows the global took the place of its own
name:
- one of its own names (a parameter, a loop target, a local it assigns) is never read, and that name is the global's
  spelt otherwise (`W_v` for the demo's `W_V`; `vals` for `V`; `head_out` for the trace's `out`; the parameter `V`
  beside the comparison cell's `Vc`): a rename that missed a use;
- the global is read inside a loop whose target is the global's name spelt otherwise (`for dim in dims:` reading the
  display loop's `d`): a loop variable renamed where the body still reads the old one;
- a line of the def commented out assigns the global's name (`# d_k = Q.shape[-1]`): the scale now comes from the
  notebook's trial `d_k = 4`.
A global no own name of the function stands for (a constant such as `NEG_INF`, a lookup table, a helper's config) is
read as meant: never named. Where the worker's value of the global is at hand (its `resolve`), it must be data too, and a crash's words
that quote one of its sizes are said (the demo's 5 rows in `size of tensor b (5)`).

Trust: the source is the student's, parsed here (pyparse.parse, through source_checks' one cached parse) and never
run; what the message quotes is cut (pyparse.unparse, QUOTE_CHARS). The work is bounded: at most MAX_FUNCTIONS defs
of at most MAX_DEF_NODES nodes each, per failed test, and one walk of each cell's module-level code, cached."""
from __future__ import annotations

import ast
import builtins
import functools
import re
from typing import Any, Iterator, Mapping, Sequence

from autograder.grading.pyparse import source_lines, unparse
from autograder.grading.source_checks import _parsed
from autograder.sandbox.messages import jupyter_cell

KEY = "reads_global_not_parameter"
MAX_FUNCTIONS = 4          # the graded function and its helpers looked at, per test
MAX_DEF_NODES = 20_000     # a def bigger than this is not read (a notebook at the code limit costs no seconds)
QUOTE_CHARS = 80
_BUILTINS = frozenset(dir(builtins))
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _squash(name: str) -> str:
    return name.lower().replace("_", "")


def related(own: str, glob: str) -> bool:
    """Whether `own` (a name of the function's) is `glob` (the notebook's) spelt otherwise: the same letters in
    another case (`W_v`, `W_V`), or one the start or the end of the other (`vals`/`V`, `dim`/`d`, `head_out`/`out`,
    `V`/`Vc`); never the same name (that one is read as its own)."""
    a, b = _squash(own), _squash(glob)
    if own == glob or not a or not b:
        return False
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) == 1:          # one letter: the start of a short word only (`d` of `dim`, `V` of `vals` or `Vc`)
        return len(long) <= 4 and long.startswith(short)
    return long.startswith(short) or long.endswith(short)


def _statements(tree: ast.AST) -> Iterator[ast.stmt]:
    """A cell's module-level statements, those inside a module-level if, for, while, with or try too (what
    source_checks' _module_level reaches, less the expressions: a 450 KB cell is walked in a tenth of the time)."""
    todo: list[ast.stmt] = list(getattr(tree, "body", []))[::-1]
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        inner: list[ast.stmt] = []
        for field in ("body", "orelse", "finalbody"):
            inner.extend(getattr(n, field, []) or [])
        for h in getattr(n, "handlers", []) or []:
            inner.extend(h.body)
        for case in getattr(n, "cases", []) or []:
            inner.extend(case.body)
        todo.extend(reversed(inner))


@functools.lru_cache(maxsize=2)
def _data_bindings(cells: tuple[str, ...]) -> dict[str, tuple[int, ast.AST]]:
    """Module-level names the notebook binds to data, each with its last binding (cell index from 0, the statement);
    a name any cell binds by a def, class, import or lambda is left out (a function is read as meant)."""
    out: dict[str, tuple[int, ast.AST]] = {}
    not_data: set[str] = set()
    for number, tree in _parsed(tuple(cells)).trees:
        for n in _statements(tree):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                not_data.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                not_data.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
                value = getattr(n, "value", None) if not isinstance(n, ast.For) else n.iter
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    for name in (x.id for x in ast.walk(t) if isinstance(x, ast.Name)):
                        if isinstance(value, (ast.Lambda, ast.Name, ast.Attribute)) and not isinstance(n, ast.For):
                            not_data.add(name)      # an alias of something else (a function, a module): not data
                        else:
                            prev = out.get(name)
                            if prev is None or (number - 1, getattr(n, "lineno", 0)) >= (
                                    prev[0], getattr(prev[1], "lineno", 0)):
                                out[name] = (number - 1, n)
    return {k: v for k, v in out.items() if k not in not_data}


def _own_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[list[str], list[str], set[str],
                                                                     dict[str, list[ast.For]], set[str]]:
    """(parameters, parameters and locals in order, names read, loop target -> its loops, globals declared)."""
    a = fn.args
    params = [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs] + ([a.vararg] if a.vararg else [])
              + ([a.kwarg] if a.kwarg else [])]
    own: list[str] = list(params)
    read: set[str] = set()
    loops: dict[str, list[ast.For]] = {}
    declared: set[str] = set()
    todo: list[ast.AST] = [*fn.body, *a.defaults, *(d for d in a.kw_defaults if d is not None)]
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            declared.update(n.names)
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                read.add(n.id)
            elif n.id not in own:
                own.append(n.id)
        if isinstance(n, (ast.For, ast.AsyncFor)):
            for t in ast.walk(n.target):
                if isinstance(t, ast.Name):
                    loops.setdefault(t.id, []).append(n)   # type: ignore[arg-type]
        if isinstance(n, _FUNCTION_NODES):
            if not isinstance(n, ast.Lambda):
                own.append(n.name)
            # a nested def's or lambda's reads count as reads (a closure over a local); its own names stay its own
            read.update(x.id for x in ast.walk(n) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load))
            continue
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for x in ast.walk(n):
                if isinstance(x, ast.Name):
                    (read.add(x.id) if isinstance(x.ctx, ast.Load) else own.append(x.id))
            continue
        todo.extend(ast.iter_child_nodes(n))
    return params, own, read, loops, declared


def _reads_in(loop: ast.For, name: str) -> bool:
    return any(isinstance(x, ast.Name) and x.id == name and isinstance(x.ctx, ast.Load)
               for stmt in loop.body for x in ast.walk(stmt))


def _commented_assignment(source_lines: Sequence[str], fn: ast.AST, name: str) -> str | None:
    """A line of the def's own text commented out that assigns `name` (`# d_k = Q.shape[-1]`), cut; else None."""
    first, last = getattr(fn, "lineno", 1), getattr(fn, "end_lineno", 0) or 0
    pattern = re.compile(rf"^\s*#\s*{re.escape(name)}\s*=(?!=)\s*(.*)$")
    for line in source_lines[first - 1:last][:400]:
        m = pattern.match(line[:300])
        if m:
            return f"{name} = {m.group(1).strip()}"[:QUOTE_CHARS]
    return None


def _quote(node: ast.AST) -> str:
    if isinstance(node, ast.For):
        text = f"for {unparse(node.target)} in {unparse(node.iter)}:"
    else:
        text = unparse(node)
    text = text.splitlines()[0] if text else ""
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS - 3] + "..."


def _is_data(value: Any) -> bool:
    import torch
    return isinstance(value, (torch.Tensor, int, float, complex, list, tuple, dict, str)) and not isinstance(
        value, bool) or type(value).__module__ == "numpy"


def _sizes(value: Any) -> list[int]:
    shape = getattr(value, "shape", None)
    try:
        return [int(s) for s in shape] if shape is not None else ([len(value)] if isinstance(value, (list, tuple)) else [])
    except (TypeError, ValueError):
        return []


def _functions(cells: Sequence[str], name: str) -> list[tuple[int, ast.FunctionDef]]:
    """The graded function's last def and those of the notebook's functions it calls (MAX_FUNCTIONS in all)."""
    defs: dict[str, tuple[int, ast.FunctionDef]] = {}
    for number, tree in _parsed(tuple(cells)).trees:
        for n in getattr(tree, "body", []):
            if isinstance(n, ast.FunctionDef):
                defs[n.name] = (number - 1, n)   # the last def of a name: the one a Run All leaves
    if name not in defs:
        return []
    out = [defs[name]]
    seen = {name}
    for _, fn in list(out):
        for x in ast.walk(fn):
            if len(out) >= MAX_FUNCTIONS:
                break
            if isinstance(x, ast.Call) and isinstance(x.func, ast.Name) and x.func.id in defs and x.func.id not in seen:
                seen.add(x.func.id)
                out.append(defs[x.func.id])
    return out


def _size_of(fn: ast.AST) -> int:
    count = 0
    for _ in ast.walk(fn):
        count += 1
        if count > MAX_DEF_NODES:
            break
    return count


def finding(cells: Sequence[str], name: str, resolve: Any = None) -> str | None:
    """What the message says where `name` (the graded function, or a helper it calls) reads a notebook global in the
    place of one of its own names; None where nothing shows it."""
    data = _data_bindings(tuple(cells))
    if not data:
        return None
    for index, fn in _functions(cells, name):
        if _size_of(fn) > MAX_DEF_NODES:
            continue
        params, own, read, loops, declared = _own_names(fn)
        if declared:
            continue                         # a function that keeps state in a global: another mistake
        free = sorted(n for n in read if n not in own and n not in _BUILTINS and n in data)
        for glob in free:
            unread = [o for o in own if o not in read and not o.startswith("_") and related(o, glob)]
            said: str | None = None
            if unread:
                said = f"`{unread[0]}` is never read"
            else:
                loop = next((t for t, fors in loops.items() if related(t, glob)
                             and any(_reads_in(f, glob) for f in fors)), None)
                if loop is not None:
                    said = f"its loop variable is `{loop}`"
                else:
                    cell = _parsed(tuple(cells)).sources.get(index + 1, "")
                    commented = _commented_assignment(source_lines(cell), fn, glob)
                    if commented is not None and any(re.search(rf"\b{re.escape(p)}\b", commented.split("=", 1)[1])
                                                     for p in params):
                        said = f"the line `# {commented}` is commented out"
            if said is None:
                continue
            value: Any = None
            if resolve is not None:
                try:
                    value = resolve(glob)
                except Exception:  # noqa: BLE001 - feedback only: a name the worker cannot give is told from source
                    value = None
                if value is not None and not _is_data(value):
                    continue
            where, stmt = data[glob]
            whose = "" if fn.name == name else f", a helper `{name}` calls,"
            return (f"in `{fn.name}`{whose} {said}; the body reads the notebook's `{glob}` ({jupyter_cell(where)}: "
                    f"`{_quote(stmt)}`) instead" + _shape_words(value))
    return None


def _shape_words(value: Any) -> str:
    """What the worker's value of the global adds: its shape (the same whatever the inputs), or the number it held."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f", which held {value!r:.20} when the tests ran"
    sizes = _sizes(value)
    if not sizes or len(sizes) > 8:
        return ""
    return f", of shape {tuple(sizes)} whatever the inputs"


def name_global_reads(reports: Sequence[Any], tests: Sequence[Any], cells: Sequence[str],
                      resolve: Any = None, functions: Mapping[tuple[str, str], str] | None = None) -> list[Any]:
    """The reports, each failed one that names nothing now named KEY where its test's function (the first of its
    student names the notebook defines: `functions` may give it) reads a notebook global in the place of its own name
    (finding). `resolve(name)`: the worker's value of a global (None: from the source alone)."""
    if not cells or not any(r.status == "failed" and not r.misconception and not r.withheld_by for r in reports):
        return list(reports)
    by_key = {(t.question, t.name): t for t in tests}
    found: dict[str, str | None] = {}
    out = []
    for r in reports:
        if r.status == "failed" and not r.misconception and not r.withheld_by:
            names = [functions[(r.question, r.name)]] if functions and (r.question, r.name) in functions else list(
                getattr(by_key.get((r.question, r.name)), "student_names", ()))
            for name in names[:3]:
                if name not in found:
                    found[name] = finding(cells, name, resolve)
                if found[name]:
                    r = r.model_copy(update={"misconception": KEY, "message": (
                        f"{found[name]}: the values passed in are not the ones used.\n{r.message}")[:1400]})
                    break
        out.append(r)
    return out
