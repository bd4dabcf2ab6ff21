"""sdpa-from-scratch, naming round 55 (after blind55): a shape list given a second name (`out_shape = weights_shape`,
or `a = b = [...]`) and then changed in place through one of them (y[i] = ..., .append, +=) is list_aliased_not_copied,
named only where the cell's bindings, replayed with the list shared, give the student's shape and, replayed with
each such binding a copy, the right one (so weights_as_output no longer fires on it; a wrong shape the copy keeps
stays what it was); np.var / np.std of a torch tensor (a cell stopped on torch's "got (ddof=int, dtype=NoneType,
out=NoneType, axis=...)") stays numpy_keyword and now says NumPy hands the tensor to its own .var with NumPy's
keywords, so leaving ddof out still fails (x.var(ddof=1) says torch's words only); a square mask from one length
(causal_ignores_T_k) whose causal_mask calls generate_square_subsequent_mask says that helper makes square masks
only; a q7 letter worked out by `match.any()` (true as soon as one entry matches) or by `verdict is False` (a tensor
is never the object False) stays answer_computed_by_code and says so, where the branch that form always takes is
the student's letter and the other one the answer. Each kind is graded through the sandbox on variants of its
own, with correct neighbours at full marks."""
from __future__ import annotations

import time

import pytest

from autograder.grading.checks import Misconception
from autograder.grading.runner import SubmissionInfo
from tests.heldout.harness import graded_as
from tests.hidden_modules import load

diag = load("sdpa-from-scratch", "_diagnose", "_test_sdpa_round55_diagnose")

DOC = "    \"\"\"(T_q, T_k) bool mask, True where query i may see key j.\"\"\"\n"
TRAP = ("_g = torch.Generator().manual_seed(0)\n"
        "_scores = torch.randn(4, 4, generator=_g, dtype=torch.float64)\n"
        "_mask = causal_mask(4)\n"
        "_right = stable_softmax(_scores.masked_fill(~_mask, float('-inf')), dim=-1)\n"
        "_short = F.softmax(_scores, dim=-1)\n"
        "_short[~_mask] = 0.0\n")


def _shapes(lines):
    return {"weights_shape": lines}


def _variances(line):
    return {"raw_score_var": "import numpy as np\ntorch.manual_seed(0)\nQe = torch.randn(2, 5, 8)\n"
                             "Ke = torch.randn(2, 5, 8)\nraw_scores = Qe @ Ke.transpose(-2, -1)\n" + line +
                             "scaled_score_var = (raw_scores / math.sqrt(Qe.shape[-1])).var().item()\n"
                             "scale_divisor = math.sqrt(64)\n"}


def _mask(body):
    return {"causal_mask": "def causal_mask(T_q, T_k=None):\n" + DOC + "    if T_k is None:\n        T_k = T_q\n"
                           + body}


def _trap(lines):
    return {"q_trap_answer": TRAP + lines}


# (key, the questions it may be charged in, words its message must hold, variants)
WRONG = {
    "list_aliased_not_copied": ("list_aliased_not_copied", ("q1",), "second name", [
        _shapes("weights_shape = [4, 10, 10]\nout_shape = weights_shape\nout_shape[2] = 128\n"),
        _shapes("weights_shape = out_shape = [4, 10, 10]\nout_shape[-1] = 128\n"),
        _shapes("out_shape = [4, 10, 128]\nweights_shape = out_shape      # same batch and queries\n"
                "weights_shape[-1] = 10\nprint(weights_shape)\n"
                "weights_shape, out_shape = tuple(weights_shape), tuple(out_shape)\n"),
        _shapes("_base = [4, 10]\nweights_shape = _base\nweights_shape.append(10)\nout_shape = _base\n"
                "out_shape.append(128)\n"),
        _shapes("weights_shape = [4, 10]\nout_shape = weights_shape\nweights_shape += [10]\nout_shape += [128]\n"),
    ]),
    "np_var_of_tensor": ("numpy_keyword", ("q2",), "calls the tensor's own", [
        _variances("raw_score_var = float(np.var(raw_scores))\n"),
        _variances("raw_score_var = float(np.std(raw_scores, ddof=1)) ** 2\n"),
        _variances("raw_score_var = np.var(raw_scores, axis=-1, keepdims=True).mean().item()\n"),
    ]),
    "square_helper": ("causal_ignores_T_k", ("q4", "q5", "q6"), "generate_square_subsequent_mask", [
        _mask("    return torch.nn.Transformer.generate_square_subsequent_mask(T_q) == 0\n"),
        _mask("    from torch.nn import Transformer\n"
              "    bias = Transformer.generate_square_subsequent_mask(T_k)\n    return ~torch.isinf(bias)\n"),
    ]),
    "any_of_a_match": ("answer_computed_by_code", ("q7",), "True as soon as one entry matches", [
        _trap("q_trap_answer = 'A' if torch.isclose(_short, _right).any() else 'C'\n"),
        _trap("_eq = (_short == _right)\nif _eq.any():\n    q_trap_answer = 'A'\nelse:\n    q_trap_answer = 'C'\n"),
        _trap("q_trap_answer = 'C' if not torch.any(torch.isclose(_short, _right)) else 'A'\n"),
    ]),
    "is_false_on_a_tensor": ("answer_computed_by_code", ("q7",), "the very object", [
        _trap("_same = torch.isclose(_short, _right).all()\nq_trap_answer = 'C' if _same is False else 'A'\n"),
        _trap("_same = (_short == _right).all()\nif _same is not False:\n    q_trap_answer = 'A'\n"
              "else:\n    q_trap_answer = 'C'\n"),
    ]),
}

