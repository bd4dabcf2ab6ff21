"""Red-team round 134: naming round 72's new reads and replays (b5759d9) attacked as a student and as a class.

Repros in /tmp/rt134/ (h.py grades a variant; the unit scripts take the checkout's root, /tmp/rt134-base for b5759d9):

- **A lambda run on the spot was a closure bound late.** scaled-attention's closure_reads_loop_name (q4's
  entropy table and q8's heads, closure_bound_late) took any lambda or inner def that reads a name the loop binds:
  `q, k, v = map(lambda M: M[:, lo:hi], (Q, K, V))` inside the head loop, with `heads = [out] * n_heads` after it
  (the last head's output every time), was told on q8's three tests "a lambda ... reads `lo` ... so each one cuts
  head 3's columns when it is called", where the same code without the lambda is mha_head_slice_fixed (late.py);
  `sc = (lambda t: t / d ** 0.5)(s)` in the table's loop, with the rows built after the loop from the last pass's
  numbers, was told closure_bound_late on both table tests (late_tab.py). A closure counts now only where it is
  kept: not called at once, not given to map / filter / sorted / min / max / sum / reduce / list ..., and, bound to
  a name (a def, `f = lambda`), not only ever called inside the loop that makes it. The round-72 thunks, appended
  makers and dict of lambdas are still named. (The loads are indexed once: 1,000 lambdas in a 20 KB def read in
  0.04 s, closure_cpu.py.)
- **A generator read once in each arm of an if was read twice.** scaled-attention's generator_read_twice (q2) and
  attention-pipeline's generator_consumed_twice (q08) counted a name's loads: `dots = (...)`, then `if scaled:
  ... for x in dots ... else: list(dots)`, with a variance over a length-1 axis (exactly 0.0), was told
  generator_read_twice on both q2 tests where the list version of the same code is one_edit_fix (dim=0 for -1,
  gen2.py); the pipeline's reader returned the same branch-only generator (nw_unit.py). Both ask
  source_checks.read_twice_on_one_path now: two reads not in the two arms of one if / if-expression (or two cases
  of one match), one walk for all candidate names, more than 64 reads counted as twice.
- **A literal pair was a shape unpacked width first.** sdpa's name_shape_unpacked_width_first (q1) read any tuple
  assignment whose last two names look like a width then a length: `d_k, T = 64, 64` (a T written wrong, no shape
  unpacked) was told on q1's two tests "your cell unpacks `d_k, T = (64, 64)`, so `T` ... holds the last axis",
  where the same numbers on two lines are weights_sized_by_features and output_as_features_product (unpack.py).
  A literal tuple, list or constant on the right is no unpacking of a shape now.
- **An iterator per line made q8's read quadratic, and a long answer ran it out of stack.** sdpa's
  name_iterator_read_twice (q8, iterator_read_twice) walked every later statement once per one-shot iterator the
  cell binds: 4,000 `gN = iter(())` lines (a 67 KB cell) before `attn_entries = T * T + 7` took 53 s in the read
  (iter_unit.py 4000) and failed test_attn_entries with "the grader's checks of this test spent over 30 s of CPU"
  after 50 s (iter_cpu.py 4000); and `attn_entries = math.prod(axes) + 0 + ... + 0` (1,500 terms) after
  `print(*axes)` made the answer's deep copy say "RecursionError: maximum recursion depth exceeded" (deep_iter.py
  1500). The cell's loads are indexed in one pass (0.37 s), at most 8 iterators the answer reduces are replayed,
  and a copy past the stack is no evidence (the plain difference is said).
- **A zip inside an assert was the row loop.** scaled-attention's zip_of_queries_and_keys (q1, zip_stops_at_shorter)
  took any zip(Q, K) in attention: `assert all(q.shape == k.shape for q, k in zip(Q, K))` beside a row loop over
  `range(len(K))` (the key count) was told "your attention zips Q with K" on test_float64_output, where the same
  code with a plain shape assert is one_edit_fix (Q for K) (zipcut.py). The zip must be the iterable of a loop or
  comprehension (enumerate around it allowed) outside an assert, all() or any().
- **The def-names cache kept the cells themselves.** source_checks._top_level_defs (b5759d9's per-cell cache of
  last_function_def) was an lru_cache on the cell's text: after 300 notebooks, each with one 480 KB cell that
  mentions `def attention` in a comment, the grader process held 117 MB of those cells for as long as it runs
  (cache_mem.py). The cache is keyed by a 16-byte blake2b digest of the text now (256 entries, under a lock).

Held (tried, no change): an entropy assert on is_contiguous() or on numel() (not entropy_assert_dims: the view
test and one_edit_fix come first, ent_assert.py); a dict reused for every table row with an immediate lambda
(record_reused first); `_top_level_defs`'s answers (a pure function of the cell's text: no state between
students); the new messages' quotes (ast.unparse,
cut at 60 to 120 characters; an assert message cut at 100 or 120, escaped on output as before).
"""
from __future__ import annotations

