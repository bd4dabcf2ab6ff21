"""The scan after naming round 88 showed three of its replays equal, on earlier sets' inputs, to an older slip's
(a36c677, bba1ba8). Each is mended by leaving the replay out where the two agree or by a source gate; these are
spellings of my own of the older slips, which must not be told the round-88 key:
- sdpa: empty rows read off key 0 alone (`mask.narrow(-1, 0, 1)`) is not `has_key_flag_gathered_wrong_axis`;
- attention-pipeline: each weight times the log of its transpose's entry (`A * logs.mT`, causal rows keep only the
  diagonal term) writes into no slots, so it is not `entropy_terms_overwritten`;
- scaled-attention: `p * log(1/p)` on a saturated row (1/0 = inf, 0 * inf = NaN) reads no minimum, so it is not
  `entropy_shift_by_row_min`.
"""
from __future__ import annotations

from autograder.grading.grader import Grader
from tests.heldout.harness import assert_lost, failed_keys, graded_as

_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    rows = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d)
        k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d ** 0.5
        rows.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                     "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return rows
'''


def test_rows_cleared_from_key_zero_alone_are_not_a_gathered_flag(grader: Grader) -> None:
    cell = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    s = Q @ K.transpose(-2, -1) / math.sqrt(Q.size(-1))\n"
            "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
            "    w = torch.softmax(s, dim=-1)\n"
            "    if mask is not None:\n"
            "        first_key = mask.narrow(-1, 0, 1)\n"
            "        w = torch.where(first_key, w, torch.zeros_like(w))\n"
            "    return w @ V\n")
    outcome = graded_as("sdpa-from-scratch", "scan88_key_zero")(grader, {"scaled_dot_product_attention": cell})
    assert_lost(outcome)
    assert "has_key_flag_gathered_wrong_axis" not in failed_keys(outcome), outcome.explain()


def test_log_of_the_transposed_weights_is_not_terms_overwritten(grader: Grader) -> None:
    cell = ("def row_entropy_bits(A):\n"
            "    logs = torch.where(A > 0, torch.log2(A), torch.zeros_like(A))\n"
            "    return -(A * logs.mT).sum(dim=-1)\n\n\n"
            "def effective_tokens(A):\n    return 2.0 ** row_entropy_bits(A)\n")
    outcome = graded_as("attention-pipeline", "scan88_transposed_log")(grader, {"row_entropy_bits": cell})
    assert_lost(outcome)
    assert "entropy_terms_overwritten" not in failed_keys(outcome), outcome.explain()


def test_reciprocal_of_an_underflowed_probability_is_not_a_min_shift(grader: Grader) -> None:
    cell = ("def softmax_entropy(logits):\n"
            "    p = torch.softmax(logits, dim=-1)\n"
            "    return (p * torch.log(1.0 / p)).sum(dim=-1)\n" + _TABLE)
    outcome = graded_as("scaled-attention", "scan88_reciprocal")(grader, {"softmax_entropy": cell})
    assert_lost(outcome)
    assert "entropy_shift_by_row_min" not in failed_keys(outcome), outcome.explain()
