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

import torch

from autograder.grading.pyparse import parse

MAX_SOURCE_CHARS = 6000   # a longer cell is not replayed
MAX_CALLS = 32            # a cell calling its helpers more often than this is not replayed
MAX_ROUNDS = 6            # replays until the helper's arguments stop changing (an answer feeds the next call;
                          # a failing round's shrinks and probes add calls: q5 test_fully_masked_rows settles in 5)
MAX_ELEMENTS = 1 << 20    # a logged argument larger than this is not handed to the reference (the grader's CPU)

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
    return (f"{_stubs(helpers, prefix)}\n{body}\n"
            f"def {prefix}run():\n    del {prefix}log[:]\n    try:\n        {prefix}cell()\n"
            f"    except Exception:\n        return False, list({prefix}log)\n    return True, list({prefix}log)\n"
            f"def {prefix}values():\n    del {prefix}log[:]\n    return {prefix}cell()\n")


def _stubs(helpers: Sequence[str], prefix: str) -> str:
    """`{prefix}stub_j` for each helper: logs its arguments, answers from `{prefix}answers` in call order (the
    student's helper once they run out); `{prefix}set(answers)` sets them and empties the log, `{prefix}log_of()`
    returns the log."""
    stubs = "\n".join(
        f"def {prefix}stub_{j}(*args, **kwargs):\n"
        f"    n = len({prefix}log)\n"
        f"    {prefix}log.append(({j}, args, kwargs))\n"
        f"    if n < len({prefix}answers):\n"
        f"        return {prefix}answers[n]\n"
        f"    return {h}(*args, **kwargs)\n" for j, h in enumerate(helpers))
    return (f"{prefix}answers = []\n{prefix}log = []\n"
            f"def {prefix}set(answers):\n    {prefix}answers[:] = list(answers)\n    del {prefix}log[:]\n"
            f"def {prefix}log_of():\n    return list({prefix}log)\n{stubs}")


def function_replay_source(cells: Sequence[str], name: str, helpers: Sequence[str], prefix: str) -> str | None:
    """The worker-side source of a copy of the notebook's last `def name`, named `{prefix}fn`, calling the stubs
    (_stubs) wherever it calls one of `helpers`; None where there is no readable def."""
    from autograder.grading.source_checks import last_function_def
    found = last_function_def(cells, name, MAX_SOURCE_CHARS)
    if found is None:
        return None
    try:
        fn = _Renamed({h: f"{prefix}stub_{j}" for j, h in enumerate(helpers)}).visit(copy.deepcopy(found))
        fn.name, fn.decorator_list = f"{prefix}fn", []
        return f"{_stubs(helpers, prefix)}\n{ast.unparse(ast.fix_missing_locations(fn))}\n"
    except (RecursionError, ValueError, TypeError, AttributeError):
        return None


