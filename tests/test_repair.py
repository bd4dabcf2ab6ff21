"""One-edit fixes (autograder/grading/repair.py): a failure the catalogue does not name is told as the one change
to the student's own function that makes it right on every input the tests gave it.

The edits are checked in-process on plain functions (the trusted test runs its own code), the search and the
naming through a namespace that runs the edited copies here, and the whole path through the real Grader and
its sandboxed worker on notebooks with slips the catalogue has no name for."""
from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import pytest
import torch

from autograder.config import find_course
from autograder.grading import repair
from autograder.grading.grader import Grader
from autograder.grading.namespaces import CallRecord, RecordedCall
from autograder.grading.repair import KEY, Edit, edits, name_by_one_edit, same_answer, search
from autograder.results import TestReport
from tests.heldout.harness import ROOT, Variant, grade


def _fixes_of(source: str, name: str, reference: Any, inputs: list[tuple[Any, ...]]) -> list[Edit]:
    """The edits of `name` in `source` that give `reference`'s answer on every input: the copies run here."""
    made = edits([source], name, "_copy_")
    assert made is not None
    _cell, edited = made
    ns: dict[str, Any] = {"torch": torch, "math": math}
    exec(source, ns)        # the test's own code: its helpers, as a notebook's cells would define them
    for e in edited:
        exec(e.source, ns)
    fresh = repair._copies     # each copy gets its own inputs, as in the worker: a copy may write into them
    return search(edited, lambda n, i: ns[f"_copy_{n}"](*fresh(inputs[i])), [reference(*fresh(x)) for x in inputs],
                  lambda: False)


def _attention(Q, K, V):
    return torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1]), dim=-1) @ V


def _inputs(*shapes: tuple[int, ...], seed: int = 0) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(*s, generator=g, dtype=torch.float64) for s in shapes)


QKV = [_inputs((2, 5, 4), (2, 6, 4), (2, 6, 3)), _inputs((3, 4), (7, 4), (7, 2), seed=1)]

SLIPS = {   # one slip of the notebook's attention -> (its code, what the fix must say)
    "values as keys": ("s = Q @ V.transpose(-2, -1) / math.sqrt(Q.shape[-1])", ("K", "V")),
    "softmax over queries": ("w = torch.softmax(s, dim=-2)", ("-1", "-2")),
    "scale by d_v": ("s = Q @ K.transpose(-2, -1) / math.sqrt(V.shape[-1])", ("Q", "V")),
    "multiplied by the scale": ("s = Q @ K.transpose(-2, -1) * math.sqrt(Q.shape[-1])",
                                ("Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])",
                                 "Q @ K.transpose(-2, -1) * math.sqrt(Q.shape[-1])")),
    "K.T on a batch": ("s = Q @ K.T / math.sqrt(Q.shape[-1])", ("K.transpose(-2, -1)", "K.T")),
}
BODY = {"s": "s = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])", "w": "w = torch.softmax(s, dim=-1)"}


def _notebook_attention(slip_line: str) -> str:
    lines = [slip_line if slip_line.startswith(k + " =") else v for k, v in BODY.items()]
    return "def attention(Q, K, V):\n" + "".join(f"    {x}\n" for x in lines) + "    return w @ V\n"


@pytest.mark.parametrize("slip", sorted(SLIPS))
def test_the_fix_of_a_slip_is_found_and_said(slip: str) -> None:
    line, (after, before) = SLIPS[slip]
    fixes = _fixes_of(_notebook_attention(line), "attention", _attention, QKV)
    assert fixes and len(fixes) <= repair.MAX_FIXES, slip
    said = [(f.after, f.before) for f in fixes]
    assert (after, before) in said, (slip, said)


def test_right_code_is_never_searched_and_two_slips_have_no_one_edit_fix() -> None:
    # a test that failed for another reason while the function answered right: nothing to fix there
    space = _Namespace(_notebook_attention(BODY["s"]))
    _record(space, ("q1", "a"), QKV[0])
    assert name_by_one_edit([_report("q1", "a")], space, {"attention": _attention}, [space.cell])[0].misconception is None
    assert space.defined == 0
    two = ("def attention(Q, K, V):\n    s = Q @ V.transpose(-2, -1) * math.sqrt(Q.shape[-1])\n"
           "    w = torch.softmax(s, dim=-1)\n    return w @ V\n")
    assert _fixes_of(two, "attention", _attention, QKV) == []


def test_a_fix_must_make_every_input_right() -> None:
    # `K.shape[-2]` (T_k) for d_k: `-1` in place of `-2` fixes every input. `Q.shape[-2]` (T_q) fits no input;
    # on an input where T_q = d_k = 4 it would look like a fix there, and the other inputs rule it out
    src = _notebook_attention("s = Q @ K.transpose(-2, -1) / math.sqrt(K.shape[-2])")
    fixes = _fixes_of(src, "attention", _attention, [_inputs((2, 4, 4), (2, 6, 4), (2, 6, 3)), *QKV])
    assert [(f.after, f.before) for f in fixes] == [("-1", "-2")]
    only_square = _fixes_of(src, "attention", _attention, [_inputs((2, 4, 4), (2, 6, 4), (2, 6, 3))])
    assert ("Q", "K") in [(f.after, f.before) for f in only_square]


def test_numpy_habits_and_an_is_for_an_equality() -> None:
    def ref_scores(Q, K):
        return Q @ K.transpose(-2, -1)
    fixes = _fixes_of("def scores(Q, K):\n    return Q @ K.transpose(0, 2, 1)\n", "scores", ref_scores,
                      [_inputs((2, 3, 4), (2, 5, 4))])
    assert ("K.transpose(-2, -1)", "K.transpose(0, 2, 1)") in [(f.after, f.before) for f in fixes]
    fixes = _fixes_of("def scores(Q, K):\n    return torch.mm(Q, K)\n", "scores", ref_scores, [_inputs((3, 4), (5, 4))])
    assert ("K.transpose(-2, -1)", "K") in [(f.after, f.before) for f in fixes]

    def ref_blocked(S, M):
        return S.masked_fill(M == False, 0.0)  # noqa: E712 - the elementwise test the slip misses
    fixes = _fixes_of("def blocked(S, M):\n    return S.masked_fill(M is False, 0.0)\n", "blocked", ref_blocked,
                      [(torch.rand(3, 3), torch.rand(3, 3) > 0.5)])
    assert fixes and fixes[0].after == "M == False"

    def ref_total(shapes):
        return sum(a * b for a, b in shapes.values())
    fixes = _fixes_of("def total(shapes):\n    return sum(a * b for a, b in shapes)\n", "total", ref_total,
                      [({"x": (2, 3), "y": (4, 5)},)])
    assert [f.after for f in fixes] == ["shapes.values()"]


