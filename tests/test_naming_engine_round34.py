"""The engine's mechanisms added after blind33 (issue 21), each tried on its own: a typed count with a slip
(checks.raise_if_typo), a number in quotes and an answer left empty (expect_number, expect_choice,
source_checks.left_none), torch.where missing its value where False (crash words), and the one-edit search's
new edits and its two ways past "too many fixes" (repair._one_place, repair._term_left_out). Each case has a
near miss beside it that must not be named."""
from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from autograder.errors import StudentCodeError
from autograder.grading import repair
from autograder.grading.checks import Misconception, expect_choice, expect_int, expect_number, raise_if_typo
from autograder.grading.crash_words import crash_words
from autograder.grading.source_checks import left_none


@pytest.mark.parametrize(("got", "right", "how"), [
    (67180864, 67108864, "two digits swapped (08 typed as 80)"),
    (1048756, 1048576, "two digits swapped"),
    (671088864, 67108864, "one digit repeated"),
    (6710864, 67108864, "one digit left out"),
    (67108364, 67108864, "one digit changed (8 typed as 3)"),
])
def test_a_count_typed_with_a_slip_is_named_with_the_slip(got: int, right: int, how: str) -> None:
    with pytest.raises(Misconception) as e:
        raise_if_typo(got, right, "score_madds")
    assert e.value.key == "number_typo" and how in str(e.value) and f"{right:,}" in str(e.value)


@pytest.mark.parametrize(("got", "right"), [
    (67108865, 67108864),        # the last digit: a formula one off ends there (T^2 d_k + 1)
    (67108864 * 2, 67108864),    # a factor, not a typo
    (4095, 4096),                # four digits, one changed: too likely a formula's
    (-67108864, 67108864),       # the sign: another mistake
    (123, 132),                  # three digits: coincidences are likely
    (67108864.5, 67108864),      # not a whole number
    (76108864 + 1, 67108864),    # swapped and changed: two slips are no evidence
])
def test_other_wrong_counts_are_not_called_typos(got: float, right: int) -> None:
    raise_if_typo(got, right, "score_madds")


def test_a_number_in_quotes_and_an_empty_answer_are_named() -> None:
    for value, key in (("8", "number_as_string"), (" 8.0 ", "number_as_string"), ("1_024", "number_as_string"),
                       ("", "answer_left_empty"), ("   ", "answer_left_empty")):
        with pytest.raises(Misconception) as e:
            expect_number(value, "max_rank_S")
        assert e.value.key == key, value
    with pytest.raises(Misconception) as e:
        expect_int("16", "max_rank_S")
    assert e.value.key == "number_as_string"
    for other in ("eight", "nan", "inf", "8 or 16"):       # words: not a number in quotes
        with pytest.raises(AssertionError) as e2:
            expect_number(other, "max_rank_S")
        assert not isinstance(e2.value, Misconception) or e2.value.key != "number_as_string", other
    assert math.isclose(expect_number(8, "x"), 8.0)
    for blank in ("", "  ", "()"):
        with pytest.raises(Misconception) as e:
            expect_choice(blank, "q5_answer", answer="C")
        assert e.value.key == "answer_left_empty"


def test_an_answer_whose_last_binding_is_none_is_told_so() -> None:
    assert left_none(["import torch", "q6_answer = None  # TODO"], "q6_answer") == "q6_answer = None"
    assert left_none(["q6_answer = None", "q6_answer = 'B'"], "q6_answer") is None      # answered later
    assert left_none(["q6_answer = 'B'", "q6_answer: str = None"], "q6_answer") == "q6_answer: str = None"
    assert left_none(["q6_answer = f()"], "q6_answer") is None       # a function's None is another story
    assert left_none(["def f():\n    q6_answer = None"], "q6_answer") is None     # a local
    assert left_none(["q6_answer = (", "x = 1"], "q6_answer") is None     # a cell that does not parse


