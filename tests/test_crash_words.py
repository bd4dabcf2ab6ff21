"""Crashes whose own words name the slip (crash_words.crash_words), in any test of any assignment, and the
missing answer that quotes the crash of the cell that should have defined it (runner.missing_answer).

Every error below is raised by torch or Python itself, here, from the slip's code: if a new torch words one
differently, the test says so instead of the grader quietly naming nothing."""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from autograder.errors import StudentCodeError
from autograder.grading import checks
from autograder.grading.checks import Misconception
from autograder.grading.crash_words import crash_replayed, crash_source_line, crash_words
from autograder.grading.runner import SubmissionInfo, classify, missing_answer

A, B = torch.randn(3, 4), torch.randn(3, 4)
MASK = torch.ones(3, 3, dtype=torch.bool).tril()

SLIPS = {   # key -> two different pieces of code making the same slip
    "dot_of_matrices": [lambda: torch.dot(A, B), lambda: A[0].dot(B)],
    "numpy_keyword": [lambda: F.softmax(A, axis=-1), lambda: torch.nn.functional.log_softmax(A, axis=1),
                      lambda: A.var(ddof=1), lambda: torch.std(A, ddof=0)],
    "tensor_to_number": [lambda: math.sqrt(A), lambda: float(A.sum(0))],
    "bool_mask_arithmetic": [lambda: 1 - MASK, lambda: -MASK],
    "torch_function_of_number": [lambda: torch.sqrt(64), lambda: torch.exp(2.0)],
    "reduction_tuple_as_tensor": [lambda: A - A.max(dim=-1, keepdim=True), lambda: A.max(-1).unsqueeze(-1)],
    "method_not_called": [lambda: A.masked_fill(MASK.logical_not, 0.0), lambda: A / A.sum(-1, keepdim=True).values,
                          lambda: ~MASK.logical_not, lambda: torch.exp(A.float), lambda: A.sum(1).values * 2,
                          lambda: A[MASK.logical_not], lambda: torch.where(MASK.logical_not, A, 0.0),
                          lambda: A.size[-1], lambda: math.sqrt(A.size), lambda: math.log(A.numel)],
    "numpy_round_trip": [lambda: (A.requires_grad_(False).clone().requires_grad_(True) * 2).numpy(),
                         lambda: A.to(torch.bfloat16).numpy()],
    "value_called": [lambda: A.shape(-1), lambda: A.T(), lambda: A.sum(-1)(0)],
    # on a machine without CUDA (CI); a GPU machine would run it: skipped there
    "device_hard_coded": [] if torch.cuda.is_available() else [lambda: torch.ones(2, device="cuda")],
    "einsum_fixed_axes": [lambda: torch.einsum("rt,rt->r", A[None], A[None])],
    "einsum_letter_on_two_axes": [lambda: torch.einsum("...td,...td->...t", A, torch.randn(5, 4)),
                                  lambda: torch.einsum("ij,ij->i", A, B.T)],
    "inner_pairs_last_axes": [lambda: torch.inner(A[:, 0], B), lambda: A[:, 0].inner(torch.randn(3, 7))],
    "unexpected_keyword": [lambda: torch.tril(torch.ones(3, 3), dtype=torch.bool), lambda: A.softmax(-1, keepdim=True),
                           lambda: F.softmax(A, dim=-1, keep_dim=True),
                           lambda: torch.randn(3, 4, gen=torch.Generator())],     # torch's parser: no overload has it
    "numpy_method": [lambda: A.astype(torch.float64), lambda: A.copy(), lambda: A.argpartition(1, axis=-1)],
    "numpy_function_in_torch": [lambda: torch.tri(3, 3), lambda: torch.expand_dims(A, 0)],  # type: ignore[attr-defined]
    "numpy_generator_method": [lambda: torch.Generator().standard_normal((2, 3)),  # type: ignore[attr-defined]
                               lambda: torch.Generator().manual_seed(0).integers(0, 5)],  # type: ignore[attr-defined]
    "numpy_transpose_axes": [lambda: torch.rand(2, 3, 4).transpose(1, 0, 2), lambda: A.transpose((1, 0)),  # type: ignore[call-overload]
                             lambda: torch.transpose(torch.rand(2, 3, 4), (0, 2, 1))],  # type: ignore[call-overload]
    "dtype_as_string": [lambda: torch.ones(3, 3, dtype="bool"), lambda: torch.zeros(2, dtype="float32")],  # type: ignore[call-overload]
    "invert_of_float_mask": [lambda: ~torch.ones(3, 3).tril(), lambda: A.masked_fill(~(A > 0).float(), 0.0)],
    "bmm_of_matrices": [lambda: torch.bmm(A, B.T), lambda: torch.bmm(A[None], B.T)],
    "log_given_base": [lambda: torch.log(A.abs(), 2), lambda: A.abs().log(2), lambda: torch.log(A.abs(), base=2)],
    "size_not_int": [lambda: math.sqrt(A.shape[-1:]), lambda: A / A.shape[-1:], lambda: torch.sqrt(A.size()[1:])],
    "dtype_mix": [lambda: A.double() @ B.T, lambda: torch.bmm(A.double()[None], B.T[None]),
                  lambda: torch.mv(A.double(), B[0])],
    "view_on_noncontiguous": [lambda: A.T.view(12), lambda: A.double().transpose(0, 1).view(2, 6)],
    "masked_fill_arguments_swapped": [lambda: A[:, :3].masked_fill(float("-inf"), MASK),
                                      lambda: torch.masked_fill(A[:, :3], -1e9, ~MASK)],
    "iinfo_for_float": [lambda: torch.iinfo(A.dtype).min, lambda: torch.iinfo(torch.float16)],
    "generator_to_cat": [lambda: torch.cat(h for h in (A, B)), lambda: torch.stack((h * 2 for h in (A, B)), dim=1)],
    "seed_for_manual_seed": [lambda: torch.seed(0), lambda: torch.random.seed(7)],
    "reduction_dim_missing": [lambda: A.sum(keepdim=True), lambda: torch.max(A, keepdim=True),
                              lambda: torch.logsumexp(A)],
    "where_condition_not_bool": [lambda: torch.where(A, MASK[:, :1].expand(3, 4), A),
                                 lambda: torch.where(MASK.float(), 0.0, A[:, :3])],
    "masked_fill_tensor_value": [lambda: A[:, :3].masked_fill(MASK, A[:, 1:]), lambda: A.masked_fill(A > 0, B)],
    "math_lacks_function": [lambda: math.rsqrt(4.0), lambda: math.softmax(A)],   # type: ignore[attr-defined]
    "tensor_as_dim": [lambda: A.softmax(A), lambda: torch.softmax(A, A)],
    "finfo_of_tensor": [lambda: torch.finfo(A).min, lambda: torch.iinfo(MASK)],
    "dtype_for_device": [lambda: torch.ones(3, 3, device=torch.float32), lambda: torch.zeros(3, dtype=torch.device("cpu"))],
    "dtype_passed_positionally": [lambda: torch.ones((3, 3), torch.bool), lambda: torch.zeros(3, 3, torch.float64)],
    "finfo_keyword": [lambda: torch.finfo(dtype=A.dtype).min, lambda: torch.iinfo(dtype=torch.int64)],
    "softmax_module_given_input": [lambda: torch.nn.Softmax(A, dim=-1), lambda: torch.nn.Softmax(A) @ B.T,
                                   lambda: torch.nn.LogSoftmax(A, dim=1)],
    "maximum_for_max": [lambda: A - torch.maximum(A, dim=-1), lambda: torch.minimum(A), lambda: A.maximum()],
    "removed_torch_function": [lambda: torch.matrix_rank(A[:, :3]), lambda: torch.solve(A[:, :3], A[:, :3])],  # type: ignore[attr-defined]
    "caret_for_power": [lambda: A @ B.T / 4 ^ 0.5, lambda: A.double() ^ 2, lambda: 4 ^ 0.5],
}


