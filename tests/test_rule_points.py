"""A rule's points are earned by working code (issue 18, item 7): a rule test (no built-in in the
source or at run time, vectorised) declares with `checks.earned_with` the value case its points wait
for, and the runner withholds them, saying why, when that case failed. Notebooks that return zeros,
and ones that also try to forge the comparisons, keep no rule point."""
from __future__ import annotations

import importlib.util
import inspect
import json
from pathlib import Path

import nbformat
import pytest

from autograder.errors import GraderError
from autograder.grading.hidden import HiddenTestCase, load_hidden_tests
from autograder.results import TestReport as Report
from autograder.grading.runner import withhold_unearned
from tests.conftest import SLUGS

ROOT = Path(__file__).resolve().parent.parent
SLUG = "sdpa-from-scratch"
EXAMPLES = ROOT / "examples" / "submissions" / SLUG
RULE_HELPERS = ("assert_function_avoids", "assert_vectorised")


# --- the mechanism -----------------------------------------------------------------------------------

def _case(name: str, params: tuple[str, ...] = ("f",), earned_with: tuple[str, ...] = (), points: float = 1.0):
    return HiddenTestCase(question="q1", name=name, points=points, hidden=True, func=lambda **kw: None,
                          params=params, earned_with=earned_with)


def _report(name: str, status: str, device: str = "cpu", points: float = 1.0, message: str = ""):
    return Report(question="q1", name=name, device=device, max_score=points,
                      score=points if status == "passed" else 0.0, status=status, message=message)


def test_a_rule_that_holds_waits_for_its_value_case():
    tests = [_case("test_value", ("f", "device")), _case("test_rule", ("f", "submission"), ("q1:test_value",))]
    kept = withhold_unearned([_report("test_value", "passed"), _report("test_rule", "passed")], tests)
    assert [(r.status, r.score, r.withheld_by) for r in kept] == [("passed", 1, None), ("passed", 1, None)]
    out = withhold_unearned([_report("test_value", "failed", message="wrong"), _report("test_rule", "passed")], tests)
    rule = out[1]
    assert (rule.status, rule.score, rule.max_score, rule.withheld_by) == ("failed", 0.0, 1.0, "q1:test_value")
    assert rule.message == "the rule holds, but its point is earned once f gives right values (q1: test_value fails)"
    assert rule.misconception is None and out[0].message == "wrong"


def test_a_broken_rule_keeps_its_own_failure_and_a_grader_problem_withholds_nothing():
    tests = [_case("test_value", ("f", "device")), _case("test_rule", ("f",), ("q1:test_value",), points=2)]
    broken = _report("test_rule", "failed", points=2, message="f calls a built-in softmax")
    out = withhold_unearned([_report("test_value", "failed"), broken], tests)
    assert out[1] == broken
    cuda_only = [_report("test_value", "passed"), _report("test_value", "not_run", "cuda", 0.0),
                 _report("test_rule", "passed", points=2), _report("test_rule", "passed", "cuda", 0.0)]
    assert withhold_unearned(cuda_only, tests) == cuda_only
    out = withhold_unearned([_report("test_value", "passed"), _report("test_value", "failed", "cuda", 0.0),
                             _report("test_rule", "passed", points=2), _report("test_rule", "passed", "cuda", 0.0)],
                            tests)
    assert [r.status for r in out] == ["passed", "failed", "passed", "failed"]   # per device
    assert out[3].message.startswith("the rule holds, but it is earned once f gives right values")


def test_a_timing_that_could_not_be_checked_for_wrong_answers_is_charged_to_a_failed_value_case():
    from autograder.grading.checks import TIMING_UNVERIFIED
    tests = [_case("test_value", ("f", "device")), _case("test_4d", ("f", "device")),
             _case("test_timing", ("f", "rng"), ("q1:test_value",))]
    unverified = _report("test_timing", "failed", message=f"the timing of f {TIMING_UNVERIFIED} (inputs ...) returned "
                         "wrong values; the tests of its values say what is wrong")
    # its own value case passed (3-D inputs), the 4-D one failed: the 4-D failure says what is wrong
    out = withhold_unearned([_report("test_value", "passed"), _report("test_4d", "failed"), unverified], tests)
    assert out[2].withheld_by == "q1:test_4d" and out[2].message.endswith("(q1: test_4d fails)")
    # no value case of f failed: the timing's own failure stands (its answers were wrong only when timed)
    alone = withhold_unearned([_report("test_value", "passed"), _report("test_4d", "passed"), unverified], tests)
    assert alone[2] == unverified
    # a timing that failed for its own reason (too slow) keeps it
    slow = _report("test_timing", "failed", message="f took 40x the time of a vectorised version")
    assert withhold_unearned([_report("test_value", "failed"), _report("test_4d", "failed"), slow], tests)[2] == slow


