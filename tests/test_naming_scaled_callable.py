"""callable_not_called (naming17, blind15's scaled-attention q2_item_not_called): a function or method object
handed back where a value is due (`return dots.var().item`). The evidence is the type the sandbox's refusal
names, never a value; the refusal itself is unchanged (nothing callable crosses), only its message says more."""
from __future__ import annotations

import functools

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading import checks, runner
from autograder.grading.checks import Misconception, callable_not_called
from autograder.grading.hidden import HiddenTestCase
from autograder.sandbox.protocol import EncodeError, encode_value


def _refusal(value: object) -> StudentCodeError:
    """What a proxy raises when the student's call returned `value` (the worker's error reply)."""
    with pytest.raises(EncodeError) as e:
        encode_value(value)
    return StudentCodeError("EncodeError", str(e.value))


class _Obj:
    def method(self) -> int:
        return 1


def _plain() -> int:
    return 1


X = torch.ones(3)
CALLABLES = {   # what the student returned -> the name the message gives
    "item": X.var().item, "numpy": X.numpy, "tolist": X.tolist, "mean": X.mean, "_plain": _plain,
    "method": _Obj().method, "softmax": torch.softmax,
}


@pytest.mark.parametrize("name", sorted(CALLABLES))
def test_a_returned_function_or_method_is_still_refused_and_named(name):
    e = _refusal(CALLABLES[name])
    assert f"`{name}` itself" in e.message
    m = callable_not_called(e, "f")
    assert isinstance(m, Misconception) and m.key == "callable_not_called"
    assert f"write `{name}()`" in str(m) and str(m).startswith("f returned")


def test_inside_a_result_a_lambda_and_a_partial_are_named_too():
    assert callable_not_called(_refusal((X, X.sum)), "attention").key == "callable_not_called"
    assert "`item` itself" in str(callable_not_called(_refusal({"raw_std": X.std().item}), "t"))
    assert "a lambda" in str(callable_not_called(_refusal(lambda: 1)))
    partial = callable_not_called(_refusal(functools.partial(_plain)))
    assert partial is not None and "a partial object" in str(partial)


@pytest.mark.parametrize("value", [{(1, 2)}, _Obj(), float, slice(1, 2)])
def test_other_values_the_sandbox_refuses_are_not_named(value):
    assert callable_not_called(_refusal(value)) is None


def test_other_errors_are_not_named():
    assert callable_not_called(StudentCodeError("TypeError", "a value of type function cannot cross the "
                                                "sandbox boundary")) is None
    assert callable_not_called(StudentCodeError("RuntimeError", "shapes do not match")) is None
    assert callable_not_called(AssertionError("the output is wrong")) is None


def test_call_names_it_with_the_function_it_called():
    e = _refusal(X.var().item)

    def fn(*args, **kwargs):
        raise e
    with pytest.raises(Misconception) as m:
        checks.call(fn, 1, what="dot_product_variance")
    assert m.value.key == "callable_not_called" and str(m.value).startswith("dot_product_variance returned `item`")

    def other(*args, **kwargs):
        raise StudentCodeError("ValueError", "bad")
    with pytest.raises(StudentCodeError):
        checks.call(other, 1)


def _case() -> HiddenTestCase:
    return HiddenTestCase(question="q2", name="test_x", points=2, hidden=True, func=lambda: None,
                          params=("dot_product_variance", "rng"))


def test_a_test_that_lets_the_refusal_through_or_quotes_it_is_named_at_classification():
    e = _refusal(X.var().item)
    report = runner.classify(_case(), "cpu", 2, e, 0.1)
    assert report.misconception == "callable_not_called"
    assert report.message.startswith("dot_product_variance(...) returned `item` itself")
    quoted = AssertionError(f"for d_k = 12: your code raised {e.exc_type}: {e.message}")
    assert runner.classify(_case(), "cpu", 2, quoted, 0.1).misconception == "callable_not_called"
    # a name a test gave stays; an unrelated crash stays unnamed
    assert runner.classify(_case(), "cpu", 2, Misconception("no_scale", "x"), 0.1).misconception == "no_scale"
    plain = runner.classify(_case(), "cpu", 2, StudentCodeError("ValueError", "bad"), 0.1)
    assert plain.misconception is None and plain.message == "your code raised ValueError: bad"