def _raised(slip) -> StudentCodeError:
    try:
        slip()
    except Exception as e:  # noqa: BLE001 - the student's crash, as the sandbox reports it
        return StudentCodeError(type(e).__name__, str(e))
    raise AssertionError("the slip ran")


@pytest.mark.parametrize("key", sorted(SLIPS))
def test_each_slip_is_named_from_its_own_words(key):
    for slip in SLIPS[key]:
        e = _raised(slip)
        named = crash_words(e)
        assert named is not None and named.key == key, (e.exc_type, e.message, named)
        # the crash's first line, then what it means
        first = str(e).splitlines()[0].split(", but expected one of")[0].rstrip(". :")
        assert str(named).startswith(first), str(named)
        # the same words quoted in a failure message a test wrote name it too
        quoted = crash_words(AssertionError(f"the output for a 4-D input: {e}"))
        assert quoted is not None and quoted.key == key


@pytest.mark.parametrize("slip", [lambda: A @ B, lambda: torch.randn(2, 3) + torch.randn(3, 2),
                                  lambda: undefined_name, lambda: torch.tensor([1, 2])[5],  # noqa: F821
                                  lambda: A.view(5, 5), lambda: A + "x", lambda: len(A.sum()),
                                  lambda: torch.no_such_function(A), lambda: torch.Generator().no_such_method(),  # type: ignore[attr-defined]
                                  lambda: A.no_such_method(), lambda: math.log(-1.0, 2),
                                  lambda: A.transpose(1)])  # type: ignore[call-overload]