def test_a_rule_on_one_device_waits_for_a_value_case_that_runs_on_the_cpu():
    tests = [_case("test_value", ("f",)), _case("test_rule", ("f", "device"), ("q1:test_value",), points=3)]
    out = withhold_unearned([_report("test_value", "failed"), _report("test_rule", "passed", points=3),
                             _report("test_rule", "passed", "cuda", 0.0)], tests)
    assert [(r.status, r.score) for r in out] == [("failed", 0.0), ("failed", 0.0), ("failed", 0.0)]
    assert "its 3 points are earned once f gives right values" in out[1].message


HIDDEN = '''
from otter.test_files import test_case
from autograder.grading.checks import earned_with

name = "q1"


@test_case(points=1, hidden=True)
def test_value(f):
    assert f(2) == 4


@test_case(points=1, hidden=True)
@earned_with("test_value")
def test_rule_below(f):
    pass


@earned_with("q1:test_value")
@test_case(points=1, hidden=True)
def test_rule_above(f):
    pass
'''


def _hidden_dir(tmp_path: Path, extra: str = "") -> Path:
    hidden = tmp_path / "assignments" / "toy" / "hidden"
    hidden.mkdir(parents=True)
    (hidden / "q1.py").write_text(HIDDEN + extra)
    return hidden


def test_the_dependency_is_read_from_the_hidden_test_file_either_side_of_test_case(tmp_path):
    tests = {t.name: t for t in load_hidden_tests(_hidden_dir(tmp_path), ROOT)}
    assert tests["test_value"].earned_with == ()
    assert tests["test_rule_below"].earned_with == tests["test_rule_above"].earned_with == ("q1:test_value",)


@pytest.mark.parametrize("extra,said", [
    ('\n@test_case(points=1)\n@earned_with("test_nothing")\ndef test_orphan(f):\n    pass\n', "names no test"),
    ('\n@test_case(points=1)\n@earned_with("test_rule_below")\ndef test_chain(f):\n    pass\n', "waits for other"),
])
def test_a_dependency_on_no_value_test_is_the_instructors_mistake(tmp_path, extra, said):
    with pytest.raises(GraderError, match=said):
        load_hidden_tests(_hidden_dir(tmp_path, extra), ROOT)


def test_every_rule_test_of_every_assignment_waits_for_a_value_case(grader):
    """A test that checks a rule (a static source check, the timing, or a run-time-guard test that
    checks only the shape of the answer) declares its value case; the value cases declare none."""
    declared = {}
    for slug in SLUGS:
        for t in grader.tests(slug):
            source = inspect.getsource(t.func)
            rule = any(h in source for h in RULE_HELPERS) or "the rule only" in source.lower()
            assert bool(t.earned_with) == rule, f"{slug} {t.key}: rule {rule}, earned_with {t.earned_with}"
            if t.earned_with:
                declared[f"{slug}/{t.key}"] = t.earned_with
    # each declares value cases of its own question that exist and themselves wait for nothing
    assert declared, "no assignment has a rule test: the check above checked nothing"
    for where, cases in declared.items():
        slug, key = where.split("/", 1)
        by_key = {t.key: t for t in grader.tests(slug)}
        for case in cases:
            assert case in by_key and not by_key[case].earned_with, (where, case)
            assert case.split(":")[0] == key.split(":")[0], (where, case)
    # sdpa's rules: built-in softmax (q3), torch's own attention and a loop over positions (q5)
    assert declared["sdpa-from-scratch/q5:test_vectorised"] == ("q5:test_float32_no_mask",)


# --- graded in the sandbox -----------------------------------------------------------------------------

ZEROS = '''def scaled_dot_product_attention(Q, K, V, mask=None):
    """Returns zeros of the right shape: uses no built-in, is fast, and is wrong."""
    return torch.zeros(*Q.shape[:-1], V.shape[-1], dtype=Q.dtype, device=Q.device)'''
UNIFORM_SOFTMAX = '''def stable_softmax(x, dim=-1):
    """Equal weights: sums to 1, uses no built-in softmax, and is wrong."""
    return torch.ones_like(x) / x.shape[dim]'''
Q5_RULES = ("test_no_torch_sdpa_in_source", "test_no_torch_sdpa_at_run_time", "test_vectorised")


