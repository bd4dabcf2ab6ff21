"""Engine keys from blind39 (issue 21), for every assignment's answers: a letter or a number in braces (a set:
it used to stop at the sandbox boundary, "your code raised EncodeError"), and an answer assigned only inside a
function (a local variable, gone when it returns: it was told only "not defined in your notebook")."""
from __future__ import annotations


import pytest

from autograder.errors import ProtocolError
from autograder.grading.checks import Misconception, expect_choice, expect_number
from autograder.grading.source_checks import unbound_answer
from autograder.sandbox.protocol import EncodeError, decode_value, encode_value
from tests.heldout.harness import grade_cells, graded_as

# --- a set crosses the sandbox as itself -----------------------------------------------------------------


@pytest.mark.parametrize("value", [{"A"}, frozenset({"b", "c"}), set(), {3, 2.5, None, True, "x"}, {float("nan")}])
def test_a_set_of_scalars_crosses_as_itself(value):
    back = decode_value(encode_value(value))
    assert type(back) is type(value)
    assert {repr(v) for v in back} == {repr(v) for v in value}


def test_a_set_crosses_in_the_same_order_every_time():
    assert encode_value({"d", "a", "c", "b", 3, 1}) == encode_value({1, "b", 3, "a", "c", "d"})


@pytest.mark.parametrize("value", [{(1, 2)}, frozenset({frozenset({"a"})})])
def test_a_set_of_anything_else_is_refused_in_the_worker(value):
    with pytest.raises(EncodeError):
        encode_value(value)


@pytest.mark.parametrize("tree", [
    {"__set__": [[1, 2]], "frozen": False},                      # a list member (unhashable: would crash set())
    {"__set__": [{"__dict__": {}}], "frozen": True},             # a dict member
    {"__set__": [{"__tensor__": "AAAA"}], "frozen": False},      # a tensor member
    {"__set__": ["a"], "frozen": 1},                             # frozen not a bool
    {"__set__": "ab", "frozen": False},                          # not a list
    {"__set__": ["a"]},                                          # a field missing
    {"__set__": ["a"], "frozen": False, "x": 1},                 # an extra field
])
def test_a_malformed_set_from_the_worker_is_refused(tree):
    with pytest.raises(ProtocolError):
        decode_value(tree)


# --- a letter or a number in braces: answer_in_container -------------------------------------------------------

@pytest.mark.parametrize("value", [{"A"}, {"c"}, frozenset({" D "}), {"(B)"}])
def test_a_letter_in_a_set_is_named_answer_in_container(value):
    with pytest.raises(Misconception) as e:
        expect_choice(value, "q6_answer", answer="c")
    assert e.value.key == "answer_in_container" and "a set holding a letter" in str(e.value).replace("frozenset", "set")
    assert "braces" in str(e.value)


@pytest.mark.parametrize("value", [{"A", "B"}, {"maybe"}, set()])
def test_a_set_that_holds_no_single_letter_is_not_named_so(value):
    with pytest.raises(AssertionError) as e:
        expect_choice(value, "q6_answer", answer="c")
    assert getattr(e.value, "key", None) != "answer_in_container"


@pytest.mark.parametrize("value", [{72}, frozenset({4.0})])
def test_a_number_in_a_set_is_named_answer_in_container(value):
    with pytest.raises(Misconception) as e:
        expect_number(value, "n_params")
    assert e.value.key == "answer_in_container" and "holding the number" in str(e.value)


# --- an answer bound only inside a function ----------------------------------------------------------------------

@pytest.mark.parametrize("cells", [
    ['def pick():\n    q7_answer = "C"\n\npick()\n'],
    ['def pick(options):\n    for o in options:\n        if o == "C":\n            q7_answer: str = o\n'],
    ['import torch\n\ndef probe():\n    g = torch.ones(3)\n    q7_answer = "D" if g.sum() > 0 else "C"\n    return g\n',
     'probe()\n'],
])
def test_an_answer_bound_only_in_a_function_is_found(cells):
    found = unbound_answer(cells, "q7_answer")
    assert found is not None and found[0] == "local" and found[1].startswith("def ")


@pytest.mark.parametrize("cells", [
    ['def pick():\n    global q7_answer\n    q7_answer = "C"\n'],                       # global: bound when called
    ['def pick():\n    q7_answer = "C"\n    return q7_answer\n\nq7_answer = pick()\n'],   # bound at the top too
    ['def pick():\n    return "C"\n'],                                                 # not bound anywhere
])
def test_no_local_binding_is_claimed_where_there_is_none_or_a_global_one(cells):
    found = unbound_answer(cells, "q7_answer")
    assert found is None or found[0] != "local"


# --- through the sandbox: a scaled-attention notebook ---------------------------------------------------------

_graded = graded_as("scaled-attention", "round40")