def test_other_crashes_name_nothing(slip):
    assert crash_words(_raised(slip)) is None


def test_a_keyword_the_students_own_function_lacks_is_not_unexpected_keyword():
    # the tests call the notebook's functions with its parameter names: a renamed one is another mistake
    e = StudentCodeError("TypeError", "stable_softmax() got an unexpected keyword argument 'dim'")
    assert crash_words(e) is None
    named = crash_words(StudentCodeError("TypeError", "tril() got an unexpected keyword argument 'dtype'"))
    assert named is not None and named.key == "unexpected_keyword" and "tril takes no dtype=" in str(named)


def test_a_test_that_named_the_crash_keeps_its_name():
    from autograder.grading.hidden import HiddenTestCase
    test = HiddenTestCase(question="q1", name="test_x", points=1.0, hidden=True, func=lambda f: None, params=("f",))
    own = Misconception("scale_missing", "your code raised RuntimeError: 1D tensors expected, but got 2D and 2D")
    assert classify(test, "cpu", 1.0, own, 0.0).misconception == "scale_missing"
    report = classify(test, "cpu", 1.0, _raised(SLIPS["dot_of_matrices"][0]), 0.0)
    assert report.misconception == "dot_of_matrices" and report.score == 0


def test_a_missing_answer_quotes_the_crash_of_its_cell():
    cells = ("import torch", "x = torch.ones(3, 3, dtype=torch.bool)\nanswer = 1 - x", "other = 2")
    e = _raised(lambda: 1 - MASK)
    info = SubmissionInfo(source="\n".join(cells), cells=cells, cell_errors=((1, f"{e.exc_type}: {e.message}"),))
    said = missing_answer("answer", info)
    assert "(Cell In[" in said and "Subtraction, the `-` operator" in said, said
    named = crash_words(AssertionError(said))
    assert named is not None and named.key == "bool_mask_arithmetic"
    # a name whose cell ran, or no cell at all: the plain request
    assert "run every cell" in missing_answer("other", info) and "run every cell" in missing_answer("nowhere", info)
    assert "run every cell" in missing_answer("answer", SubmissionInfo(source="", cells=cells))


class _Missing:
    """A namespace where every name is missing (its cell stopped)."""

    def resolve(self, name, device):
        return None

    def alive(self):
        return True