def test_a_value_answer_that_is_a_function_is_named_by_the_validators():
    for check, args in ((checks.expect_number, ()), (checks.expect_shape, ()), (checks.expect_matrix, ((2, 2),))):
        with pytest.raises(Misconception) as m:
            check(X.var().item, "ratio", *args)
        assert m.value.key == "callable_not_called" and "ratio is a function or method" in str(m.value)
    with pytest.raises(Misconception) as m:
        checks.expect_choice(str.upper, "q6_answer", answer="b")
    assert m.value.key == "callable_not_called"
    # values keep their checks
    assert checks.expect_number(torch.tensor(2.5), "x") == 2.5
    checks.expect_choice("B", "q6_answer", answer="b")


# --- table_keyed_by_d (naming17, blind13's q4_table_keyed_by_d): the refusal lists a dict's number keys ------

def _diagnose():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "assignments" / "scaled-attention" / "hidden" / "_diagnose.py"
    spec = importlib.util.spec_from_file_location("_test_scaled_callable_diagnose", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_refusal_of_a_dict_lists_its_number_keys_and_still_refuses_it():
    assert "(keys: 4, 16, 64)" in _refusal({4: {}, 16: {}, 64: {}}).message
    assert "(keys: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...)" in _refusal({i: i for i in range(20)}).message
    assert "(keys of type tuple)" in _refusal({(1, 2): 0}).message
    assert "(keys of type int)" in _refusal({10 ** 20: 0}).message     # a huge number is not printed


def test_a_table_keyed_by_exactly_the_dims_passed_is_named_and_nothing_else_is():
    D = _diagnose()
    dims = (4, 16, 64, 256)
    with pytest.raises(Misconception) as m:
        D.raise_if_table_container(_refusal({d: {"d": d} for d in dims}), dims)
    assert m.value.key == "table_keyed_by_d" and "4, 16, 64, 256" in str(m.value)
    for other in ({i: {} for i in range(4)},                  # keyed by the row's index
                  {d: {} for d in reversed(dims)},            # the d's in another order
                  {d: {} for d in dims[:3]},                  # a row missing
                  {(d, 0): {} for d in dims}):                # keyed by (d, seed)
        with pytest.raises(AssertionError) as e:
            D.raise_if_table_container(_refusal(other), dims)
        assert not isinstance(e.value, Misconception) and "list of row dicts" in str(e.value)
    D.raise_if_table_container(StudentCodeError("ValueError", "bad"), dims)   # another error: nothing said


def test_a_generator_and_numpy_size_are_named_for_what_they_are() -> None:
    named = callable_not_called(_refusal(x for x in (1, 2)))
    assert named is not None and named.key == "generator_returned" and "list(...)" in str(named)
    named = callable_not_called(_refusal(X.size))
    assert named is not None and named.key == "numpy_size_attribute" and ".numel()" in str(named)
    assert callable_not_called(_refusal(X.numel)).key == "callable_not_called"   # type: ignore[union-attr]


def test_a_value_answer_that_is_a_tensors_size_method_is_read_from_the_source() -> None:
    cells = ["import torch\nW = torch.zeros(4, 4)\nattn_entries = W.size\n"]
    with checks.charges_recorded(runner.SubmissionInfo(source=cells[0], cells=tuple(cells))):
        with pytest.raises(Misconception) as e:
            checks.expect_number(X.size, "attn_entries")
    assert e.value.key == "numpy_size_attribute"
    with checks.charges_recorded(runner.SubmissionInfo(source="", cells=("attn_entries = W.numel\n",))):
        with pytest.raises(Misconception) as e:
            checks.expect_number(X.numel, "attn_entries")
    assert e.value.key == "callable_not_called"


def test_a_default_is_not_blamed_when_passing_it_changes_nothing() -> None:
    def clamped(x, causal=True):      # its default is the notebook's; its answer is off by 1e-22 everywhere
        return x + 1e-22

    def flipped(x, causal=False):
        return x * 2 if causal else x
    right = functools.partial(lambda want, out: torch.allclose(out, want), X * 2)
    checks.raise_if_wrong_default(clamped, (X * 2,), {"causal": True}, right)      # no name: the same answer
    with pytest.raises(Misconception) as e:
        checks.raise_if_wrong_default(flipped, (X,), {"causal": True}, right)
    assert e.value.key == "default_argument_wrong"
