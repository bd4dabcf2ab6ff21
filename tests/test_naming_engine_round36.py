"""The engine's mechanisms added after blind35 (issue 21), each tried on its own with a near miss beside it: new
one-edit fixes (a bit operator for arithmetic, logsigmoid for log_softmax, a square constructor missing its second
size, one argument of a call left uncut where its siblings are cut, a statement on the wrong side of a loop's edge,
an axis number in a value cell, a shape typed as a list), a fix that only collapses two variables into one given
way to another, numbers past float's range, a parameter overwritten and then read as its flag (crash words), and an
answer bound to a call that returns None."""
from __future__ import annotations

import math
from typing import Any, Callable

import torch

from autograder.errors import StudentCodeError
from autograder.grading import repair
from autograder.grading.crash_words import crash_words
from autograder.grading.source_checks import left_none_call


def _fixes(source: str, name: str, reference: Callable[..., Any], inputs: list[tuple[Any, ...]]) -> list[repair.Edit]:
    """The one-edit copies of `name` that give the reference's answer on every input (run here, not in a worker)."""
    made = repair.edits([source], name, "_copy_")
    assert made is not None
    ns: dict[str, Any] = {"torch": torch, "math": math, "F": torch.nn.functional}
    exec(source, ns)        # the test's own code, as a notebook's cells would define it
    for e in made[1]:
        try:
            exec(e.source, ns)
        except Exception:  # noqa: BLE001 - a copy whose def fails is no fix
            continue
    fresh = repair._copies
    return repair.search(made[1], lambda n, i: ns[f"_copy_{n}"](*fresh(inputs[i])),
                         [reference(*fresh(x)) for x in inputs], lambda: False)


def _said(fixes: list[repair.Edit]) -> list[str]:
    return [f"{e.after} <- {e.before}" + (f" ({e.moved})" if e.moved else "") for e in fixes]


def test_a_bit_operator_written_for_arithmetic_is_fixed() -> None:
    shifted = "def madds(T, d_k):\n    entries = T * T\n    return entries << d_k\n"
    fixes = _fixes(shifted, "madds", lambda T, d: T * T * d, [(8, 64), (16, 32)])
    assert "entries * d_k <- entries << d_k" in _said(fixes), _said(fixes)
    caret = "def square(d):\n    return d ^ 2\n"
    assert "d ** 2 <- d ^ 2" in _said(_fixes(caret, "square", lambda d: d ** 2, [(3,), (5,)]))
    # near miss: a shift that is meant (2 ** k as 1 << k) has nothing to fix
    assert _fixes("def power(k):\n    return 1 << k\n", "power", lambda k: 2 ** k, [(3,), (10,)]) == []


def test_logsigmoid_for_log_softmax_is_fixed_with_its_axis() -> None:
    entropy = ("def entropy(logits):\n    log_p = F.logsigmoid(logits)\n"
               "    return -(log_p.exp() * log_p).sum(-1)\n")

    def right(x: torch.Tensor) -> torch.Tensor:
        lp = torch.log_softmax(x, dim=-1)
        return -(lp.exp() * lp).sum(-1)
    g = torch.Generator().manual_seed(0)
    fixes = _fixes(entropy, "entropy", right, [(torch.randn(3, 5, generator=g, dtype=torch.float64),)])
    assert any("log_softmax(logits, dim=-1)" in s for s in _said(fixes)), _said(fixes)


def test_a_square_made_where_a_rectangle_is_meant_gets_its_second_size() -> None:
    mask = ("def causal(T_q, T_k):\n    below = torch.ones(T_q, T_k, dtype=torch.bool).tril(-1)\n"
            "    return below | torch.eye(T_q, dtype=torch.bool)\n")

    def right(T_q: int, T_k: int) -> torch.Tensor:
        return torch.ones(T_q, T_k, dtype=torch.bool).tril()
    fixes = _fixes(mask, "causal", right, [(3, 5), (5, 3), (4, 4)])
    assert any("torch.eye(T_q, T_k, dtype=torch.bool)" in s for s in _said(fixes)), _said(fixes)
    # near miss: the square and a second slip (the band one lower): no one edit mends both
    assert _fixes(mask.replace("tril(-1)", "tril(-2)"), "causal", right, [(3, 5), (5, 3), (4, 4)]) == []


