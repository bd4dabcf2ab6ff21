"""Red-team round 140: naming round 78's new reads (509c14f) attacked as a student and as a class. Repros in /tmp/rt140/
(h.py ROOT SLUG CELLS... grades cells put into full_marks; /tmp/rt140-base is 509c14f).

- **Two different seeds, or a helper that seeds once, made Q @ Q^T "reseeded each draw" (sdpa-from-scratch q2).**
  _reseeded_draws took any manual_seed before Q and before K, and any def whose body calls manual_seed anywhere, for
  a stream restarted before each draw: `torch.manual_seed(0); Q = torch.randn(..); torch.manual_seed(1); K = ...`,
  a helper `draw(*shape, seed=0)` that seeds with its argument (K drawn with seed=1), and a helper that seeds once
  (`if not _seeded: torch.manual_seed(0)`) all draw a K that is not Q, and beside `Q @ Q.transpose(-2, -1)` (the
  real mistake) q2 said reseeded_each_draw ("K is the same tensor as Q": it is not; s_seed_two.py,
  s_seed_helper.py, s_seed_once.py; so would `manual_seed(next(counter))` before each, or `SEED = 1` between two
  `manual_seed(SEED)`: s_seed_counter.py, s_seed_rebound.py; and one seed before `Q, K, V = torch.randn(..),
  torch.randn(..), torch.randn(..)` (only Q restarts the stream: s_seed_tuple.py), or a seed and a new K in a demo
  after the answer (s_seed_later_cell_demo.py)). Q and K must now be drawn after the same seed (the
  arguments' dump, with no call in it and no name the cells bind twice; one seed serves one draw, also in a tuple), a
  helper's seed a statement of its own body (not under if / for / try) reading none of its parameters or locals, and
  only the last draws of Q and K before the answer's assignment are read: keys_are_queries.
- **A chain on Python ints made another crash "a chained comparison on tensors" (attention-pipeline q09).**
  chained_compare_crash took any chained comparison in the def for the cause of an ambiguous-truth crash:
  `W[i, j] = float(0 <= j <= i)` in loops over range(T) (ints: right) beside `W / max(W.sum(dim=-1, keepdim=True),
  1)` (the builtin max that asked the truth) was told chained_comparison_on_tensors (p_chain_int_max.py). Where the
  traceback shows the def's line that raised, a chain must be on that line: the raw crash.
- **A draft before a long cell was read for the def that ran (attention-pipeline q09, _last_def_or_lambda).** The
  search for the last def skipped cells over 20,000 characters and went on to an earlier one: the final
  prefix_average_matrix in a cell with long notes (its crash a builtin max) and a draft in an earlier cell with
  `0 <= i[None, :] <= i[:, None]` was told chained_comparison_on_tensors, quoting the draft (p_stale_final.py with
  p_stale_draft_nw.py, via h2.py). A long cell that names the function ends the search with None: the raw crash (the
  same read serves entropy_selection_flattens and raise_if_int_pattern_inverted). So did a final def under `if True:`
  (a top-level statement that binds the name other than a def or an assignment was not seen as a binding), with the
  draft's chain on the very line of the crash (p_if_final.py with p_if_draft_nw.py): any top-level binding (a def or
  class under if / try / with / for, an import, a for or with target) now ends the search (_binds_at_top).
- **A letter's probe read k^3 times (scaled-attention q5/q6/q7).** _probes_graded_function followed every use of a
  name into its binding (a walk of the whole cell per use) three deep: `q5_answer = ('A', 'Z')[(a + a + ... ) < 0]`
  with a = b + b + ..., b = c + c + ... (k uses each) was 33 s of the grader's CPU at k = 40 and over the 30 s guard
  at k = 80 (the test failed with "spent over 30 s"; s_probe_blow40.py, s_probe_blow80.py). The cell's bindings are
  read once and each name followed once per depth: 0.2 s, the same key.
- **The flattened-entropy read spent over the 30 s guard (attention-pipeline q10).** entropy_selection_flattens
  read, for each log call, every node it reaches, and each x[m] on the way read m again: 700 `torch.log(y)` over
  `y = z[m] + ...` (1,000 of them) with `m = a & a & ...` (300), in a branch that never runs, were 68 s of grader CPU
  and both q10 tests failed with "spent over 30 s" (p_select_blow.py, 18,862 characters). Each slice is read once
  and the whole reading has 200,000 steps; past them, no evidence: 2.8 s.

Held (tried, no change): right notebooks keep full marks (the new reads run only after a failure; a right finite bias
`scores + (~mask) * -1e9` with the empty rows zeroed is 35/35, d_finite_bias_right.py, and the reversed one is still
inverted_mask); sdpa name_caret_for_power (only the last answer cell, folds bit-bounded by _const_eval; a comment with
ESC and <script> inside the quoted assignment comes back as \x1b escapes, d_caret_inject.py); _reseeded_draws' walk
(90 nested defs that each seed, 45 KB: 1.0 s, under RESEED_NODES_MAX); pipeline entropy_selection_flattens' bindings
read flow-insensitively (`p = p[p > 0]` after a flattened sum): entropy_summed_over_queries is said first
(p_flat_later_select.py). Left as is: a helper that seeds with a parameter's default (`manual_seed(seed)`, seed=0,
called without it for both) is no longer read as reseeding (keys_are_queries, also true: K is Q there); a lambda's
frame is not in the traceback's notebook frames, so a one-liner's chain is read as before.
"""
from __future__ import annotations

