"""sdpa-from-scratch, naming round 19 (issue 21, blind17's judged problems), in-process: q6's weights3 equal to
the causal weights is inplace_on_input only while scores3 itself holds the causal fill (a masked_fill_ or an
index assignment wrote into it before weights3 read it); out3 = that weights3 @ V3 is not charged a second
time; a weights3 that is causal while scores3 is not masked stays generic and says what differs."""
from __future__ import annotations

from pathlib import Path

import torch

from autograder.grading.checks import Misconception
from autograder.grading.hidden import load_test_file
from reference import sdpa_from_scratch as ref

ROOT = Path(__file__).resolve().parents[1]
HIDDEN = ROOT / "assignments" / "sdpa-from-scratch" / "hidden"


def _test(question: str, name: str):
    return next(c.func for c in load_test_file(HIDDEN / f"{question}.py", ROOT) if c.name == name)


def _outcome(thunk) -> tuple[str | None, str]:
    """(key, message): key None when it passes, "" when it fails unnamed."""
    try:
        thunk()
    except Misconception as e:
        return e.key, str(e)
    except AssertionError as e:
        return "", str(e)
    return None, ""


def _masked_scores() -> torch.Tensor:
    return (ref.Q3 @ ref.K3.T / 2.0).masked_fill(~ref.causal_mask(3), float("-inf"))


def test_causal_weights3_with_scores3_filled_in_place_is_inplace_on_input() -> None:
    test = _test("q6", "test_weights3")
    key, said = _outcome(lambda: test(weights3=ref.weights3_causal.clone(), scores3=_masked_scores()))
    assert key == "inplace_on_input"
    assert "masked_fill_" in said and "scores3" in said


def test_causal_weights3_without_masked_scores3_stays_generic() -> None:
    test = _test("q6", "test_weights3")
    for scores3 in (None, ref.Q3 @ ref.K3.T / 2.0, ref.Q3 @ ref.K3.T):     # not filled, or another name
        key, said = _outcome(lambda s=scores3: test(weights3=ref.weights3_causal.clone(), scores3=s))
        assert key == "", scores3
        assert "equals the causal weights" in said and "no mask" in said


def test_right_weights3_passes_whatever_scores3_holds() -> None:
    test = _test("q6", "test_weights3")
    for scores3 in (None, _masked_scores(), ref.Q3 @ ref.K3.T / 2.0):
        assert _outcome(lambda s=scores3: test(weights3=ref.weights3.clone(), scores3=s))[0] is None


def test_out3_following_a_causal_weights3_is_not_charged_again() -> None:
    test = _test("q6", "test_out3")
    assert _outcome(lambda: test(out3=ref.weights3_causal @ ref.V3, weights3=ref.weights3_causal.clone()))[0] is None
    # the causal output with the right weights3 is still output_from_causal_weights
    assert _outcome(lambda: test(out3=ref.weights3_causal @ ref.V3, weights3=ref.weights3.clone()))[0] \
        == "output_from_causal_weights"
    assert _outcome(lambda: test(out3=ref.weights3_causal @ ref.V3))[0] == "output_from_causal_weights"
    # an out3 that does not follow the causal weights3 is still charged
    assert _outcome(lambda: test(out3=ref.weights3_causal @ ref.V3 * 2, weights3=ref.weights3_causal.clone()))[0] \
        is not None


def test_a_right_answer_in_one_more_container_is_named() -> None:
    for question, name, value in (("q1", "test_weights_shape", ((4, 10, 10),)), ("q1", "test_weights_shape", [[4, 10, 10]]),
                                  ("q1", "test_out_shape", ([4, 10, 128],)), ("q8", "test_cost_ratio", (4,)),
                                  ("q8", "test_attn_entries", [1024 * 1024]), ("q8", "test_score_madds", (1024 ** 2 * 64,))):
        key, said = _outcome(lambda t=_test(question, name), v=value: t(v))
        assert key == "answer_in_one_more_container", (name, value)
        assert "trailing comma" in said


