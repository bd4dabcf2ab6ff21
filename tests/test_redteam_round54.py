"""Red-team round 54 (each test fails before its gap is closed).

An int of more than 4300 digits kills the worker (the protocol's reply, not the student's code): `encode_value`
passes any Python int through as is, and `frame_bytes`' json.dumps then raises ValueError ("Exceeds the limit (4300
digits) for integer string conversion"), which is not an EncodeError, so the worker exits instead of replying. A q8
cell with one plausible slip, `score_madds = (T * d_k) ** T` (T * T * d_k meant: a 4933-digit number), costs 4 points,
not 1: q6 test_weights3, q8 test_attn_entries and test_cost_ratio are right and fail with "the sandboxed worker
stopped: the worker exited" (the names are fetched ahead, together), and test_score_madds never reaches the
"N-digit number, far too large" message written for this very case (/tmp/rt54/bigint_q8.ipynb: 31 / 35).
"""
from __future__ import annotations

import nbformat

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples" / "submissions"

BIG_Q8 = ("T, d_k = 1024, 64\nattn_entries = T * T\nscore_madds = (T * d_k) ** T   # meant T * T * d_k\n"
          "cost_ratio = 4\n")


def test_an_int_past_json_digit_limit_does_not_kill_the_reply():
    from autograder.sandbox import protocol
    value = (1024 * 64) ** 1024
    try:
        tree = protocol.encode_value(value)
    except protocol.EncodeError:
        return                                           # refused by name: the worker can say so
    protocol.frame_bytes({"kind": "value", "value": tree})   # must not raise ValueError (the worker dies on it)


def test_a_huge_int_answer_costs_only_its_own_test(tmp_path, grader):
    nb = nbformat.read(EXAMPLES / "sdpa-from-scratch" / "full_marks.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith("attn_entries"))
    cell.source = BIG_Q8
    path = tmp_path / "bigint_q8.ipynb"
    nbformat.write(nb, path)
    r = grader.grade(path, "sdpa-from-scratch", seed=54)
    lost = {f"{t.question}:{t.name}": (t.message or "")[:120] for t in r.tests if t.score < t.max_score}
    assert set(lost) == {"q8:test_score_madds"}, (
        f"one 4933-digit score_madds (`(T * d_k) ** T`) lost {sorted(lost)} ({r.score} / {r.max_score}): {lost}")
    assert "worker" not in lost["q8:test_score_madds"], lost


# --- scores that depend on the seed --------------------------------------------------------------------------
# Held-out blind47 q5_rows_with_a_single_key_count_as_empty (`has_key = mask.sum(-1, keepdim=True) > 1`: a row with
# exactly one allowed key is zeroed) is wrong on every seed, but how much it loses depends on the seed: over six
# seeds it scored 33, 32, 33, 32, 32, 32 / 35. test_causal_rectangular and test_float32_4d_random_mask always catch
# it; test_noncontiguous_inputs (2 of 6 seeds), test_bfloat16 (1 of 6) and test_gradients_float64 (1 of 6) only when
# diag.random_mask happens to leave some row exactly one key. Two classmates with the same code get different grades.
SINGLE_KEY_ROWS_EMPTY = '''def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = stable_softmax(scores, dim=-1)
        has_key = mask.sum(dim=-1, keepdim=True) > 1          # rows that can see some key
        weights = torch.where(has_key, weights, torch.zeros_like(weights))
    else:
        weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, V)
'''


def test_a_wrong_notebook_loses_the_same_points_on_every_seed(grader):
    from tests.heldout.harness import grade_cells
    cells = {"scaled_dot_product_attention": SINGLE_KEY_ROWS_EMPTY}
    got = {}
    for seed in (9034143993694552442, 4048485480024621669):
        o = grade_cells(grader, "sdpa-from-scratch", cells, "single_key_rows_empty", seed=seed)
        got[seed] = (o.score, sorted(f"{q}:{t}" for q, t, _, _ in o.failed))
    assert len({score for score, _ in got.values()}) == 1, (
        f"the same wrong scaled_dot_product_attention (rows with one allowed key zeroed) scored differently by "
        f"seed: {got}; every mask-taking q5 case should hold a row with exactly one allowed key")