def blame_helpers(reports: Sequence[Any], namespace: Any, references: Mapping[str, Any], cells: Sequence[str],
                  rerun: Rerun, takes: Mapping[tuple[str, str], Sequence[str]], clock: Any,
                  helper_of: Mapping[tuple[str, str], str], same_answer: Callable[[Any, Any], bool],
                  optional_calls: Any, cut_short: type[BaseException], key_of: Callable[[Any], str],
                  tried: set[tuple[tuple[str, str], tuple[str, ...]]] | None = None) -> list[Any]:
    """The reports, each failed one that names nothing now named by a helper's diagnosis where what its test
    takes calls notebook functions whose own tests failed with a name, and the test passes with those functions'
    right answers in their place: a value test (values of one cell, with references) by replaying that cell; a
    test of a function (the notebook's def calls the helper) by rerunning it with a copy of the function that
    calls the replay. `helper_of`: each test -> the function its first call was of; `key_of(report)`: "" where
    the report may be named here. `tried` (kept by the caller across calls): the (test, helpers) replays already
    made, not made again (a second call after the one-edit search replays only what its new names add)."""
    from autograder.grading.source_checks import cells_assigning_globally
    diagnosis: dict[str, Any] = {}           # a notebook function -> a failed, named report of its own tests
    for r in reports:
        fn = helper_of.get((r.question, r.name))
        if fn and r.status == "failed" and r.misconception and not r.withheld_by and fn not in diagnosis:
            diagnosis[fn] = r
    if not diagnosis:
        return list(reports)
    verdicts: dict[tuple[str, str], tuple[Any, list[str], str]] = {}
    for r in reports:
        key = (r.question, r.name)
        if r.status != "failed" or r.withheld_by or key_of(r) or clock.over():
            continue
        taken = takes.get(key, ())
        values = [n for n in taken if n in references and not callable(references[n])]
        tested = helper_of.get(key, "")          # the function the test is about: its first call's
        try:
            with optional_calls(clock.wall_deadline):
                if values:       # a value test (it may also take functions, to probe with)
                    made = {n: cells_assigning_globally(cells, n) for n in values}
                    where = {m[-1] for m in made.values() if m}
                    if len(where) != 1 or not all(made.values()):
                        continue
                    cell = cells[where.pop()]
                    helpers = [h for h in calls_in_cell(cell) if h in diagnosis and callable(references.get(h))]
                    if helpers and _first_try(tried, key, helpers) and _cell_replayed(
                            cell, values, key, helpers, namespace, references, rerun, clock, same_answer):
                        verdicts[key] = (diagnosis[helpers[0]], helpers, " and ".join(f"`{n}`" for n in values))
                elif tested in taken and callable(references.get(tested)):
                    helpers = [h for h in _called_by(cells, tested) if h in diagnosis and callable(references.get(h))]
                    if helpers and _first_try(tried, key, helpers) and _function_replayed(
                            cells, tested, key, helpers, namespace, references, rerun, clock, same_answer):
                        verdicts[key] = (diagnosis[helpers[0]], helpers, f"`{tested}`")
        except cut_short:
            break
    out = []
    for r in reports:
        found = verdicts.get((r.question, r.name))
        if found is not None:
            helper_report, helpers, what = found
            by = " and ".join(f"`{h}`" for h in helpers)
            said = (f"{what} fails this test only because {by} {'are' if len(helpers) > 1 else 'is'} wrong: with the "
                    f"right answers of {by} in {'their' if len(helpers) > 1 else 'its'} place, it passes. What "
                    f"{by}'s own test ({helper_report.question} {helper_report.name}) found: ")
            r = r.model_copy(update={"misconception": helper_report.misconception,
                                     "message": (said + helper_report.message)[:1400]})
        out.append(r)
    return out


def _first_try(tried: set[tuple[tuple[str, str], tuple[str, ...]]] | None, key: tuple[str, str],
               helpers: Sequence[str]) -> bool:
    """Whether this test has not been replayed with these helpers yet (and, from now on, it has)."""
    if tried is None:
        return True
    attempt = (key, tuple(helpers))
    if attempt in tried:
        return False
    tried.add(attempt)
    return True


def _called_by(cells: Sequence[str], name: str) -> list[str]:
    """The plain names the notebook's last `def name` calls, each once."""
    from autograder.grading.source_checks import last_function_def
    found = last_function_def(cells, name, MAX_SOURCE_CHARS)
    return [] if found is None else list(dict.fromkeys(
        n.func.id for n in ast.walk(found) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        and n.func.id != name))


def _answers(log: Any, helpers: Sequence[str], references: Mapping[str, Any]) -> list[Any] | None:
    """The reference's answer to each logged call of a helper, in order; None where the log is not one the stubs
    make, is too long, or the reference refuses an argument (then the helper is not the only cause)."""
    if not isinstance(log, (list, tuple)) or len(log) > MAX_CALLS:
        return None
    out = []
    for entry in log:
        if not (isinstance(entry, (list, tuple)) and len(entry) == 3 and isinstance(entry[0], int)
                and 0 <= entry[0] < len(helpers) and isinstance(entry[1], (list, tuple)) and isinstance(entry[2], dict)
                and all(isinstance(k, str) for k in entry[2])):
            return None
        if sum(a.numel() for a in (*entry[1], *entry[2].values()) if isinstance(a, torch.Tensor)) > MAX_ELEMENTS:
            return None       # the worker's arguments (student data) are not the grader's to compute on at any size
        try:
            out.append(references[helpers[entry[0]]](*entry[1], **entry[2]))
        except Exception:  # noqa: BLE001 - an argument the reference refuses
            return None
    return out