CORRECT = [
    _shapes("weights_shape = [4, 10, 10]\nout_shape = list(weights_shape)\nout_shape[-1] = 128\n"),
    _shapes("weights_shape = [4, 10, 10]\nout_shape = weights_shape.copy()\nout_shape += []\nout_shape[2] = 128\n"),
    _variances("raw_score_var = float(np.var(raw_scores.numpy(), ddof=1))\n"),
    _mask("    n = max(T_q, T_k)\n"
          "    return torch.nn.Transformer.generate_square_subsequent_mask(n)[:T_q, :T_k] == 0\n"),
    _trap("q_trap_answer = 'A' if torch.isclose(_short, _right).all() else 'C'\n"),
    _trap("_same = torch.allclose(_short, _right)\nq_trap_answer = 'C' if _same is False else 'A'\n"),
]

# wrong, but not these forms: the key and words above are not given (the words are another kind's or none)
UNNAMED = {
    "list_aliased_not_copied": ("list_aliased_not_copied", [
        _shapes("weights_shape = [4, 10, 128]\nout_shape = weights_shape\nout_shape[-1] = 128\n"),
        _shapes("weights_shape = [4, 10, 128]\nout_shape = [4, 10, 128]\n"),
    ]),
    "np_var_of_tensor": ("calls the tensor's own", [_variances("raw_score_var = raw_scores.var(ddof=1).item()\n")]),
    "square_helper": ("generate_square_subsequent_mask", [
        _mask("    return torch.tril(torch.ones(T_q, T_q, dtype=torch.bool))\n")]),
    "any_of_a_match": ("True as soon as one entry matches", [
        _trap("q_trap_answer = 'A' if (_short != _right).any() else 'C'\n")]),
    "is_false_on_a_tensor": ("the very object", [
        _trap("_same = torch.allclose(_short, _right)\nq_trap_answer = 'A' if _same is False else 'C'\n")]),
}


# --- unit: the alias replay ---------------------------------------------------------------------------------------

def _named_alias(source, got, right=(4, 10, 10), what="weights_shape"):
    try:
        diag.name_list_aliased(got, right, what, SubmissionInfo(source=source, cells=(source,)))
    except Misconception as e:
        return e.key
    return None


def test_the_alias_replay_names_only_what_sharing_gives():
    shared = "weights_shape = [4, 10, 10]\nout_shape = weights_shape\nout_shape[-1] = 128\n"
    assert _named_alias(shared, (4, 10, 128)) == "list_aliased_not_copied"
    assert _named_alias(shared, (4, 10, 64)) is None              # not the value the sharing gives
    assert _named_alias(shared.replace("= weights_shape", "= list(weights_shape)"), (4, 10, 128)) is None
    # a statement the replay cannot follow (a loop over the list) names nothing
    assert _named_alias(shared + "for i in range(2):\n    out_shape[i] += 0\n", (4, 10, 128)) is None


def test_the_alias_replay_is_bounded():
    # a list grown past a shape's size, a repeated list, and thousands of statements: nothing named, at once
    grow = "weights_shape = [4]\nout_shape = weights_shape\n" + "out_shape.append(1)\n" * 40
    huge = "weights_shape = [4, 10, 10]\nout_shape = weights_shape\n" + "out_shape[-1] = 128\n" * 5000
    rep = "weights_shape = [4, 10, 10]\nout_shape = weights_shape\nout_shape *= 10 ** 9\n"
    start = time.process_time()
    for source in (grow, huge, rep):
        assert _named_alias(source, (4, 10, 128)) is None
    assert time.process_time() - start < 2.0


_graded = graded_as("sdpa-from-scratch", "round55")


@pytest.mark.parametrize("kind, cells", [(k, c) for k, (_k, _w, _s, cs) in WRONG.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_k, _w, _s, cs) in WRONG.items() for i in range(len(cs))])
def test_each_kind_is_named_through_the_sandbox(grader, kind, cells):
    key, where, words, _cells = WRONG[kind]
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    named = [(q, m) for q, _t, k, m in outcome.failed if k == key]
    assert named and all(q in where for q, _m in named), outcome.explain()
    assert all(words in m for _q, m in named), outcome.explain()
    # no other catalogued key on any failure: the dependency's one_edit_fix or nothing (a generic message)
    assert all(k in (key, None, "one_edit_fix") for _q, _t, k, _m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("kind, cells", [(k, c) for k, (_s, cs) in UNNAMED.items() for c in cs],
                         ids=[f"{k}-{i}" for k, (_s, cs) in UNNAMED.items() for i in range(len(cs))])
def test_look_alikes_are_not_named_so(grader, kind, cells):
    said = UNNAMED[kind][0]
    outcome = _graded(grader, cells)
    assert outcome.status == "graded" and outcome.failed, outcome.explain()
    assert all(k != said and said not in (m or "") for _q, _t, k, m in outcome.failed), outcome.explain()


@pytest.mark.parametrize("cells", CORRECT, ids=[f"{next(iter(c))}-{i}" for i, c in enumerate(CORRECT)])
def test_correct_neighbours_keep_full_marks(grader, cells):
    outcome = _graded(grader, cells)
    assert outcome.full_marks, outcome.explain()