import time
import types

import pytest

from tests.heldout.harness import grade_cells
from tests.hidden_modules import load

SCALED_D = load("scaled-attention", "_diagnose", "_rt134_scaled_diagnose")
SDPA_D = load("sdpa-from-scratch", "_diagnose", "_rt134_sdpa_diagnose")
PIPE_D = load("attention-pipeline", "_diagnose", "_rt134_pipe_diagnose")

MHA_HEAD = '''
def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):
    d_model = X.shape[-1]
    d_k = d_model // n_heads
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    for h in range(n_heads):
        lo, hi = h * d_k, (h + 1) * d_k
'''


@pytest.mark.parametrize("cut", ["q, k, v = map(lambda M: M[:, lo:hi], (Q, K, V))",
                                 "q, k, v = Q[:, lo:hi], K[:, lo:hi], V[:, lo:hi]"], ids=["map_lambda", "plain"])
def test_a_lambda_run_in_the_head_loop_is_no_closure_bound_late(grader, cut):
    cell = MHA_HEAD + f"        {cut}\n        out = attention(q, k, v, d_k)[0]\n" \
        "    heads = [out] * n_heads\n    return torch.cat(heads, dim=-1) @ W_O\n"
    outcome = grade_cells(grader, "scaled-attention", {"multi_head_attention": cell}, "rt134_late_mha")
    keys = {k for q, _t, k, _m in outcome.failed if q == "q8"}
    assert keys == {"mha_head_slice_fixed"}, outcome.explain()


def test_a_lambda_run_in_the_table_loop_is_no_closure_bound_late(grader):
    cell = '''
def softmax_entropy(logits):
    return -(torch.softmax(logits, dim=-1) * torch.log_softmax(logits, dim=-1)).sum(dim=-1)


def entropy_table(dims=(4, 16, 64, 256), seed=0):
    for d in dims:
        torch.manual_seed(seed)
        q, k = torch.randn(1, d), torch.randn(5, d)
        s = (q @ k.T)[0]
        raw, sc = s, (lambda t: t / d ** 0.5)(s)
        nums = (raw.std().item(), sc.std().item(), softmax_entropy(raw).item(), softmax_entropy(sc).item())
    keys = ("raw_std", "scaled_std", "H_raw", "H_scaled")
    return [{"d": dd, **dict(zip(keys, nums))} for dd in dims]
'''
    outcome = grade_cells(grader, "scaled-attention", {"entropy_table": cell}, "rt134_late_table")
    failed = [(k, m) for q, _t, k, m in outcome.failed if q == "q4"]
    assert failed and all(k != "closure_bound_late" for k, _m in failed), outcome.explain()


def test_a_generator_read_once_in_each_branch_is_not_read_twice(grader):
    cell = '''
def dot_product_variance(d_k, n_samples, generator, scaled=False):
    q = torch.randn(n_samples, d_k, generator=generator)
    k = torch.randn(n_samples, d_k, generator=generator)
    dots = (float(a @ b) for a, b in zip(q, k))
    if scaled:
        vals = torch.tensor([[x / math.sqrt(d_k) for x in dots]])
    else:
        vals = torch.tensor([list(dots)])
    return float(vals.var(dim=0, unbiased=False).mean())
'''
    outcome = grade_cells(grader, "scaled-attention", {"dot_product_variance": cell}, "rt134_gen_branches")
    failed = [k for q, _t, k, _m in outcome.failed if q == "q2"]
    assert failed and "generator_read_twice" not in failed, outcome.explain()