def test_precedence_and_where_branches_and_a_line_too_many() -> None:
    def ref_slice(x, h, d):
        return x[:, h * d:(h + 1) * d]
    src = "def head(x, h, d):\n    return x[:, h * d:h + 1 * d]\n"
    fixes = _fixes_of(src, "head", ref_slice, [(torch.arange(24.).view(2, 12), 1, 3), (torch.arange(40.).view(2, 20), 2, 4)])
    assert ("(h + 1) * d", "h + 1 * d") in [(f.after, f.before) for f in fixes]

    def ref_zero_empty(w, keep):
        return torch.where(keep, w, torch.zeros_like(w))
    src = "def zero_empty(w, keep):\n    return torch.where(keep, torch.zeros_like(w), w)\n"
    w, keep = torch.rand(3, 4), torch.tensor([[True], [False], [True]])
    fixes = _fixes_of(src, "zero_empty", ref_zero_empty, [(w, keep)])
    assert fixes and fixes[0].after == "torch.where(keep, w, torch.zeros_like(w))"

    def ref_scores(Q, K):
        return Q @ K.T
    src = "def scores(Q, K):\n    s = Q @ K.T\n    s = s / Q.shape[-1]\n    return s\n"
    fixes = _fixes_of(src, "scores", ref_scores, [_inputs((3, 4), (5, 4))])
    assert any(f.after == "" and f.before == "s = s / Q.shape[-1]" for f in fixes)


def test_a_slip_inside_a_helper_is_fixed_through_the_function_that_calls_it() -> None:
    # `scores` is the student's own helper: the graded `attention` is right, its helper is not. The edit is
    # the helper's, checked through a copy of `attention` that calls the edited helper
    src = ("def scores(Q, K):\n    return Q @ K.T\n\n"
           "def attention(Q, K, V):\n    w = torch.softmax(scores(Q, K) / math.sqrt(Q.shape[-1]), dim=-1)\n"
           "    return w @ V\n")
    fixes = _fixes_of(src, "attention", _attention, QKV)
    assert fixes and all(f.helper == "scores" for f in fixes), fixes
    assert ("K.transpose(-2, -1)", "K.T") in [(f.after, f.before) for f in fixes]
    found = repair.Found(name="attention", cell=0, fixes=tuple(fixes), calls=2, line_text="return Q @ K.T")
    said = repair.told(found, "`attention`")
    assert said.startswith("`attention` is right with one change to the helper `scores` it calls, on line 2"), said
    # the function's own edits come first: a slip of its own is told as its own, not as a helper's
    own = src.replace("/ math.sqrt(Q.shape[-1])", "* math.sqrt(Q.shape[-1])").replace("K.T", "K.transpose(-2, -1)")
    made = edits([own], "attention", "_c_")
    assert made is not None and not made[1][0].helper and made[1][-1].helper == "scores"
    assert [f.helper for f in _fixes_of(own, "attention", _attention, QKV)] == [""]


def test_a_slip_inside_a_small_class_the_function_uses_is_fixed_through_it() -> None:
    src = ("class Scorer:\n    def __init__(self, d):\n        self.scale = 1 / math.sqrt(d)\n\n"
           "    def __call__(self, Q, K):\n        return Q @ K.transpose(-2, -1) / self.scale\n\n"
           "def attention(Q, K, V):\n    w = torch.softmax(Scorer(Q.shape[-1])(Q, K), dim=-1)\n    return w @ V\n")
    fixes = _fixes_of(src, "attention", _attention, QKV)
    assert fixes and all(f.helper == "Scorer" for f in fixes), fixes
    assert ("Q @ K.transpose(-2, -1) * self.scale", "Q @ K.transpose(-2, -1) / self.scale") in [
        (f.after, f.before) for f in fixes], fixes
    assert {f.line for f in fixes} <= {3, 6}        # `1 * math.sqrt(d)` on line 3 is right too


def test_one_attribute_of_self_read_for_another_is_fixed() -> None:
    # blind31: a class stores every matrix on self and projects the values with self.W_O; W_V is stored, never read
    src = ("class Attend:\n    def __init__(self, W_K, W_V, W_O):\n        self.W_K, self.W_V, self.W_O = W_K, W_V, W_O\n\n"
           "    def __call__(self, Q, X):\n        K, V = X @ self.W_K, X @ self.W_O\n"
           "        w = torch.softmax(Q @ K.transpose(-2, -1), dim=-1)\n        return w @ V @ self.W_O\n\n"
           "def attend(Q, X, W_K, W_V, W_O):\n    return Attend(W_K, W_V, W_O)(Q, X)\n")

    def ref_attend(Q, X, W_K, W_V, W_O):
        return torch.softmax(Q @ (X @ W_K).transpose(-2, -1), dim=-1) @ (X @ W_V) @ W_O
    inputs = [_inputs((3, 4), (5, 4), (4, 4), (4, 4), (4, 4)), _inputs((2, 4), (6, 4), (4, 4), (4, 4), (4, 4), seed=2)]
    fixes = _fixes_of(src, "attend", ref_attend, inputs)
    assert [(f.before, f.after, f.helper) for f in fixes] == [("self.W_O", "self.W_V", "Attend")], fixes
    made = edits([src], "attend", "_c_")
    assert made is not None and [e for e in made[1] if e.helper][0].after == "self.W_V"    # the unread one first
    # a function's own names are never given a dotted name, nor a class's attributes a plain one
    assert not any(e.after.startswith("self.") and e.before in ("X", "Q") for e in made[1])
    assert not any(e.before in ("self.W_K", "self.W_V", "self.W_O") and "self." not in e.after for e in made[1])


def test_einsum_letters_a_positional_dtype_and_a_mask_of_the_wrong_sense() -> None:
    def ref_scores(Q, K):
        return Q @ K.transpose(-2, -1)
    fixes = _fixes_of("def scores(Q, K):\n    return torch.einsum('bqd,bkd->bkq', Q, K)\n", "scores", ref_scores,
                      [_inputs((2, 3, 4), (2, 5, 4))])
    assert "'bqd,bkd->bqk'" in [f.after for f in fixes], fixes
    fixes = _fixes_of("def scores(Q, K):\n    return torch.einsum('ij,jk->ik', Q, K)\n", "scores", ref_scores,
                      [_inputs((3, 4), (5, 4))])
    assert {"'ij,kj->ik'"} <= {f.after for f in fixes}, fixes

    def ref_causal(n):
        return torch.ones(n, n, dtype=torch.bool).tril()
    fixes = _fixes_of("def causal(n):\n    return torch.ones(n, n, torch.bool).tril()\n", "causal", ref_causal,
                      [(3,), (5,)])
    assert [f.after for f in fixes] == ["torch.ones(n, n, dtype=torch.bool)"], fixes

    def ref_blocked(S, keep):
        return S.masked_fill(~keep, float("-inf"))
    S, keep = torch.rand(4, 4), torch.ones(4, 4, dtype=torch.bool).tril()
    fixes = _fixes_of("def blocked(S, keep):\n    return S.masked_fill(keep, float('-inf'))\n", "blocked",
                      ref_blocked, [(S, keep)])
    assert "S.masked_fill(~keep, float('-inf'))" in [f.after for f in fixes], fixes
    fixes = _fixes_of("def blocked(S, keep):\n    return S.masked_fill(~~keep, float('-inf'))\n", "blocked",
                      ref_blocked, [(S, keep)])
    assert "~keep" in [f.after for f in fixes], fixes
    assert list(repair._einsum_edits("a b,")) == [] and list(repair._einsum_edits("x" * 50)) == []


