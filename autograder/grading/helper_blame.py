"""A wrong value whose only cause is a wrong helper: said as that helper's mistake.

A trace cell (`weights3_causal = stable_softmax(masked, dim=-1)`) is wrong whenever the function it calls is: its
test saw only "contains NaN in row 0", or, where the helper crashed, "the cell that assigns it stopped". The
helper's own tests already name its mistake. Here the cell is run again, in the worker, as a function with the
helper's right answers in the helper's place (a replay: each call the cell makes gets the reference's answer on
that call's own arguments), and the failed tests are rerun on the values it gives. Where they pass, the cell's
only mistake is the helper's: the test is named by the helper's diagnosis.

The replay is checked, not assumed: a cell with a slip of its own (a wrong scale before the helper) still fails
its rerun and keeps its own message. Nothing here changes a score; the tests themselves are the judge, and the
reference's answers are on the student's own arguments (what a right helper would have returned to them).
"""
from __future__ import annotations

import ast
import copy
import secrets
from typing import Any, Callable, Mapping, Sequence

from autograder.grading.pyparse import parse

MAX_SOURCE_CHARS = 6000   # a longer cell is not replayed
MAX_CALLS = 32            # a cell calling its helpers more often than this is not replayed
MAX_ROUNDS = 4            # replays until the helper's arguments stop changing (an answer feeds the next call)

# (a test's (question, name), {a student name it takes: the name of a global holding the replayed value})
Rerun = Callable[[tuple[str, str], Mapping[str, str]], bool]


class _Renamed(ast.NodeTransformer):
    def __init__(self, renames: Mapping[str, str]) -> None:
        self.renames = renames

    def visit_Name(self, node: ast.Name) -> ast.Name:
        new = self.renames.get(node.id)
        return ast.Name(new, node.ctx) if new and isinstance(node.ctx, ast.Load) else node


def calls_in_cell(cell: str) -> list[str]:
    """The plain names the cell's code calls (`stable_softmax(...)`), in order, each once."""
    try:
        tree = parse(cell)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return []
    return list(dict.fromkeys(n.func.id for n in ast.walk(tree)
                              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)))


def replay_source(cell: str, names: Sequence[str], helpers: Sequence[str], prefix: str) -> str | None:
    """The worker-side source of one replay: `{prefix}run()` runs the cell as a function (its names stay local)
    with each of `helpers` replaced by a stub that logs its arguments and answers from `{prefix}answers` in call
    order (the student's helper once they run out), and returns (whether the cell ran through, the log);
    `{prefix}values()` runs it again and returns the tuple of `names`. None where the cell cannot be read."""
    if len(cell) > MAX_SOURCE_CHARS:
        return None
    try:
        tree = parse(cell)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    if not tree.body or any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(tree)):
        return None
    try:
        tree = _Renamed({h: f"{prefix}stub_{j}" for j, h in enumerate(helpers)}).visit(copy.deepcopy(tree))
        module = parse(f"def {prefix}cell():\n    pass\n")
        shell = module.body[0]
        if not isinstance(shell, ast.FunctionDef):
            return None
        shell.body = [*tree.body, ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load()))]
        body = ast.unparse(ast.fix_missing_locations(module))
    except (RecursionError, ValueError, TypeError, AttributeError):
        return None
    stubs = "\n".join(
        f"def {prefix}stub_{j}(*args, **kwargs):\n"
        f"    n = len({prefix}log)\n"
        f"    {prefix}log.append(({j}, args, kwargs))\n"
        f"    if n < len({prefix}answers):\n"
        f"        return {prefix}answers[n]\n"
        f"    return {h}(*args, **kwargs)\n" for j, h in enumerate(helpers))
    return (f"{prefix}answers = []\n{prefix}log = []\n"
            f"def {prefix}set(answers):\n    {prefix}answers[:] = list(answers)\n"
            f"{stubs}\n{body}\n"
            f"def {prefix}run():\n    del {prefix}log[:]\n    try:\n        {prefix}cell()\n"
            f"    except Exception:\n        return False, list({prefix}log)\n    return True, list({prefix}log)\n"
            f"def {prefix}values():\n    del {prefix}log[:]\n    return {prefix}cell()\n")