@pytest.mark.parametrize("cells, question, key", [
    ({"q6_answer": 'q6_answer = {"A"}\n'}, "q6", "answer_in_container"),
    ({"q7_answer": 'choices = frozenset("D")\nq7_answer = choices\n'}, "q7", "answer_in_container"),
    ({"q7_answer": 'def decide():\n    q7_answer = "D"\n    print(q7_answer)\n\ndecide()\n'}, "q7",
     "answer_bound_in_function"),
    ({"q6_answer": 'def answer_q6(letter="A"):\n    q6_answer = letter.upper()\n'}, "q6", "answer_bound_in_function"),
])
def test_answers_of_these_forms_are_named_through_the_sandbox(grader, cells, question, key):
    outcome = _graded(grader, cells)
    named = [(q, k) for q, _n, k, _m in outcome.failed]
    assert named and all(q == question and k == key for q, k in named), outcome.failed


def test_a_right_letter_in_a_function_that_also_binds_it_globally_keeps_full_marks(grader):
    outcome = _graded(grader, {"q7_answer": 'def decide():\n    global q7_answer\n    q7_answer = "D"\n\ndecide()\n'})
    assert not outcome.failed, outcome.failed


# --- a wrong letter the code worked out: said as the code's pick, never as a belief ---------------------------

@pytest.mark.parametrize("cells", [
    ['scores = {"A": 0.1, "B": 0.7, "C": 0.2}\nq7_answer = min(scores, key=scores.get)\n'],
    ['import torch\nok = torch.allclose(torch.ones(2), torch.ones(2) * 1.01)\nif ok:\n    q7_answer = "B"\n'
     'else:\n    q7_answer = "C"\n'],
    ['def decide(flag):\n    return "D" if flag else "A"\n\nq7_answer = decide(1 > 2)\n'],
    ['measured = 3.9\noptions = {"A": 1, "B": 4, "C": 16}\nfor letter, v in options.items():\n'
     '    if abs(v - measured) > 2:\n        q7_answer = letter\n'],
    ['flag = 2 > 3\nq7_answer = "CA"[flag]\n'],
    ['def decide():\n    global q7_answer\n    q7_answer = "C" if 1 > 2 else "A"\n\ndecide()\n'],
])
def test_a_computed_binding_is_found(cells):
    from autograder.grading.source_checks import computed_answer
    assert computed_answer(cells, "q7_answer") is not None


@pytest.mark.parametrize("cells", [
    ['q7_answer = "C"\n'], ['q7_answer = "c".upper()\n'], ['q7_answer = " (C) ".strip()\n'],
    ['mine = "D"\nq7_answer = mine\n'], ['q7_answer: str = "B"\n'], ['q7_answer = str("A")\n'],
    ['def f():\n    return 1\n\nq7_answer = "B"\n'], [],
])
def test_a_written_letter_is_not_called_computed(cells):
    from autograder.grading.source_checks import computed_answer
    assert computed_answer(cells, "q7_answer") is None


class _Submission:
    def __init__(self, cells: list[str]) -> None:
        self.cells = cells


def _choice(cells: list[str], value: str) -> BaseException:
    from autograder.grading.checks import charges_recorded
    with charges_recorded(_Submission(cells)), pytest.raises(AssertionError) as e:
        expect_choice(value, "q7_answer", answer="d", wrong={"a": "answer_in_words", "c": "answer_hedged"})
    return e.value


def test_a_computed_wrong_letter_is_told_as_the_codes_pick_not_as_its_belief():
    e = _choice(['import torch\ng = torch.tensor([1.0, -0.5])\nq7_answer = "D" if bool((g > 0).all()) else "C"\n'],
                "C")
    assert getattr(e, "key", None) == "answer_computed_by_code" and "worked out" in str(e)
    assert "(`q7_answer = 'D' if bool((g > 0).all()) else 'C'`)" in str(e)     # the computation, quoted
    assert "option C stands for" in str(e) and "you think" not in str(e)


def test_a_written_wrong_letter_keeps_its_belief():
    assert getattr(_choice(['q7_answer = "C"  # my pick\n'], "C"), "key", None) == "answer_hedged"


def test_a_computed_right_letter_passes():
    from autograder.grading.checks import charges_recorded
    with charges_recorded(_Submission(['q7_answer = max({"D": 2, "A": 1}, key=lambda k: 1)\n'])):
        expect_choice("D", "q7_answer", answer="d")


@pytest.mark.parametrize("cells, question", [
    ({"q7_answer": 'import torch\nx = torch.randn(4, requires_grad=True)\np = torch.softmax(x, 0)\np[0].backward()\n'
                   'q7_answer = "D" if bool((x.grad > 0).all()) else "B"\n'}, "q7"),
    ({"q5_answer": 'options = {"A": 1.0, "B": 4.0, "C": 2.0, "D": 16.0}\nmeasured = 3.9\n'
                   'q5_answer = max(options, key=lambda k: abs(options[k] - measured))\n'}, "q5"),
])
def test_computed_wrong_letters_are_named_through_the_sandbox(grader, cells, question):
    outcome = _graded(grader, cells)
    named = [(q, k) for q, _n, k, _m in outcome.failed]
    assert named and all(q == question and k == "answer_computed_by_code" for q, k in named), outcome.failed