import time

import pytest

from tests.heldout.harness import grade_cells


def _keys(grader, slug: str, cells: dict[str, str], name: str) -> dict[str, set[str]]:
    """question -> the keys its failed tests gave."""
    outcome = grade_cells(grader, slug, cells, name)
    found: dict[str, set[str]] = {}
    for q, _t, k, _m in outcome.failed:
        found.setdefault(q, set()).add(str(k))
    return found


# --- sdpa-from-scratch q2: K drawn after another seed, or by a helper that does not restart the stream ------------

_QQ = ("d_k = Q.shape[-1]\nraw_scores = Q @ Q.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n"
       "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\nscale_divisor = math.sqrt(64)\n")
NOT_RESEEDED = {
    "two_seeds": "torch.manual_seed(0)\nQ = torch.randn(2, 5, 8)\ntorch.manual_seed(1)\nK = torch.randn(2, 5, 8)\n"
                 "V = torch.randn(2, 5, 8)\n",
    "helper_seed_argument": "def draw(*shape, seed=0):\n    torch.manual_seed(seed)\n    return torch.randn(*shape)\n\n\n"
                            "Q = draw(2, 5, 8)\nK = draw(2, 5, 8, seed=1)\nV = draw(2, 5, 8, seed=2)\n",
    "seed_from_a_counter": "import itertools\n_seeds = itertools.count()\ntorch.manual_seed(next(_seeds))\n"
                           "Q = torch.randn(2, 5, 8)\ntorch.manual_seed(next(_seeds))\nK = torch.randn(2, 5, 8)\n"
                           "V = torch.randn(2, 5, 8)\n",
    "seed_name_rebound": "SEED = 0\ntorch.manual_seed(SEED)\nQ = torch.randn(2, 5, 8)\nSEED = 1\n"
                         "torch.manual_seed(SEED)\nK = torch.randn(2, 5, 8)\nV = torch.randn(2, 5, 8)\n",
    "one_seed_then_a_tuple": "torch.manual_seed(0)\n"
                             "Q, K, V = torch.randn(2, 5, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8)\n",
    "helper_seed_by_position": "def draw(shape, seed=0):\n    torch.manual_seed(seed)\n    return torch.randn(*shape)\n\n\n"
                               "Q = draw((2, 5, 8))\nK = draw((2, 5, 8), 1)\nV = draw((2, 5, 8), 2)\n",
    "helper_seeds_once": "_seeded = False\n\n\ndef draw(*shape):\n    global _seeded\n    if not _seeded:\n"
                         "        torch.manual_seed(0)\n        _seeded = True\n    return torch.randn(*shape)\n\n\n"
                         "Q = draw(2, 5, 8)\nK = draw(2, 5, 8)\nV = draw(2, 5, 8)\n",
}


@pytest.mark.parametrize("name", sorted(NOT_RESEEDED))
def test_keys_drawn_apart_from_the_queries_are_not_reseeded(grader, name):
    keys = _keys(grader, "sdpa-from-scratch", {"raw_score_var": NOT_RESEEDED[name] + _QQ}, f"rt140_{name}")
    assert keys.get("q2") == {"keys_are_queries"}, keys


