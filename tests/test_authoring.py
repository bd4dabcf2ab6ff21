"""The authoring kit: docs/authoring.md's example is a working hidden test, misconception texts are data
declared once per assignment (shared keys, one text), and the validators say what is wrong."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import torch

from autograder.grading import checks
from autograder.grading.hidden import load_test_file
from autograder.grading.runner import TrustedNamespace, run_tests
from reference import sdpa_from_scratch as ref
from tests.conftest import SLUGS

ROOT = Path(__file__).resolve().parent.parent


def _doc_example() -> str:
    text = (ROOT / "docs" / "authoring.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    return next(b for b in blocks if "@test_case" in b)


@pytest.fixture
def doc_test(tmp_path):
    hidden = tmp_path / "assignments" / "doc-example" / "hidden"
    hidden.mkdir(parents=True)
    (hidden / "q1.py").write_text(_doc_example())
    shutil.copy(ROOT / "assignments" / "sdpa-from-scratch" / "hidden" / "_misconceptions.py", hidden)
    return load_test_file(hidden / "q1.py", ROOT)


def test_the_docs_example_passes_the_reference_and_names_a_wrong_variant(doc_test):
    ok = run_tests(doc_test, TrustedNamespace({"scaled_dot_product_attention": ref.scaled_dot_product_attention}),
                   seed=3)
    assert [r.status for r in ok] == ["passed"] and ok[0].score == 1
    for key, wrong in (("divide_by_dk", ref.sdpa_divide_by_dk), ("scale_by_d_v", ref.sdpa_scale_by_d_v),
                       ("scale_by_T", ref.sdpa_scale_by_T)):
        bad = run_tests(doc_test, TrustedNamespace({"scaled_dot_product_attention": wrong}), seed=3)
        assert bad[0].status == "failed" and bad[0].misconception == key, (key, bad[0].message)
        assert checks.describe(key) in bad[0].message


def _tables() -> dict[str, dict[str, str]]:
    return {slug: checks.load_misconceptions(ROOT / "assignments" / slug / "hidden" / "_misconceptions.py")
            for slug in SLUGS}


def test_a_key_shared_by_assignments_has_one_text():
    seen: dict[str, tuple[str, str]] = {}
    for slug, table in _tables().items():
        for key, text in table.items():
            if key in seen:
                assert seen[key][1] == text, f"{key}: {seen[key][0]} and {slug} say it differently"
            seen[key] = (slug, text)
    for key, text in checks.MISCONCEPTIONS.items():    # the engine's own keys, too
        if key in seen:
            assert seen[key][1] == text, key


def _named_in_hidden(slug: str) -> set[str]:
    """Keys the hidden files name literally: the author's check reads them the same way."""
    from autograder.course.authoring import named_in_hidden
    return named_in_hidden(ROOT / "assignments" / slug / "hidden")


def _variant_keys(slug: str) -> set[str]:
    """Keys the assignment's reference variants can name: its reference module says which
    (`nameable_keys()`); a reference without wrong variants names none this way."""
    import importlib
    module = importlib.import_module("reference." + slug.replace("-", "_"))
    return set(module.nameable_keys()) if hasattr(module, "nameable_keys") else set()


@pytest.mark.parametrize("slug", SLUGS)
def test_every_key_an_assignment_can_name_has_a_text(slug):
    table = _tables()[slug]
    missing = (_named_in_hidden(slug) | _variant_keys(slug)) - set(table) - set(checks.MISCONCEPTIONS)
    assert not missing, f"{slug}: no text in hidden/_misconceptions.py for {sorted(missing)}"


# a hidden test file reads as a list of tests; the diagnosis they share lives in the assignment's
# _diagnose.py (docs/authoring.md)
HIDDEN_FILE_MAX_LINES = 250


@pytest.mark.parametrize("slug", SLUGS)
def test_every_hidden_test_file_is_a_test_list(slug):
    long = {p.name: n for p in sorted((ROOT / "assignments" / slug / "hidden").glob("q*.py"))
            if (n := len(p.read_text().splitlines())) > HIDDEN_FILE_MAX_LINES}
    assert not long, (f"{slug}: hidden test files over {HIDDEN_FILE_MAX_LINES} lines {long}: move their diagnosis "
                      "helpers to hidden/_diagnose.py")


@pytest.mark.parametrize("slug", SLUGS)
def test_no_hidden_file_runs_code_in_the_grader(slug):
    # the trust boundary: student text is parsed in the grader, never run (a q5 diagnosis once exec'd the answer
    # cell there to replay it at another size); student code runs in the worker, reached through the namespace
    import ast
    found = []
    for path in sorted((ROOT / "assignments" / slug / "hidden").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("exec", "eval", "compile", "__import__", "breakpoint")):
                found.append(f"{path.name}:{node.lineno} {node.func.id}()")
    assert not found, f"{slug}: hidden files that run code in the grader: {found}"