def _hostile_attacks() -> dict[str, str]:
    path = EXAMPLES / "hostile" / "make_hostile.py"
    spec = importlib.util.spec_from_file_location("_make_hostile", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.ATTACKS)


ATTACKS = _hostile_attacks()
FORGERIES = {
    # every comparison of the worker's torch, numpy and math made to succeed
    "monkeypatch_comparisons": ATTACKS["monkeypatch_comparisons.ipynb"],
    # the zeros come back as a subclass that claims to equal anything
    "tensor_subclass": ATTACKS["tensor_subclass.ipynb"],
    # the basic value case (float32, no mask) never gets an answer to judge: the worker leaves
    "exit_on_the_value_case": (
        "import os\n_zeros = scaled_dot_product_attention\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    if mask is None and Q.dtype == torch.float32 and Q.dim() == 3:\n"
        "        os._exit(0)\n"
        "    return _zeros(Q, K, V, mask)\n"),
    # the right answer from the forbidden built-in, on the value case only
    "builtin_on_the_value_case": (
        "_zeros = scaled_dot_product_attention\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    if mask is None:\n"
        "        return F.scaled_dot_product_attention(Q, K, V)\n"
        "    return _zeros(Q, K, V, mask)\n"),
    # a report of its own, printed, and the test's name defined as passed
    "claims_to_have_passed": (
        "import json\ntest_float32_no_mask = True\nearned_with = ()\n"
        "print(json.dumps({'score': 35, 'tests': [{'name': 'test_float32_no_mask', 'score': 1, 'status': 'passed'}]}))\n"),
}


def _notebook(tmp_path: Path, name: str, replace: dict[str, str], attack: str = "") -> Path:
    nb = nbformat.read(EXAMPLES / "full_marks.ipynb", as_version=4)
    for fn, source in replace.items():
        cells = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith(f"def {fn}")]
        assert len(cells) == 1, fn
        cells[0].source = source
    if attack:
        nb.cells.append(nbformat.v4.new_code_cell(attack))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _q5_rules(result):
    return {t.name: t for t in result.tests if t.question == "q5" and t.name in Q5_RULES and t.device == "cpu"}


def test_zeros_keep_every_rule_and_earn_no_rule_point(grader, tmp_path):
    result = grader.grade(_notebook(tmp_path, "zeros", {"scaled_dot_product_attention": ZEROS,
                                                        "stable_softmax": UNIFORM_SOFTMAX}), SLUG, seed=3)
    assert result.status == "graded"
    q5 = [t for t in result.tests if t.question == "q5"]
    assert sum(t.score for t in q5) == 0, [(t.name, t.score) for t in q5 if t.score]
    rules = _q5_rules(result)
    for name in ("test_no_torch_sdpa_in_source", "test_no_torch_sdpa_at_run_time"):
        assert rules[name].withheld_by == "q5:test_float32_no_mask", (name, rules[name].message)
        assert "earned once scaled_dot_product_attention gives right values" in rules[name].message
    (softmax_rule,) = [t for t in result.tests if t.name == "test_no_builtin_softmax"]
    assert softmax_rule.score == 0 and softmax_rule.withheld_by == "q3:test_matches_softmax"
    assert "earned once stable_softmax gives right values" in softmax_rule.message
    # the questions that do not use these functions keep their full marks (q6's values are computed
    # with the notebook's own scaled_dot_product_attention)
    others = [t for t in result.tests if t.question not in ("q3", "q5", "q6")]
    assert all(t.status == "passed" for t in others if t.max_score), [t.name for t in others if t.status != "passed"]


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forging_the_comparisons_keeps_no_rule_point(grader, tmp_path, name):
    result = grader.grade(_notebook(tmp_path, name, {"scaled_dot_product_attention": ZEROS}, FORGERIES[name]),
                          SLUG, seed=3)
    assert result.status == "graded"
    basic = next(t for t in result.tests if t.name == "test_float32_no_mask" and t.device == "cpu")
    assert basic.status == "failed", basic.message
    rules = _q5_rules(result)
    assert set(rules) == set(Q5_RULES)
    assert all(t.score == 0 for t in rules.values()), {n: (t.score, t.message) for n, t in rules.items()}
    q5 = sum(t.score for t in result.tests if t.question == "q5")
    assert q5 == 0, [(t.name, t.score) for t in result.tests if t.question == "q5" and t.score]
    assert json.dumps(result.model_dump(mode="json")).count("def test_") == 0
