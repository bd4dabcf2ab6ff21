"""Two exact messages given their keys after blind49 (my own variants, not blind49's cells): a guard inside the
entropy's log large enough to show (scaled-attention, entropy_guard_too_large, named from the replay
-sum p log(p + eps) on the same logits), and a right q8 count held in a tensor or a NumPy int (sdpa-from-scratch,
returns_tensor_not_number). A tiny guard and plain ints keep full marks."""
from __future__ import annotations

import pytest

from tests.heldout.harness import grade_cells

_TABLE = '''

def entropy_table(dims=(4, 16, 64, 256), seed=0):
    results = []
    for d in dims:
        torch.manual_seed(seed)
        q = torch.randn(1, d); k = torch.randn(5, d)
        raw = (q @ k.T)[0]
        scaled = raw / d**0.5
        results.append({"d": d, "raw_std": raw.std().item(), "scaled_std": scaled.std().item(),
                        "H_raw": softmax_entropy(raw).item(), "H_scaled": softmax_entropy(scaled).item()})
    return results
'''


def _entropy(body: str) -> dict[str, str]:
    return {"softmax_entropy": "def softmax_entropy(logits):\n" + body + _TABLE}


GUARDED = {
    "guard_1e_3": _entropy("    p = torch.softmax(logits, -1)\n    return -(p * torch.log(p + 1e-3)).sum(-1)\n"),
    "guard_1e_5_log_softmax_free": _entropy("    p = F.softmax(logits, dim=-1)\n"
                                            "    return torch.sum(-p * (p + 0.00001).log(), dim=-1)\n"),
}
TINY = _entropy("    p = torch.softmax(logits, -1)\n    return -(p * torch.log(p + 1e-12)).sum(-1)\n")

COUNTS = {      # cell -> the key (a NumPy int was named before, by its own key)
    "numpy_int_count": ("import numpy as np\nattn_entries = np.int64(1024) ** 2\nscore_madds = 1024 * 1024 * 64\n"
                        "cost_ratio = 4\n", "numpy_scalar_answer"),
    "tensor_count": ("attn_entries = 1024 ** 2\nscore_madds = torch.tensor(1024 * 1024 * 64)\ncost_ratio = 4\n",
                     "returns_tensor_not_number"),
    "tensor_entries": ("attn_entries = torch.tensor([1024]).pow(2).squeeze()\nscore_madds = 1024 * 1024 * 64\n"
                       "cost_ratio = 4\n", "returns_tensor_not_number"),
}


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_a_large_guard_in_the_log_is_named(grader, name):
    outcome = grade_cells(grader, "scaled-attention", GUARDED[name], f"round49_{name}")
    keys = {k for _q, _t, k, _m in outcome.failed}
    assert outcome.score < outcome.max_score and keys == {"entropy_guard_too_large"}, outcome.explain()


def test_a_tiny_guard_keeps_full_marks(grader):
    outcome = grade_cells(grader, "scaled-attention", TINY, "round49_tiny_guard")
    assert outcome.score == outcome.max_score, outcome.explain()


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_a_right_count_in_a_tensor_or_numpy_int_is_named(grader, name):
    cell, key = COUNTS[name]
    outcome = grade_cells(grader, "sdpa-from-scratch", {"attn_entries": cell}, f"round49_{name}")
    keys = {k for _q, _t, k, _m in outcome.failed}
    assert outcome.score == outcome.max_score - 1 and keys == {key}, outcome.explain()