def test_a_seed_and_a_draw_after_the_answer_are_not_read(grader):
    cell = _QQ + "torch.manual_seed(0)\nK = torch.randn(2, 4, 9, 16)\n"    # a demo after the answer, K reused
    keys = _keys(grader, "sdpa-from-scratch", {"raw_score_var": cell}, "rt140_seed_after")
    assert keys.get("q2") == {"keys_are_queries"}, keys


def test_a_helper_that_seeds_on_every_call_is_still_reseeded(grader):
    cell = ("def draw(*shape):\n    torch.manual_seed(0)\n    return torch.randn(*shape)\n\n\n"
            "Q = draw(2, 5, 8)\nK = draw(2, 5, 8)\nV = draw(2, 5, 8)\n"
            "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\nscale_divisor = math.sqrt(64)\n")
    keys = _keys(grader, "sdpa-from-scratch", {"raw_score_var": cell}, "rt140_reseeds")
    assert keys.get("q2") == {"reseeded_each_draw"}, keys


@pytest.mark.parametrize("helper", [
    "def draw(*shape, seed=0):\n    torch.manual_seed(seed)\n    return torch.randn(*shape)\n",
    "def draw(*shape, gen=None, seed=0):\n    torch.random.manual_seed(seed)\n    return torch.randn(*shape)\n",
])
def test_a_helper_seeded_by_its_default_on_every_call_is_still_reseeded(grader, helper):
    # found after round 140: its first fix read any parameter in the seed as "another seed per call", so blind78's
    # `def draw(*shape, seed=0): torch.manual_seed(seed)`, called without seed for Q, K and V, lost its name; a
    # parameter the call does not pass is its default (a call that passes it: helper_seed_argument, _by_position)
    cell = (helper + "\n\nQ = draw(2, 5, 8)\nK = draw(2, 5, 8)\nV = draw(2, 5, 8)\n"
            "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\nscale_divisor = math.sqrt(64)\n")
    keys = _keys(grader, "sdpa-from-scratch", {"raw_score_var": cell}, "rt140_reseeds_default")
    assert keys.get("q2") == {"reseeded_each_draw"}, keys


@pytest.mark.parametrize("helper", [
    "SEED = 0\n\n\ndef draw(*shape, seed=SEED):\n    torch.manual_seed(seed)\n    return torch.randn(*shape)\n\n\nSEED = 1\n",
    "import itertools\n_c = itertools.count()\n\n\ndef draw(*shape, seed=next(_c)):\n    torch.manual_seed(seed)\n"
    "    return torch.randn(*shape)\n",
])
def test_a_default_read_from_a_name_rebound_later_is_one_seed(grader, helper):
    # the last review's item: a default is evaluated once, when the def runs, so `seed=SEED` with SEED rebound after
    # the def (or `seed=next(c)`) seeds every call alike: K is Q again, and the rebound name must not hide it
    cell = (helper + "\n\nQ = draw(2, 5, 8)\nK = draw(2, 5, 8)\nV = draw(2, 5, 8)\n"
            "d_k = Q.shape[-1]\nraw_scores = Q @ K.transpose(-2, -1)\nraw_score_var = raw_scores.var().item()\n"
            "scaled_score_var = (raw_scores / math.sqrt(d_k)).var().item()\nscale_divisor = math.sqrt(64)\n")
    keys = _keys(grader, "sdpa-from-scratch", {"raw_score_var": cell}, "rt140_reseeds_rebound_default")
    assert keys.get("q2") == {"reseeded_each_draw"}, keys


# --- attention-pipeline q09: a chain on ints, the crash elsewhere ---------------------------------------------------

def test_a_chain_on_ints_is_not_the_crash_of_another_line(grader):
    cell = ("def prefix_average_matrix(T):\n    W = torch.zeros(T, T, dtype=torch.float64)\n    for i in range(T):\n"
            "        for j in range(T):\n            W[i, j] = float(0 <= j <= i)\n"
            "    return W / max(W.sum(dim=-1, keepdim=True), 1)\n")
    keys = _keys(grader, "attention-pipeline", {"prefix_average_matrix": cell}, "rt140_chain_ints")
    assert "chained_comparison_on_tensors" not in keys.get("q09", set()), keys
    assert "q09" in keys, keys