def test_one_argument_left_uncut_where_its_siblings_are_cut() -> None:
    heads = ("def mha(Q, K, V, h):\n    d = Q.shape[-1] // h\n    outs = []\n    for i in range(h):\n"
             "        cols = slice(i * d, (i + 1) * d)\n        outs.append(att(Q[:, cols], K, V[:, cols]))\n"
             "    return torch.cat(outs, dim=-1)\n")
    helper = "def att(q, k, v):\n    return torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1) @ v\n\n\n"

    def right(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, h: int) -> torch.Tensor:
        d = Q.shape[-1] // h
        return torch.cat([torch.softmax(Q[:, i * d:(i + 1) * d] @ K[:, i * d:(i + 1) * d].T / math.sqrt(d), dim=-1)
                          @ V[:, i * d:(i + 1) * d] for i in range(h)], dim=-1)
    g = torch.Generator().manual_seed(1)
    x = [tuple(torch.randn(5, 8, generator=g, dtype=torch.float64) for _ in range(3)) + (2,)]
    fixes = _fixes(helper + heads, "mha", right, x)
    assert any("att(Q[:, cols], K[:, cols], V[:, cols])" in s for s in _said(fixes)), _said(fixes)
    # near miss: one cut argument is no pattern: nothing is cut like it
    single = repair._sliced_like_siblings(repair.parse("f(Q[:, c], K, V)").body[0].value, ["Q", "K", "V"])  # type: ignore[attr-defined]
    assert list(single) == []


def test_a_statement_on_the_wrong_side_of_a_loops_edge_is_moved() -> None:
    outside = ("def var_of_dots(qs, ks):\n    dots = []\n    for q, k in zip(qs, ks):\n"
               "        dot = (q * k).sum()\n    dots.append(dot)\n    return torch.stack(dots).var()\n")

    def right(qs: torch.Tensor, ks: torch.Tensor) -> torch.Tensor:
        return (qs * ks).sum(-1).var()
    g = torch.Generator().manual_seed(2)
    x = [(torch.randn(6, 4, generator=g, dtype=torch.float64), torch.randn(6, 4, generator=g, dtype=torch.float64))]
    fixes = _fixes(outside, "var_of_dots", right, x)
    assert "dots.append(dot) <- dots.append(dot) (into the `for` loop above it, at its end)" in _said(fixes)
    inside = ("def total(xs):\n    s = 0\n    for x in xs:\n        s = s + x\n        s = s * 2\n    return s\n")
    fixes = _fixes(inside, "total", lambda xs: sum(xs) * 2, [([1, 2, 3],), ([4, 5],)])
    assert "s = s * 2 <- s = s * 2 (out of the `for` loop, after it)" in _said(fixes), _said(fixes)
    found = repair.Found(name="f", cell=0, fixes=tuple(fixes), calls=2, line_text="s = s * 2")
    assert "`s = s * 2` moved out of the `for` loop, after it" in repair.told(found, "`total`")


def test_an_axis_number_in_a_value_cell_is_edited_and_a_typed_number_is_not() -> None:
    cell = "products = Q.unsqueeze(2) * K.unsqueeze(1)\nscores = products.sum(dim=-2)\nn = 5\n"
    made = repair.value_edits([cell], ["scores"], "_v_")
    assert made is not None
    said = {(e.before, e.after) for e in made[1]}
    assert ("-2", "-1") in said and not any(b == "5" for b, _a in said), sorted(said)