def _settled(fresh: Sequence[Any], answers: Sequence[Any], same_answer: Callable[[Any, Any], bool]) -> bool:
    """Whether every call made was answered from `answers` with the reference's answer to its own arguments."""
    return 0 < len(fresh) <= len(answers) and all(same_answer(a, b) for a, b in zip(fresh, answers))


def _replay(namespace: Any, prefix: str, helpers: Sequence[str], references: Mapping[str, Any], clock: Any,
            same_answer: Callable[[Any, Any], bool], run_once: Callable[[], tuple[Any, Any]]) -> Any:
    """What `run_once()` (-> (its outcome, the stubs' log)) gives once the helpers' answers have settled: each
    round sets the reference's answers to the last round's logged calls (an answer may change the next call's
    arguments) until every call made was answered right from them; None where they do not settle in MAX_ROUNDS,
    the log is refused (_answers), or the budget ends."""
    answers: list[Any] = []
    for _ in range(MAX_ROUNDS):
        if clock.over():
            return None
        namespace.call_copy(f"{prefix}set", (answers,), {})
        got = run_once()
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            return None                   # the worker's reply is not what the stubs return
        outcome, log = got
        fresh = _answers(log, helpers, references)
        if fresh is None:
            return None
        if _settled(fresh, answers, same_answer):
            return outcome
        answers = fresh
    return None


def _cell_replayed(cell: str, names: Sequence[str], key: tuple[str, str], helpers: Sequence[str], namespace: Any,
                   references: Mapping[str, Any], rerun: Rerun, clock: Any,
                   same_answer: Callable[[Any, Any], bool]) -> bool:
    """Whether the cell, with `helpers` answering as the reference does, gives values with which the test passes."""
    prefix = f"_ag_blame_{secrets.token_hex(4)}_"
    source = replay_source(cell, names, helpers, prefix)
    if source is None or not namespace.define(source, clock.wall_left()):
        return False
    ran = _replay(namespace, prefix, helpers, references, clock, same_answer,
                  lambda: namespace.call_copy(f"{prefix}run", (), {}))
    if ran is not True:
        return False          # unsettled, or the cell stops even with right answers: a mistake of its own
    values = {n: f"{prefix}v{i}" for i, n in enumerate(names)}
    assign = "\n".join(f"{v} = _got[{i}]" for i, v in enumerate(values.values()))
    return namespace.define(f"_got = {prefix}values()\n{assign}\ndel _got", clock.wall_left()) and rerun(key, values)


def _function_replayed(cells: Sequence[str], name: str, key: tuple[str, str], helpers: Sequence[str],
                       namespace: Any, references: Mapping[str, Any], rerun: Rerun, clock: Any,
                       same_answer: Callable[[Any, Any], bool]) -> bool:
    """Whether the test passes with a copy of `name` whose calls of `helpers` answer as the reference does (the
    test's inputs are its own each time: the answers settle in a few reruns)."""
    prefix = f"_ag_blame_{secrets.token_hex(4)}_"
    source = function_replay_source(cells, name, helpers, prefix)
    if source is None or not namespace.define(source, clock.wall_left()):
        return False
    return _replay(namespace, prefix, helpers, references, clock, same_answer,
                   lambda: (rerun(key, {name: f"{prefix}fn"}), namespace.call_copy(f"{prefix}log_of", (), {}))) is True


__all__ = ["blame_helpers", "calls_in_cell", "function_replay_source", "replay_source"]