def test_an_on_missing_hook_may_ask_for_the_crash_of_the_cell():
    from autograder.grading.hidden import HiddenTestCase
    from autograder.grading.runner import run_tests
    cells = ("import torch", "out3 = V3 @ weights3")
    info = SubmissionInfo(source="\n".join(cells), cells=cells,
                          cell_errors=((1, "RuntimeError: mat1 and mat2 shapes cannot be multiplied (3x2 and 3x3)"),))
    seen = []

    def with_crash(out3):
        raise AssertionError("not reached")

    def plain(out3):
        raise AssertionError("not reached")

    def hook_with_crash(name, resolve, crash):
        seen.append((name, crash))
        if "(3x2 and 3x3)" in crash:
            raise Misconception("weights_transposed", f"{name}: V3 @ weights3 ({crash})")

    with_crash.on_missing = hook_with_crash                         # type: ignore[attr-defined]
    plain.on_missing = lambda name, resolve: seen.append((name,))   # type: ignore[attr-defined]
    tests = [HiddenTestCase(question="q6", name="test_out3", points=1.0, hidden=True, func=f, params=("out3",))
             for f in (with_crash, plain)]
    named, generic = run_tests(tests, _Missing(), seed=1, devices=["cpu"], submission=info)
    assert seen == [("out3", "RuntimeError: mat1 and mat2 shapes cannot be multiplied (3x2 and 3x3)"), ("out3",)]
    assert named.misconception == "weights_transposed"
    assert generic.misconception is None and "(Cell In[" in generic.message and "(3x2 and 3x3)" in generic.message


# --- a cell's crash replayed on the question's own shapes (crash_words.crash_replayed) ---------------------------

def test_a_crash_is_named_by_the_one_replay_that_raises_the_same_words() -> None:
    Q, K = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64)
    try:
        torch.bmm(Q, K)
    except RuntimeError as e:
        crash = f"RuntimeError: {e} (line 2)"
    replays = {"keys_not_transposed": lambda: Q @ K, "fixed_axes": lambda: Q @ K.T, "right": lambda: Q @ K.mT}
    assert crash_replayed(crash, replays) == "keys_not_transposed"
    # Q @ K.T reverses every axis: another crash, another key
    try:
        Q @ K.T
    except RuntimeError as e:
        assert crash_replayed(f"RuntimeError: {e}", replays) == "fixed_axes"


def test_two_slips_with_one_crash_or_none_name_nothing() -> None:
    Q, K, V = torch.zeros(4, 10, 64), torch.zeros(4, 10, 64), torch.zeros(4, 10, 128)
    crash = "RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [4, 64] but got: [4, 10]."
    # Q @ V crashes in the same words as Q @ K: the words cannot tell which
    assert crash_replayed(crash, {"keys_not_transposed": lambda: Q @ K, "values_for_keys": lambda: Q @ V}) is None
    assert crash_replayed(crash, {"right": lambda: Q @ K.mT}) is None
    assert crash_replayed("", {"keys_not_transposed": lambda: Q @ K}) is None
    # the same words with other sizes are another crash
    assert crash_replayed(crash.replace("[4, 10]", "[4, 11]"), {"keys_not_transposed": lambda: Q @ K}) is None


def test_a_crash_of_several_lines_is_replayed_on_its_first():
    A = torch.zeros(3, 4)
    try:
        A.masked_fill(A.sum, 0.0)
    except TypeError as e:
        crash = f"TypeError: {str(e)[:300]} (line 4)"
    assert "\n" in crash
    assert crash_replayed(crash, {"method_not_called": lambda: A.masked_fill(A.sum, 0.0)}) == "method_not_called"
    assert crash_replayed(crash, {"other": lambda: A.masked_fill(A.sum, 1)}) is None
    # a shorter crash is not a prefix match of a longer replay's words
    assert crash_replayed("TypeError: masked_fill()", {"m": lambda: A.masked_fill(A.sum, 0.0)}) is None



def _cell_crash(src: str, call: str) -> StudentCodeError:
    """The StudentCodeError of `call` raising inside a function defined by a cell `src`, its traceback made as
    the worker makes it (the cell's lines kept under its In[n] name)."""
    import linecache
    import traceback
    ns: dict[str, object] = {"torch": torch}
    linecache.cache["In[3]"] = (len(src), None, src.splitlines(True), "In[3]")
    exec(compile(src, "In[3]", "exec"), ns)
    try:
        eval(call, ns)
    except Exception as e:  # noqa: BLE001 - the crash is the evidence
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=8))
        return StudentCodeError(type(e).__name__, str(e), tb)
    raise AssertionError("the cell did not crash")