def test_a_shape_typed_as_a_list_is_fixed_and_a_collapsing_swap_gives_way() -> None:
    cell = "qk = (4, 10, 64)\nv = [4, 10, 128]\nout = qk[:-1] + v[-1:]\n"
    made = repair.value_edits([cell], ["out"], "_v_")
    assert made is not None and ("[4, 10, 128]", "(4, 10, 128)") in {(e.before, e.after) for e in made[1]}
    swap = repair.Edit(line=3, before="qk", after="v", source="")
    typed = repair.Edit(line=2, before="[4, 10, 128]", after="(4, 10, 128)", source="")
    assert repair._collapses(swap, cell) and not repair._collapses(typed, cell)
    # near miss: a name put for one the line does not read is a slip of its own, kept
    assert not repair._collapses(repair.Edit(line=3, before="qk", after="k", source=""), cell)


def test_numbers_past_floats_range_are_compared_without_an_error() -> None:
    assert not repair.close_value(1 << 84, 67108864) and repair.close_value(67108864, 67108864)
    assert not repair.same_answer(1 << 1100, 2.5) and not repair.close_value(1 << 1100, 2.5)
    assert repair.close_value(10 ** 30, 10 ** 30 + 1)


def test_a_parameter_overwritten_then_read_as_its_flag_is_named_from_the_crash() -> None:
    cells = ["def variance(d_k, n, gen, scaled=False):\n    dots = torch.randn(n, generator=gen)\n"
             "    scaled = dots / math.sqrt(d_k)\n    result = scaled if scaled else dots\n    return result.var()\n"]
    trace = 'Traceback:\n  File "In[3]", line 4, in variance\n    result = scaled if scaled else dots\n'
    error = StudentCodeError("RuntimeError", "Boolean value of Tensor with more than one value is ambiguous", trace)
    named = crash_words(error, cells)
    assert named is not None and named.key == "parameter_overwritten" and "`scaled`" in str(named), named
    # near misses: the flag kept (a tensor made elsewhere in the test), or a local that is no parameter
    kept = [cells[0].replace("    scaled = dots / math.sqrt(d_k)\n", "    other = dots / math.sqrt(d_k)\n")]
    assert getattr(crash_words(error, kept), "key", None) != "parameter_overwritten"
    local = [cells[0].replace("scaled=False", "flag=False")]
    assert getattr(crash_words(error, local), "key", None) != "parameter_overwritten"


def test_an_answer_bound_to_a_call_that_returns_none_is_found() -> None:
    assert left_none_call(['q7_answer = print("D")'], "q7_answer") == ("q7_answer = print('D')", "print")
    assert left_none_call(["shapes = []", "shapes = shapes.append(3)"], "shapes") == (
        "shapes = shapes.append(3)", "append")
    assert left_none_call(['q7_answer = print("D")', 'q7_answer = "D"'], "q7_answer") is None    # rebound after
    assert left_none_call(["q7_answer = pick()"], "q7_answer") is None          # a function of theirs: unknown
    assert left_none_call(["q7_answer = sorted(x)"], "q7_answer") is None       # sorted returns the list


def _report(name: str, key: str | None, message: str = "does not match") -> Any:
    from autograder.results import TestReport
    return TestReport(question="q5", name=name, device="cpu", hidden=True, max_score=1.0, score=0.0,
                      status="failed", message=message, misconception=key)


def test_a_timing_test_its_wrong_values_left_unverified_takes_the_key_its_value_tests_agree_on() -> None:
    timing = _report("test_vectorised", None, "the timing of f could not be verified: it crashes on 3-D inputs")
    values = [_report("test_a", "fixed_axes"), _report("test_b", "fixed_axes")]
    first = {("q5", "test_a"): "f", ("q5", "test_b"): "f", ("q5", "test_vectorised"): "helper"}
    taken = {("q5", r.name): "f" for r in [timing, *values]}
    out = repair._unverified_by_values([*values, timing], first, taken)
    assert out[-1].misconception == "fixed_axes" and out[-1].message.startswith(timing.message)
    # near misses: value tests that disagree, or one of them unnamed, lend nothing; nor does a plain failure
    for others in ([_report("test_a", "fixed_axes"), _report("test_b", "no_scale")],
                   [_report("test_a", "fixed_axes"), _report("test_b", None)]):
        assert repair._unverified_by_values([*others, timing], first, taken)[-1].misconception is None
    plain = _report("test_vectorised", None, "took 40x the time")
    assert repair._unverified_by_values([*values, plain], first, taken)[-1].misconception is None