def test_a_chain_on_tensors_that_raised_is_still_named(grader):
    cell = ("def prefix_average_matrix(T):\n    i = torch.arange(T)\n    j = torch.arange(T)\n"
            "    W = (0 <= j[None, :] <= i[:, None]).double()\n    return W / W.sum(dim=-1, keepdim=True)\n")
    keys = _keys(grader, "attention-pipeline", {"prefix_average_matrix": cell}, "rt140_chain_tensors")
    assert keys.get("q09") == {"chained_comparison_on_tensors"}, keys


def test_a_draft_before_a_long_cell_is_not_read_for_the_crash(grader):
    final = ("def prefix_average_matrix(T):\n    W = torch.tril(torch.ones(T, T, dtype=torch.float64))\n"
             "    return W / max(W.sum(dim=-1, keepdim=True), 1)\n" + "# notes on prefix averages ........\n" * 700)
    draft = ("def prefix_average_matrix(T):\n    i = torch.arange(T)\n    W = (0 <= i[None, :] <= i[:, None]).double()\n"
             "    return W / W.sum(dim=-1, keepdim=True)\n\n\n")
    nadaraya = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))\n"
                "    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()\n")
    assert len(final) > 20_000
    # the final def first: the draft's cell (nadaraya_watson's, earlier in the notebook) then defines it too
    keys = _keys(grader, "attention-pipeline", {"prefix_average_matrix": final, "nadaraya_watson": draft + nadaraya},
                 "rt140_stale_draft")
    assert "chained_comparison_on_tensors" not in keys.get("q09", set()), keys
    assert "q09" in keys and "q08" not in keys, keys


def test_a_draft_before_a_def_under_if_is_not_read_for_the_crash(grader):
    final = ("if True:   # the version after the review\n    def prefix_average_matrix(T):\n"
             "        W = torch.tril(torch.ones(T, T, dtype=torch.float64))\n"
             "        return W / max(W.sum(dim=-1, keepdim=True), 1)\n")
    draft = ("def prefix_average_matrix(T):\n    i = torch.arange(T)\n    j = i\n"
             "    W = (0 <= i[None, :] <= j[:, None]).double()\n    return W / W.sum(dim=-1, keepdim=True)\n\n\n")
    nadaraya = ("def nadaraya_watson(q, K, V):\n    kappa = torch.exp(K @ q / math.sqrt(q.shape[-1]))\n"
                "    return (kappa[:, None] * V).sum(dim=0) / kappa.sum()\n")
    keys = _keys(grader, "attention-pipeline", {"prefix_average_matrix": final, "nadaraya_watson": draft + nadaraya},
                 "rt140_if_draft")
    assert "chained_comparison_on_tensors" not in keys.get("q09", set()), keys
    assert "q09" in keys and "q08" not in keys, keys


# --- CPU: scaled-attention's probe read, attention-pipeline's selection read -----------------------------------------

def test_a_letters_probe_is_read_in_bounded_time(grader):
    k = 80
    cell = ("c = 1\nb = " + " + ".join(["c"] * k) + "\na = " + " + ".join(["b"] * k)
            + "\nq5_answer = ('A', 'Z')[(" + " + ".join(["a"] * k) + ") < 0]\n")
    t = time.process_time()
    keys = _keys(grader, "scaled-attention", {"q5_answer": cell}, "rt140_probe_blow")
    assert time.process_time() - t < 10, time.process_time() - t
    assert keys.get("q5") == {"answer_computed_wrong_choice"}, keys


def test_the_selection_read_is_bounded(grader):
    body = ("def row_entropy_bits(A):\n    lg = getattr(torch, 'log2')\n    p = A[A > 0]\n    if p.numel() < 0:\n"
            "        m = " + " & ".join(["a"] * 300) + "\n        y = " + " + ".join(["z[m]"] * 1000)
            + "\n        p = " + " + ".join(["torch.log(y)"] * 700) + "\n    return -(p * lg(p)).sum(dim=-1)\n\n\n"
            "def effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n")
    t = time.process_time()
    outcome = grade_cells(grader, "attention-pipeline", {"row_entropy_bits": body}, "rt140_select_blow")
    assert time.process_time() - t < 15, time.process_time() - t
    assert not any("spent over" in m for _q, _t, _k, m in outcome.failed), outcome.failed