@pytest.mark.parametrize("line", ["q, k = pairs.unbind(dim=-1)", "q, k = torch.unbind(pairs, 0)",
                                  "(q, k) = pairs.split(2, dim=1)", "q, k, v = pairs.unbind(0)"])
def test_an_unpacking_along_the_wrong_axis_is_named_from_its_line(line):
    e = _cell_crash(f"def f(pairs):\n    {line}\n    return q\n", "f(torch.randn(6, 2, 5))")
    named = crash_words(e)
    assert named is not None and named.key == "unpacked_along_wrong_axis", e.traceback
    assert line.split(" = ")[1] in str(named)


@pytest.mark.parametrize("line", ["out, w = g(pairs)", "a, b = pairs.shape", "a, b = pairs"])
def test_other_unpackings_name_nothing(line):
    # a function returning one tensor unpacked into two, a shape of 3 axes, a tensor iterated over its rows:
    # the same words, other slips
    e = _cell_crash(f"def g(x):\n    return x\n\ndef f(pairs):\n    {line}\n    return a\n", "f(torch.randn(6, 2, 5))")
    assert "too many values to unpack" in e.message
    assert crash_words(e) is None


@pytest.mark.parametrize("line", ["merged = torch.tensor(heads)", "merged = torch.as_tensor([h for h in heads])",
                                  "return torch.Tensor(heads) @ w"])
def test_a_list_of_tensors_given_to_torch_tensor_is_named_from_its_line(line):
    src = f"def f(x, w=None):\n    heads = [x, x + 1]\n    {line}\n    return merged\n"
    e = _cell_crash(src, "f(torch.randn(3, 4))")
    named = crash_words(e)
    assert named is not None and named.key == "tensor_of_tensors", (e.message, e.traceback)
    # the same words from math.sqrt of a tensor, on a line that also builds one, are the old key's
    e = _cell_crash("import math\ndef f(x):\n    s = math.sqrt(torch.tensor(x))\n    return s\n", "f(torch.randn(3, 4))")
    named = crash_words(e)
    assert named is not None and named.key == "tensor_to_number", (e.message, e.traceback)


def test_a_crash_without_its_line_names_nothing_from_a_line():
    e = StudentCodeError("ValueError", "too many values to unpack (expected 2)",
                         'Traceback (most recent call last):\n  File "In[3]", line 2, in f\nValueError: too many')
    assert crash_source_line(e) == ""
    assert crash_words(e) is None


ROW = {"d": 4, "raw_std": 1.0, "scaled_std": 0.5, "H_raw": 1.2, "H_scaled": 1.5}


def test_a_list_extended_by_each_rows_dict_is_named():
    rows: list[object] = []
    for d in (4, 16, 64):
        rows += {**ROW, "d": d}
    with pytest.raises(Misconception) as got:
        checks.raise_if_records_malformed(rows, [4, 16, 64], "d")
    assert got.value.key == "list_extended_with_dict"


def test_one_dict_appended_on_every_pass_is_named():
    row: dict[str, object] = {}
    rows = []
    for d in (4, 16, 64):
        row.update(ROW, d=d)
        rows.append(row)
    with pytest.raises(Misconception) as got:
        checks.raise_if_records_malformed(rows, [4, 16, 64], "d")
    assert got.value.key == "record_reused"


@pytest.mark.parametrize("rows", [
    [{**ROW, "d": d} for d in (4, 16, 64)],            # right
    [dict(ROW) for _ in range(3)],                      # every row the first d's: computed once, another slip
    ["raw_std", "d", "H_raw"] * 2,                      # strings, not the keys of one row once per item
    [{**ROW, "d": 64}] * 2,                             # too few rows
])
def test_other_tables_pass_to_the_callers_checks(rows):
    checks.raise_if_records_malformed(rows, [4, 16, 64], "d")


def _submission(src: str) -> object:
    return type("Submission", (), {"cells": [src]})()