def test_one_axis_read_in_several_statements_is_moved_in_all_of_them_at_once() -> None:
    project = ("def project(X, W_Q, W_V):\n    rows = X.reshape(-1, X.shape[-1])\n"
               "    Q = (rows @ W_Q).reshape(*X.shape[:-1], W_Q.shape[0])\n"
               "    V = (rows @ W_V).reshape(*X.shape[:-1], W_V.shape[0])\n    return Q, V\n")
    g = torch.Generator().manual_seed(3)
    x = [(torch.randn(2, 3, 6, generator=g, dtype=torch.float64), torch.randn(6, 4, generator=g, dtype=torch.float64),
          torch.randn(6, 5, generator=g, dtype=torch.float64))]
    fixes = _fixes(project, "project", lambda X, Wq, Wv: (X @ Wq, X @ Wv), x)
    assert fixes and all(e.places == 2 and e.before == "W_Q.shape[0]" for e in fixes), _said(fixes)
    found = repair.Found(name="project", cell=0, fixes=(fixes[0],), calls=1, line_text="Q = ...")
    assert "(and the same in its 1 other place)" in repair.told(found, "`project`")
    # near miss: one statement reading the axis is an ordinary one-line edit, not a together edit
    one = repair._axes_together(repair.parse("def f(W):\n    return W.shape[0] * W.shape[0]\n").body[0],  # type: ignore[arg-type]
                                "_c_", 0, 10)
    assert one == []


def test_equal_items_collected_in_a_set_are_put_in_a_list() -> None:
    count = "def count(W_Q, W_K):\n    return sum(a * b for a, b in {W_Q.shape, W_K.shape})\n"
    fixes = _fixes(count, "count", lambda q, k: q.numel() + k.numel(), [(torch.ones(4, 3), torch.ones(4, 3))])
    assert any(s.startswith("[W_Q.shape, W_K.shape]") for s in _said(fixes)), _said(fixes)


def test_answers_rounded_before_they_are_stored_are_unwrapped_in_every_place_at_once() -> None:
    cell = ("raw = Q @ K.T\nraw_var = round(raw.var().item(), 1)\nscaled_var = round((raw / 8).var().item(), 1)\n"
            "n = int(3.7)\n")
    made = repair.value_edits([cell], ["raw_var", "scaled_var"], "_v_")
    assert made is not None
    together = [e for e in made[1] if e.places == 2]
    assert [(e.before, e.after) for e in together] == [("round(raw.var().item(), 1)", "raw.var().item()")], together
    ns: dict[str, Any] = {"Q": torch.ones(2, 2), "K": torch.eye(2) * 3}
    exec(together[0].source, ns)        # the test's own cell: the copy returns both values unrounded
    assert ns[f"_v_{made[1].index(together[0])}"]() == (ns["Q"].__matmul__(ns["K"].T).var().item(),
                                                        (ns["Q"] @ ns["K"].T / 8).var().item())
    # one rounded answer is the one-line edit's (round(x, 1) -> x); `int(3.7)` alone is no habit of two places
    assert ("round(raw.var().item(), 1)", "raw.var().item()") in {(e.before, e.after) for e in made[1] if e.places == 1}
    assert not any(e.places > 1 and e.before.startswith("int(") for e in made[1])


def test_a_float_answer_truncated_by_int_is_fixed_by_float() -> None:
    src = "def var_of(x):\n    return int(x.var())\n"
    g = torch.Generator().manual_seed(4)
    x = [(torch.randn(50, generator=g, dtype=torch.float64) * 3,)]
    fixes = _fixes(src, "var_of", lambda t: float(t.var()), x)
    assert "float(x.var()) <- int(x.var())" in _said(fixes), _said(fixes)
    # near miss: a count meant as an int, wrong for another reason, is never "fixed" by a float
    fixes = _fixes("def n(x):\n    return int(x.numel()) * 2\n", "n", lambda t: t.numel(), x)
    assert fixes and not any(s.startswith("float(") for s in _said(fixes)), _said(fixes)
