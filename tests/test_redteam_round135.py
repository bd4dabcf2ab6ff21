"""Red-team round 135: round 134's fixes (8bd8018, b073a78) and the source readers they share, attacked again.

Repros in /tmp/rt135/ (h.py grades a variant; the unit scripts take the checkout's root, /tmp/rt135-base for b073a78):

- **The shared read-twice test was quadratic in reads times depth.** source_checks.read_twice_on_one_path (round 134,
  used by scaled-attention's generator_read_twice on q2 and the pipeline's generator_consumed_twice on q08) compared
  every two reads' whole ancestor paths: 36 to 40 generators, each read 64 times in the arms of one chain of
  if-expressions (`len((g0, ..., g39)) if scaled else ... ` 64 times) at the bottom of a 2,000-term `+ 0` sum, a
  19 KB def (under q2's 20,000-character read limit), spent 24 to 27 s of the trusted process's CPU in that one read
  (pairs_unit.py 36 2000, 40 2000); graded (pairs_grade.py 36 2000, a dot_product_variance that returns 0.0) the
  notebook took 181 s and 51.9 s of the grading process's CPU at b073a78, 4.1 s and 0.7 s now. The read is one
  post-order walk now: each subtree's most reads on one path (capped at 2), summed over children, the larger of an
  if's arms (a match's cases) instead of their sum, smaller counts merged into larger: 0.016 s on the same def, and
  the same answers as the pairwise test on every function of the checkout's assignments, engine and tests (5,101
  functions, equiv.py) and on if / elif / match / if-expression cases (equiv2.py). The "more than 64 reads is
  twice" shortcut is gone (64 exclusive arms are read once a call, as two are).
- **A generator nested past the stack crashed the pipeline's quote.** attention-pipeline's generator_consumed_twice
  (q08) quoted the generator's statement with ast.unparse: `kappa = (torch.exp(...) + 0 + ... + 0 for k in K)`
  (700 terms, a 3 KB def under its 4,000-character limit) read twice made every q08 test say "RecursionError:
  maximum recursion depth exceeded while calling a Python object", the grader's own error, where 0 terms is named
  generator_consumed_twice (pipe_deep.py 700, deep_unit.py 700). The quote is pyparse.unparse (bounded), and
  `kappa = ...` where it is too deep to write back.
- **Lambdas called deep in the head loop were read once per lambda per call per loop.** scaled-attention's
  _closure_run_at_once (round 134, q4's table and q8's heads, closure_bound_late) walked, for every lambda, every
  call of its name up through every enclosing loop: 600 `f = lambda: h` in the head loop and 2,350 `f();` calls
  17 loops deeper (legal: 19 nested blocks, the compiler allows 20), a 19.8 KB def with `heads = [out] * n_heads`
  after the loop, took 5.8 s per read (closure_unit2.py 600 2400 17) and the grade 50.0 s and 21.3 s of the grading
  process's CPU at b073a78 (closure_grade.py 600 2350 17), 10.6 s and 3.0 s now, same names (mha_head_slice_fixed).
  Each call's enclosing loops are found once and each (name, home loop) answered once (0.14 s).
- **A generator read after an early return was read twice.** read_twice_on_one_path (both generator readers) took
  two reads in one block as one path even where the first ends its arm of an if in return: `if scaled: return
  float(torch.tensor([[x / math.sqrt(d_k) for x in dots]]).var(dim=0, ...).mean())` then `return float(torch.
  tensor([list(dots)]).var(dim=0, ...).mean())` (a variance over a length-1 axis, exactly 0.0) was told
  generator_read_twice on both q2 tests, where the same code with `else:` is not (round 134's finding, in the other
  common spelling) (early_ret.py). After an `if` whose one arm ends in return or raise, the rest of the block is
  read as the other arm; on the checkout's 5,132 functions only such early exits changed (259 names fewer read
  twice, none more, equiv.py). An elif chain of returns followed by a read still counts as twice (as before).

Held (tried, no change): a 480 KB pipeline notebook with a wrong softmax (bigsum_grade.py 40000, bigsum_prof.py):
builtin_sum_called builds no parse of its own, the notebook's one _parsed is built by cells_too_deep first (2.4 s,
as before b073a78), and a 1.2 MB notebook is rejected before any read; nested lambdas (`lambda: lambda: ... h`,
2,000 deep: the first kept one is answered at once); the def-names cache (_top_level_defs: a pure function of the
text's digest, nothing kept between students but 256 digests and frozensets of names); the builtin-sum evidence (b073a78: the notebook's one
cached parse); generator_read_twice's message (the name only, through ascii()).
"""
from __future__ import annotations

import ast
import time
import types

from autograder.grading.source_checks import read_twice_on_one_path
from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

PIPE_D = load("attention-pipeline", "_diagnose", "_rt135_pipe_diagnose")


def _pairs_def(k: int, depth: int) -> str:
    names = [f"g{i}" for i in range(k)]
    chain = " if scaled else ".join(["len((" + ",".join(names) + "))"] * 64)
    made = "".join(f"    {n} = (x for x in range(n_samples))\n" for n in names)
    return (f"def dot_product_variance(d_k, n_samples, generator, scaled=False):\n{made}"
            f"    h = ({chain}){' + 0' * depth}\n    return 0.0\n")


def test_read_twice_on_one_path_is_linear_in_the_source():
    cell = _pairs_def(36, 2000)
    assert len(cell) < 20_000
    func = ast.parse(cell).body[0]
    start = time.process_time()
    twice = read_twice_on_one_path(func, [f"g{i}" for i in range(36)])
    spent = time.process_time() - start
    assert twice == set() and spent < 2.0, (twice, spent)