def test_einsum_with_an_ellipsis_one_letter_on_two_axes_and_torch_inner() -> None:
    def ref_scores(Q, K):
        return Q @ K.transpose(-2, -1)
    # blind31: queries and keys under one letter pair q_t with k_t; the fix gives the keys their own letter,
    # kept in the output, and the ellipsis stays where it is
    fixes = _fixes_of("def scores(Q, K):\n    return torch.einsum('...td,...td->...t', Q, K)\n", "scores",
                      ref_scores, [_inputs((2, 3, 4), (2, 5, 4)), _inputs((3, 4), (3, 4))])
    assert [f.after for f in fixes] == ["'...td,...ad->...ta'"], fixes
    assert all("#" not in e and e.count("...") == 3 for e in repair._einsum_edits("...td,...td->...t"))
    fixes = _fixes_of("def scores(Q, K):\n    return torch.einsum('b...qd,b...dk->b...qk', Q, K)\n", "scores",
                      ref_scores, [_inputs((2, 3, 4), (2, 5, 4))])
    assert fixes and {f.after for f in fixes} <= {"'b...qd,b...kd->b...qk'", "K.transpose(-2, -1)"}, fixes

    def ref_smooth(w, V):
        return w @ V
    fixes = _fixes_of("def smooth(w, V):\n    return torch.inner(w, V) / w.sum()\n", "smooth",
                      lambda w, V: ref_smooth(w, V) / w.sum(), [_inputs((6,), (6, 6)), _inputs((7,), (7, 3))])
    assert [f.after for f in fixes] == ["w @ V"], fixes