@pytest.mark.parametrize("cells", [
    ['options = ["A", "B", "C", "D"]\nq7_answer = options[1]\n'], ['q7_answer = "ABCD"[3]\n'],
    ['q7_answer = chr(ord("A") + 2)\n'], ['choices = {"same": "A", "differs": "C"}\nq7_answer = choices["same"]\n'],
    ["q7_answer = \"C\" and \"D\"\n"],
])
def test_a_letter_chosen_by_position_or_from_constants_is_the_students_choice(cells):
    from autograder.grading.source_checks import computed_answer
    assert computed_answer(cells, "q7_answer") is None


@pytest.mark.parametrize("cells", [
    ['options = ["A", "B", "C", "D"]\ni = 1 if 2 > 3 else 2\nq7_answer = options[i]\n'],
    ['ratio = 3.9\nq7_answer = {1: "b", 2: "a", 4: "c"}[round(ratio)]\n'],
    ['letters = ["A", "B"]\nfor letters in [["C"]]:\n    pass\nq7_answer = letters[0]\n'],
])
def test_a_letter_indexed_by_a_computed_value_is_computed(cells):
    from autograder.grading.source_checks import computed_answer
    assert computed_answer(cells, "q7_answer") is not None


# --- a number written out in a string: a ratio, a factor, a power (blind40's cost_ratio = "4:1") -------------------

@pytest.mark.parametrize("value, number", [("4:1", "4"), (" 4 : 1 ", "4"), ("4 to 1", "4"), ("1:4", "0.25"),
                                           ("4x", "4"), ("x4", "4"), ("\u00d74", "4"), ("4 times", "4"),
                                           ("2^2", "4"), ("2**20", "1048576")])
def test_a_number_written_out_in_a_string_is_named_with_its_value(value, number):
    with pytest.raises(Misconception) as e:
        expect_number(value, "cost_ratio")
    assert e.value.key == "number_as_string" and f"the number {number} " in str(e.value)


@pytest.mark.parametrize("value", ["four", "O(T^2)", "T^2", "4:0", "quadratic, so 4", "2^100"])
def test_other_strings_are_not_read_as_numbers(value):
    with pytest.raises(AssertionError) as e:
        expect_number(value, "cost_ratio")
    assert getattr(e.value, "key", None) != "number_as_string"


def test_a_ratio_written_as_text_is_named_through_the_sandbox(grader):
    outcome = grade_cells(grader, "sdpa-from-scratch", {
        "attn_entries": "attn_entries = 1024 * 1024\nscore_madds = 1024 * 1024 * 64\ncost_ratio = '4 : 1'\n"}, "round40")
    named = [(q, n, k) for q, n, k, _m in outcome.failed]
    assert named == [("q8", "test_cost_ratio", "number_as_string")], outcome.failed


@pytest.mark.parametrize("depth", [300, 900, 2500, 5000])
def test_an_answer_nested_hundreds_deep_does_not_break_the_source_reading(depth):
    from autograder.grading.source_checks import computed_answer
    chain = "+".join(['"C"'] * depth)
    computed_answer([f"x = 1\nq7_answer = {chain}\n"], "q7_answer")          # no RecursionError
    found = unbound_answer([f"def f():\n    q7_answer = {chain}\n"], "q7_answer")
    assert found is None or found[0] == "local"


# --- the hidden tests' own source readers: a cell the parser refuses is left out, never raised -------------------

@pytest.mark.parametrize("bad", ["x = 1\0\n", "q = " + "(" * 300 + "1" + ")" * 300 + "\n",
                                 "max_rank_S = " + "+".join(["1"] * 30000) + "\n", "def (:\n"])
def test_a_cell_the_parser_refuses_says_nothing_in_the_source_readers(bad):
    from tests.hidden_modules import load
    pipeline = load("attention-pipeline", "_diagnose", "_engine40_pipeline_diagnose")
    sub = _Submission([bad, "import torch\nmax_rank_S = int(torch.linalg.matrix_rank(torch.ones(3, 3)))\n"])
    assert pipeline.rank_on_constant_example(sub, "max_rank_S") is not None    # the readable cell still counts
    assert pipeline.rank_on_weights(_Submission([bad]), "rank_S_lesson") is None
    assert pipeline.len_of_comparison(_Submission([bad]), "rank_S") is None


def test_a_bare_annotation_after_a_written_letter_is_not_called_computed():
    from autograder.grading.source_checks import computed_answer
    assert computed_answer(['q7_answer = "C"\n', 'q7_answer: str\n'], "q7_answer") is None
