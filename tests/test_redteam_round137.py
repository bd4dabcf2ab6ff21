"""Red-team round 137: round 136's fixes (1248fbc), attacked as a student and as a class.

Repros in /tmp/rt137/ (h.py grades a variant; the scripts take the checkout's root, /tmp/rt137-base for 1248fbc):

- **A scale written `d_k ** -1 / 2` beside a deep literal crashed scaled-attention's q2 naming.** The message that
  quotes the minus (_power_minus_one_half, read where test_scaled_variance_is_one finds the division by 2 d_k) read
  every `/ 2` of dot_product_variance with _is_number, which recursed once per minus sign, and quoted the power with
  ast.unparse: `junk = 1 / ----...2` (990 signs) in the def, or the scale `(d_k + 0 + ... + 0) ** -1 / 2` (600
  terms), made q2 say "RecursionError: maximum recursion depth exceeded", the grader's own error, where the plain
  `d_k ** -1 / 2` is named scale_precedence (minus.py 990 minus, minus.py 600 deep). _is_number reads at most 4
  minus signs in a loop, and the quote is pyparse.unparse, cut: both are scale_precedence now.
- **A letter folded 999 times crashed scaled-attention's q5 naming.** raise_if_computed_choice (q5-q7, a letter
  set first and replaced inside a test or loop) asked _string_literal whether the first binding is a string written
  out, following each `.upper()` by recursion: `q5_answer = "B".upper().upper()...` (999 calls; the notebook runs)
  then `if True: q5_answer = "B"` made test_q5_answer say "RecursionError: maximum recursion depth exceeded in
  comparison" where 985 calls (and one) are answer_computed_by_code (fold.py 999 B). The folds are looked through in
  a loop, as _letter_by_count does: answer_computed_by_code.
- **A keyword search under 990 `not`s crashed scaled-attention's q5 naming.** keyword_search_hits (q5/q6,
  answer_by_keyword_search) evaluates the search's condition on each option's text by recursion and caught only
  its own errors: `for k, v in opts.items(): if not not ... "variance" in v: q5_answer = k` (990 `not`, the notebook
  runs) made test_q5_answer say "RecursionError: maximum recursion depth exceeded" where two `not`s are
  answer_by_keyword_search (kw.py 990). A condition nested past the stack is unread (RecursionError and MemoryError
  caught there): answer_computed_by_code, the letter's code quoted as too deep to show.

Held (tried, no change): round 136's depth limits (sdpa _whole_number / _product_degrees at 32 levels, scaled
_constant at 16: q8's module names are read with no names, so no chain between them); the triangle read's one walk
(read, not measured: compares need parentheses to nest, at most 200 levels, so the per-compare walks stay bounded); the
sum-after-transpose memo (a chain of 550 `.sum(0)` in a 4,000-character def: each walk is its own prefix, 0.7 s
for the read, nothing said); the q14 shapes-comment regexes (linear on 6,000 characters); the third softmax probe (a right softmax
never overflows; a slice max that leaves out position 0 has the max index's signature, a wrong notebook either way);
the has-key flag's probe-mask confirmation (a second sandboxed call, its generator local; a renamed `attn_mask`
parameter is parameter_renamed, as the tests call mask= themselves: flag.py); the pipeline's negation rules
(_negated: 0.3 s on a 500 KB comment, and the comments read are at most 6,000 characters) and _lower_in_place
('İ' is the one character whose lower case is longer); the masked-scores-unused rule;
older recursive readers reached from round 136's paths (pipeline _is_mask under `A[m & m & ... & m]`, 1,200 terms,
and scaled _count_arithmetic: their callers catch RecursionError, so no name and no crash).
"""
from __future__ import annotations

import ast
import types

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

SC = load("scaled-attention", "_diagnose", "_rt137_scaled_diagnose")


def _variance(scale: str, junk: str = "") -> str:
    return ("def dot_product_variance(d_k, n_samples, generator, scaled=False):\n" + junk
            + "    q = torch.randn(n_samples, d_k, generator=generator)\n"
            "    k = torch.randn(n_samples, d_k, generator=generator)\n    dots = (q * k).sum(1)\n"
            "    if scaled:\n        dots = dots * " + scale + "\n    return dots.var().item()\n")


def test_a_minus_half_scale_beside_deep_literals_is_named_not_a_grader_crash(grader):
    for name, src in (("rt137_minus_signs", _variance("d_k ** -1 / 2", "    junk = 1 / " + "-" * 990 + "2\n")),
                      ("rt137_deep_base", _variance("(d_k" + " + 0" * 600 + ") ** -1 / 2"))):
        outcome = grade_cells(grader, "scaled-attention", {"dot_product_variance": src}, name)
        failed = [(q, k, m) for q, _t, k, m in outcome.failed]
        assert [(q, k) for q, k, _m in failed] == [("q2", "scale_precedence")], failed
        assert all("RecursionError" not in m and "d_k ** -1/2" in m for _q, _k, m in failed), failed


def test_the_minus_half_read_is_bounded_and_still_reads_the_slip():
    deep = types.SimpleNamespace(cells=["import torch\n", _variance("d_k ** -1 / 2", "    junk = 1 / " + "-" * 990 + "2\n")])
    assert SC._power_minus_one_half(deep) == "d_k ** -1 / 2"
    plain = types.SimpleNamespace(cells=[_variance("d_k ** --1 / --2")])
    assert SC._power_minus_one_half(plain) is None         # --1 is 1: the slip without the minus
    signed = types.SimpleNamespace(cells=[_variance("d_k ** -1 / --2")])
    assert SC._power_minus_one_half(signed) == "d_k ** -1 / 2"


def test_a_letter_folded_past_the_stack_is_named_not_a_grader_crash(grader):
    cell = 'q5_answer = "B"' + ".upper()" * 999 + '\nif True:\n    q5_answer = "B"\n'
    outcome = grade_cells(grader, "scaled-attention", {"q5_answer": cell}, "rt137_folded_letter")
    failed = [(q, k, m) for q, _t, k, m in outcome.failed]
    assert [(q, k) for q, k, _m in failed] == [("q5", "answer_computed_by_code")], failed
    node: ast.expr = ast.Constant("b")
    for _ in range(5000):       # built, not parsed: deeper than the parser goes
        node = ast.Call(ast.Attribute(node, "upper", ast.Load()), [], [])
    assert SC._string_literal(node, {})
    assert not SC._string_literal(ast.parse('"b".upper().zfill(3)', mode="eval").body, {})


def test_a_keyword_search_nested_past_the_stack_is_no_grader_crash(grader):
    def cell(nots: int) -> str:
        return ('opts = {"A": "the variance grows", "B": "it is the std", "C": "keeps unit variance", "D": "nothing"}\n'
                'q5_answer = None\nfor k, v in opts.items():\n    if ' + "not " * nots + '"variance" in v:\n'
                "        q5_answer = k\n        break\n")
    for nots, key in ((2, "answer_by_keyword_search"), (990, "answer_computed_by_code")):
        outcome = grade_cells(grader, "scaled-attention", {"q5_answer": cell(nots)}, f"rt137_keyword_{nots}")
        failed = [(q, k, m) for q, _t, k, m in outcome.failed]
        assert [(q, k) for q, k, _m in failed] == [("q5", key)], failed