def blame_helpers(reports: Sequence[Any], namespace: Any, references: Mapping[str, Any], cells: Sequence[str],
                  rerun: Rerun, takes: Mapping[tuple[str, str], Sequence[str]], clock: Any,
                  helper_of: Mapping[tuple[str, str], str], same_answer: Callable[[Any, Any], bool],
                  optional_calls: Any, cut_short: type[BaseException], key_of: Callable[[Any], str]) -> list[Any]:
    """The reports, each failed one that names nothing and takes values of one cell (those with reference values)
    now named by a helper's diagnosis where that cell calls notebook functions whose own tests failed with a name,
    and, replayed with those functions' right answers, gives values with which the test passes.
    `helper_of`: each test -> the function its first call was of; `key_of(report)`: whether it names nothing yet
    ("" where it may be named here)."""
    from autograder.grading.source_checks import cells_assigning_globally
    diagnosis: dict[str, Any] = {}           # a notebook function -> a failed, named report of its own tests
    for r in reports:
        fn = helper_of.get((r.question, r.name))
        if fn and r.status == "failed" and r.misconception and not r.withheld_by and fn not in diagnosis:
            diagnosis[fn] = r
    if not diagnosis:
        return list(reports)
    groups: dict[tuple[int, tuple[str, ...]], list[tuple[str, str]]] = {}
    for r in reports:
        key = (r.question, r.name)
        if r.status != "failed" or r.withheld_by or key_of(r):
            continue
        values = [n for n in takes.get(key, ()) if n in references and not callable(references[n])]
        made = {n: cells_assigning_globally(cells, n) for n in values}
        where = {m[-1] for m in made.values() if m}
        if values and len(where) == 1 and all(made.values()):
            groups.setdefault((where.pop(), tuple(values)), []).append(key)
    verdicts: dict[tuple[str, str], tuple[Any, list[str], tuple[str, ...]]] = {}
    for (cell, names), keys in groups.items():
        helpers = [h for h in calls_in_cell(cells[cell]) if h in diagnosis and callable(references.get(h))]
        if not helpers or clock.over():
            continue
        try:
            with optional_calls(clock.wall_deadline):
                if _replayed(cells[cell], names, keys, helpers, namespace, references, rerun, clock, same_answer):
                    for k in keys:
                        verdicts[k] = (diagnosis[helpers[0]], helpers, names)
        except cut_short:
            break
    out = []
    for r in reports:
        found = verdicts.get((r.question, r.name))
        if found is not None:
            helper_report, helpers, names = found
            what = " and ".join(f"`{n}`" for n in names)
            by = " and ".join(f"`{h}`" for h in helpers)
            said = (f"{what} {'are' if len(names) > 1 else 'is'} wrong only because {by} "
                    f"{'are' if len(helpers) > 1 else 'is'}: with the right answers of {by} in its place, the cell "
                    f"that assigns {'them' if len(names) > 1 else 'it'} gives the right "
                    f"value{'s' if len(names) > 1 else ''}. What {by}'s own test "
                    f"({helper_report.question} {helper_report.name}) found: ")
            r = r.model_copy(update={"misconception": helper_report.misconception,
                                     "message": (said + helper_report.message)[:1400]})
        out.append(r)
    return out


def _replayed(cell: str, names: Sequence[str], keys: Sequence[tuple[str, str]], helpers: Sequence[str],
              namespace: Any, references: Mapping[str, Any], rerun: Rerun, clock: Any,
              same_answer: Callable[[Any, Any], bool]) -> bool:
    """Whether the cell, with `helpers` answering as the reference does, gives values with which every test of
    `keys` passes."""
    prefix = f"_ag_blame_{secrets.token_hex(4)}_"
    source = replay_source(cell, names, helpers, prefix)
    if source is None or not namespace.define(source, clock.wall_left()):
        return False
    answers: list[Any] = []
    for _ in range(MAX_ROUNDS):
        if clock.over():
            return False
        namespace.call_copy(f"{prefix}set", (answers,), {})
        ran, log = namespace.call_copy(f"{prefix}run", (), {})
        if not isinstance(log, (list, tuple)) or len(log) > MAX_CALLS:
            return False
        fresh = []
        for entry in log:
            if not (isinstance(entry, (list, tuple)) and len(entry) == 3 and isinstance(entry[0], int)
                    and 0 <= entry[0] < len(helpers) and isinstance(entry[1], (list, tuple))
                    and isinstance(entry[2], dict)):
                return False
            try:
                fresh.append(references[helpers[entry[0]]](*entry[1], **entry[2]))
            except Exception:  # noqa: BLE001 - arguments the reference refuses: the helper is not the only cause
                return False
        settled = len(fresh) == len(answers) and all(same_answer(a, b) for a, b in zip(fresh, answers))
        answers = fresh
        if settled:
            if ran is not True or not answers:
                return False          # the cell stops even with right answers (a mistake of its own), or never calls
            values = {n: f"{prefix}v{i}" for i, n in enumerate(names)}
            assign = "\n".join(f"{v} = _got[{i}]" for i, v in enumerate(values.values()))
            return (namespace.define(f"_got = {prefix}values()\n{assign}\ndel _got", clock.wall_left())
                    and all(rerun(k, values) for k in keys))
    return False


__all__ = ["blame_helpers", "calls_in_cell", "replay_source"]