def test_a_wrong_answer_in_one_more_container_stays_generic() -> None:
    key, said = _outcome(lambda: _test("q1", "test_weights_shape")(((4, 10, 64),)))
    assert key == "" and "(4, 10, 64) is not the right shape either" in said
    assert _outcome(lambda: _test("q1", "test_out_shape")(((4, 10, 128), (4, 10, 10))))[0] != "answer_in_one_more_container"
    assert _outcome(lambda: _test("q8", "test_cost_ratio")((2,)))[0] != "answer_in_one_more_container"
    # the right answers pass
    assert _outcome(lambda: _test("q1", "test_weights_shape")((4, 10, 10)))[0] is None
    assert _outcome(lambda: _test("q8", "test_cost_ratio")(4))[0] is None


def _compared_not_assigned(T_q, T_k=None):
    if T_k is None:
        T_k == T_q  # noqa: B015 - the mistake under test
    return torch.arange(T_k)[None, :] <= torch.arange(T_q)[:, None]


def test_a_default_never_replaced_is_named_in_q4_and_q6() -> None:
    from autograder.grading.runner import TrustedProxy
    key, said = _outcome(lambda: _test("q4", "test_square")(TrustedProxy(_compared_not_assigned, "cpu"),
                                                           torch.Generator().manual_seed(0)))
    assert key == "default_none_not_replaced" and "given explicitly is right" in said
    hook = _test("q6", "test_weights3_causal").on_missing
    resolve = {"causal_mask": TrustedProxy(_compared_not_assigned, "cpu"),
               "stable_softmax": TrustedProxy(lambda x, dim=-1: torch.softmax(x, dim), "cpu")}.get
    assert _outcome(lambda: hook("weights3_causal", resolve))[0] == "default_none_not_replaced"


def test_a_crash_with_T_k_given_too_is_not_the_default() -> None:
    from autograder.grading.runner import TrustedProxy

    def broken(T_q, T_k=None):
        return torch.arange(None) if T_k is None else torch.ones(T_q, T_k + 1).bool()
    key, _ = _outcome(lambda: _test("q4", "test_square")(TrustedProxy(broken, "cpu"), torch.Generator().manual_seed(0)))
    assert key != "default_none_not_replaced"



def test_a_renamed_parameter_is_named_from_the_type_error() -> None:
    import importlib.util

    from autograder.errors import StudentCodeError
    spec = importlib.util.spec_from_file_location("_t19_diag", HIDDEN / "_diagnose.py")
    assert spec is not None and spec.loader is not None
    diag = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(diag)

    def fails(message: str):
        return lambda: diag.names_renamed_parameters(lambda: (_ for _ in ()).throw(StudentCodeError("TypeError", message)))()
    key, said = _outcome(fails("stable_softmax() got an unexpected keyword argument 'dim'"))
    assert key == "parameter_renamed" and "stable_softmax(x, dim=-1)" in said
    assert _outcome(fails("scaled_dot_product_attention() got an unexpected keyword argument 'mask'"))[0] \
        == "parameter_renamed"
    # a keyword the notebook does not ask for, or another function's: not a renamed parameter
    for message in ("stable_softmax() got an unexpected keyword argument 'axis'",
                    "helper() got an unexpected keyword argument 'dim'"):
        try:
            fails(message)()
        except Misconception:
            raise AssertionError(message) from None
        except StudentCodeError:
            pass


def test_two_letters_are_answer_hedged_and_one_letter_is_not() -> None:
    test = _test("q7", "test_trap_answer")
    for value in ("C, D", "A or C", "b/d", "C D"):
        assert _outcome(lambda v=value: test(v))[0] == "answer_hedged", value
    for value in ("C", " c ", "C, C"):
        assert _outcome(lambda v=value: test(v))[0] != "answer_hedged", value