def test_torch_where_without_its_value_where_false_is_named_by_its_words() -> None:
    c, w = torch.ones(2, dtype=torch.bool), torch.randn(2)
    where: Any = torch.where      # called wrongly on purpose
    w_any: Any = w
    for call in (lambda: where(c, w), lambda: where(c, 1.0), lambda: w_any.where(c)):
        with pytest.raises(TypeError) as e:
            call()
        named = crash_words(StudentCodeError("TypeError", str(e.value).splitlines()[0]))
        assert named is not None and named.key == "where_missing_value"
    with pytest.raises(TypeError) as e:
        where(c, w, w, w)      # too many: another slip
    assert crash_words(StudentCodeError("TypeError", str(e.value).splitlines()[0])) is None
    assert len(torch.where(c)) == 1   # the condition alone is valid (the positions): its words never appear


def _fixes(source: str, name: str, reference, inputs, cap: int = repair.MAX_FIXES) -> list[repair.Edit]:
    made = repair.edits([source], name, "_copy_")
    assert made is not None
    ns: dict = {"torch": torch, "math": math}
    exec(source, ns)
    for e in made[1]:
        exec(e.source, ns)
    return repair.search(made[1], lambda n, i: ns[f"_copy_{n}"](*repair._copies(inputs[i])),
                         [reference(*repair._copies(x)) for x in inputs], lambda: False, cap=cap)


def test_the_new_edits_mend_their_slips() -> None:
    q, K, V = torch.randn(4, dtype=torch.float64), torch.randn(5, 4, dtype=torch.float64), torch.randn(5, 3,
                                                                                                     dtype=torch.float64)

    def nw(q, K, V):
        w = torch.softmax(K @ q / math.sqrt(q.shape[-1]), dim=0)
        return w @ V
    exp2 = "def nw(q, K, V):\n    k = torch.exp2(K @ q / math.sqrt(q.shape[-1]))\n    return (k[:, None] * V).sum(0) / k.sum()\n"
    said = [e.after for e in _fixes(exp2, "nw", nw, [(q, K, V)])]      # the call, or its function's name
    assert said and set(said) <= {"torch.exp(K @ q / math.sqrt(q.shape[-1]))", "torch.exp"}

    def scores(Q, K):
        return Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    numel = "def scores(Q, K):\n    d_k = Q.numel()\n    return Q @ K.transpose(-2, -1) / math.sqrt(d_k)\n"
    inputs = [(torch.randn(3, 4, dtype=torch.float64), torch.randn(5, 4, dtype=torch.float64))]
    assert [e.after for e in _fixes(numel, "scores", scores, inputs)] == ["Q.shape[-1]"]

    X, W = torch.randn(5, 4, dtype=torch.float64), [torch.randn(4, 4, dtype=torch.float64) for _ in range(3)]

    def heads(X, A, B, C):
        return torch.cat([X @ A[:, :2] + X @ B[:, :2] + X @ C[:, :2], X @ A[:, 2:]], dim=1)
    rows = ("def heads(X, A, B, C):\n    r = slice(0, 2)\n    first = X @ A[r] + X @ B[r] + X @ C[r]\n"
            "    return torch.cat([first, X @ A[:, 2:]], dim=1)\n")
    fixed = _fixes(rows, "heads", heads, [(X, *W)])
    assert [e.after for e in fixed] == ["first = X @ A[:, r] + X @ B[:, r] + X @ C[:, r]"]

    def var(x, scaled):
        return (x / 2 if scaled else x).var()
    ifexp = "def var(x, scaled):\n    y = x / 2 if scaled else 1\n    return (y * torch.ones_like(x)).var()\n"
    xs = torch.randn(50, dtype=torch.float64)
    assert [e.after for e in _fixes(ifexp, "var", lambda x, s: (x / 2 if s else x).var(), [(xs, True), (xs, False)])
            if "if" in e.after] == ["x / (2 if scaled else 1)"]


def _edit(line: int, before: str, after: str, helper: str = "") -> repair.Edit:
    return repair.Edit(line=line, before=before, after=after, source="", helper=helper)