def test_the_pipeline_generator_read_once_in_each_branch_is_not_consumed_twice():
    head = "def nadaraya_watson(q, K, V):\n    kappa = (torch.exp(k @ q / math.sqrt(q.shape[-1])) for k in K)\n"
    tail = "    return (w[:, None] * V).sum(0) / w.sum()\n"
    branches = "    if V.dim() == 2:\n        w = torch.stack(list(kappa))\n    else:\n" \
               "        w = torch.stack([x for x in kappa])\n"
    said = PIPE_D.generator_consumed_twice(types.SimpleNamespace(cells=[head + branches + tail]), "nadaraya_watson")
    assert said is None, said
    twice = "    w = torch.stack(list(kappa))\n    n = sum(kappa)\n"
    said = PIPE_D.generator_consumed_twice(types.SimpleNamespace(cells=[head + twice + tail]), "nadaraya_watson")
    assert said is not None and said.startswith("kappa = "), said


def test_a_literal_pair_is_no_shape_unpacked_width_first(grader):
    cell = ("q_shape, k_shape, v_shape = (4, 10, 64), (4, 10, 64), (4, 10, 128)\nB = q_shape[0]\nd_k, T = 64, 64\n"
            "d_v = v_shape[-1]\nweights_shape = (B, T, T)\nout_shape = (B, T, d_v)\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"weights_shape": cell}, "rt134_literal_pair")
    keys = {k for q, _t, k, _m in outcome.failed if q == "q1"}
    assert keys == {"weights_sized_by_features", "output_as_features_product"}, outcome.explain()


def test_many_iterators_before_a_count_are_read_in_linear_time():
    lines = "".join(f"g{i} = iter(())\n" for i in range(4000))
    cell = "T, D = 1024, 64\n" + lines + "attn_entries = T * T + 7\n"
    start = time.process_time()
    SDPA_D.name_iterator_read_twice(1024 * 1024 + 7, "attn_entries", types.SimpleNamespace(cells=[cell]))
    spent = time.process_time() - start
    assert spent < 5.0, spent       # 53 s before


def test_a_long_answer_over_a_used_iterator_is_no_recursion_error(grader):
    cell = ("import functools, operator\nT, D = 1024, 64\naxes = map(int, (T, T))\nprint(*axes)\n"
            "attn_entries = math.prod(axes)" + " + 0" * 1500 + "\nscore_madds = T * T * D\ncost_ratio = 4\n")
    outcome = grade_cells(grader, "sdpa-from-scratch", {"attn_entries": cell}, "rt134_deep_iter")
    said = [m for q, t, _k, m in outcome.failed if q == "q8" and t == "test_attn_entries"]
    assert said and all("RecursionError" not in m for m in said), outcome.explain()
    short = cell.replace(" + 0" * 1500, " + 0" * 10)
    outcome = grade_cells(grader, "sdpa-from-scratch", {"attn_entries": short}, "rt134_short_iter")
    assert {k for q, t, k, _m in outcome.failed if t == "test_attn_entries"} == {"iterator_read_twice"}, \
        outcome.explain()


def test_a_zip_inside_an_assert_is_no_row_loop(grader):
    cell = '''
def attention(Q, K, V, d_k):
    assert all(q.shape == k.shape for q, k in zip(Q, K)), 'widths differ'
    rows = [torch.softmax(K @ Q[i] / math.sqrt(d_k), dim=-1) for i in range(len(K))]
    weights = torch.stack(rows)
    return weights @ V, weights
'''
    outcome = grade_cells(grader, "scaled-attention", {"attention": cell}, "rt134_zip_assert")
    keys = [k for q, _t, k, _m in outcome.failed if q == "q1"]
    assert keys and "zip_stops_at_shorter" not in keys, outcome.explain()


def test_the_def_names_cache_keeps_no_cell_text():
    import gc
    import tracemalloc

    from autograder.grading import source_checks
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(260):
            source_checks.last_function_def([f"# def attention {i}\n" + "x = 1\n" * 2_000], "attention")
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 2**20, kept       # 256 cells of 12 KB, 3 MB, before