def test_read_twice_on_one_path_answers_as_before():
    cases = {"if c: g\nelif d: g\nelse: g": False, "if c: g\nelif d: g\ng": True, "x = g if c else g": False,
             "x = g if g else 0": True, "if c:\n    g; g": True, "match x:\n    case 1: g\n    case _: g": False,
             "match g:\n    case 1: g": True, "for _ in g: pass": False, "h = [g for _ in r] + [g]": True,
             "match x:\n    case [a]:\n        if c: g\n        else: g\n    case _: g": False,
             "match x:\n    case 1 if g: g": True}
    for body, expected in cases.items():
        func = ast.parse("def f():\n" + "".join(f"    {line}\n" for line in body.splitlines())).body[0]
        assert (read_twice_on_one_path(func, ["g"]) == {"g"}) is expected, body
    many = "match x:\n" + "".join(f"    case {i}: g\n" for i in range(80))
    func = ast.parse("def f():\n" + "".join(f"    {line}\n" for line in many.splitlines())).body[0]
    assert read_twice_on_one_path(func, ["g"]) == set()


DEEP_NW = '''def nadaraya_watson(q, K, V):
    kappa = (torch.exp(k @ q / math.sqrt(q.shape[-1])){terms} for k in K)
    num = sum(a * v for a, v in zip(kappa, V))
    return num / sum(kappa)
'''


def test_the_pipeline_quotes_a_deep_generator_bounded():
    cell = DEEP_NW.format(terms=" + 0" * 700)
    said = PIPE_D.generator_consumed_twice(types.SimpleNamespace(cells=[cell]), "nadaraya_watson")
    assert said == "kappa = ...", said
    said = PIPE_D.generator_consumed_twice(types.SimpleNamespace(cells=[DEEP_NW.format(terms="")]), "nadaraya_watson")
    assert said is not None and said.startswith("kappa = (torch.exp(") and len(said) <= 120, said


def test_a_deep_generator_read_twice_is_named_not_a_grader_crash(grader):
    outcome = grade_cells(grader, "attention-pipeline", {"nadaraya_watson": DEEP_NW.format(terms=" + 0" * 700)},
                          "rt135_deep_generator")
    q08 = [(k, m) for q, _t, k, m in outcome.failed if q == "q08"]
    assert q08 and all(k == "generator_consumed_twice" and "RecursionError" not in m for k, m in q08), q08
    assert all("`kappa = ...` makes a generator" in m for _k, m in q08), q08


SCALED_D = load("scaled-attention", "_diagnose", "_rt135_scaled_diagnose")


def _called_lambdas_def(lambdas: int, calls: int, depth: int) -> str:
    nest = "".join("\t" * (i + 2) + f"for _{i} in (0,):\n" for i in range(depth))
    return ("def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n\tfor h in range(n_heads):\n"
            + "\t\tf = lambda: h\n" * lambdas + nest + "\t" * (depth + 2) + "f();" * calls + "\n\treturn X\n")


def test_lambdas_called_deep_in_the_loop_are_read_once_each():
    cell = _called_lambdas_def(600, 2400, 17)
    assert len(cell) < 20_000
    compile(cell, "<rt135>", "exec")   # legal Python: 19 nested blocks, under the compiler's 20
    func = ast.parse(cell).body[0]
    start = time.process_time()
    said = SCALED_D.closure_reads_loop_name(func)
    spent = time.process_time() - start
    assert said is None and spent < 1.5, (said, spent)
    kept = _called_lambdas_def(3, 2, 2).replace("\treturn X\n", "\t\tfs.append(f)\n\treturn X\n")
    assert SCALED_D.closure_reads_loop_name(ast.parse(kept).body[0]) == "h"
    outside = _called_lambdas_def(3, 2, 2).replace("\treturn X\n", "\tf()\n\treturn X\n")
    assert SCALED_D.closure_reads_loop_name(ast.parse(outside).body[0]) == "h"


EARLY_RETURN = '''def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (float(a @ b) for a, b in zip(q, k))
    if scaled:
        return float(torch.tensor([[x / math.sqrt(d_k) for x in dots]]).var(dim=0, unbiased=False).mean())
    return float(torch.tensor([list(dots)]).var(dim=0, unbiased=False).mean())
'''


def test_a_generator_read_after_an_early_return_is_read_once():
    func = ast.parse(EARLY_RETURN).body[0]
    assert SCALED_D.generator_read_twice(func) is None
    assert read_twice_on_one_path(func, ["dots"]) == set()
    raised = ast.parse("def f():\n    if c:\n        raise ValueError(g)\n    h(g)\n")
    assert read_twice_on_one_path(raised.body[0], ["g"]) == set()
    falls = ast.parse("def f():\n    if c:\n        h(g)\n    return g\n").body[0]
    assert read_twice_on_one_path(falls, ["g"]) == {"g"}
    after = ast.parse("def f():\n    if c:\n        return g\n    h(g)\n    return g\n").body[0]
    assert read_twice_on_one_path(after, ["g"]) == {"g"}
    head = "def nadaraya_watson(q, K, V):\n    kappa = (torch.exp(k @ q / math.sqrt(q.shape[-1])) for k in K)\n"
    cell = head + "    if V.dim() == 1:\n        return sum(kappa)\n    w = torch.stack(list(kappa))\n" \
        "    return (w[:, None] * V).sum(0) / w.sum()\n"
    assert PIPE_D.generator_consumed_twice(types.SimpleNamespace(cells=[cell]), "nadaraya_watson") is None


def test_an_early_return_variance_over_one_row_is_not_a_generator_read_twice(grader):
    outcome = grade_cells(grader, "scaled-attention", {"dot_product_variance": EARLY_RETURN}, "rt135_early_return")
    failed = [k for q, _t, k, _m in outcome.failed if q == "q2"]
    assert failed and "generator_read_twice" not in failed, outcome.explain()