@pytest.mark.parametrize("slug", SLUGS)
def test_no_hidden_file_defines_a_name_twice(slug):
    # a helper written later under a taken name replaces the first for every caller: round 47b's `_root_name`
    # (a chain of calls, not through an index) silently broke q8's reading of attention(K[:, cols], Q[:, cols])
    import ast
    import collections
    twice = []
    for path in sorted((ROOT / "assignments" / slug / "hidden").glob("*.py")):
        body = ast.parse(path.read_text()).body
        names = collections.Counter(n.name for n in body if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
        twice += [f"{path.name}: {name}" for name, count in names.items() if count > 1]
    assert not twice, f"{slug}: names defined twice at a hidden file's top level: {twice}"


def _calls_with_a_gradient_tensor(source: str) -> list[int]:
    """Lines of `torch.autograd.grad(out, inputs, g)` / `grad_outputs=` and `x.backward(g)` / `gradient=`:
    the spellings that import sympy. A scalar's `autograd.grad(loss, x)` or `loss.backward(retain_graph=True)`
    do not, and are left alone."""
    import ast
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        keywords = {k.arg for k in node.keywords}
        if node.func.attr == "grad" and (len(node.args) >= 3 or "grad_outputs" in keywords):
            lines.append(node.lineno)
        elif node.func.attr == "backward" and (node.args or "gradient" in keywords):
            lines.append(node.lineno)
    return lines


def test_the_gradient_spelling_check_tells_them_apart():
    assert _calls_with_a_gradient_tensor("torch.autograd.grad(out, [x], g)\n"
                                         "autograd.grad(out, x, grad_outputs=g)\n"
                                         "out.backward(g)\nout.backward(gradient=g)") == [1, 2, 3, 4]
    assert _calls_with_a_gradient_tensor("torch.autograd.grad(loss, [x])\nloss.backward()\n"
                                         "loss.backward(retain_graph=True)\nvector_jacobian_product(o, [x], g)") == []


@pytest.mark.parametrize("slug", SLUGS)
def test_hidden_tests_take_gradients_without_sympy(slug):
    """torch.autograd.grad given a grad_output (and backward(gradient)) imports sympy on first use: 0.9 s
    of the grader's CPU in a grade's start-up; checks.vector_jacobian_product gives the same values."""
    found = [f"{p.name}:{line}" for p in sorted((ROOT / "assignments" / slug / "hidden").glob("*.py"))
             for line in _calls_with_a_gradient_tensor(p.read_text())]
    assert not found, f"{slug}: use checks.vector_jacobian_product instead, at {found}"


def test_validators_say_not_answered_and_what_is_wrong():
    for check, args in ((checks.expect_number, ()), (checks.expect_int, ()), (checks.expect_shape, ()),
                        (checks.expect_tuple, (("O", "A"),)), (checks.expect_matrix, ((2, 2),))):
        for stub in (None, Ellipsis):
            with pytest.raises(AssertionError, match="not answered yet"):
                check(stub, "x", *args)
    assert checks.expect_number(torch.tensor([2.5]), "x") == 2.5
    assert checks.expect_int(4.0, "x") == 4
    with pytest.raises(AssertionError, match="whole number"):
        checks.expect_int(4.5, "x")
    with pytest.raises(AssertionError, match="should be a number"):
        checks.expect_number(True, "x")
    with pytest.raises(AssertionError, match="not answered yet"):
        checks.assert_plain_tensor(None, "the output")
    checks.expect_choice(" (B) ", "ans", answer="b")
    with pytest.raises(checks.Misconception) as e:
        checks.expect_choice("C", "ans", answer="b", wrong={"c": "no_scale"})
    assert e.value.key == "no_scale"
    with pytest.raises(AssertionError, match="one letter"):
        checks.expect_choice("e", "ans", answer="b")


def test_assert_matches_names_one_variant_and_otherwise_says_where():
    right = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    with pytest.raises(checks.Misconception) as e:
        checks.assert_matches(right.T.clone(), right, variants={"scores_transposed": right.T.clone()})
    assert e.value.key == "scores_transposed"               # a variant of another shape
    twins = {"a": right + 1, "b": right + 1}
    with pytest.raises(AssertionError) as e:
        checks.assert_matches(right + 1, right, variants=twins)
    assert not isinstance(e.value, checks.Misconception)    # two matches: neither is named
    off = right.clone()
    off[2, 1] += 0.5
    with pytest.raises(AssertionError, match=r"1 of 12 entries .* at index \(2, 1\)"):
        checks.assert_matches(off, right)
    nan = torch.full_like(right, float("nan"))
    with pytest.raises(AssertionError) as e:                # all-NaN: no evidence for any variant
        checks.assert_matches(nan, right, variants={"pos_inf_fill": nan.clone()})
    assert not isinstance(e.value, checks.Misconception)