def test_a_parameter_the_notebook_lacks_with_a_wrong_default_is_named():
    def scaled_scores(Q, K, eps=1):     # as the student's cell defines it
        return Q @ K.T / (Q.shape[-1] ** 0.5 + eps)

    def reference(Q, K):
        return Q @ K.T / Q.shape[-1] ** 0.5
    reference.__name__ = "scaled_scores"      # the notebook's function, whose signature is the notebook's

    src = "def scaled_scores(Q, K, eps=1):\n    return Q @ K.T / (Q.shape[-1] ** 0.5 + eps)\n"
    with pytest.raises(Misconception) as got:
        checks.raise_if_added_parameter_wrong(scaled_scores, (A, B), lambda out: torch.allclose(out, reference(A, B)),
                                              submission=_submission(src), func_name="scaled_scores",
                                              reference=reference, what="S")
    assert got.value.key == "default_argument_wrong" and "eps=1" in str(got.value) and "eps=0" in str(got.value)


@pytest.mark.parametrize("src", [
    "def scaled_scores(Q, K, eps=1):\n    return Q @ K.T\n",                   # no value of eps makes it right
    "def scaled_scores(Q, K):\n    return Q @ K.T\n",                           # no parameter added
    "def scaled_scores(Q, K, eps=[1]):\n    return Q @ K.T\n",                  # a default that is no constant
])
def test_no_added_parameter_or_no_right_value_names_nothing(src):
    ns: dict[str, object] = {}
    exec(src, ns)
    checks.raise_if_added_parameter_wrong(ns["scaled_scores"], (A, B), lambda out: torch.allclose(out, A @ B.T / 2),
                                          submission=_submission(src), func_name="scaled_scores",
                                          reference=lambda Q, K: None, what="S")


def test_a_global_the_notebook_assigns_but_not_yet_is_named():
    cells = ["import torch", "def f(Q):\n    return Q @ W", "W = torch.eye(3)\nout = f(torch.eye(3))"]
    e = StudentCodeError("NameError", "name 'W' is not defined",
                         'Traceback (most recent call last):\n  File "In[2]", line 2, in f\nNameError: name \'W\'')
    named = crash_words(e, cells)
    assert named is not None and named.key == "name_not_yet_defined" and "cell 3" in str(named)
    # the missing answer's message quoting its cell's crash, as runner.missing_answer writes it
    said = AssertionError("`out_width` is not defined: the cell that assigns it (Cell In[2]) stopped, your code raised "
                          "NameError: name 'W' is not defined (line 1)")
    named = crash_words(said, cells)
    assert named is not None and named.key == "name_not_yet_defined"


@pytest.mark.parametrize("cells", [
    ["def f(Q):\n    return Q @ W"],                                  # assigned nowhere: a typo, another slip
    ["def g():\n    W = 1\n    return W", "def f(Q):\n    return Q @ W"],   # another function's local
    ["def f(Q, W=None):\n    return Q", "x = [W for W in range(3)]"],         # a comprehension's own name
    [],                                                               # no notebook to read
    ["W = 1", "def f(Q):\n    return Q @ W"],                                # made above: its cell's own crash
])
def test_a_name_the_notebook_never_makes_global_names_nothing(cells):
    tb = 'Traceback (most recent call last):\n  File "In[2]", line 2, in f\nNameError: name \'W\''
    assert crash_words(StudentCodeError("NameError", "name 'W' is not defined", tb), cells) is None


def test_a_reference_that_is_not_the_notebooks_function_proves_nothing():
    # a lambda's parameters are not the notebook's signature: its defaulted mask=None could look added
    src = "def scaled_scores(Q, K, eps=1):\n    return Q @ K.T / (Q.shape[-1] ** 0.5 + eps)\n"
    ns: dict[str, object] = {}
    exec(src, ns)
    checks.raise_if_added_parameter_wrong(ns["scaled_scores"], (A, B), lambda out: True, submission=_submission(src),
                                          func_name="scaled_scores", reference=lambda *a: None, what="S")