def test_many_fixes_in_one_place_are_said_there_with_the_likeliest_first() -> None:
    cell = "def f(x, dim=-1):\n    if dim < 0:\n        dim = x.dim() - dim\n    return x.softmax(dim)\n"
    fixes = [_edit(2, "0", "-2"), _edit(2, "dim < 0", "dim > 0"), _edit(3, "dim = x.dim() - dim", ""),
             _edit(3, "x.dim() - dim", "x.dim() + dim")]
    said, more = repair._one_place(fixes, cell)
    assert [e.after for e in said] == ["x.dim() + dim", "dim > 0", "-2"] and more == 1
    text = repair.told(repair.Found(name="f", cell=0, fixes=tuple(said), calls=4, line_text="", more=more), "`f`")
    assert "(and 1 other change on the same lines)" in text
    spread = [*fixes[:3], _edit(4, "dim", "-1")]           # lines 2 to 4: not one place
    assert repair._one_place(spread, cell) == ([], 0)
    two_functions = [*fixes[:3], _edit(3, "x.dim() - dim", "x.dim() + dim", helper="g")]
    assert repair._one_place(two_functions, cell) == ([], 0)


def test_a_term_too_many_is_found_where_every_fix_silences_it() -> None:
    cell = ("def h(A):\n    p = A * torch.log2(A)\n    q = (1 - A) * torch.log2(1 - A)\n    return -(p + q).sum(-1)\n")
    made = repair.edits([cell], "h", "_c_")
    assert made is not None
    edited = made[1]
    on_q = [e for e in edited if e.line == 3][:4]
    picked = repair._term_left_out(on_q, edited, cell)
    assert [edited[k].after for k in picked] == ["p"]
    assert repair._term_left_out([*on_q[:3], _edit(2, "A", "1 - A")], edited, cell) == []   # two lines


def test_a_helpers_change_must_also_hold_on_the_helpers_own_calls() -> None:
    # blind34: a softmax shifted by the row's median is right wherever nothing overflows and NaN on a row that is
    # mostly -inf; through the caller's masked calls alone, shifting by anything finite (the median's .indices)
    # "mends" it. The helper's own test call, with scores in the thousands, refuses that change.
    from autograder.grading.namespaces import CallRecord
    from autograder.results import TestReport

    cell = ("def soft(s):\n    e = torch.exp(s - s.median(dim=-1, keepdim=True).values)\n"
            "    return e / e.sum(dim=-1, keepdim=True)\n\n"
            "def attention(Q, K, V, mask):\n    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])\n"
            "    return soft(s.masked_fill(~mask, float('-inf'))) @ V\n")

    def ref_soft(s: torch.Tensor) -> torch.Tensor:
        return torch.softmax(s, dim=-1)

    def ref_attention(Q, K, V, mask):
        s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
        return torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1) @ V

    class Policy:
        repair_submission_s = 30.0

    class Space:
        policy = Policy()

        def __init__(self) -> None:
            self.recorded = CallRecord()
            self.ns: dict[str, Any] = {"torch": torch, "math": math}
            exec(cell, self.ns)

        def define(self, source: str, timeout_s: float) -> bool:
            exec(source, self.ns)
            return True

        def call_copy(self, name: str, args: Any, kwargs: dict[str, Any]) -> Any:
            return self.ns[name](*args, **kwargs)

    g = torch.Generator().manual_seed(3)
    Q, K, V = (torch.randn(5, 4, generator=g, dtype=torch.float64) for _ in range(3))
    mask = torch.tril(torch.ones(5, 5, dtype=torch.bool))          # row 0 sees one key of five: its median is -inf
    big = 1000 * torch.randn(3, 6, generator=g, dtype=torch.float64)

    def report(q: str, name: str) -> TestReport:
        return TestReport(question=q, name=name, device="cpu", hidden=True, max_score=1.0, score=0.0,
                          status="failed", message="does not match")

    def graded(with_helper_call: bool) -> list[TestReport]:
        space = Space()
        space.recorded.test = ("q5", "masked")
        space.recorded.add("attention", (Q, K, V, mask), {}, space.ns["attention"](Q, K, V, mask))
        if with_helper_call:
            space.recorded.test = ("q3", "large")
            space.recorded.add("soft", (big,), {}, space.ns["soft"](big))
        out = repair.name_by_one_edit([report("q5", "masked"), *([report("q3", "large")] if with_helper_call else [])],
                                      space, {"attention": ref_attention, "soft": ref_soft}, [cell])
        return out

    alone = graded(False)[0]
    assert alone.misconception == repair.KEY and "helper `soft`" in alone.message     # a coincidence, said
    checked = graded(True)
    assert all("helper `soft`" not in r.message for r in checked), [r.message for r in checked]


