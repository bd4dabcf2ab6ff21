"""A trace cell's value wrong only because a helper it calls is wrong (autograder/grading/helper_blame.py): the
cell is replayed in the worker with the helper's right answers, the test rerun on what it gives, and only where
it then passes is the value named by the helper's own diagnosis. Each case has a near miss: the same wrong
helper with a slip of the cell's own keeps the cell's own message."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import torch

from autograder.grading.grader import Grader
from autograder.grading.helper_blame import calls_in_cell, replay_source
from autograder.grading.repair import KEY
from tests.heldout.harness import Variant, grade
from tests.test_repair import NOTEBOOK_SDPA

TRACE = '''scores3 = Q3 @ K3.T / math.sqrt(4)
weights3 = stable_softmax(scores3, dim=-1)
out3 = weights3 @ V3
weights3_causal = stable_softmax(scores3.masked_fill(~causal_mask(3), float("-inf")), dim=-1)
'''


def _graded(grader: Grader, cells: dict[str, str]) -> Any:
    with tempfile.TemporaryDirectory() as tmp:
        return grade(grader, Variant("sdpa-from-scratch", "blame", cells, False), Path(tmp))


def _failed(outcome: Any, test: str) -> tuple[str | None, str]:
    found = [(k, m) for q, n, k, m in outcome.failed if n == test]
    assert found, outcome.failed
    return found[0]


def test_a_trace_value_wrong_only_through_its_softmax_is_named_by_the_softmaxs_diagnosis(grader: Grader) -> None:
    # each row's smallest entry subtracted: right wherever nothing is -inf, NaN on the causal trace's first row
    lowest = ("def stable_softmax(x, dim=-1):\n    low = torch.amin(x, dim, keepdim=True)\n"
              "    e = torch.exp(x - low)\n    return e / e.sum(dim, keepdim=True)\n")
    outcome = _graded(grader, {"stable_softmax": lowest})
    key, said = _failed(outcome, "test_weights3_causal")
    own = {k for q, n, k, _ in outcome.failed if q == "q3"}
    assert key in own and key is not None, (key, own)
    assert said.startswith("`weights3_causal` fails this test only because `stable_softmax` is wrong"), said
    # near miss: the same softmax, and the trace cell masks the wrong triangle: the replay does not pass
    slipped = TRACE.replace("~causal_mask(3)", "causal_mask(3)")
    outcome = _graded(grader, {"stable_softmax": lowest, "weights3": slipped})
    key, said = _failed(outcome, "test_weights3_causal")
    assert "only because" not in said, said


def test_a_trace_cell_stopped_inside_a_helper_is_named_by_the_helpers_one_edit_fix(grader: Grader) -> None:
    # a negative dim made positive the wrong way: IndexError inside the helper stops the trace cell
    wrong_dim = ("def stable_softmax(x, dim=-1):\n    d = dim\n    if d < 0:\n        d = x.ndim - d\n"
                 "    e = torch.exp(x - x.max(dim=d, keepdim=True).values)\n    return e / e.sum(dim=d, keepdim=True)\n")
    outcome = _graded(grader, {"stable_softmax": wrong_dim})
    key, said = _failed(outcome, "test_weights3_causal")
    assert key == KEY and said.startswith("`weights3_causal` fails this test only because `stable_softmax` is wrong"), said
    assert "`x.ndim + d` in place of `x.ndim - d`" in said, said


MIDDLE = ("def stable_softmax(x, dim=-1):\n    n = x.shape[dim]\n"
          "    middle = x.sort(dim=dim).values.narrow(dim, (n - 1) // 2, 1)\n"
          "    e = torch.exp(x - middle)\n    return e / e.sum(dim=dim, keepdim=True)\n")


def test_a_function_failing_only_through_its_helper_is_named_by_the_helpers_diagnosis(grader: Grader) -> None:
    # a middle entry subtracted: the attention is right wherever nothing overflows and no row is mostly masked;
    # its bfloat16 test (a random mask) is rerun with the softmax's right answers in its place, and passes
    outcome = _graded(grader, {"stable_softmax": MIDDLE})
    own = {k for q, n, k, _ in outcome.failed if q == "q3"}
    blamed = [(n, k, m) for q, n, k, m in outcome.failed if q == "q5" and "only because" in m]
    assert blamed and all(k in own and k is not None for _, k, _ in blamed), (own, blamed)
    assert all(m.startswith("`scaled_dot_product_attention` fails this test only because `stable_softmax` is wrong")
               for *_, m in blamed), blamed
    # near miss: the same softmax under an attention that scales by d_k: no rerun passes, nothing is blamed
    slipped = NOTEBOOK_SDPA.replace("math.sqrt(d_k)", "d_k")
    outcome = _graded(grader, {"stable_softmax": MIDDLE, "scaled_dot_product_attention": slipped})
    assert all("only because" not in m for q, n, k, m in outcome.failed if q == "q5"), outcome.failed




def test_a_helper_with_no_name_lends_none(grader: Grader) -> None:
    # the causal mask right, the softmax right: a trace cell with its own slip is told its own way
    outcome = _graded(grader, {"weights3": TRACE.replace("math.sqrt(4)", "4")})
    assert all("only because" not in m for *_, m in outcome.failed), outcome.failed


def test_the_replay_runs_the_cell_as_a_function_with_logged_and_answered_helpers() -> None:
    src = replay_source("y = f(x) + 1\nz = f(y)\n", ["y", "z"], ["f"], "_p_")
    assert src is not None
    ns: dict[str, Any] = {"x": torch.tensor(1.0), "f": lambda t: t * 10}
    exec(src, ns)
    ran, log = ns["_p_run"]()
    assert ran and [e[1][0].item() for e in log] == [1.0, 11.0]          # the student's f, logged
    ns["_p_set"]([torch.tensor(2.0), torch.tensor(3.0)])
    ran, log = ns["_p_run"]()
    assert ran and [e[1][0].item() for e in log] == [1.0, 3.0]           # answered in call order
    y, z = ns["_p_values"]()
    assert (y.item(), z.item()) == (3.0, 3.0) and "y" not in ns           # the cell's names stay local
    ns["f"] = lambda t: t[5]                                             # a helper that crashes: run says so
    ns["_p_set"]([])
    assert ns["_p_run"]()[0] is False


def test_cells_the_replay_leaves_alone() -> None:
    assert replay_source("global y\ny = f(1)\n", ["y"], ["f"], "_p_") is None
    assert replay_source("y = f(1\n", ["y"], ["f"], "_p_") is None
    assert replay_source("y = 1\n" * 2000, ["y"], ["f"], "_p_") is None
    assert calls_in_cell("a = f(g(1)) + h.k(2)\nb = f(3)\n") == ["f", "g"]
    assert calls_in_cell("def (") == []


def test_a_log_from_the_worker_is_checked_before_the_reference_sees_it() -> None:
    from autograder.grading.helper_blame import MAX_ELEMENTS, _answers
    refs = {"f": lambda x, dim=-1: torch.softmax(x, dim=dim)}
    ok = _answers([(0, (torch.zeros(2, 3),), {"dim": -1})], ["f"], refs)
    assert ok is not None and len(ok) == 1
    hostile: Any
    for hostile in ([(1, (torch.zeros(2),), {})],                       # a helper number out of range
                    [(0, (torch.zeros(2),), {1: 2})],                   # a keyword that is not a name
                    [(0, (torch.zeros(MAX_ELEMENTS + 1),), {})],        # an argument too large to compute on here
                    [(0, (torch.zeros(2),), {"nope": 1})],              # what the reference refuses
                    "not a log", [(0, (), {})] * 1000):                # too many calls
        assert _answers(hostile, ["f"], refs) is None, hostile


def test_a_worker_that_answers_the_replay_with_anything_else_names_nothing() -> None:
    from autograder.grading.helper_blame import _replay

    class Clock:
        def over(self) -> bool:
            return False

    class Worker:            # a hostile worker: its replies are whatever it likes
        def __init__(self, reply: Any) -> None:
            self.reply = reply

        def call_copy(self, name: str, args: Any, kwargs: Any) -> Any:
            return None if name.endswith("set") else self.reply
    refs = {"f": lambda x: x}
    for reply in (None, "x", (True,), (True, "not a log"), (True, [(0, "args", {})]), [1, 2, 3], (True, [(7, (), {})])):
        worker = Worker(reply)
        assert _replay(worker, "_p_", ["f"], refs, Clock(), lambda a, b: True,
                       lambda w=worker: w.call_copy("_p_run", (), {})) is None, reply


def test_a_replay_is_made_once_per_test_and_helpers() -> None:
    from autograder.grading.helper_blame import _first_try
    tried: set[tuple[tuple[str, str], tuple[str, ...]]] = set()
    assert _first_try(tried, ("q6", "t"), ["f"]) and not _first_try(tried, ("q6", "t"), ["f"])
    assert _first_try(tried, ("q6", "t"), ["f", "g"])        # another helper named since: a new replay
    assert _first_try(None, ("q6", "t"), ["f"]) and _first_try(None, ("q6", "t"), ["f"])