@pytest.mark.parametrize("got,right,percent", [(67, 67_108_864, False), (67.1, 67_108_864, False),
                                               (67.108864, 67_108_864, False), (4.2, 4194, False),
                                               (40.0, 0.4, True), (64_000, 64, False)])
def test_a_number_in_another_unit_is_named(got, right, percent):
    with pytest.raises(Misconception) as named:
        checks.raise_if_other_unit(got, right, "score_madds", percent=percent)
    assert named.value.key == "answer_in_other_unit"


@pytest.mark.parametrize("got,right,percent", [(68, 67_108_864, False), (67_108_863, 67_108_864, False),
                                               (40.0, 0.4, False), (0.0, 1000, False), (2.0, 2000.5, False)])
def test_a_number_in_no_other_unit_names_nothing(got, right, percent):
    checks.raise_if_other_unit(got, right, "score_madds", percent=percent)


@pytest.mark.parametrize("src,line", [("def causal_mask(T_q, T_k=T_q):\n    return T_k", 1),
                                      ("import torch\n\n\ndef f(x,\n      n=x.shape[0]):\n    return n", 4)])
def test_a_default_that_names_a_parameter_is_named(src, line):
    said = AssertionError(f"`f` is not defined: the cell that assigns it (Cell In[2]) stopped, your code raised "
                          f"NameError: name '{'T_q' if 'T_q' in src else 'x'}' is not defined (line {line})")
    named = crash_words(said, ["import torch", src])
    assert named is not None and named.key == "default_names_parameter"


def test_a_name_error_in_a_defs_body_is_not_a_default():
    said = AssertionError("`f` is not defined: the cell that assigns it (Cell In[2]) stopped, your code raised "
                          "NameError: name 'T_q' is not defined (line 3)")
    assert crash_words(said, ["", "def f(T_q, T_k=None):\n    return T_k\nx = T_q"]) is None


def test_a_name_missing_because_its_own_cell_stopped_is_named_by_that_cell():
    cells = ["import torch", "def causal_mask(T_q, T_k=T_q):\n    return None", "m = causal_mask(3)"]
    errors = {1: "NameError: name 'T_q' is not defined (line 1)", 2: "NameError: name 'causal_mask' is not defined (line 1)"}
    said = AssertionError("`m` is not defined: the cell that assigns it (Cell In[3]) stopped, your code raised "
                          "NameError: name 'causal_mask' is not defined (line 1)")
    named = crash_words(said, cells, errors)
    assert named is not None and named.key == "default_names_parameter" and "`causal_mask` is missing" in str(named)
    assert crash_words(said, cells) is None      # without the cells' errors: nothing to follow


def test_an_epsilon_guard_is_no_added_parameter_to_name():
    # -sum p log(p + eps): eps=0 is right on logits without a zero probability, but no fix
    src = "def softmax_entropy(logits, eps=1e-5):\n    p = logits.softmax(-1)\n    return -(p * (p + eps).log()).sum(-1)\n"
    ns: dict[str, object] = {}
    exec(src, ns)
    fn = ns["softmax_entropy"]

    def reference(logits):
        p = logits.softmax(-1)
        return -(p * p.log()).sum(-1)
    reference.__name__ = "softmax_entropy"
    checks.raise_if_added_parameter_wrong(fn, (A,), lambda out: torch.allclose(out, reference(A), atol=1e-7),
                                          submission=_submission(src), func_name="softmax_entropy",
                                          reference=reference, what="H")


def test_a_huge_default_in_the_students_source_reads_as_none():
    # a 5000-digit hex literal parses, but its decimal repr raises (int max str digits): the check names nothing
    src = "def scaled_scores(Q, K, eps=0x" + "f" * 5000 + "):\n    return Q @ K.T\n"
    ns: dict[str, object] = {}
    exec(src, ns)

    def reference(Q, K):
        return Q @ K.T / 2
    reference.__name__ = "scaled_scores"
    checks.raise_if_added_parameter_wrong(ns["scaled_scores"], (A, B), lambda out: True, submission=_submission(src),
                                          func_name="scaled_scores", reference=reference, what="S")