def test_numpy_axes_order_a_slice_for_an_index_and_a_log_with_a_base() -> None:
    def ref_split(x, h):
        T, d = x.shape
        return x.reshape(T, h, d // h).permute(1, 0, 2)
    src = "def split(x, h):\n    T, d = x.shape\n    return x.reshape(T, h, d // h).transpose(1, 0, 2)\n"
    fixes = _fixes_of(src, "split", ref_split, [(torch.arange(24.).view(4, 6), 2), (torch.arange(60.).view(5, 12), 3)])
    assert "x.reshape(T, h, d // h).permute(1, 0, 2)" in [f.after for f in fixes], fixes

    def ref_scaled(Q, K):
        return Q @ K.transpose(-2, -1) / math.sqrt(K.size()[-1])
    src = "def scaled(Q, K):\n    d = K.size()[-1:]\n    return Q @ K.transpose(-2, -1) / math.sqrt(d)\n"
    fixes = _fixes_of(src, "scaled", ref_scaled, [QKV[1][:2], QKV[0][:2]])
    assert ("K.size()[-1]", "K.size()[-1:]") in [(f.after, f.before) for f in fixes], fixes

    def ref_bits(p):
        return -(p * torch.log2(p)).sum(-1)
    p = torch.softmax(torch.randn(3, 5, dtype=torch.float64), dim=-1)
    for src, after in (("def bits(p):\n    return -(p * torch.log(p, 2)).sum(-1)\n", "torch.log2(p)"),
                       ("def bits(p):\n    logs = p.log(2)\n    return -(p * logs).sum(-1)\n", "p.log2()")):
        fixes = _fixes_of(src, "bits", ref_bits, [(p,)])
        assert after in [f.after for f in fixes], (src, fixes)


def test_a_product_of_entries_for_a_matrix_product_an_unpacked_list_and_near_named_functions() -> None:
    # weights * V where weights @ V is meant (a broadcast crash or a wrong shape), and the other way round
    src = "def mix(W, V):\n    out = W * V\n    return out\n"
    W, V = torch.softmax(torch.randn(4, 3, dtype=torch.float64), -1), torch.randn(3, 2, dtype=torch.float64)
    assert "W @ V" in [f.after for f in _fixes_of(src, "mix", lambda W, V: W @ V, [(W, V)])]
    src = "def gate(a, b):\n    return (a @ b).sum(-1)\n"
    a, b = torch.randn(3, 3, dtype=torch.float64), torch.randn(3, 3, dtype=torch.float64)
    assert "a * b" in [f.after for f in _fixes_of(src, "gate", lambda a, b: (a * b).sum(-1), [(a, b)])]
    # torch.cat(*parts): a call that takes one sequence given its items
    src = "def join(parts):\n    return torch.cat(*parts, dim=-1)\n"
    parts = [torch.randn(2, 3, dtype=torch.float64) for _ in range(3)]
    assert "torch.cat(parts, dim=-1)" in [f.after for f in _fixes_of(src, "join", lambda ps: torch.cat(ps, -1),
                                                                      [(parts,)])]
    # a running total where the row's total is meant; e^x - 1 where e^x is
    x = torch.randn(3, 5, dtype=torch.float64)
    for src, after in (("def norm(x):\n    e = torch.exp(x)\n    return e / e.cumsum(dim=-1)\n",
                        "e.sum(dim=-1, keepdim=True)"),
                       ("def norm(x):\n    e = torch.expm1(x)\n    return e / e.sum(dim=-1, keepdim=True)\n",
                        "torch.exp(x)")):
        fixes = _fixes_of(src, "norm", lambda x: torch.softmax(x, -1), [(x,)])
        assert after in [f.after for f in fixes], (src, fixes)


def test_a_bound_one_off_in_one_slice_or_in_all_of_a_line_and_a_seed_for_the_gpu_only() -> None:
    def ref_running(x):
        return torch.stack([x[:t + 1].mean(0) for t in range(x.shape[0])])
    src = ("def running(x):\n    out = torch.zeros_like(x)\n    for t in range(x.shape[0]):\n"
           "        out[t] = x[:t].mean(0)\n    return out\n")
    x = torch.randn(5, 3, dtype=torch.float64)
    assert (4, "t", "t + 1") in [(f.line, f.before, f.after) for f in _fixes_of(src, "running", ref_running, [(x,)])]

    def ref_causal(S):
        return torch.softmax(S.masked_fill(torch.ones_like(S, dtype=torch.bool).triu(1), float("-inf")), -1)
    src = ("def causal(S):\n    A = torch.zeros_like(S)\n    for t in range(S.shape[0]):\n"
           "        A[t, :t] = torch.softmax(S[t, :t], -1)\n    return A\n")
    fixes = _fixes_of(src, "causal", ref_causal, [(torch.randn(4, 4, dtype=torch.float64),)])
    assert "A[t, :t + 1] = torch.softmax(S[t, :t + 1], -1)" in [f.after for f in fixes], fixes

    def ref_draw(seed):
        torch.manual_seed(seed)
        return torch.randn(3)
    src = "def draw(seed):\n    torch.cuda.manual_seed(seed)\n    return torch.randn(3)\n"
    assert "torch.manual_seed" in [f.after for f in _fixes_of(src, "draw", ref_draw, [(1,), (2,)])]


def test_same_answer() -> None:
    a = torch.rand(3, 4, dtype=torch.float64)
    assert same_answer(a.clone(), a) and not same_answer(a.T, a) and not same_answer(a[:2], a)
    assert same_answer((a, 2), (a, 2)) and not same_answer((2, a), (a, 2)) and not same_answer([a], (a, a))
    # the reference's dtype is asked (blind51: a copy that kept float16 was offered as a fix); half's own tolerance
    assert not same_answer(a.float(), a) and not same_answer(a.half(), a)
    h = a.half()
    assert same_answer(h + 1e-4, h) and not same_answer(h + 0.05, h)
    assert same_answer(float("nan"), float("nan")) and not same_answer(True, 1) and not same_answer("x", a)
    assert not same_answer(a.to(torch.complex64), a) and same_answer(torch.tensor([True]), torch.tensor([True]))
    assert same_answer(90768, 90768) and not same_answer(90768 + 2 / 64, 90768) and not same_answer(128.0, 128)


def test_edits_of_hostile_or_odd_source_never_raise() -> None:
    deep = "def f(x):\n    return " + "(" * 180 + "x" + ")" * 180 + "\n"
    for cells in (["def f(:\n"], [deep], ["f = lambda x: x\n"], ["def f(x):\n    " + "x = x + 1\n    " * 5000 + "return x\n"],
                  ["@torch.no_grad()\ndef f(x, *a, **k):\n    '''doc'''\n    return x[..., None]\n"]):
        made = edits(cells, "f", "_c_")
        assert made is None or all(e.source.startswith("def _c_") for e in made[1])
    for cells in (["x = (\n"], ["f = " + "(" * 180 + "1" + ")" * 180 + "\n"], ["f = 1\n" * 4000], ["del f\nf = 2\n"],
                  ["global f\nf: int = 1\n"], ["for f in range(3):\n    pass\n"]):
        made = repair.value_edits(cells, ["f"], "_v_")
        assert made is None or all(e.source.startswith("def _v_") and e.source.rstrip().endswith("return (f,)")
                                   for e in made[1]), cells
    made = repair.value_edits(["T = 4\nf = (T, 2) + (3)\n"], ["f", "T"], "_v_")
    assert made is not None and "(3,)" in [e.after for e in made[1]]
    # a hand-worked number is never told by another number in its place: that would be the answer itself
    made = repair.value_edits(["rank = 5\nratio = 2.5e-1 * 4\n"], ["rank", "ratio"], "_v_")
    assert made is not None and not any(repair._NUMBER.fullmatch(e.before) and repair._NUMBER.fullmatch(e.after)
                                        for e in made[1])
    assert {e.before for e in made[1]} >= {"0.25 * 4", "rank = 5"}
    assert "bqd,bkd->bqk" in list(repair._einsum_edits("bqd,bkd->bq"))
    # each copy is named by its place in the list (the search calls copy n for edit n), imports are no names
    cells = ["import torch as _t\nX = _t.ones(2, 2)\nr = _t.linalg.matrix_rank(X @ X.mT, hermitian=True).item()\n"]
    made = repair.value_edits(cells, ["r"], "_v_")
    assert made is not None and made[1] and all(f"def _v_{n}(" in e.source for n, e in enumerate(made[1]))
    assert not any(e.before == "_t" or e.after == "_t" for e in made[1])
    made = edits([_notebook_attention(BODY["s"])], "attention", "_c_")
    assert made is not None and all(f"def _c_{n}(" in e.source for n, e in enumerate(made[1]))


@dataclass
class _Policy:
    repair_submission_s: float = 3.0


@dataclass
class _Namespace:
    """What name_by_one_edit asks of a namespace, running the copies here (trusted test code)."""
    cell: str
    policy: _Policy = field(default_factory=_Policy)
    recorded: CallRecord = field(default_factory=CallRecord)
    ns: dict[str, Any] = field(default_factory=lambda: {"torch": torch, "math": math})
    defined: int = 0

    def __post_init__(self) -> None:
        exec(self.cell, self.ns)

    def define(self, source: str, timeout_s: float) -> bool:
        self.defined += 1
        exec(source, self.ns)
        return True

    def call_copy(self, name: str, args: Any, kwargs: dict[str, Any]) -> Any:
        return self.ns[name](*args, **kwargs)


def _report(q: str, name: str, status: str = "failed", key: str | None = None) -> TestReport:
    return TestReport(question=q, name=name, device="cpu", hidden=True, max_score=1.0,
                      score=0.0 if status == "failed" else 1.0, status=status, message="does not match",
                      misconception=key)


def _record(space: _Namespace, test: tuple[str, str], inputs: tuple[Any, ...]) -> None:
    space.recorded.test = test
    try:
        answer = space.ns["attention"](*inputs)
    except Exception as e:  # noqa: BLE001 - recorded as the proxy would
        answer = e
    space.recorded.add("attention", inputs, {}, answer)


def test_name_by_one_edit_names_unnamed_failures_of_the_function_their_first_call_got_wrong() -> None:
    space = _Namespace(_notebook_attention(SLIPS["values as keys"][0]))
    _record(space, ("q1", "a"), QKV[0])
    _record(space, ("q1", "b"), QKV[1])
    reports = [_report("q1", "a"), _report("q1", "b"), _report("q2", "c")]
    out = name_by_one_edit(reports, space, {"attention": _attention}, [space.cell])
    assert [r.misconception for r in out] == [KEY, KEY, None]
    assert "`K` in place of `V`" in out[0].message and "line 2 of its cell" in out[0].message
    assert out[0].message.endswith("does not match") and space.defined == 1     # searched once for both


def test_name_by_one_edit_keeps_names_searches_what_they_leave_and_a_zero_budget_alone() -> None:
    # a named test keeps its name; another failed test of the same function that no name explains gets the fix,
    # whether that function's named test crashed or ran (blind32: exp(x) - m named on float16 only)
    for first in (_inputs((2, 5, 4), (2, 6, 4), (2, 6, 4), seed=4), QKV[1]):   # runs wrong / crashes
        space = _Namespace(_notebook_attention(SLIPS["values as keys"][0]))
        _record(space, ("q1", "a"), first)
        _record(space, ("q1", "b"), _inputs((2, 5, 4), (2, 6, 4), (2, 6, 4), seed=3))    # d_v = d_k: wrong, no crash
        named = [_report("q1", "a", key="values_are_keys"), _report("q1", "b")]
        out = name_by_one_edit(named, space, {"attention": _attention}, [space.cell])
        assert [r.misconception for r in out] == ["values_are_keys", KEY]
        assert "`K` in place of `V`" in out[1].message
    # a named test whose name is not an effect key is never renamed, even where the fix is found
    space = _Namespace(_notebook_attention(SLIPS["values as keys"][0]))
    _record(space, ("q1", "a"), QKV[0])
    named = [_report("q1", "a", key="values_are_keys")]
    assert name_by_one_edit(named, space, {"attention": _attention}, [space.cell])[0].misconception == "values_are_keys"
    space = _Namespace(_notebook_attention(SLIPS["values as keys"][0]))
    _record(space, ("q1", "b"), QKV[1])
    space.policy.repair_submission_s = 0
    assert name_by_one_edit([_report("q1", "b")], space, {"attention": _attention}, [space.cell])[0].misconception is None
    assert space.defined == 0


def test_a_call_record_keeps_copies_and_generator_states_and_drops_large_calls() -> None:
    record = CallRecord()
    x = torch.zeros(3)
    record.add("f", (x,), {}, 1)
    x += 1
    assert record.calls[0].args[0].sum() == 0
    record.add("f", (torch.zeros(1 << 19),), {}, 1)                 # 2 MB of float32
    assert len(record.calls) == 1
    g = torch.Generator().manual_seed(5)
    snap = record.snapshot((x,), {"rng": g})
    assert snap is not None
    drawn = torch.rand(4, generator=g)                               # the call draws: the state kept is before it
    record.keep("f", snap, drawn)
    replay = repair._copies(record.calls[-1].kwargs)["rng"]
    assert torch.equal(torch.rand(4, generator=replay), drawn)


def test_a_random_function_is_searched_with_the_draws_of_its_call() -> None:
    def ref_draw(n, d, rng):
        q, k = torch.randn(n, d, generator=rng), torch.randn(n, d, generator=rng)
        return (q * k).sum(-1).var()
    cell = ("def ref_draw(n, d, rng):\n    q, k = torch.randn(n, d, generator=rng), torch.randn(n, d, generator=rng)\n"
            "    return (q * k).sum(0).var()\n")
    space = _Namespace(cell)
    space.recorded.test = ("q2", "a")
    for seed in (1, 2):
        g = torch.Generator().manual_seed(seed)
        snap = space.recorded.snapshot((50, 4), {"rng": g})
        assert snap is not None
        space.recorded.keep("ref_draw", snap, space.ns["ref_draw"](50, 4, rng=g))
    out = name_by_one_edit([_report("q2", "a")], space, {"ref_draw": ref_draw}, [cell])
    assert out[0].misconception == KEY and "`-1` in place of `0`" in out[0].message, out[0].message


NOTEBOOK_SDPA = '''def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == False, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.any(dim=-1, keepdim=True)
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''


def _graded(cells: dict[str, str], correct: bool = False, slug: str = "sdpa-from-scratch") -> Any:
    with Grader(find_course(ROOT)) as g, tempfile.TemporaryDirectory() as tmp:
        return grade(g, Variant(slug, "repair", cells, correct), Path(tmp))


def test_a_crash_of_values_used_as_keys_is_told_as_its_fix_through_the_worker() -> None:
    slipped = NOTEBOOK_SDPA.replace("K.transpose(-2, -1)", "V.transpose(-2, -1)")
    outcome = _graded({"scaled_dot_product_attention": slipped})
    keys = {k for _, _, k, _ in outcome.failed}
    assert outcome.score < outcome.max_score and keys == {KEY}, keys
    said = outcome.failed[0][3]
    assert "`scaled_dot_product_attention` is right with one change on line 3 of its cell" in said
    assert "`K` in place of `V`" in said and "your code raised RuntimeError" in said


def test_a_crash_inside_a_helper_is_told_as_the_helpers_fix_through_the_worker() -> None:
    # the blocked value made by a helper that gives torch.tensor its dtype by position: a crash
    helper = "def _lowest(x):\n    low = torch.tensor(float('-inf'), x.dtype)\n    return low\n\n\n"
    slipped = helper + NOTEBOOK_SDPA.replace('mask == False, float("-inf")', "mask == False, _lowest(scores)")
    outcome = _graded({"scaled_dot_product_attention": slipped})
    keys = {k for _, _, k, _ in outcome.failed}
    assert outcome.score < outcome.max_score and keys == {KEY}, keys
    said = outcome.failed[0][3]
    assert "one change to the helper `_lowest` it calls, on line 2 of that function's cell" in said, said
    assert "`torch.tensor(float('-inf'), dtype=x.dtype)` in place of" in said, said


def test_a_trace_cells_value_is_fixed_by_one_edit_of_its_cell_and_judged_by_its_test() -> None:
    # q8's answers are values: the cell that assigns them is edited, each copy's values compared with the
    # reference's, and the test rerun with the near ones in their place
    cell = "T, d_k = 1024, 64\nattn_entries = T * T\nscore_madds = T * T * d_k\ncost_ratio = int((2 * T) ** 2 / attn_entries) + 1\n"
    outcome = _graded({"attn_entries": cell})
    assert [(q, n, k) for q, n, k, _ in outcome.failed] == [("q8", "test_cost_ratio", KEY)], outcome.failed
    said = outcome.failed[0][3]
    assert said.startswith("`cost_ratio` is right with one change on line 4 of its cell"), said
    assert "`int((2 * T) ** 2 / attn_entries)` in place of `int((2 * T) ** 2 / attn_entries) + 1`" in said, said
    assert "rerun with the change: 1 pass" in said
    # a crash of the cell: the answer is missing, and the one edit that mends it is said
    shapes = "weights_shape = (4, 10, 10)\nout_shape = weights_shape[:-1] + (128)\n"
    outcome = _graded({"out_shape": shapes})
    assert {k for _, _, k, _ in outcome.failed} == {KEY}, outcome.failed
    assert "`(128,)` in place of `128`" in outcome.failed[0][3]


def test_one_edit_that_mends_every_failure_of_a_cell_outranks_the_catalogues_readings_of_its_numbers() -> None:
    # a helper whose parameters are in the other order than its calls pass them: every value of the cell is
    # wrong, and some wrong numbers look like catalogued miscounts (length^2 x width read as T d_k^2). The one
    # edit at the def mends all three tests; a swap at one call mends two and is not said
    cell = ("def counts(width, length):\n    return length * length, length * length * width\n\n\n"
            "attn_entries, score_madds = counts(1024, 64)\n"
            "cost_ratio = counts(2 * 1024, 64)[1] // score_madds\n")
    outcome = _graded({"attn_entries": cell})
    assert sorted((n, k) for _, n, k, _ in outcome.failed) == [
        ("test_attn_entries", KEY), ("test_cost_ratio", KEY), ("test_score_madds", KEY)], outcome.failed
    for _, _, _, said in outcome.failed:
        assert "one change on line 1 of its cell (`def counts(width, length):`)" in said, said
        assert "`length, width` in place of `width, length`" in said and " -- or -- " not in said, said
    # the same helper called in its own order: right, nothing searched, nothing said
    right = cell.replace("counts(1024, 64)", "counts(64, 1024)").replace("counts(2 * 1024, 64)", "counts(64, 2 * 1024)")
    assert not _graded({"attn_entries": right}, correct=True).failed


def test_a_test_whose_first_call_the_fix_was_not_checked_on_is_rerun_with_the_fix() -> None:
    # the values mixed with V's transpose: every value test is told the one edit; the timing check crashes on its
    # own inputs, which the reference refuses too (no recorded call to check the fix on), and is rerun with it
    slipped = NOTEBOOK_SDPA.replace("torch.matmul(weights, V)", "weights @ V.mT")
    outcome = _graded({"scaled_dot_product_attention": slipped})
    told = {n: k for _, n, k, _ in outcome.failed}
    assert told.get("test_vectorised") == KEY and set(told.values()) == {KEY}, outcome.failed


def test_right_code_never_gets_a_fix_and_a_copy_that_runs_away_is_cut_off() -> None:
    assert not _graded({"scaled_dot_product_attention": NOTEBOOK_SDPA}, correct=True).failed
    # leaving out `i += 1` makes a copy that never returns: the search's deadline ends it, the grade stands
    looping = NOTEBOOK_SDPA.replace("    d_k = Q.size(-1)\n", "    d_k = Q.size(-1)\n    i = 0\n    while i < 1:\n"
                                    "        i += 1\n").replace("K.transpose(-2, -1)", "V.transpose(-2, -1)")
    outcome = _graded({"scaled_dot_product_attention": looping})
    plain = _graded({"scaled_dot_product_attention": NOTEBOOK_SDPA.replace("K.transpose(-2, -1)", "V.transpose(-2, -1)")})
    assert outcome.status == "graded" and outcome.score == plain.score
    assert all(k in (None, KEY) for _, _, k, _ in outcome.failed)


def test_a_random_function_drawing_its_own_way_is_fixed_by_rerunning_its_tests() -> None:
    def total(n, rng):       # the reference draws another way: no copy can give its numbers
        return torch.rand(n, generator=rng, dtype=torch.float64).sum()
    cell = "def total(n, rng):\n    x = torch.rand(n, generator=rng)\n    return x.sum(1)\n"      # dim 1 of 1-D: a crash
    space = _Namespace(cell)
    space.recorded.test = ("q4", "a")
    g = torch.Generator().manual_seed(3)
    snap = space.recorded.snapshot((50,), {"rng": g})
    assert snap is not None
    try:
        space.ns["total"](50, rng=g)
    except IndexError as e:
        space.recorded.keep("total", snap, e)
    asked: list[tuple[tuple[str, str], str, str]] = []

    def rerun(key: tuple[str, str], swap: Mapping[str, str]) -> bool:   # the test: one number between 0 and n
        ((name, other),) = swap.items()
        asked.append((key, name, other))
        out = space.ns[other](50, torch.Generator().manual_seed(4))
        return isinstance(out, torch.Tensor) and out.dim() == 0 and 0 < float(out) < 50
    out = name_by_one_edit([_report("q4", "a")], space, {"total": total}, [cell], rerun)
    assert out[0].misconception == KEY and "rerun with the change: 1 pass" in out[0].message, out[0].message
    assert "`0` in place of `1`" in out[0].message, out[0].message
    assert asked and all(k == ("q4", "a") and n == "total" for k, n, _ in asked)
    assert name_by_one_edit([_report("q4", "a")], space, {"total": total}, [cell])[0].misconception is None


def test_no_call_is_kept_where_no_search_will_run() -> None:
    from autograder.config import Limits
    from autograder.grading.namespaces import RestartingNamespace
    from autograder.sandbox.session import SandboxPolicy
    off = RestartingNamespace(lambda p: None, SandboxPolicy.from_limits(Limits(repair_submission_s=0)), None)  # type: ignore[arg-type]
    on = RestartingNamespace(lambda p: None, SandboxPolicy.from_limits(Limits()), None)  # type: ignore[arg-type]
    assert off.recorded.snapshot((torch.zeros(2),), {}) is None and on.recorded.snapshot((torch.zeros(2),), {}) is not None


OWN_SLIP = '''def attention(Q, K, V):
    q, k, v = Q * 1.0, K * 1.0, V * 1.0
    s = q @ k.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    w = torch.softmax(s, dim=-1)
    return w @ q
'''
SQUARE = [_inputs((2, 5, 4), (2, 5, 4), (2, 5, 4)), _inputs((3, 4), (3, 4), (3, 4), seed=1)]


def test_a_variable_made_and_never_read_is_tried_first_in_place_of_each_read() -> None:
    made = edits([OWN_SLIP], "attention", "_c_")
    assert made is not None
    firsts = [(e.before, e.after) for e in made[1][:6]]
    assert all(after == "v" for _, after in firsts), firsts       # `v` is sliced and never used: the likeliest meant
    assert ("q", "v") in firsts and not made[1][0].local_swap and any(e.local_swap for e in made[1][:6])
    assert any(e.after == "V" and not e.local_swap for e in made[1])   # a parameter is no local swap


PROJECTED_SLIP = '''def attention(X, W_Q, W_K, W_V):
    q, k, v = X @ W_Q, X @ W_K, X @ W_V
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    w = torch.softmax(s, dim=-1)
    return w @ q
'''


def _projected(X, W_Q, W_K, W_V):
    return _attention(X @ W_Q, X @ W_K, X @ W_V)


def _record_fn(space: _Namespace, test: tuple[str, str], inputs: tuple[Any, ...]) -> None:
    space.recorded.test = test
    space.recorded.add("attention", inputs, {}, space.ns["attention"](*inputs))


def test_effect_keys_give_way_only_to_a_swap_of_the_functions_own_variables() -> None:
    # attention(q, k, q): the output is what one projection used twice gives, but the slip is the variable
    space = _Namespace(PROJECTED_SLIP)
    for n in range(2):
        _record_fn(space, ("q8", f"t{n}"), _inputs((5, 4), (4, 4), (4, 4), (4, 4), seed=n))
    out = name_by_one_edit([_report("q8", "t0", key="same_projection"), _report("q8", "t1", key="same_projection")],
                           space, {"attention": _projected}, [space.cell])
    assert [r.misconception for r in out] == [KEY, KEY] and "`v` in place of `q`" in out[0].message
    # w @ K: the parameter K where V is due is the key's own cause, and the key stays; so where a parameter swap
    # is one fix of two (V * 1.0 being V, `w @ V` fixes it as well as `w @ v`)
    for cell in (OWN_SLIP.replace("q, k, v = Q * 1.0, K * 1.0, V * 1.0\n    ", "").replace("q @ k", "Q @ K")
                 .replace("w @ q", "w @ K"), OWN_SLIP):
        space = _Namespace(cell)
        for n, x in enumerate(SQUARE):
            _record(space, ("q8", f"t{n}"), x)
        out = name_by_one_edit([_report("q8", "t0", key="same_projection")], space, {"attention": _attention},
                               [space.cell])
        assert out[0].misconception == "same_projection" and space.defined == 1       # searched, the key kept
    # a key that names a cause is never searched
    out = name_by_one_edit([_report("q8", "t0", key="values_are_keys")], space, {"attention": _attention}, [space.cell])
    assert out[0].misconception == "values_are_keys" and space.defined == 1


def test_a_search_cut_short_keeps_the_fixes_it_had_checked() -> None:
    class Cut(Exception):
        pass
    made = edits([OWN_SLIP], "attention", "_c_")
    assert made is not None
    edited = made[1]
    ns: dict[str, Any] = {"torch": torch, "math": math}
    for e in edited:
        exec(e.source, ns)
    fix = next(n for n, e in enumerate(edited) if (e.before, e.after) == ("q", "v") and e.line == 5)

    def run(n: int, i: int) -> Any:
        if n > fix:
            raise Cut()         # the deadline cuts whichever call is running then
        return ns[f"_c_{n}"](*repair._copies(SQUARE[i]))
    found = search(edited, run, [_attention(*x) for x in SQUARE], lambda: False, (Cut,))
    assert [(e.before, e.after, e.line) for e in found] == [("q", "v", 5)]


def test_operands_of_a_difference_swapped_and_a_call_closed_too_early() -> None:
    # blind32: exp(max - x) for exp(x - max); exp(x) - m for exp(x - m), as a call and as a method
    def ref_softmax(x):
        return torch.softmax(x, dim=-1)
    for line, fix in (("e = torch.exp(m - x)", ("m - x", "x - m")), ("e = torch.exp(x) - m", ("torch.exp(x) - m", "torch.exp(x - m)")),
                      ("e = x.exp() - m", ("x.exp() - m", "(x - m).exp()"))):
        src = f"def sm(x):\n    m = x.amax(dim=-1, keepdim=True)\n    {line}\n    return e / e.sum(dim=-1, keepdim=True)\n"
        fixes = _fixes_of(src, "sm", ref_softmax, [_inputs((3, 5)), _inputs((2, 4, 6), seed=1)])
        assert fixes and (fixes[0].before, fixes[0].after) == fix, fixes
    fixes = _fixes_of("def sm(x):\n    e = x.exp()\n    return e.sum(-1, keepdim=True) / e\n", "sm", ref_softmax,
                      [_inputs((3, 5))])
    assert [(f.before, f.after) for f in fixes] == [("e.sum(-1, keepdim=True) / e", "e / e.sum(-1, keepdim=True)")]


def test_an_answer_picked_by_its_position_in_a_string_is_searched_and_only_an_index_off_by_one_replaces_a_name() -> None:
    cells = ["import torch", 'q5_answer = "ABCD"[3]  # the third option\n', "q6_answer = 'A'\n", "x = 'AB'.lower()\n"]
    assert repair._picked_by_position(cells, ["q5_answer"])
    assert not repair._picked_by_position(cells, ["q6_answer"]) and not repair._picked_by_position(cells, ["x"])
    assert not repair._picked_by_position(["q5_answer = letters[3]\n"], ["q5_answer"])     # not a string written out
    found = repair.Found(name="q5_answer", cell=1, fixes=(
        Edit(line=1, before="3", after="-2", source=""), Edit(line=1, before="3", after="2", source="")), calls=0,
        line_text='q5_answer = "ABCD"[3]')
    kept = repair._one_position_off(found)
    assert kept is not None and [e.after for e in kept.fixes] == ["2"]
    assert repair._one_position_off(repair.Found(name="q", cell=1, fixes=(Edit(line=1, before="0", after="3", source=""),),
                                                 calls=0, line_text="")) is None    # "ABCD"[0] meant: A's reason stays
    assert repair._one_position_off(repair.Found(name="q", cell=1, fixes=(Edit(line=1, before="0", after="-1", source=""),),
                                                 calls=0, line_text="")) is None    # [-1]: the other end, not next
    # the value search tries a number put for a number there (elsewhere a hand-worked count is not an edit)
    made = repair.value_edits(cells, ["q5_answer"], "_v_")
    assert made is not None and ("3", "2") in [(e.before, e.after) for e in made[1]]
    made = repair.value_edits(["T = 1024\nattn_entries = T * 3\n"], ["attn_entries"], "_v_")
    assert made is not None and not any(e.before == "3" and e.after == "2" for e in made[1])


def test_a_crash_puts_the_edits_of_its_line_and_of_what_that_line_reads_first() -> None:
    from autograder.errors import StudentCodeError
    src = ("def mha(X, W, n):\n    d = X.shape[1] // n\n    heads = []\n    for h in range(n):\n"
           "        out_h = X[:, h * d:(h + 1) * d] @ W\n        heads += out_h\n    return torch.cat(heads, dim=1)\n")
    made = edits([src], "mha", "_c_")
    assert made is not None
    edited = made[1]
    raised = StudentCodeError("IndexError", "Dimension out of range",
                              'Traceback:\n  File "In[4]", line 7, in mha\n    return torch.cat(heads, dim=1)\n')
    call = RecordedCall(("q8", "t"), "mha", (), {}, raised)
    order = repair._crash_site_first(edited, "mha", src, [call])
    assert order is not None and sorted(order) == list(range(len(edited)))
    first = {edited[n].line for n in order[:len([e for e in edited if e.line in (3, 6, 7)])]}
    assert first == {3, 6, 7}, first                   # heads = [], heads += out_h, the line that raised
    # no frame in the searched function (a wrong value, or a crash in a library): the edits keep their order
    assert repair._crash_site_first(edited, "mha", src, [RecordedCall(("q8", "t"), "mha", (), {}, 1.0)]) is None
    # the traceback carries the student's own words: a forged frame with a line past any limit is no line at all
    forged = StudentCodeError("ValueError", "x", 'File "In[4]", line ' + "9" * 3990 + ', in mha\n')
    assert repair._crash_site_first(edited, "mha", src, [RecordedCall(("q8", "t"), "mha", (), {}, forged)]) is None
    other = StudentCodeError("RuntimeError", "x", 'File "In[4]", line 2, in helper\n')
    assert repair._crash_site_first(edited, "mha", src, [RecordedCall(("q8", "t"), "mha", (), {}, other)]) is None


def test_a_row_max_for_the_log_sum_exp_and_a_list_extended_by_a_tensor() -> None:
    def ref_entropy(z):
        p = torch.softmax(z, dim=-1)
        return torch.logsumexp(z, dim=-1) - (p * z).sum(dim=-1)
    for line in ("lse = z.max(dim=-1).values", "lse = z.amax(dim=-1)"):
        src = f"def H(z):\n    p = torch.softmax(z, dim=-1)\n    {line}\n    return lse - (p * z).sum(dim=-1)\n"
        fixes = _fixes_of(src, "H", ref_entropy, [_inputs((3, 5)), _inputs((2, 4, 6), seed=1)])
        assert fixes and all("logsumexp" in f.after for f in fixes), fixes

    def ref_rows(X):
        return torch.cat([X[:, :2], X[:, 2:]], dim=1)
    src = ("def rows(X):\n    parts = []\n    for cut in (slice(0, 2), slice(2, 4)):\n        parts += X[:, cut]\n"
           "    return torch.cat(parts, dim=1)\n")
    fixes = _fixes_of(src, "rows", ref_rows, [_inputs((3, 4))])
    assert [f.after for f in fixes] == ["parts.append(X[:, cut])"], fixes


def test_a_fix_must_also_mend_the_calls_of_the_named_tests_of_that_function() -> None:
    # blind21: W_K counted d_model x d_v; with_output=True happens to come out right if W_O is counted d_model x d_k,
    # a change that mends the unnamed test alone and leaves the named one's call wrong: no fix
    cell = ("def attention(d_model, d_k, d_v, with_output=False):\n    n = d_model * (d_k + 2 * d_v)\n"
            "    if with_output:\n        n += d_v * d_model\n    return n\n")

    def count(d_model, d_k, d_v, with_output=False):
        return d_model * (2 * d_k + d_v) + (d_v * d_model if with_output else 0)
    space = _Namespace(cell)
    _record(space, ("q12", "qkv"), (268, 22, 40))
    _record(space, ("q12", "with_output"), (268, 22, 40, True))
    reports = [_report("q12", "qkv", key="param_count_dk_dv_swapped"), _report("q12", "with_output")]
    out = name_by_one_edit(reports, space, {"attention": count}, [cell])
    assert [r.misconception for r in out] == ["param_count_dk_dv_swapped", None], [r.message for r in out]
    # unnamed, that one call alone would take the offsetting change: it is the named call that rules it out
    space = _Namespace(cell)
    _record(space, ("q12", "with_output"), (268, 22, 40, True))
    out = name_by_one_edit([_report("q12", "with_output")], space, {"attention": count}, [cell])
    assert out[0].misconception == KEY and "`d_k` in place of `d_v`" in out[0].message, out[0].message


# ---- the search's budget is CPU time: the same edits are reached on a busy machine ----

@dataclass
class _Session:
    pid: int


@dataclass
class _Worker:
    session: _Session


def _child(code: str) -> Any:
    """A child interpreter running `code`, returned once its start is over: an interpreter's start is CPU a clock
    made after it would count (a fixed 0.3 s wait was too short for a sleeper on a loaded machine)."""
    import subprocess
    import sys
    child = subprocess.Popen([sys.executable, "-c", "import sys\nprint(flush=True)\nsys.stdout.close()\n" + code],
                             stdout=subprocess.PIPE)
    assert child.stdout is not None
    child.stdout.readline()
    return child


def test_search_clock_counts_the_workers_cpu_not_the_wall_clock() -> None:
    import time
    sleeper = _child("import time; time.sleep(30)")
    burner = _child("while True: pass")
    try:
        asleep = repair.SearchClock(1.0, _Worker(_Session(sleeper.pid)))
        busy = repair.SearchClock(1.0, _Worker(_Session(burner.pid)))
        began = time.monotonic()
        while busy.spent() < 0.3 and time.monotonic() - began < 10:     # however busy the machine is
            time.sleep(0.05)
        # waiting is not spending: a worker that sleeps (or a machine busy with others) costs no budget
        assert time.monotonic() - began >= 0.3 and busy.spent() >= 0.3
        assert asleep.spent() < 0.1 and not asleep.over()
        while not busy.over() and time.monotonic() - began < 10:
            time.sleep(0.05)
        assert busy.over() and 0.9 < busy.spent() < 3
        assert asleep.spent() < 0.1
    finally:
        sleeper.kill()
        burner.kill()
        sleeper.wait()
        burner.wait()


def test_search_clock_counts_the_grader_thread_and_a_replaced_worker_and_stops_at_the_wall_bound() -> None:
    import time
    sleeper = _child("import time; time.sleep(30)")
    burner = _child("while True: pass")
    try:
        time.sleep(0.3)
        worker = _Worker(_Session(sleeper.pid))
        clock = repair.SearchClock(0.5, worker)
        end = time.thread_time() + 0.2
        while time.thread_time() < end:      # the grader's own work on edits counts too
            pass
        assert 0.15 < clock.spent() < 0.35
        time.sleep(0.3)
        # a worker replaced mid-search (a copy cut short cost the last one): all of the new one's CPU counts
        worker.session = _Session(burner.pid)
        assert clock.over() and clock.spent() > 0.5
        still = repair.SearchClock(100.0, _Worker(_Session(sleeper.pid)))
        still.wall_deadline = time.monotonic() + 0.2        # WALL_FACTOR budgets by the wall clock at most
        assert not still.over()
        time.sleep(0.3)
        assert still.over() and still.spent() < 0.1 and still.wall_left() == 0.1
    finally:
        sleeper.kill()
        burner.kill()
        sleeper.wait()
        burner.wait()
    gone = repair.SearchClock(1.0, _Worker(_Session(sleeper.pid)))   # a worker gone: nothing more counted, no error
    assert gone.spent() < 0.05
    nothing = repair.SearchClock(1.0, object())                      # a namespace with no worker: the grader's CPU
    assert nothing.spent() < 0.05 and not nothing.over()