def test_a_statistical_fix_may_not_ignore_a_value_the_function_draws() -> None:
    src = ("def var(d, n, g):\n    q = torch.randn(n, d, generator=g)\n    k = torch.randn(n, d, generator=g)\n"
           "    return (q.sum(1) * k.sum(1)).var().item()\n")
    made = repair.edits([src], "var", "_c_")
    found = repair.last_def([src], "var")
    assert made is not None and found is not None
    by_text = {e.after: e for e in made[1]}
    assert repair._silences(by_text["q.sum(1)"], found[1])          # k drawn, never read: refused
    axes = [e for e in made[1] if e.after == "0"]                  # another axis: everything is still read
    assert axes and not any(repair._silences(e, found[1]) for e in axes)


def test_a_parameter_renamed_in_the_def_is_named_only_for_the_tests_own_call() -> None:
    cells = ["def qkv_param_count(d_model, d_k, d_v, output=False):\n    return 1\n"]
    said = "qkv_param_count() got an unexpected keyword argument 'with_output'"
    named = crash_words(StudentCodeError("TypeError", said), cells)
    assert named is not None and named.key == "parameter_renamed"
    assert "def qkv_param_count(d_model, d_k, d_v, output)" in str(named)
    from_their_code = StudentCodeError("TypeError", said, 'File "In[4]", line 3, in attention\n')
    assert crash_words(from_their_code, cells) is None        # their own call's keyword: a slip of that call
    for other in (["def qkv_param_count(d_model, d_k, d_v, **kw):\n    return 1\n"],     # takes any keyword
                  ["def qkv_param_count(d_model, d_k, d_v, with_output=False):\n    return 1\n"],   # has it
                  ["x = 1"]):                                                             # no such def
        assert crash_words(StudentCodeError("TypeError", said), other) is None


def test_one_name_put_for_another_in_every_place_of_a_statement_and_a_globals_size_for_a_parameter() -> None:
    def mask(T_q, T_k=None):
        T_k = T_q if T_k is None else T_k
        return torch.ones(T_q, T_k, dtype=torch.bool).tril()
    split = ("def m(T_q, T_k=None):\n    T_k = T_q if T_k is None else T_k\n"
             "    idx = torch.arange(T_q * T_k).reshape(T_q, T_k)\n    row, col = idx // T_q, idx % T_q\n"
             "    return col <= row\n")
    calls = [(3, 5), (5, 3), (4, None)]
    assert [e.after for e in _fixes(split, "m", mask, calls)] == ["row, col = (idx // T_k, idx % T_k)"]
    global_size = ("def m(T_q, T_k=None):\n    if T_k is None:\n        T_k = K.shape[-2]\n"
                   "    return torch.ones(T_q, T_k, dtype=torch.bool).tril()\n")
    made = repair.edits([global_size], "m", "_c_")
    assert made is not None
    ns: dict = {"torch": torch, "K": torch.zeros(2, 7, 9)}       # the notebook's global K: no axis of 4
    exec(global_size, ns)
    for e in made[1]:
        exec(e.source, ns)
    fixed = repair.search(made[1], lambda n, i: ns[f"_c_{n}"](*calls[i]), [mask(*c) for c in calls], lambda: False)
    assert [e.after for e in fixed] == ["T_q"]
    # a module's or the def's own names are never replaced this way
    own = "def m(T_q, T_k=None):\n    x = torch.float32\n    return x\n"
    made = repair.edits([own], "m", "_c_")
    assert made is not None and not any(e.before == "torch.float32" and e.after in ("T_q", "T_k") for e in made[1])