def test_torchs_own_not_implemented_is_a_crash_not_a_stub():
    def stub():
        raise StudentCodeError("NotImplementedError", "")

    def xor():
        raise StudentCodeError("NotImplementedError", "\"bitwise_xor_cpu\" not implemented for 'Float'")
    with pytest.raises(AssertionError, match="not answered yet") as unanswered:
        checks.call(stub, what="attention")
    assert not isinstance(unanswered.value, StudentCodeError)
    with pytest.raises(StudentCodeError):
        checks.call(xor, what="attention")


def test_a_module_the_notebook_never_imports_is_named():
    e = StudentCodeError("NameError", "name 'np' is not defined",
                         'Traceback (most recent call last):\n  File "In[2]", line 2, in f\nNameError: name \'np\'')
    named = crash_words(e, ["import torch", "def f(x):\n    return x / np.sqrt(4)"])
    assert named is not None and named.key == "module_not_imported" and "numpy" in str(named)
    # imported further down: that cell had not run yet, another slip
    later = crash_words(e, ["import torch", "def f(x):\n    return x / np.sqrt(4)", "import numpy as np"])
    assert later is not None and later.key == "name_not_yet_defined"


def test_the_added_parameter_check_calls_the_student_once_per_test():
    # a question's own hook and check_value's may both ask within one test: the second asks nothing
    src = "def scaled_scores(Q, K, eps=1):\n    return Q @ K.T\n"
    calls = []

    def scaled_scores(Q, K, eps=1):
        calls.append(eps)
        return Q @ K.T

    def reference(Q, K):
        return Q @ K.T / 2
    reference.__name__ = "scaled_scores"
    with checks.charges_recorded(_submission(src)):
        for _ in range(2):
            checks.raise_if_added_parameter_wrong(scaled_scores, (A, B), lambda out: False, func_name="scaled_scores",
                                                  reference=reference, what="S")
    assert 0 < len(calls) <= 12
    first = len(calls)
    with checks.charges_recorded(_submission(src)):      # the next test asks again
        checks.raise_if_added_parameter_wrong(scaled_scores, (A, B), lambda out: False, func_name="scaled_scores",
                                              reference=reference, what="S")
    assert len(calls) == 2 * first


@pytest.mark.parametrize("message", [
    "shape '[1, 1, " + "9" * 5000 + "]' is invalid for input of size " + "9" * 5000,      # digits past int()'s limit
    "shape '[" + "1, " * 3000 + "x",                                                       # a view's words, unclosed
    "randn() received an invalid combination of arguments - got (" + "a=1, " * 2000 + "), but expected one of: "
    + "(*) " * 2000,
])
def test_student_made_crash_words_past_their_usual_size_are_read_safely(message: str) -> None:
    # a notebook can raise any message it likes: it reaches these patterns cut to the first 500 characters
    # (StudentCodeError) or the first line's 400 (a failure quoting one), and is only ever read
    for error in (StudentCodeError("RuntimeError", message), AssertionError(f"your code raised RuntimeError: {message}")):
        named = crash_words(error)
        assert named is None or named.key in ("view_leading_ones", "unexpected_keyword")


def test_notebook_frames_reads_only_the_cells_frames_and_stays_bounded():
    from autograder.errors import NotebookFrame, StudentCodeError, notebook_frames
    tb = ('Traceback (most recent call last):\n  File "In[4]", line 2, in <module>\n    out = attend(q, k, v)\n'
          '  File "/usr/lib/python3/torch/functional.py", line 9, in softmax\n'
          '  File "In[3]", line 7, in attend\n    return w @ v\n')
    assert notebook_frames(tb) == [NotebookFrame(4, 2, "<module>"), NotebookFrame(3, 7, "attend")]
    e = StudentCodeError("RuntimeError", "boom", tb)
    assert e.notebook_frames()[-1].function == "attend"
    # student text: a frame a notebook printed past the traceback's kept length is not read
    assert notebook_frames("x" * 4000 + 'File "In[1]", line 1, in f') == []
    assert notebook_frames('File "In[' + "9" * 50 + ']", line 1, in f') == []
